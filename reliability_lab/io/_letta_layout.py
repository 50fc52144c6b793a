"""Where a letta-evals ``--output`` directory keeps its results, and what it says it holds.

letta-evals has written two layouts (docs/importers.md, "letta-evals results directories"):

- **header layout** (letta-evals 0.2 – 0.16): ``header.json`` (suite name and config, with
  the gate), ``results.jsonl`` and ``summary.json`` (``metrics.total``: the results of the
  run), either directly in the directory or in each ``run_k/``; ``aggregate_stats.json``
  (``num_runs``) beside the ``run_k/`` directories.
- **suite layout** (letta-evals 0.17 and later): ``suite.json`` (``suite``, ``config`` with the
  gate — or, from 0.21, the reward — and ``samples``, the evaluated dataset), one
  ``<model>.jsonl`` per model for one run or ``<model>/run_k.jsonl`` and
  ``<model>/summary.json`` (``runs``) for several, and ``summary.json`` (``models``, each
  with ``model`` and ``n_total``). A model id's ``/``, ``\\`` and ``:`` become ``-`` in file
  names, as letta-evals writes them.

:func:`discover` finds the result files, the one suite configuration every run is scored
with, and what each file should hold; the importer compares that with what it reads.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reliability_lab.io._common import LogFormatError, fail, is_int, mapping, missing, read_json

__all__ = ["Layout", "LettaEvalsFormatError", "ResultFile", "discover", "file_segment"]

_RUN_DIR = re.compile(r"^run_(\d+)$")
_RUN_FILE = re.compile(r"^run_(\d+)\.jsonl$")


class LettaEvalsFormatError(LogFormatError):
    """A letta-evals results directory is malformed; the message names file, line and field."""


@dataclass(frozen=True)
class ResultFile:
    """One results file: which run (0-based) and model it holds, and what it should hold.

    ``expected_ids`` are the sample ids the suite evaluated (suite layout);
    ``expected_count`` the number of results a summary states (header layout), with
    ``count_source`` naming that summary.
    """

    path: Path
    run: int
    model: str | None = None
    expected_ids: tuple[str, ...] | None = None
    expected_count: int | None = None
    count_source: str = ""


@dataclass(frozen=True)
class Layout:
    """A letta-evals output directory: its files, the suite config and what is absent."""

    layout: str  # "header" (letta-evals ≤ 0.16) or "suite" (≥ 0.17)
    files: tuple[ResultFile, ...]
    config: Mapping[str, Any]
    config_source: str
    suite: str
    gaps: tuple[str, ...]


def file_segment(model: str) -> str:
    """The file name letta-evals gives a model id (``openai/gpt-4`` → ``openai-gpt-4``)."""
    return model.replace("/", "-").replace("\\", "-").replace(":", "-")


def _object(path: Path, error: type[LogFormatError]) -> Mapping[str, Any]:
    data = read_json(path, error)
    if not isinstance(data, Mapping):
        raise error(f"{path}: expected a JSON object, got {type(data).__name__}")
    return data


def _count(value: Any, source: str, field: str, error: type[LogFormatError]) -> int | None:
    if value is None:
        return None
    if is_int(value) and value >= 0:
        return int(value)
    raise fail(source, None, field, f"expected an int >= 0, got {value!r}", error=error)


def discover(path: Path, error: type[LogFormatError]) -> Layout:
    """The layout of a letta-evals output directory (see the module docstring).

    Raises
    ------
    FileNotFoundError
        ``path`` does not exist.
    LogFormatError
        (``error``) Not a directory, no results in either layout, a summary or suite file
        that is not what letta-evals writes, or runs whose headers disagree on the gate.
    """
    if not path.exists():
        raise missing(path)
    if not path.is_dir():
        raise error(f"{path}: not a directory (expected a letta-evals --output)")
    if (path / "suite.json").exists():
        return _suite_layout(path, error)
    return _header_layout(path, error)


def _header_layout(path: Path, error: type[LogFormatError]) -> Layout:
    runs = sorted(
        (int(m.group(1)) - 1, d)
        for d in path.iterdir()
        if d.is_dir() and (m := _RUN_DIR.match(d.name)) and int(m.group(1)) >= 1
    )
    if not runs and (path / "results.jsonl").exists():
        runs = [(0, path)]
    if not runs:
        raise error(f"{path}: neither suite.json, results.jsonl nor run_k/ directories found")
    gaps: list[str] = []
    files = [_header_run_file(run, d, path, gaps, error) for run, d in runs]
    config, source, suite = _one_header(path, [d for _, d in runs], error)
    stats = path / "aggregate_stats.json"
    if len(runs) > 1 or runs[0][1] != path:
        stated = _count(
            _object(stats, error).get("num_runs") if stats.exists() else None,
            str(stats),
            "num_runs",
            error,
        )
        present = {run for run, _ in runs}
        absent = [f"run_{k + 1}/" for k in range(stated or 0) if k not in present]
        if absent:
            gaps.append(f"{stats}: states {stated} runs; absent: {', '.join(absent)}")
    return Layout("header", tuple(files), config, source, suite, tuple(gaps))


def _header_run_file(
    run: int, directory: Path, root: Path, gaps: list[str], error: type[LogFormatError]
) -> ResultFile:
    results = directory / "results.jsonl"
    if not results.exists():
        raise missing(results)
    summary = directory / "summary.json"
    if not summary.exists():
        gaps.append(f"{summary}: missing — the run did not finish, its total is unknown")
        return ResultFile(results, run)
    metrics = mapping(_object(summary, error).get("metrics"))
    total = _count(metrics.get("total"), str(summary), "metrics.total", error)
    return ResultFile(results, run, expected_count=total, count_source=str(summary))


def _one_header(
    root: Path, directories: list[Path], error: type[LogFormatError]
) -> tuple[Mapping[str, Any], str, str]:
    """The suite config all runs share: every header found must agree on the gate."""
    found = [(d / "header.json") for d in directories if (d / "header.json").exists()]
    if not found:
        return {}, f"{root}: no header.json in the directory or its run_k/", root.name
    first = _object(found[0], error)
    config = mapping(first.get("config"))
    for other in found[1:]:
        if mapping(_object(other, error).get("config")).get("gate") != config.get("gate"):
            raise fail(
                str(other),
                None,
                "config.gate",
                f"differs from {found[0]}'s: the runs were not scored by one suite",
                error=error,
            )
    suite = str(first.get("suite") or first.get("suite_name") or root.name)
    return config, str(found[0]), suite


def _suite_layout(path: Path, error: type[LogFormatError]) -> Layout:
    suite_file = path / "suite.json"
    suite = _object(suite_file, error)
    config = suite.get("config")
    if not isinstance(config, Mapping):
        raise fail(
            str(suite_file), None, "config", f"expected an object, got {config!r}", error=error
        )
    ids = _sample_ids(suite.get("samples"), str(suite_file), error)
    summary_file = path / "summary.json"
    summary = _object(summary_file, error) if summary_file.exists() else {}
    stated = _stated_models(summary.get("models"), str(summary_file), error)
    models = list(stated) or _models_on_disk(path)
    gaps: list[str] = []
    files: list[ResultFile] = []
    for model in models:
        found = _model_files(path, model, ids, gaps, error)
        if not found:
            gaps.append(
                f"{summary_file}: model {model!r} has no results "
                f"({file_segment(model)}.jsonl or {file_segment(model)}/run_k.jsonl)"
            )
        files.extend(found)
    if not files:
        raise error(f"{path}: suite.json but no <model>.jsonl or <model>/run_k.jsonl results")
    if ids is None:  # a suite.json without samples: fall back on the summary's n_total
        files = [
            ResultFile(f.path, f.run, f.model, None, stated.get(f.model or ""), str(summary_file))
            for f in files
        ]
    name = str(suite.get("suite") or config.get("name") or path.name)
    return Layout("suite", tuple(files), config, str(suite_file), name, tuple(gaps))


def _sample_ids(samples: Any, source: str, error: type[LogFormatError]) -> tuple[str, ...] | None:
    if samples is None:
        return None
    if not isinstance(samples, list):
        raise fail(source, None, "samples", f"expected a list, got {samples!r}", error=error)
    ids = []
    for i, sample in enumerate(samples):
        sample_id = sample.get("id") if isinstance(sample, Mapping) else None
        if not (is_int(sample_id) or (isinstance(sample_id, str) and sample_id)):
            raise fail(
                source,
                f"sample {i}",
                "id",
                f"expected an int or str, got {sample_id!r}",
                error=error,
            )
        ids.append(str(sample_id))
    return tuple(ids)


def _stated_models(models: Any, source: str, error: type[LogFormatError]) -> dict[str, int | None]:
    """Model id → ``n_total`` (results per run) of ``summary.json``'s ``models``."""
    if models is None:
        return {}
    if not isinstance(models, list):
        raise fail(source, None, "models", f"expected a list, got {models!r}", error=error)
    out: dict[str, int | None] = {}
    for i, entry in enumerate(models):
        name = entry.get("model") if isinstance(entry, Mapping) else None
        if not isinstance(name, str) or not name:
            raise fail(
                source, f"models[{i}]", "model", f"expected a str, got {name!r}", error=error
            )
        out[name] = _count(entry.get("n_total"), source, f"models[{i}].n_total", error)
    return out


