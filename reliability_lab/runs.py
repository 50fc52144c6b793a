"""The run table: one row per agent run, the data model everything meets at (docs/run_table.md).

Every producer (experiment runner, importers) emits it and every consumer (metrics,
reports, plots) accepts it. :func:`validate_run_table` is the single gate all entry
points use: it fills optional columns with their documented "not recorded" values,
coerces types, and raises :class:`~reliability_lab.errors.RunTableError` naming the
source, the column and the offending rows for anything it cannot accept.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from reliability_lab._actions import ActionsArray, encode_actions
from reliability_lab._columns import FlatLists, flatten_lists, not_str
from reliability_lab._labels import LabelCodes
from reliability_lab._lists import RecordsArray
from reliability_lab.errors import RunTableError

__all__ = [
    "BASELINE",
    "CONFIDENCE_SOURCES",
    "DEFAULT_CONSTRAINT_NAMES",
    "FAULT_RATE_PREFIX",
    "INFRASTRUCTURE_PREFIX",
    "KEY_COLUMNS",
    "PERTURBATION_CONDITIONS",
    "REPORTED_SOURCES",
    "RESOURCE_COLUMNS",
    "RESULT_SCHEMA_VERSION",
    "RUN_TABLE_COLUMNS",
    "SEVERITY_WEIGHTS",
    "SIMULATED_PREFIX",
    "CodedRunTable",
    "RunKey",
    "ViolationProblem",
    "coded_run_table",
    "fault_rate_of",
    "is_infrastructure",
    "is_infrastructure_error",
    "is_simulated_model",
    "run_key",
    "run_key_of",
    "run_table_from_records",
    "safety_assessed",
    "session_id",
    "table_run_keys",
    "validate_run_table",
    "violation_weights",
]

BASELINE = "baseline"
#: Conditions with a dedicated robustness metric (docs/methodology.md, "Robustness"); users may
#: add their own names.
PERTURBATION_CONDITIONS = {"fault": "R_fault", "structural": "R_struct", "prompt": "R_prompt"}
INFRASTRUCTURE_PREFIX = "infrastructure:"
CONFIDENCE_SOURCES = ("elicited", "agent", "fallback", "none")
#: Sources that carry a confidence value (the agent's own or elicited post hoc).
REPORTED_SOURCES = ("elicited", "agent")
#: Severity weights for the harm score (docs/methodology.md, "Safety"). Unknown severities are
#: an error.
SEVERITY_WEIGHTS: Mapping[str, float] = {"low": 0.25, "medium": 0.5, "high": 1.0, "critical": 1.0}
#: Layout version of a ``results.jsonl`` record (written by ``agents.RunResult``, checked by
#: ``results.read``).
RESULT_SCHEMA_VERSION = 1
#: Prefix of a fault-rate variant and intensity, ``p=<rate>`` (docs/perturbations.md).
FAULT_RATE_PREFIX = "p="
#: Names of the constraints every environment checks unless it declares its own set
#: (docs/methodology.md, "Safety"); the constraints themselves are ``reliability_lab.safety``'s.
DEFAULT_CONSTRAINT_NAMES = (
    "pii_exposure",
    "destructive_operation",
    "rate_limit",
    "data_minimisation",
)
RESOURCE_COLUMNS = (
    "cost_usd",
    "wall_time_s",
    "api_calls",
    "num_actions",
    "num_errors",
    "call_latency_s",
)
#: Columns that identify a run; no two rows may share them.
KEY_COLUMNS = ("agent", "task_id", "condition", "variant", "run")
#: The identity of a run: its values of :data:`KEY_COLUMNS`.
RunKey = tuple[str, str, str, str, int]
#: Model strings of the built-in simulated model start with this (``sim/calibrated``).
SIMULATED_PREFIX = "sim/"
#: Column → short type description, in canonical order.
RUN_TABLE_COLUMNS: Mapping[str, str] = {
    "agent": "str",
    "task_id": "str",
    "condition": "str",
    "variant": "str",
    "run": "int >= 0",
    "success": "bool",
    "score": "float in [0, 1] or NaN",
    "confidence": "float in [0, 1] or NaN",
    "confidence_source": "one of elicited/agent/fallback/none",
    "actions": "list[str]",
    **{name: "float >= 0 or NaN" for name in RESOURCE_COLUMNS},
    "violations": "list[dict(constraint, severity, evidence)]",
    "error": "str or None",
}
_REQUIRED = ("agent", "task_id", "run", "success")
#: Run keys are counted in a table of every possible key when it has at most this many entries
#: per run (8 bytes each); beyond, by hashing.
_KEY_TABLE_PER_RUN = 8
_MAX_ROWS_SHOWN = 5


def _fail(source: str, column: str, message: str, rows: pd.DataFrame | None = None) -> None:
    text = f"{source}: column {column!r}: {message}"
    if rows is not None and len(rows):
        shown = rows.head(_MAX_ROWS_SHOWN).to_string(max_colwidth=60)
        more = (
            f"\n... and {len(rows) - _MAX_ROWS_SHOWN} more" if len(rows) > _MAX_ROWS_SHOWN else ""
        )
        text += f"\noffending rows:\n{shown}{more}"
    raise RunTableError(text)


def _context(df: pd.DataFrame, mask: Any, column: str) -> pd.DataFrame:
    cols = [c for c in KEY_COLUMNS if c in df.columns]
    if column not in cols:
        cols.append(column)
    return df.loc[np.asarray(mask, dtype=bool), cols]


def _str_codes(values: pd.Series) -> LabelCodes | None:
    """The column factorized, or None when it holds values that cannot be hashed (a list where
    a label belongs; the caller then checks value by value).

    A run table repeats a few labels many times, so their types and emptiness are checked once
    per distinct value, and the codes give the run keys without hashing the strings again."""
    try:
        return LabelCodes.of(values)
    except TypeError:
        return None


def _check_str(
    df: pd.DataFrame, column: str, source: str, *, allow_empty: bool
) -> LabelCodes | None:
    """Fail naming the rows of ``column`` that are not a str (missing values included) or,
    unless ``allow_empty``, are empty; the column's codes (see :func:`_str_codes`)."""
    values = df[column]
    labels = _str_codes(values)
    if labels is None:
        bad = not_str(values.to_numpy(dtype=object))
        empty = np.asarray(values.to_numpy(dtype=object) == "", dtype=bool)
    else:
        # code -1 = a missing value (None, NaN): never a str, never ""
        bad = np.append(not_str(labels.values), True)[labels.codes]
        empty = np.append(labels.values == "", False)[labels.codes]
    if bad.any():
        _fail(source, column, "expected str values", _context(df, bad, column))
    if not allow_empty and empty.any():
        _fail(source, column, "empty string is not a valid value", _context(df, empty, column))
    return labels


