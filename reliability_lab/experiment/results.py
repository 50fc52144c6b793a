"""Read a results directory back into the run table (docs/run_table.md)."""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from reliability_lab.errors import RunTableError
from reliability_lab.experiment.store import RESULTS_FILE, read_result_lines, record_key
from reliability_lab.perturbations import RUN_COLUMNS, run_columns
from reliability_lab.runs import RESOURCE_COLUMNS, RUN_TABLE_COLUMNS, validate_run_table
from reliability_lab.sessions.metrics import SESSION_METRICS

__all__ = [
    "EXTRA_COLUMNS",
    "RESULT_SCHEMA_VERSION",
    "load_results",
    "records_to_run_table",
]

#: Result-record schema version this reader understands.
RESULT_SCHEMA_VERSION = 1
#: Per-run fields kept as extra run-table columns (docs/run_table.md, "Extra columns").
EXTRA_COLUMNS = (
    "seed",
    "model",
    "simulated",
    "prompt_tokens",
    "completion_tokens",
    "confidence_error",
    "safety_checked",
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
    return validate_run_table(table, source=source)


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
    path = Path(directory)
    if path.is_dir():
        path = path / RESULTS_FILE
    if not path.exists():
        raise RunTableError(f"{path}: file not found (not a results directory?)")
    return records_to_run_table(read_result_lines(path, repair=False), source=str(path))