def _models_on_disk(path: Path) -> list[str]:
    """Model segments of the result files when there is no summary.json (an unfinished run)."""
    singles = [p.stem for p in path.glob("*.jsonl")]
    multis = [d.name for d in path.iterdir() if d.is_dir() and any(d.glob("run_*.jsonl"))]
    return sorted(set(singles) | set(multis))


def _model_files(
    path: Path,
    model: str,
    ids: tuple[str, ...] | None,
    gaps: list[str],
    error: type[LogFormatError],
) -> list[ResultFile]:
    segment = file_segment(model)
    directory = path / segment
    if not directory.is_dir():
        single = path / f"{segment}.jsonl"
        return [ResultFile(single, 0, model, ids)] if single.exists() else []
    runs = sorted(
        (int(m.group(1)), p)
        for p in directory.iterdir()
        if (m := _RUN_FILE.match(p.name)) and int(m.group(1)) >= 1
    )
    summary_file = directory / "summary.json"
    if summary_file.exists():
        stated = _object(summary_file, error).get("runs")
        numbers = (
            [r.get("run") for r in stated if isinstance(r, Mapping)]
            if isinstance(stated, list)
            else []
        )
        absent = [f"run_{k}.jsonl" for k in numbers if is_int(k) and k not in dict(runs)]
        if absent:
            gaps.append(f"{summary_file}: states runs {numbers}; absent: {', '.join(absent)}")
    return [ResultFile(p, k - 1, model, ids) for k, p in runs]