def _to_float(df: pd.DataFrame, column: str, source: str) -> pd.Series:
    if df[column].dtype == np.float64:  # as is: no copy of a column already right
        return df[column]
    try:
        return pd.to_numeric(df[column], errors="raise").astype(float)
    except (TypeError, ValueError):
        coerced = pd.to_numeric(df[column], errors="coerce")
        bad = coerced.isna() & df[column].notna()
        _fail(source, column, "expected numbers", _context(df, bad, column))
        raise  # pragma: no cover - _fail always raises


def _check_success(df: pd.DataFrame, source: str) -> pd.Series:
    values = df["success"]
    if values.dtype == bool:
        return values
    if values.dtype == object and pd.api.types.infer_dtype(values, skipna=False) == "boolean":
        return values.astype(bool)
    numeric = pd.to_numeric(values, errors="coerce")
    bad = ~numeric.isin([0, 1])
    if bad.any():
        _fail(source, "success", "expected bool (or 0/1)", _context(df, bad, "success"))
    return numeric.astype(bool)


def _check_run(df: pd.DataFrame, source: str) -> pd.Series:
    if df["run"].dtype == np.int64:  # as is when already integers: only the sign to check
        bad = df["run"] < 0
        if bad.any():
            _fail(source, "run", "expected an integer >= 0", _context(df, bad, "run"))
        return df["run"]
    numeric = pd.to_numeric(df["run"], errors="coerce")
    bad = numeric.isna() | (numeric < 0) | (numeric != np.floor(numeric))
    if bad.any():
        _fail(source, "run", "expected an integer >= 0", _context(df, bad, "run"))
    return numeric.astype(np.int64)


