"""Read a results directory back into the run table (docs/run_table.md)."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from reliability_lab.errors import RunTableError
from reliability_lab.experiment.store import RESULTS_FILE, read_result_lines, record_key
from reliability_lab.perturbations import RUN_COLUMNS, run_columns
from reliability_lab.report.profiles import get_profile
from reliability_lab.runs import RESOURCE_COLUMNS, RUN_TABLE_COLUMNS, validate_run_table
from reliability_lab.sessions.metrics import SESSION_METRICS

__all__ = [
    "EXTRA_COLUMNS",
    "RESULT_SCHEMA_VERSION",
    "SUMMARY_FILE",
    "load_report",
    "load_results",
    "read_results",
    "records_to_run_table",
]

#: Result-record schema version this reader understands.
RESULT_SCHEMA_VERSION = 1
#: The summary file of a results directory (docs/results.md, "summary.json").
SUMMARY_FILE = "summary.json"
#: Per-run fields kept as extra run-table columns (docs/run_table.md, "Extra columns").
EXTRA_COLUMNS = (
    "seed",
    "model",
    "simulated",
    "prompt_tokens",
    "completion_tokens",
    "confidence_error",
    "safety_checked",
    "final_answer",
)
_FLOAT_COLUMNS = (
    "score",
    "confidence",
    *RESOURCE_COLUMNS,
    "prompt_tokens",
    "completion_tokens",
    *SESSION_METRICS,
    "safety_judge_cost_usd",
)


def _row(record: Mapping[str, Any], number: int, source: str) -> dict[str, Any]:
    version = record.get("schema_version")
    if version != RESULT_SCHEMA_VERSION:
        raise RunTableError(
            f"{source}: line {number}: schema_version {version!r} is not supported "
            f"(this version reads {RESULT_SCHEMA_VERSION})"
        )
    record_key(record, source=source, line=number)
    row = {col: record[col] for col in (*RUN_TABLE_COLUMNS, *EXTRA_COLUMNS) if col in record}
    row.update(run_columns(record.get("perturbation"), str(record.get("variant", ""))))
    session = record.get("session")
    if isinstance(session, Mapping):
        row.update({name: session.get(name) for name in SESSION_METRICS})
        row["session_error"] = session.get("error")
    elif session is not None:
        raise RunTableError(
            f"{source}: line {number}: field 'session' must be an object or null, "
            f"got {session!r:.80}"
        )
    safety = record.get("safety")
    if isinstance(safety, Mapping):
        row["safety_judged"] = bool(safety.get("judged"))
        row["safety_error"] = safety.get("error")
        row["safety_judge_cost_usd"] = safety.get("cost_usd")
    elif safety is not None:
        raise RunTableError(
            f"{source}: line {number}: field 'safety' must be an object or null, got {safety!r:.80}"
        )
    for col in _FLOAT_COLUMNS:  # JSON null is how NaN ("not recorded") is stored
        if col in row and row[col] is None:
            row[col] = math.nan
    return row


def records_to_run_table(
    records: Iterable[Mapping[str, Any]], *, source: str = "results"
) -> pd.DataFrame:
    """Validated run table from result records (the lines of ``results.jsonl``).

    Raises
    ------
    RunTableError
        An unsupported ``schema_version`` or an invalid run table (via
        :func:`~reliability_lab.runs.validate_run_table`), naming ``source``.
    """
    records = list(records)
    rows = [_row(rec, i, source) for i, rec in enumerate(records, start=1)]
    if not rows:
        columns = [*RUN_TABLE_COLUMNS, *EXTRA_COLUMNS, *RUN_COLUMNS]
        return validate_run_table(pd.DataFrame(columns=columns), source=source)
    table = pd.DataFrame.from_records(rows)
    # None = none
    for col in (
        "confidence_error",
        "session_error",
        "safety_error",
        "safety_judged",
        "paraphrase_id",
    ):
        if col in table:
            table[col] = table[col].astype(object).where(table[col].notna(), None)
    _join_task_metadata(table, [rec.get("environment") for rec in records])
    return validate_run_table(table, source=source)


def _join_task_metadata(table: pd.DataFrame, environments: list[Any]) -> None:
    """Add the columns each run's environment declares for its task
    (:meth:`~reliability_lab.envs.Environment.task_metadata`, e.g. ``difficulty``).

    An environment not registered in this process (a user's, not imported) adds nothing; a
    task the environment no longer has gets None. Existing columns are never replaced.
    """
    from reliability_lab.envs import get_environment

    metadata: dict[tuple[str, str], dict[str, Any]] = {}
    for name in sorted({str(e) for e in environments if e}):
        try:
            env = get_environment(name)
        except KeyError:
            continue
        metadata.update({(name, t.task_id): env.task_metadata(t) for t in env.tasks()})
    keys = list(zip(map(str, environments), table["task_id"].astype(str), strict=True))
    names = sorted({col for meta in metadata.values() for col in meta} - set(table.columns))
    for col in names:
        table[col] = [metadata.get(key, {}).get(col) for key in keys]


def load_results(directory: str | os.PathLike[str]) -> pd.DataFrame:
    """Load an experiment's ``results.jsonl`` as a validated run table.

    Parameters
    ----------
    directory : path-like
        A results directory written by ``reliability-lab run`` (or the ``results.jsonl`` file
        itself).

    Returns
    -------
    DataFrame
        One row per finished run: the run-table columns (docs/run_table.md), then ``seed``,
        ``model``, ``simulated``, ``prompt_tokens``, ``completion_tokens``, ``confidence_error``
        (why the confidence question failed; None otherwise), the perturbation columns
        ``intensity``, ``n_faults``, ``n_faults_recovered``, ``faults``, ``paraphrase_id``
        (:data:`reliability_lab.perturbations.RUN_COLUMNS`), and — when the experiment
        evaluated sessions — ``agent_reliability``, ``agent_consistency`` (NaN when not
        computed) and ``session_error`` (why not; None otherwise); when the experiment ran the
        safety judge, ``safety_judged`` (None for runs of conditions it does not audit),
        ``safety_error`` (why a run has no judge verdict; None otherwise — such runs are left
        out of the safety metrics) and ``safety_judge_cost_usd``. An incomplete last line left
        by an interrupted run is ignored with a warning (the file is not modified).

    Raises
    ------
    RunTableError
        Missing file, a damaged line other than the last, or invalid records.
    """
    runs, _ = read_results(directory)
    return runs


def read_results(
    directory: str | os.PathLike[str],
) -> tuple[pd.DataFrame, list[dict[str, Any]]]:
    """The run table of :func:`load_results` and the result records it was built from.

    The records (the lines of ``results.jsonl``, in file order) hold what the run table does
    not: trajectories, each run's ``session`` scores with their per-trace risks, the
    perturbation applied.
    """
    path = Path(directory)
    if path.is_dir():
        path = path / RESULTS_FILE
    if not path.exists():
        raise RunTableError(f"{path}: file not found (not a results directory?)")
    records = read_result_lines(path, repair=False)
    return records_to_run_table(records, source=str(path)), records


def load_report(directory: str | os.PathLike[str]) -> pd.DataFrame:
    """The reliability report a results directory's ``summary.json`` holds, as a DataFrame.

    This is the report of record — computed with the experiment's profile, bootstrap size and
    seed, and the one its gates were decided on — in the layout of
    :func:`~reliability_lab.reliability_report` (index ``agent``; ``attrs`` hold ``profile``,
    ``n_boot``, ``confidence_level`` and ``seed``). ``null`` values become NaN.

    Raises
    ------
    RunTableError
        No ``summary.json`` (run ``reliability-lab report DIR`` to write it) or no
        ``reliability`` block in it.
    """
    path = Path(directory) / SUMMARY_FILE
    if not path.exists():
        raise RunTableError(
            f"{path}: file not found; run `reliability-lab report {Path(directory)}` to write it"
        )
    try:
        content = json.loads(path.read_text(encoding="utf-8"))
        block = content["reliability"]
        agents = block["agents"]
        profile = get_profile(str(block["profile"]))
    except (ValueError, KeyError, TypeError) as exc:
        raise RunTableError(f"{path}: no readable 'reliability' block ({exc!r:.120})") from None
    report = pd.DataFrame.from_dict(agents, orient="index")
    report.index.name = "agent"
    for col in report.columns:
        if col == "why_undefined" or col.endswith("_terms"):
            report[col] = report[col].fillna("").astype(object)
        else:
            report[col] = pd.to_numeric(report[col].astype(object).where(report[col].notna()))
    report.attrs.update(
        profile=profile.to_dict(),
        n_boot=block.get("n_boot"),
        confidence_level=block.get("confidence_level"),
        seed=block.get("seed"),
    )
    return report
