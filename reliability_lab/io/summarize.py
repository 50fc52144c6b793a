"""Report on a log path: the library verb behind ``reliability-lab report PATH``.

:func:`summarize_logs` takes what the command takes — a results directory of ours, or any log
format :func:`~reliability_lab.io.load_runs` reads — and returns the
:class:`~reliability_lab.results.summary.ExperimentSummary` the command prints
(:func:`~reliability_lab.results.console.format_summary`); gates decide ``summary.passed``.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from reliability_lab.errors import ConfigError
from reliability_lab.io._common import import_gaps
from reliability_lab.io.formats import detect_format, load_runs

if TYPE_CHECKING:
    from reliability_lab.results.summary import ExperimentSummary

__all__ = ["reanalysed_settings", "summarize_logs"]


def _imported_only(path: str, options: dict[str, object]) -> None:
    given = [name for name, value in options.items() if value]
    if given:
        raise ConfigError(
            f"{path}: {', '.join(given)} apply to imported logs; a results directory re-analysed "
            "takes only --profile, --n-boot, --seed and --gate"
        )


def reanalysed_settings(
    path: str | os.PathLike[str],
    format: str | None,
    profile: str | None,
    n_boot: int | None,
    seed: int | None,
    gates: Sequence[str] | None,
) -> list[str]:
    """The settings a :func:`summarize_logs` call changes for a re-analysis of a results
    directory (empty for imported logs, or when none is given)."""
    if (format or detect_format(path)) != "results":
        return []
    # the config fields changed, in the order _reanalysis sets them (n_boot lives in report)
    given = {"profile": profile, "seed": seed, "gates": gates, "report": n_boot}
    return [name for name, value in given.items() if value is not None and value != []]


def _reanalysis(
    path: Path,
    profile: str | None,
    n_boot: int | None,
    seed: int | None,
    gates: Sequence[str] | None,
) -> dict[str, object]:
    """The config fields a re-analysis of a results directory changes."""
    from reliability_lab.results.store import read_header

    out: dict[str, object] = {}
    if profile:
        out["profile"] = profile
    if seed is not None:
        out["seed"] = seed
    if gates:
        out["gates"] = list(gates)
    if n_boot:
        stored = read_header(path).config.get("report") or {}
        out["report"] = {**stored, "n_boot": n_boot}
    return out


def summarize_logs(
    path: str | os.PathLike[str],
    *,
    format: str | None = None,
    agent: str | None = None,
    columns: Mapping[str, str] | None = None,
    scorer: str | None = None,
    pass_threshold: float | None = None,
    allow_partial: bool = False,
    gates: Sequence[str] | None = None,
    profile: str | None = None,
    n_boot: int | None = None,
    seed: int | None = None,
    sessions: bool = False,
    judge_model: str | None = None,
    output: str | os.PathLike[str] | None = None,
    write_summary: bool = False,
) -> ExperimentSummary:
    """The reliability summary of a log file or directory, with gates (docs/importers.md).

    Parameters
    ----------
    path : path-like
        A reliability_lab results directory, or a log of another harness.
    format : str, optional
        One of :data:`~reliability_lab.io.FORMATS`; default :func:`detect_format`.
    agent, scorer : str, optional
        Agent label of every run; the inspect scorer to read (inspect logs only).
    columns : mapping, optional
        A run table of your own (``.csv``, ``.parquet``, ``.jsonl``) only: run-table column →
        the table's column that holds it, e.g. ``{"task_id": "sample", "run": "epoch"}``
        (:func:`~reliability_lab.io.from_records`; the command line's ``--map``).
    pass_threshold : float, optional
        letta-evals, or a run table without a ``success`` column: the pass rule on the score
        (letta-evals: when the suite states none).
    allow_partial : bool
        Import a log that holds less than it states (each gap is warned about) instead of
        refusing it.
    gates : sequence of str, optional
        Gate texts such as ``"R >= 0.7"``.
    profile, n_boot, seed : optional
        Metric profile, bootstrap replicates and seed of the report.
    sessions : bool
        Score PandaProbe session metrics from the runs' conversations.
    judge_model : str, optional
        Judge model of the session metrics (with ``sessions``).
    output : path-like, optional
        Write a results directory of the imported runs there.
    write_summary : bool
        A results directory only: also rewrite its ``summary.json``, ``run_k/`` and
        ``aggregate_stats.json`` (by default the directory is only read).

    Returns
    -------
    ExperimentSummary
        The summary; ``passed`` says whether every gate holds.

    Raises
    ------
    ConfigError
        An option that does not apply to the input (named), a bad gate or setting.
    ColumnMappingError
        ``columns`` names an unknown run-table column or a column the table lacks.
    LogFormatError
        An unknown or malformed log.
    """
    from reliability_lab.results.imported import import_config
    from reliability_lab.results.summary import summarize_directory, summarize_imported

    where = os.fspath(path)
    fmt = format or detect_format(path)
    options = {
        "agent": agent,
        "map": columns,
        "scorer": scorer,
        "pass_threshold": pass_threshold,
        "allow_partial": allow_partial,
        "gate": gates,
        "profile": profile,
        "n_boot": n_boot,
        "seed": seed,
        "output": output,
        "sessions": sessions,
        "judge_model": judge_model,
    }
    if fmt == "results":
        reanalysis_options = ("profile", "n_boot", "seed", "gate")
        _imported_only(
            where,
            {
                f"--{k.replace('_', '-')}": v
                for k, v in options.items()
                if k not in reanalysis_options
            },
        )
        reanalysis = _reanalysis(Path(path), profile, n_boot, seed, gates)
        if reanalysis and write_summary:
            raise ConfigError(
                f"{where}: --write-summary rewrites the report of record from the run's own "
                "settings; a re-analysis (--profile, --n-boot, --seed, --gate) is only printed"
            )
        return summarize_directory(Path(path), write=write_summary, reanalysis=reanalysis)
    if write_summary:
        raise ConfigError(
            f"{where}: --write-summary applies to a results directory; imported logs are "
            "written with --output DIR"
        )
    if scorer and fmt != "inspect":
        raise ConfigError(f"--scorer applies to inspect logs, not to {fmt!r}")
    load_options: dict[str, object] = {"scorer": scorer} if scorer else {}
    if columns:
        if fmt != "table":
            raise ConfigError(
                f"--map applies to run tables (.csv, .parquet, .jsonl), not to {fmt!r}"
            )
        load_options["columns"] = dict(columns)
    if pass_threshold is not None:
        if fmt not in ("letta-evals", "table"):
            raise ConfigError(
                f"--pass-threshold applies to letta-evals and run tables, not to {fmt!r}"
            )
        load_options["pass_threshold"] = pass_threshold
    if allow_partial:
        load_options["allow_partial"] = True
    runs = load_runs(path, format=fmt, agent=agent, **load_options)
    for gap in import_gaps(runs):
        warnings.warn(f"partial import, missing: {gap}", stacklevel=2)
    session_settings = None
    if judge_model and not sessions:
        raise ConfigError("--judge-model applies with --sessions")
    if sessions:
        from reliability_lab.experiment.config import SessionSettings
        from reliability_lab.results.imported import score_sessions

        session_settings = (
            SessionSettings(judge_model=judge_model) if judge_model else SessionSettings()
        )
        runs = score_sessions(runs, session_settings, source=where)
    config = import_config(
        runs,
        format=fmt,
        path=where,
        gates=list(gates) if gates else None,
        profile=profile,
        seed=seed,
        report={"n_boot": n_boot} if n_boot else None,
        sessions=session_settings.model_dump(mode="json") if session_settings else None,
    )
    return summarize_imported(runs, config, output=None if output is None else Path(output))