def _check_unit_interval(df: pd.DataFrame, values: pd.Series, column: str, source: str) -> None:
    bad = values.notna() & ((values < 0) | (values > 1) | ~np.isfinite(values))
    if bad.any():
        _fail(source, column, "values must lie in [0, 1] (or be NaN)", _context(df, bad, column))


def _check_confidence(df: pd.DataFrame, source: str, conf: pd.Series) -> pd.Series:
    _check_unit_interval(df, conf, "confidence", source)
    if "confidence_source" not in df.columns:
        return pd.Series(np.where(conf.notna(), "elicited", "none"), index=df.index, dtype=object)
    src = df["confidence_source"]
    bad_src = ~src.isin(CONFIDENCE_SOURCES)
    if bad_src.any():
        _fail(
            source,
            "confidence_source",
            f"must be one of {list(CONFIDENCE_SOURCES)}",
            _context(df, bad_src, "confidence_source"),
        )
    missing = src.isin(REPORTED_SOURCES) & conf.isna()
    if missing.any():
        _fail(
            source,
            "confidence",
            "NaN where confidence_source is 'elicited' or 'agent' (a confidence is required)",
            _context(df, missing, "confidence"),
        )
    stray = ~src.isin(REPORTED_SOURCES) & conf.notna()
    if stray.any():
        _fail(
            source,
            "confidence",
            "a value where confidence_source is not 'elicited' or 'agent'; fallback/none runs "
            "have no confidence (NaN) so they never pass as elicited",
            _context(df, stray, "confidence"),
        )
    return src.astype(object)


def _flat_column(df: pd.DataFrame, column: str, source: str, expected: str) -> FlatLists:
    """The flattened list column; fails naming the rows whose entry is not a list."""
    flat = flatten_lists(df[column])
    if not flat.is_list.all():
        _fail(source, column, f"expected {expected}", _context(df, ~flat.is_list, column))
    return flat


def _check_actions(df: pd.DataFrame, source: str) -> pd.Series:
    """The trajectory column, encoded once as codes (``reliability_lab._actions``); fails
    naming the rows whose entry is not a list of str."""
    encoded = encode_actions(df["actions"])
    for mask, message in (
        (encoded.not_list, "expected a list of action names"),
        (encoded.missing, "missing action name (None or NaN); every action must be named by a str"),
        (encoded.not_str, "every action must be a str"),
    ):
        if mask is not None:
            _fail(source, "actions", message, _context(df, mask, "actions"))
    assert encoded.array is not None
    return pd.Series(encoded.array, index=df.index, name="actions")


#: What is wrong with one violation: the exception type a metric raises, and the message.
ViolationProblem = tuple[type[Exception], str]


def violation_weights(flat: FlatLists) -> tuple[np.ndarray, list[ViolationProblem | None]]:
    """Severity weight of each flattened violation (NaN if invalid) and what is wrong with it.

    A violation must be a dict with a ``constraint`` and a ``severity`` from
    :data:`SEVERITY_WEIGHTS`; an unknown severity is an error, never a default weight.
    """
    weights = np.full(len(flat.items), np.nan)
    problems: list[ViolationProblem | None] = [None] * len(flat.items)
    for i, item in enumerate(flat.items):  # one step per violation, not per run
        if not isinstance(item, Mapping):
            problems[i] = (TypeError, f"violation {item!r} is not a dict")
        elif "severity" not in item or "constraint" not in item:
            problems[i] = (ValueError, f"violation {dict(item)!r} lacks 'constraint' or 'severity'")
        else:
            severity = item["severity"]
            weight = SEVERITY_WEIGHTS.get(severity) if isinstance(severity, str) else None
            if weight is None:
                valid = ", ".join(SEVERITY_WEIGHTS)
                problems[i] = (ValueError, f"unknown severity {severity!r} (valid: {valid})")
            else:
                weights[i] = weight
    return weights, problems


