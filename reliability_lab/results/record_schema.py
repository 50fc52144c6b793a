"""The layout of a ``results.jsonl`` line, read from the record model it is written with.

Lines are written by :class:`~reliability_lab.agents.RunResult` (a pydantic model) and read
back column by column (:mod:`reliability_lab.results.read`): validating 200k records one by
one through pydantic would cost more than everything else the reader does. So the reader takes
from the model what it needs — the schema version, each field's type and default — and checks
whole columns at once; a line found wrong is then validated by the model itself, whose error
names the field (docs/results.md, "results.jsonl").

Records the model would refuse as a whole are still read: imported results carry the importer's
extra columns, and records written before a field existed lack it (docs/importers.md).
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from pydantic import ValidationError
from pydantic_core import PydanticUndefined

from reliability_lab._columns import is_exactly, not_str
from reliability_lab.agents._records import RunResult
from reliability_lab.errors import RunTableError

__all__ = [
    "RECORD_FIELDS",
    "RESULT_SCHEMA_VERSION",
    "SCALAR_FIELDS",
    "field_default",
    "first_wrong_typed",
    "record_error",
]

#: Every field of a result record, in the model's order.
RECORD_FIELDS: tuple[str, ...] = tuple(RunResult.model_fields)
#: The layout version this reader reads: the default the record model writes.
RESULT_SCHEMA_VERSION: int = RunResult.model_fields["schema_version"].default

#: Field type → what a column check accepts besides JSON null (null = not recorded).
_SCALARS: dict[Any, str] = {bool: "bool", int: "int", float: "number", str: "str"}


def _scalar_kind(annotation: Any) -> str | None:
    """``bool``/``int``/``number``/``str`` for a scalar field (``X | None`` included)."""
    if annotation in _SCALARS:
        return _SCALARS[annotation]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        kinds = {_scalar_kind(a) for a in typing.get_args(annotation) if a is not type(None)}
        return kinds.pop() if len(kinds) == 1 else None
    return None


#: Scalar fields and their kind (bool, int, number, str), from the model's annotations.
SCALAR_FIELDS: dict[str, str] = {
    name: kind
    for name, field in RunResult.model_fields.items()
    if (kind := _scalar_kind(field.annotation)) is not None
}


def field_default(name: str) -> Any:
    """The model's default of field ``name`` (``None`` when the field is required)."""
    default = RunResult.model_fields[name].default
    return None if default is PydanticUndefined else default


def _wrong_type(values: np.ndarray, kind: str) -> np.ndarray:
    """Mask of present (non-null) values that are not of ``kind`` (vectorised)."""
    present = ~np.asarray(pd.isna(values), dtype=bool)
    bad = np.zeros(len(values), dtype=bool)
    if not present.any():
        return bad
    shown = values[present]
    if kind == "str":
        bad[present] = not_str(shown)
    elif kind == "bool":
        bad[present] = ~is_exactly(shown, bool)
    else:
        is_bool = is_exactly(shown, bool)
        number = is_exactly(shown, int) | is_exactly(shown, float)
        if kind == "int":
            whole = np.zeros(len(shown), dtype=bool)
            whole[number] = [float(v).is_integer() for v in shown[number]]
            number &= whole
        bad[present] = is_bool | ~number
    return bad


def first_wrong_typed(table: pd.DataFrame, skip: tuple[str, ...] = ()) -> tuple[int, str] | None:
    """(row, field) of the first value whose type the record model refuses, or None.

    Only scalar fields are checked here (lists and nested objects have their own checks);
    JSON null is accepted everywhere (a value not recorded). Columns are checked whole, in the
    model's field order.
    """
    hits = []
    for name, kind in SCALAR_FIELDS.items():
        if name in table.columns and name not in skip:
            column = table[name]
            if kind == "number" and column.dtype.kind in "fiu":
                continue
            if kind == "bool" and column.dtype == bool:
                continue
            bad = _wrong_type(column.to_numpy(dtype=object), kind)
            if bad.any():
                hits.append((int(np.flatnonzero(bad)[0]), name))
    return min(hits) if hits else None


def record_error(record: Mapping[str, Any], field: str, *, source: str, line: int) -> RunTableError:
    """The record model's verdict on ``field`` of one line, as a RunTableError naming the file,
    the line and the field (the model's other complaints — missing fields of an older record,
    an importer's extra columns — are not about this field and are left out)."""
    value = record.get(field)
    why = f"expected {RunResult.model_fields[field].annotation}"
    try:
        RunResult.model_validate(dict(record))
    except ValidationError as exc:
        found = [e for e in exc.errors() if e["loc"] and e["loc"][0] == field]
        if found:
            why = found[0]["msg"][:1].lower() + found[0]["msg"][1:]
    return RunTableError(f"{source}: line {line}: field {field!r}: {why}, got {value!r:.80}")
