"""Which harness wrote a path, and one entry point that imports any of them.

:func:`detect_format` looks at file and directory names, and at the top-level keys of a
``.json`` file (which it parses):

==============  ============================================================================
format          recognised by
==============  ============================================================================
``results``     a directory with the marker file :data:`RESULTS_MARKER`
                (``reliability_lab.json``): reliability_lab's own results directory, even
                when its ``header.json`` is damaged; written before the marker existed: one
                whose ``header.json`` has a ``fingerprint``
``letta-evals`` a directory with a ``suite.json`` (letta-evals ≥ 0.17), with
                ``run_k/results.jsonl``, or ``results.jsonl`` with a letta-evals
                ``header.json``
``hal``         a ``*_UPLOAD.json`` file, or a directory holding some
``inspect``     a ``.eval`` file, a ``.json`` whose object has ``eval`` and ``samples``, or a
                directory of ``.eval`` logs or with ``eval_set``'s ``eval-set.json`` /
                ``logs.json``
``tau2-bench``  a JSON object with ``simulations`` and ``info``, or a directory with
                ``results.json`` and ``simulations/``
``tau-bench``   a JSON list of records with ``task_id``, ``trial``, ``reward``, ``traj``
``table``       a ``.csv``, ``.parquet`` or ``.jsonl`` file of runs (:func:`from_records`)
==============  ============================================================================

:func:`load_runs` calls the matching importer; a ``results`` directory (ours) is read through
:mod:`reliability_lab.results` (:func:`~reliability_lab.results.load_results`), so one call
loads every format.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from reliability_lab.io._common import LogFormatError, missing
from reliability_lab.io.hal import UPLOAD_SUFFIX, load_hal_results
from reliability_lab.io.inspect_counts import load_inspect_checked
from reliability_lab.io.inspect_logs import INDEX_FILES
from reliability_lab.io.letta_evals import load_letta_evals
from reliability_lab.io.table import from_records
from reliability_lab.io.tau2_bench import load_tau2_bench
from reliability_lab.io.tau_bench import load_tau_bench
from reliability_lab.results.store import RESULTS_MARKER

__all__ = ["FORMATS", "RESULTS_MARKER", "detect_format", "load_runs"]


#: Formats :func:`detect_format` recognises (``results`` = reliability_lab's own directory).
FORMATS = ("results", "inspect", "tau2-bench", "hal", "letta-evals", "tau-bench", "table")
_TABLE_SUFFIXES = (".csv", ".parquet", ".jsonl")


def _json_head(path: Path) -> Any:
    """The parsed JSON of a file, or None when it is not JSON."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None


def _detect_json(path: Path) -> str | None:
    data = _json_head(path)
    if isinstance(data, Mapping):
        if "simulations" in data and "info" in data:
            return "tau2-bench"
        if "eval" in data and ("samples" in data or "version" in data):
            return "inspect"
        if "raw_eval_results" in data:
            return "hal"
    if isinstance(data, list) and data and isinstance(data[0], Mapping):
        if {"task_id", "trial", "reward", "traj"} <= set(data[0]):
            return "tau-bench"
    return None


def _ours(path: Path) -> bool:
    """Whether ``path`` is a reliability_lab results directory (marker, or an older header)."""
    if (path / RESULTS_MARKER).is_file():
        return True
    header_path = path / "header.json"
    if not header_path.is_file():
        return False
    header = _json_head(header_path)
    if header is not None:
        return isinstance(header, Mapping) and "fingerprint" in header
    try:  # a damaged header of ours still says what wrote it: read_header reports the damage
        text = header_path.read_bytes()[:1_000_000]
    except OSError:
        return False
    return b'"fingerprint"' in text and b'"suite_name"' in text


def _detect_dir(path: Path) -> str | None:
    if _ours(path):
        return "results"
    suite = _json_head(path / "suite.json") if (path / "suite.json").exists() else None
    if isinstance(suite, Mapping) and "config" in suite:
        return "letta-evals"
    if (path / "results.jsonl").exists():
        return "letta-evals"
    if any((d / "results.jsonl").exists() for d in path.glob("run_*")):
        return "letta-evals"
    if (path / "results.json").exists() and (path / "simulations").is_dir():
        return "tau2-bench"
    if next(path.rglob(f"*{UPLOAD_SUFFIX}"), None) is not None:
        return "hal"
    if next(path.rglob("*.eval"), None) is not None or any(
        (path / name).exists() for name in INDEX_FILES
    ):
        return "inspect"
    return None


def detect_format(path: str | os.PathLike[str]) -> str:
    """The format of a log file or directory (one of :data:`FORMATS`).

    Raises
    ------
    LogFormatError
        The path does not exist or matches no known format (the message lists them and
        suggests ``--format``).
    """
    target = Path(path)
    if not target.exists():
        raise missing(target)
    if target.is_dir():
        found = _detect_dir(target)
    elif target.name.endswith(UPLOAD_SUFFIX):
        found = "hal"
    elif target.suffix == ".eval":
        found = "inspect"
    elif target.suffix.lower() in _TABLE_SUFFIXES:
        found = "table"
    else:
        found = _detect_json(target) if target.suffix.lower() == ".json" else None
    if found is None:
        raise LogFormatError(
            f"{target}: cannot tell which harness wrote this; name the format with "
            f"--format (one of {', '.join(FORMATS)})"
        )
    return found


#: Formats whose files state their own totals, checked on import (``allow_partial=``).
_STATES_TOTALS = ("inspect", "tau2-bench", "hal", "letta-evals")

_LOADERS: Mapping[str, Callable[..., pd.DataFrame]] = {
    "inspect": load_inspect_checked,
    "tau2-bench": load_tau2_bench,
    "hal": load_hal_results,
    "letta-evals": load_letta_evals,
}


def load_runs(
    path: str | os.PathLike[str],
    *,
    format: str | None = None,
    agent: str | None = None,
    **options: Any,
) -> pd.DataFrame:
    """The run table of a log file or directory of any format, our results directories included.

    Parameters
    ----------
    path : str or PathLike
        The file or directory.
    format : str, optional
        One of :data:`FORMATS`; default :func:`detect_format`.
    agent : str, optional
        Agent label for every run (each importer's default otherwise; not for ``results``,
        whose records name their agents).
    **options
        Passed to the importer (e.g. ``scorer=`` for inspect logs, ``allow_partial=True`` to
        import logs that hold fewer results than they state; dropped for formats that state
        no totals).

    Raises
    ------
    LogFormatError
        Unknown or undetectable format, or a malformed file (naming file, record and field).
    """
    fmt = format or detect_format(path)
    if fmt not in _STATES_TOTALS:  # nothing to check against: the option has no effect
        options.pop("allow_partial", None)
    if fmt == "results":
        if agent is not None or options:
            given = ["agent"] * (agent is not None) + sorted(options)
            raise ValueError(
                f"{path}: a reliability_lab results directory names its agents and settings in "
                f"its records; {', '.join(given)} do not apply"
            )
        from reliability_lab.results.read import load_results

        return load_results(path)
    if fmt == "table":
        return from_records(path, agent=agent, **options)
    if fmt == "tau-bench":  # its files do not name the agent: default to the file name
        return load_tau_bench(path, agent=agent or Path(path).stem, **options)
    if fmt not in _LOADERS:
        raise ValueError(f"format: unknown {fmt!r}; valid: {', '.join(FORMATS)}")
    if agent is not None:
        options["agent"] = agent
    return _LOADERS[fmt](path, **options)