def _check_violations(df: pd.DataFrame, source: str) -> pd.Series:
    flat = _flat_column(df, "violations", source, "a list of violations")
    weights, problems = violation_weights(flat)
    bad = np.isnan(weights)
    if bad.any():
        _, first = problems[int(np.flatnonzero(bad)[0])] or (None, "invalid violation")
        _fail(source, "violations", first, _context(df, flat.runs_where(bad), "violations"))
    if isinstance(df["violations"].array, RecordsArray):
        return df["violations"]  # stored flat already (a validated or loaded table)
    return pd.Series(RecordsArray.from_flat_lists(flat), index=df.index, name="violations")


def _check_error(df: pd.DataFrame, source: str) -> pd.Series:
    values = df["error"].astype(object)
    present = np.asarray(values.notna(), dtype=bool)
    values = values.where(present, None)
    bad = np.zeros(len(values), dtype=bool)
    bad[present] = not_str(values.to_numpy()[present])
    if bad.any():
        _fail(source, "error", "expected str or None", _context(df, bad, "error"))
    return values


def _fill_defaults(df: pd.DataFrame) -> pd.DataFrame:
    n = len(df)
    defaults: dict[str, Any] = {
        "condition": BASELINE,
        "variant": "",
        "score": math.nan,
        "confidence": math.nan,
        "error": None,
    }
    for name, value in defaults.items():
        if name not in df.columns:
            df[name] = pd.Series(
                [value] * n, index=df.index, dtype=object if value is None else None
            )
    for name in RESOURCE_COLUMNS:
        if name not in df.columns:
            df[name] = math.nan
    if "actions" not in df.columns:
        df["actions"] = pd.Series(ActionsArray.empty(n), index=df.index)
    if "violations" not in df.columns:
        df["violations"] = pd.Series(RecordsArray.empty(n), index=df.index)
    return df


def _duplicate_keys(df: pd.DataFrame, labels: list[LabelCodes | None]) -> np.ndarray:
    """Rows sharing their :data:`KEY_COLUMNS` with another row.

    ``labels``: the codes of the four label columns (:func:`_check_str`). With them, a key is
    one integer (mixed radix of the codes and ``run``), compared exactly: counted in a table of
    every possible key when there are not many more of those than runs, else by pandas'
    ``duplicated``. Otherwise (or if it would not fit in 63 bits) one 64-bit hash per key finds
    the candidates and only rows whose hashes collide are compared exactly, so a collision
    never reports a false duplicate.
    """
    run = df["run"].to_numpy(dtype=np.int64)
    parts = [c.codes for c in labels if c is not None]
    if len(parts) == len(labels) and len(run):
        parts.append(run)
        sizes = [int(c.max()) + 1 for c in parts]
        n_keys = math.prod(sizes)
        if n_keys < 2**63:
            key = np.zeros(len(run), dtype=np.int64)
            for codes, size in zip(parts, sizes, strict=True):
                key = key * size + codes
            if n_keys <= _KEY_TABLE_PER_RUN * len(run):
                return np.bincount(key, minlength=n_keys)[key] > 1
            return np.asarray(pd.Series(key).duplicated(keep=False), dtype=bool)
    keys = df[list(KEY_COLUMNS)]
    hashed = pd.util.hash_pandas_object(keys, index=False)
    candidates = np.asarray(hashed.duplicated(keep=False), dtype=bool)
    dup = np.zeros(len(df), dtype=bool)
    if candidates.any():
        dup[candidates] = keys.loc[candidates].duplicated(keep=False).to_numpy()
    return dup


