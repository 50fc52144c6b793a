"""Read a results directory back into the run table (docs/run_table.md)."""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from reliability_lab._lists import RecordsArray
from reliability_lab.errors import RunTableError
from reliability_lab.metrics.profiles import get_profile
from reliability_lab.metrics.session import SESSION_METRICS
from reliability_lab.perturbations import RUN_COLUMNS, run_columns
from reliability_lab.results._fast_read import NESTED, decode_columns
from reliability_lab.results.record_schema import (
    RESULT_SCHEMA_VERSION,
    SCALAR_FIELDS,
    first_wrong_typed,
    record_error,
)
from reliability_lab.results.store import RESULTS_FILE, read_result_lines, record_key
from reliability_lab.results.summary_record import SUMMARY_FILE, read_summary
from reliability_lab.runs import (
    KEY_COLUMNS,
    RESOURCE_COLUMNS,
    RUN_TABLE_COLUMNS,
    validate_run_table,
)

__all__ = [
    "EXTRA_COLUMNS",
    "RESULT_SCHEMA_VERSION",
    "SUMMARY_FILE",
    "check_outcomes",
    "load_report",
    "load_results",
    "read_results",
    "records_to_run_table",
]

#: Fields of a result record that stay in the records (its layout, where it ran, the raw reply).
_RECORD_ONLY = ("schema_version", "environment", "confidence_raw")
#: Columns an importer writes to results.jsonl that no experiment record has (docs/importers.md).
_IMPORTED = ("safety_checked",)
#: Per-run fields kept as extra run-table columns (docs/run_table.md, "Extra columns"): the
#: record model's scalar fields beyond the run table's, then the importers' own.
EXTRA_COLUMNS = (
    *(name for name in SCALAR_FIELDS if name not in RUN_TABLE_COLUMNS and name not in _RECORD_ONLY),
    *_IMPORTED,
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


_KEPT = (*RUN_TABLE_COLUMNS, *EXTRA_COLUMNS)


def _keys_plainly_valid(table: pd.DataFrame) -> bool:
    """Whether every row's run key is valid, checked per column (no per-record loop): agent
    and task_id non-empty strings, condition and variant strings, run an integer >= 0."""
    for col in ("agent", "task_id", "condition", "variant"):
        if col not in table:
            if col in ("agent", "task_id"):
                return False
            continue
        values = table[col].to_numpy(dtype=object, copy=True)
        if pd.api.types.infer_dtype(values, skipna=False) != "string":
            return False
        if col in ("agent", "task_id") and (values == "").any():
            return False
    run = table["run"] if "run" in table else None
    return run is not None and run.dtype.kind in "iu" and bool((run >= 0).all())


def _nested(record: Mapping[str, Any], number: int, source: str) -> dict[str, Any]:
    """The columns a record's ``perturbation``, ``session`` and ``safety`` objects give."""
    row = run_columns(record.get("perturbation"), str(record.get("variant", "")))
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
    return row


def _check_versions(records: list[Mapping[str, Any]], source: str) -> None:
    versions = [rec.get("schema_version") for rec in records]
    if versions.count(RESULT_SCHEMA_VERSION) == len(versions):
        return
    number, version = next(
        (i, v) for i, v in enumerate(versions, start=1) if v != RESULT_SCHEMA_VERSION
    )
    raise RunTableError(
        f"{source}: line {number}: schema_version {version!r} is not supported "
        f"(this version reads {RESULT_SCHEMA_VERSION})"
    )


def _columns(records: list[Mapping[str, Any]], source: str) -> pd.DataFrame:
    """The run-table and extra columns, column by column; the nested objects record by record
    only where a record has one."""
    keys = set().union(*records)
    table = pd.DataFrame.from_records(records, columns=[c for c in _KEPT if c in keys])
    nested = [
        (i, rec) for i, rec in enumerate(records) if any(rec.get(f) is not None for f in NESTED)
    ]
    return _completed(table, nested, source)


def _completed(
    table: pd.DataFrame, nested: Sequence[tuple[int, Mapping[str, Any]]], source: str
) -> pd.DataFrame:
    """``table`` with the perturbation columns, the columns of the ``nested`` records' objects
    (given with their row) and the float columns' nulls as NaN.

    A list column (``faults``) is stored flat (``reliability_lab._lists``): every run reads as
    its own list, and no list is made for a run without one."""
    lists: dict[str, list[Any]] = {}
    for col, value in run_columns(None, "").items():  # a run without a perturbation record
        if isinstance(value, list):
            lists[col] = [()] * len(table)  # an empty entry per run, filled in below
            table[col] = None  # the column's place; its values at the end
        else:
            table[col] = [value] * len(table)
    variant = table["variant"].fillna("").astype(str) if "variant" in table else None
    if variant is not None:
        intensity = {v: run_columns(None, v)["intensity"] for v in variant.unique()}
        table["intensity"] = variant.map(intensity).astype(object)
    if nested:
        extra = pd.DataFrame.from_records(
            [_nested(rec, i + 1, source) for i, rec in nested], index=[i for i, _ in nested]
        )
        for col in map(str, extra.columns):
            if col in lists:
                entries = lists[col]
                for row, value in zip(extra.index, extra[col], strict=True):
                    entries[row] = value
                continue
            if col not in table:
                table[col] = None
            table[col] = table[col].astype(object)
            table.loc[extra.index, col] = extra[col].astype(object)
    for col, entries in lists.items():
        table[col] = pd.Series(RecordsArray.from_lists(entries, name=col), index=table.index)
    for col in _FLOAT_COLUMNS:  # JSON null is how NaN ("not recorded") is stored
        if col in table and table[col].dtype == object:
            values = table[col].to_numpy(dtype=object, copy=True)
            values[pd.isna(values)] = math.nan
            table[col] = pd.Series(values, index=table.index).infer_objects()
    return table


def check_outcomes(
    records: Iterable[Mapping[str, Any]], thresholds: Mapping[str, float], *, source: str
) -> None:
    """Refuse records whose ``success`` contradicts their ``score`` and ``error``.

    An experiment's run succeeds exactly when it has no error and ``score >=`` its agent's
    ``pass_threshold`` (docs/results.md, "results.jsonl"); a record saying otherwise was
    edited or damaged, and its outcome cannot be trusted. Agents not in ``thresholds`` are
    not checked.

    Raises
    ------
    RunTableError
        ``<file>: line <n>: field 'success': true, but ...`` naming the contradiction.
    """
    for number, record in enumerate(records, start=1):
        threshold = thresholds.get(str(record.get("agent")))
        success = record.get("success")
        if threshold is None or not isinstance(success, bool):
            continue
        score, error = record.get("score"), record.get("error")
        if error:
            expected, why = False, "the run has an error"
        elif isinstance(score, int | float) and not isinstance(score, bool):
            expected = score >= threshold
            why = f"score {score!r} is {'at least' if expected else 'below'} the pass threshold"
            why += f" {threshold!r}"
        else:
            expected, why = False, "the run has no score"
        if success != expected:
            raise RunTableError(
                f"{source}: line {number}: field 'success': {str(success).lower()}, but {why}; "
                "the record is inconsistent (edited or damaged)"
            )


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
    records = records if isinstance(records, list) else list(records)
    if not records:
        columns = [*RUN_TABLE_COLUMNS, *EXTRA_COLUMNS, *RUN_COLUMNS]
        return validate_run_table(pd.DataFrame(columns=columns), source=source)
    _check_versions(records, source)
    table = _columns(records, source)
    if not _keys_plainly_valid(table):  # find the first bad record and name its line
        for i, rec in enumerate(records, start=1):
            record_key(rec, source=source, line=i)
    wrong = first_wrong_typed(table, skip=KEY_COLUMNS)
    if wrong is not None:  # the record model names what is wrong with that line's field
        row, field = wrong
        raise record_error(records[row], field, source=source, line=row + 1)
    return _finished(table, [rec.get("environment") for rec in records], source)


def _finished(table: pd.DataFrame, environments: list[Any], source: str) -> pd.DataFrame:
    """The run table of checked columns: nulls as None, task metadata joined, validated."""
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
    _join_task_metadata(table, environments)
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
    names = sorted({col for meta in metadata.values() for col in meta} - set(table.columns))
    if not names:
        return
    keys = list(zip(map(str, environments), table["task_id"].astype(str), strict=True))
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
    path = _results_path(directory)
    fast = decode_columns(path.read_bytes(), (*_KEPT, "schema_version"))
    if fast is not None:  # else a line needs the general reader (and its error messages)
        versions = fast.columns.pop("schema_version", None)
        table = pd.DataFrame(fast.columns)
        fast.columns.clear()  # the lists of values: the collector would walk them too
        current = versions is not None and bool(
            np.all(np.asarray(versions, dtype=object) == RESULT_SCHEMA_VERSION)
        )
        if current and _keys_plainly_valid(table):
            table = _completed(table, fast.nested, str(path))
            return _finished(table, fast.environments, str(path))
    return records_to_run_table(read_result_lines(path, repair=False), source=str(path))


def _results_path(directory: str | os.PathLike[str]) -> Path:
    """The ``results.jsonl`` of a results directory (or the file itself), which must exist."""
    path = Path(directory)
    if path.is_dir():
        path = path / RESULTS_FILE
    if not path.exists():
        raise RunTableError(f"{path}: file not found (not a results directory?)")
    return path


def read_results(
    directory: str | os.PathLike[str],
) -> tuple[pd.DataFrame, list[dict[str, Any]]]:
    """The run table of :func:`load_results` and the result records it was built from.

    The records (the lines of ``results.jsonl``, in file order) hold what the run table does
    not: trajectories, each run's ``session`` scores with their per-trace risks, the
    perturbation applied.
    """
    path = _results_path(directory)
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
        No ``summary.json`` (``reliability-lab report DIR --write-summary`` writes it), or one
        that does not fit its record (:func:`~reliability_lab.results.summary_record.read_summary`).
    """
    block = read_summary(directory).reliability
    try:
        profile = get_profile(block.profile)
    except ValueError as exc:
        raise RunTableError(
            f"{Path(directory) / SUMMARY_FILE}: reliability.profile: {exc}"
        ) from None
    report = pd.DataFrame.from_dict(block.agents, orient="index")
    report.index.name = "agent"
    for col in report.columns:
        if col == "why_undefined" or col.endswith("_terms"):
            report[col] = report[col].fillna("").astype(object)
        else:
            report[col] = pd.to_numeric(report[col].astype(object).where(report[col].notna()))
    report.attrs.update(
        profile=profile.to_dict(),
        n_boot=block.n_boot,
        confidence_level=block.confidence_level,
        seed=block.seed,
    )
    return report
