"""Any table of runs → the run table, by a documented column mapping (docs/importers.md).

For users whose harness writes its own CSV, Parquet or JSON Lines logs: one row per run, with
columns that :func:`from_records` renames to the run table's (``columns={"task_id": "sample",
"run": "epoch", ...}``). Run-table columns missing from the mapping are taken under their own
name when present; every other column is kept as an extra column.

Conversions, all explicit: ``agent`` and ``task_id`` become strings (CSV readers turn ids
into numbers); a missing ``success`` is ``score >= pass_threshold`` (default 1.0: only full credit
passes); ``actions`` and ``violations`` given as text are parsed as JSON arrays,
or ``actions`` split at ``list_separator``. Whatever cannot be converted is an error naming
the row and column.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from reliability_lab.io._common import LogFormatError, fail
from reliability_lab.runs import KEY_COLUMNS, RUN_TABLE_COLUMNS, validate_run_table

__all__ = ["ColumnMappingError", "from_records"]

_READERS: Mapping[str, Callable[[Path], pd.DataFrame]] = {
    ".csv": pd.read_csv,
    ".parquet": pd.read_parquet,
    ".jsonl": lambda p: pd.read_json(p, lines=True),
}


def _read(path: Path) -> pd.DataFrame:
    reader = _READERS.get(path.suffix.lower())
    if reader is None:
        raise LogFormatError(
            f"{path}: unknown table format {path.suffix!r}; use {', '.join(_READERS)} "
            "or pass a DataFrame"
        )
    try:
        return reader(path)
    except ImportError as exc:  # parquet without pyarrow/fastparquet
        raise LogFormatError(f"{path}: cannot read {path.suffix} files here: {exc}") from None
    except ValueError as exc:
        raise LogFormatError(f"{path}: cannot read the table: {exc}") from None


class ColumnMappingError(LogFormatError):
    """A column mapping that cannot apply: an unknown run-table column, a column the table
    lacks, or one column mapped twice.

    ``pairs`` holds the offending ``(run-table column, table column)`` pairs and ``problem``
    says what is wrong with them, so a caller can name them in its own syntax (the command
    line's ``--map TARGET=SOURCE``).
    """

    def __init__(self, message: str, pairs: list[tuple[str, str]], problem: str) -> None:
        super().__init__(message)
        self.pairs = pairs
        self.problem = problem


def _check_mapping(mapping: Mapping[str, str], table: pd.DataFrame, name: str) -> None:
    unknown = sorted(set(mapping) - set(RUN_TABLE_COLUMNS))
    if unknown:
        valid = ", ".join(RUN_TABLE_COLUMNS)
        raise ColumnMappingError(
            f"columns: unknown run-table column(s) {unknown}; valid: {valid}",
            [(t, mapping[t]) for t in unknown],
            f"not a run-table column (valid: {valid})",
        )
    missing = {ours: theirs for ours, theirs in mapping.items() if theirs not in table.columns}
    if missing:
        present = list(table.columns)
        raise ColumnMappingError(
            f"{name}: column(s) {sorted(missing.values())} named in columns= are not in the "
            f"table; present: {present}",
            sorted(missing.items()),
            f"{name} has no such column (present: {', '.join(map(str, present))})",
        )
    sources = list(mapping.values())
    twice = sorted((t, s) for t, s in mapping.items() if sources.count(s) > 1)
    if twice:
        raise ColumnMappingError(
            f"columns: {twice[0][1]!r} is mapped to more than one run-table column "
            f"({', '.join(t for t, _ in twice)})",
            twice,
            "the same column is mapped to more than one run-table column",
        )


def _parse_list(value: Any, sep: str | None, source: str, row: int, column: str) -> Any:
    if not isinstance(value, str):
        return [] if value is None or (isinstance(value, float) and pd.isna(value)) else value
    text = value.strip()
    if text.startswith("["):
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise fail(source, f"row {row}", column, f"not a JSON array: {exc.msg}") from None
    if sep is not None:
        return [part.strip() for part in text.split(sep) if part.strip()]
    if text == "":
        return []
    raise fail(
        source,
        f"row {row}",
        column,
        f"text {text[:60]!r} is not a JSON array; pass list_separator= to split it",
    )


def from_records(
    data: pd.DataFrame | str | os.PathLike[str],
    *,
    columns: Mapping[str, str] | None = None,
    pass_threshold: float = 1.0,
    list_separator: str | None = None,
    agent: str | None = None,
    source: str | None = None,
) -> pd.DataFrame:
    """Build a validated run table from a table with its own column names.

    Parameters
    ----------
    data : DataFrame or path-like
        The runs, or a ``.csv``, ``.parquet`` or ``.jsonl`` file of them.
    columns : mapping, optional
        Run-table column → the column of ``data`` that holds it, e.g.
        ``{"task_id": "sample_id", "run": "epoch", "success": "passed"}`` (the command
        line's ``report FILE --map task_id=sample_id``). A column of ``data`` already named
        like a mapped run-table column is replaced by the mapped one.
    pass_threshold : float, default 1.0
        When ``data`` has no success column: ``success = score >= pass_threshold``.
    list_separator : str, optional
        Split ``actions`` text at this separator (``"a;b;c"``); default: text must be a
        JSON array.
    agent : str, optional
        Agent label for every run, for a table without an agent column.
    source : str, optional
        Name used in error messages; default the file name or ``"records"``.

    Returns
    -------
    DataFrame
        The run table (docs/methodology.md, 'The data every metric reads'), extras kept.

    Raises
    ------
    ColumnMappingError
        ``columns`` names an unknown run-table column, a column ``data`` lacks, or one column
        of ``data`` twice (a :class:`LogFormatError`).
    LogFormatError
        Unknown file type, unparsable list text.
    RunTableError
        The renamed table violates the run-table schema (the message names the column and
        shows the rows).

    Examples
    --------
    >>> df = pd.DataFrame({"model": ["m", "m"], "sample": [1, 1], "epoch": [1, 2],
    ...                    "reward": [1.0, 0.5], "tools": ["search;answer", "search"]})
    >>> runs = from_records(df, columns={"agent": "model", "task_id": "sample",
    ...                                  "run": "epoch", "score": "reward",
    ...                                  "actions": "tools"}, list_separator=";")
    >>> runs[["task_id", "run", "success", "actions"]].values.tolist()
    [['1', 1, True, ['search', 'answer']], ['1', 2, False, ['search']]]
    """
    if isinstance(data, pd.DataFrame):
        table, name = data.copy(), source or "records"
    else:
        table, name = _read(Path(data)), source or str(data)
    mapping = dict(columns or {})
    _check_mapping(mapping, table, name)
    sources = set(mapping.values())
    replaced = [ours for ours in mapping if ours in table.columns and ours not in sources]
    table = table.drop(columns=replaced)  # the mapped columns take their place
    table = table.rename(columns={theirs: ours for ours, theirs in mapping.items()})
    if agent is not None:
        if "agent" in table.columns:
            raise ValueError("agent: the table has an agent column already; map it instead")
        table["agent"] = agent
    for column in KEY_COLUMNS[:-1]:  # the text fields of the run key
        if column in table.columns:
            table[column] = table[column].map(lambda v: v if isinstance(v, str) else str(v))
    if "success" not in table.columns and "score" in table.columns:
        table["success"] = pd.to_numeric(table["score"], errors="coerce") >= pass_threshold
    for column, sep in (("actions", list_separator), ("violations", None)):
        if column in table.columns:
            table[column] = [
                _parse_list(v, sep, name, i, column) for i, v in enumerate(table[column])
            ]
    if "violations" not in table.columns and "safety_checked" not in table.columns:
        table["safety_checked"] = False  # no findings column: safety unknown, not "none found"
    return validate_run_table(table, source=name)