def validate_run_table(runs: pd.DataFrame, *, source: str = "run table") -> pd.DataFrame:
    """Check a run table against docs/run_table.md and return a normalised copy.

    Optional columns that are absent are added with their "not recorded" meaning:
    ``condition="baseline"``, ``variant=""``, ``score``/``confidence``/resources NaN,
    ``confidence_source`` derived from ``confidence`` (``elicited`` where present,
    else ``none``), empty ``actions`` and ``violations``, ``error=None``. Required
    columns are ``agent``, ``task_id``, ``run`` and ``success``.

    Parameters
    ----------
    runs : DataFrame
        One row per run.
    source : str
        What to call the table in error messages (a file name, an argument name).

    Returns
    -------
    DataFrame
        A copy with every column of :data:`RUN_TABLE_COLUMNS` (in that order, extra
        columns kept after them), canonical dtypes and a fresh RangeIndex.

    Raises
    ------
    RunTableError
        Missing required columns, values of the wrong type, confidences outside
        [0, 1] (or NaN where ``confidence_source`` is ``elicited``), negative
        resources, unknown severities, or duplicate (agent, task_id, condition,
        variant, run) keys. The message names the column and shows offending rows.

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({"agent": ["a", "a"], "task_id": ["t1", "t1"],
    ...                      "run": [0, 1], "success": [True, False]})
    >>> validate_run_table(runs)[["condition", "variant", "confidence_source"]].iloc[0].tolist()
    ['baseline', '', 'none']
    """
    return coded_run_table(runs, source=source).table


@dataclass(frozen=True)
class CodedRunTable:
    """A validated run table and its label columns as validation factorized them."""

    table: pd.DataFrame
    """What :func:`validate_run_table` returns."""
    labels: Mapping[str, LabelCodes]
    """``agent``, ``task_id``, ``condition`` and ``variant``: every run's code and the distinct
    labels, in the table's row order."""


def coded_run_table(runs: pd.DataFrame, *, source: str = "run table") -> CodedRunTable:
    """:func:`validate_run_table`, with the label columns' codes it computed on the way (the
    report reads them rather than hashing every label again)."""
    if not isinstance(runs, pd.DataFrame):
        raise RunTableError(f"{source}: expected a pandas DataFrame, got {type(runs).__name__}")
    missing = [c for c in _REQUIRED if c not in runs.columns]
    if missing:
        raise RunTableError(
            f"{source}: missing required column(s) {missing}; "
            f"required: {list(_REQUIRED)}, present: {list(runs.columns)}"
        )
    # reset_index gives a new frame (copy-on-write on pandas 3, a copy before): the caller's
    # table is never changed, and no second whole-table copy is made
    df = _fill_defaults(runs.reset_index(drop=True))
    labels = {
        column: _check_str(df, column, source, allow_empty=column == "variant")
        for column in KEY_COLUMNS[:-1]
    }
    df["run"] = _check_run(df, source)
    df["success"] = _check_success(df, source)
    score = _to_float(df, "score", source)
    _check_unit_interval(df, score, "score", source)
    df["score"] = score
    conf = _to_float(df, "confidence", source)
    df["confidence_source"] = _check_confidence(df, source, conf)
    df["confidence"] = conf
    for name in RESOURCE_COLUMNS:
        values = _to_float(df, name, source)
        bad = values.notna() & ((values < 0) | ~np.isfinite(values))
        if bad.any():
            _fail(
                source,
                name,
                "resources must be finite and >= 0 (NaN = not recorded)",
                _context(df, bad, name),
            )
        df[name] = values
    df["actions"] = _check_actions(df, source)
    df["violations"] = _check_violations(df, source)
    df["error"] = _check_error(df, source)
    dup = _duplicate_keys(df, list(labels.values()))
    if dup.any():
        _fail(source, "run", f"duplicate run keys {list(KEY_COLUMNS)}", _context(df, dup, "run"))
    ordered = list(RUN_TABLE_COLUMNS) + [c for c in df.columns if c not in RUN_TABLE_COLUMNS]
    # every label column factorized: a column that could not be (unhashable values) failed
    coded = {name: codes for name, codes in labels.items() if codes is not None}
    return CodedRunTable(df[ordered], coded)


def run_key(record: Mapping[str, Any]) -> RunKey:
    """The identity of a run record (a ``results.jsonl`` line, a row dict or a spec's fields).

    ``condition`` defaults to ``baseline`` and ``variant`` to ``""``, as in the run table.

    Examples
    --------
    >>> run_key({"agent": "a", "task_id": "t1", "run": 2})
    ('a', 't1', 'baseline', '', 2)
    """
    return (
        str(record["agent"]),
        str(record["task_id"]),
        str(record.get("condition", BASELINE)),
        str(record.get("variant", "")),
        int(record["run"]),
    )


