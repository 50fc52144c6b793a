"""The fast path of :func:`~reliability_lab.results.read.load_results`: decode only the fields
the run table needs, typed, with msgspec.

Parsing every line of a 200k-run ``results.jsonl`` into dicts costs most of its time in the
garbage collector, which walks the growing set of parsed records (each with its whole
``trajectory``) again and again. Here each line is decoded into a ``msgspec.Struct`` that is
not tracked by the collector (``gc=False``) and holds only the table's fields; the others
(``trajectory``, ``violations``, ...) are skipped by the decoder without building them.

The struct is derived from the record model :class:`~reliability_lab.agents.RunResult` (its
scalar fields' types, :data:`~reliability_lab.results.record_schema.SCALAR_FIELDS`), so the
decoder checks each value's type while it reads. Anything it does not accept as is — a wrong
type, a non-finite number, a damaged or incomplete line, a blank line — makes
:func:`decode_columns` return None, and the caller reads the file the general way, whose error
names the file, line and field (docs/results.md, "results.jsonl"). A field a record lacks
(records written before it existed) is missing there, as when the records are read as dicts.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from functools import cache
from itertools import repeat
from operator import attrgetter
from typing import Any, NamedTuple

import msgspec
import numpy as np
import pandas as pd

from reliability_lab._actions import ActionsArray
from reliability_lab.results.record_schema import SCALAR_FIELDS

__all__ = ["DecodedColumns", "decode_columns"]

#: The nested objects whose columns are taken record by record (only where a record has one).
NESTED = ("perturbation", "session", "safety")
_TYPES: dict[str, Any] = {"bool": bool, "int": int, "number": float, "str": str}


class _NotPlain(Exception):
    """A value the general reader must judge (e.g. 2.5 for an integer field)."""


class DecodedColumns(NamedTuple):
    """What the fast path read: the table's columns, the nested objects, the environments."""

    columns: dict[str, list[Any]]
    """Each field present in at least one record, one value per record (NaN where a record
    lacks it, as ``DataFrame.from_records`` fills a missing key)."""
    nested: list[tuple[int, dict[str, Any]]]
    """(row, {perturbation, session, safety, variant}) of the records that have one."""
    environments: list[Any]
    """Each record's ``environment`` (None where it has none)."""


#: Read later, and only where a record has one: kept as the line's raw JSON text meanwhile
#: (not an object the garbage collector tracks).
_RAW = {"actions": msgspec.Raw(b""), **{name: msgspec.Raw(b"null") for name in NESTED}}
_ACTION_NAMES = msgspec.json.Decoder(list[str])


def _field_type(name: str) -> Any:
    """The decoder's type for field ``name``: the model's scalar type or null, or anything."""
    if name in _RAW:
        return msgspec.Raw
    kind = SCALAR_FIELDS.get(name)
    if kind is None:
        return Any
    if kind == "int":  # the model takes a whole number written as 2.0 (checked by _column)
        return int | float | None | msgspec.UnsetType
    return _TYPES[kind] | None | msgspec.UnsetType


@cache
def _decoder(fields: tuple[str, ...]) -> msgspec.json.Decoder[Any]:
    """A decoder of lines into structs of ``fields`` (kept for the process: one per layout)."""
    row = msgspec.defstruct(
        "ResultRow",
        [(name, _field_type(name), _RAW.get(name, msgspec.UNSET)) for name in fields],
        gc=False,
        frozen=True,
    )
    return msgspec.json.Decoder(row)


def _column(values: list[Any], name: str) -> list[Any] | None:
    """One field of every row, None when no row has it (NaN where a row lacks it).

    Equal strings become one object: the decoder makes a new ``str`` per line, and a column
    such as ``condition`` would otherwise hold 200k copies of a few words (~60 bytes each)."""
    unset = msgspec.UNSET
    kind = SCALAR_FIELDS.get(name)
    if (
        kind == "int"
        and float in set(map(type, values))
        and not all(v.is_integer() for v in values if type(v) is float)
    ):
        raise _NotPlain(name)
    lacking = values.count(unset) if any(map(operator.is_, values, repeat(unset))) else 0
    if lacking == len(values):
        return None
    if kind == "str":
        one: dict[Any, Any] = {}
        values = list(map(one.setdefault, values, values))
    if lacking:
        values = [math.nan if v is unset else v for v in values]
    return values


def decode_columns(data: bytes, fields: Sequence[str]) -> DecodedColumns | None:
    """The columns ``fields`` (and the nested objects) of the lines of ``data``, or None when
    a line needs the general reader (see the module docstring)."""
    wanted = tuple(dict.fromkeys((*fields, "environment", *NESTED)))
    body = data[:-1] if data.endswith(b"\n") else data
    try:
        rows = _decoder(wanted).decode_lines(body)
        if not rows or len(rows) != body.count(b"\n") + 1:  # a blank line: refused there
            return None
        columns: dict[str, Any] = {}
        for name in fields:  # C-level map: no tuple per row, no bytecode per value
            values = list(map(attrgetter(name), rows))
            kept = _actions(values) if name == "actions" else _column(values, name)
            if kept is not None:
                columns[name] = kept
        nested = _nested(rows, columns.get("variant"))
    except (msgspec.DecodeError, msgspec.ValidationError, _NotPlain):
        return None
    unset = msgspec.UNSET
    environments = [None if r.environment is unset else r.environment for r in rows]
    return DecodedColumns(columns, nested, environments)


def _actions(raws: list[msgspec.Raw]) -> ActionsArray | None:
    """The ``actions`` column straight as codes + offsets + vocabulary (no list per run kept);
    None when no record has the field."""
    lengths = set(map(len, raws))
    if 0 in lengths:
        if lengths == {0}:
            return None
        raise _NotPlain("actions")  # some records lack it: the general reader says what then
    flat: list[str] = []
    extend, decode = flat.extend, _ACTION_NAMES.decode
    ends = np.fromiter(
        (extend(decode(r)) or len(flat) for r in raws), dtype=np.int64, count=len(raws)
    )
    items = np.empty(len(flat), dtype=object)
    items[:] = flat
    codes, vocabulary = pd.factorize(items)
    return ActionsArray(codes, np.concatenate(([0], ends)), np.asarray(vocabulary, dtype=object))


def _nested(rows: list[Any], variants: list[Any] | None) -> list[tuple[int, dict[str, Any]]]:
    """(row, objects) of the rows with a perturbation, session or safety object (decoded)."""
    raws = {name: list(map(attrgetter(name), rows)) for name in NESTED}
    null = msgspec.Raw(b"null")
    found = sorted(
        {
            int(i)
            for values in raws.values()
            for i in np.flatnonzero(np.fromiter(map(null.__ne__, values), bool, len(values)))
        }
    )
    nested = []
    for i in found:
        objects = {name: msgspec.json.decode(raws[name][i]) for name in NESTED}
        if variants is not None and isinstance(variants[i], str):
            objects["variant"] = variants[i]
        nested.append((i, objects))
    return nested