def run_key_of(obj: object) -> RunKey:
    """The run key of an object with the :data:`KEY_COLUMNS` as attributes (a spec, a result)."""
    return run_key({name: getattr(obj, name) for name in KEY_COLUMNS})


def table_run_keys(runs: pd.DataFrame) -> list[RunKey]:
    """The run key of every row of a run table, in row order.

    Examples
    --------
    >>> table_run_keys(pd.DataFrame({"agent": ["a"], "task_id": ["t"], "condition": ["baseline"],
    ...                              "variant": [""], "run": [3]}))
    [('a', 't', 'baseline', '', 3)]
    """
    text = (runs[c].astype(str) for c in KEY_COLUMNS[:-1])
    return [(*key[:4], int(key[4])) for key in zip(*text, runs[KEY_COLUMNS[-1]], strict=True)]


def session_id(record: Mapping[str, Any]) -> str:
    """A run's session id, ``agent|task_id|condition|variant|run`` (stable across resumes).

    Examples
    --------
    >>> session_id({"agent": "a", "task_id": "t1", "condition": "baseline", "variant": "",
    ...             "run": 2})
    'a|t1|baseline||2'
    """
    return "|".join(map(str, run_key(record)))


def is_simulated_model(model: str) -> bool:
    """Whether a model string names the built-in simulated model (``sim/<profile>``).

    Examples
    --------
    >>> is_simulated_model("sim/calibrated"), is_simulated_model("openai/gpt-4o-mini")
    (True, False)
    """
    return model.startswith(SIMULATED_PREFIX)


def fault_rate_of(text: str) -> float:
    """The rate of a ``p=<rate>`` variant or intensity, NaN for any other text.

    >>> fault_rate_of("p=0.4"), fault_rate_of("medium")
    (0.4, nan)
    """
    if not text.startswith(FAULT_RATE_PREFIX):
        return math.nan
    try:
        return float(text.removeprefix(FAULT_RATE_PREFIX))
    except ValueError:
        return math.nan


def is_infrastructure(error: object) -> bool:
    """Whether one run's ``error`` marks a provider/harness failure (the one definition).

    See docs/run_table.md, "Infrastructure errors".

    Examples
    --------
    >>> is_infrastructure("infrastructure: timeout"), is_infrastructure(None)
    (True, False)
    """
    return isinstance(error, str) and error.startswith(INFRASTRUCTURE_PREFIX)


def is_infrastructure_error(error: pd.Series) -> np.ndarray:
    """Boolean mask of runs whose ``error`` marks a provider/harness failure
    (:func:`is_infrastructure` per run)."""
    values = error.to_numpy(dtype=object)
    present = np.flatnonzero(np.asarray(pd.notna(values), dtype=bool))
    mask = np.zeros(len(values), dtype=bool)
    mask[present] = [is_infrastructure(str(v)) for v in values[present]]
    return mask


def safety_assessed(runs: pd.DataFrame) -> np.ndarray:
    """Boolean mask of runs whose safety is known: the safety metrics count only these.

    A run is left out when its safety judge failed (``safety_error`` set) or when nothing
    checked it (``safety_checked`` False: imported logs without safety findings) — an
    unchecked run is never "no violation". See docs/run_table.md, "Extra columns".
    """
    mask = np.ones(len(runs), dtype=bool)
    if "safety_error" in runs:
        mask &= runs["safety_error"].isna().to_numpy()
    if "safety_checked" in runs:
        mask &= runs["safety_checked"].fillna(False).astype(bool).to_numpy()
    return mask


def run_table_from_records(
    records: Iterable[Mapping[str, Any]], *, source: str = "records"
) -> pd.DataFrame:
    """Build and validate a run table from an iterable of row dicts."""
    return validate_run_table(pd.DataFrame.from_records(list(records)), source=source)
