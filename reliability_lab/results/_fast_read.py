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
from collections.abc import Callable, Sequence
from functools import cache
from operator import attrgetter
from typing import Any, NamedTuple

import msgspec
import numpy as np
import pandas as pd

from reliability_lab._actions import ActionsArray
from reliability_lab._lists import RecordsArray
from reliability_lab.results.record_schema import SCALAR_FIELDS

__all__ = ["DecodedColumns", "decode_columns"]

#: The nested objects whose columns are taken record by record (only where a record has one).
NESTED = ("perturbation", "session", "safety")
_TYPES: dict[str, Any] = {"bool": bool, "int": int, "number": float, "str": str}


class _NotPlain(Exception):
    """A value the general reader must judge (e.g. 2.5 for an integer field)."""


class DecodedColumns(NamedTuple):
    """What the fast path read: the table's columns, the nested objects, the environments."""

    columns: dict[str, list[Any] | np.ndarray]
    """Each field present in at least one record, one value per record (NaN where a record
    lacks it, as ``DataFrame.from_records`` fills a missing key)."""
    nested: list[tuple[int, dict[str, Any]]]
    """(row, {perturbation, session, safety, variant}) of the records that have one."""
    environments: list[Any]
    """Each record's ``environment`` (None where it has none)."""


#: Read later, and only where a record has one: kept as the line's raw JSON text meanwhile
#: (not an object the garbage collector tracks).
_RAW = {
    "actions": msgspec.Raw(b""),
    "violations": msgspec.Raw(b""),
    **{name: msgspec.Raw(b"null") for name in NESTED},
}
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


#: A column whose values are all of these types becomes this array, as pandas would infer it
#: from the list (so the table equals the one the general reader builds).
_ARRAYS: dict[frozenset[type], type] = {
    frozenset({float}): np.float64,
    frozenset({int}): np.int64,
    frozenset({float, int}): np.float64,
    frozenset({bool}): np.bool_,
}


def _column(
    values: list[Any], name: str, strings: dict[Any, Any] | None = None
) -> list[Any] | np.ndarray | None:
    """One field of every row, None when no row has it (NaN where a row lacks it).

    Equal strings become one object (``strings``: the objects kept so far, shared between the
    pieces of a file): the decoder makes a new ``str`` per line, and a column such as
    ``condition`` would otherwise hold 200k copies of a few words (~60 bytes each). Numbers and
    booleans of one kind become a numpy array straight away."""
    unset = msgspec.UNSET
    kind = SCALAR_FIELDS.get(name)
    types = set(map(type, values))
    if (
        kind == "int"
        and float in types
        and not all(map(float.is_integer, [v for v in values if type(v) is float]))
    ):
        raise _NotPlain(name)
    if type(unset) in types:
        if types == {type(unset)}:
            return None
        values = [math.nan if v is unset else v for v in values]
        types = set(map(type, values))
    if kind == "str":
        one: dict[Any, Any] = {} if strings is None else strings
        return list(map(one.setdefault, values, values))
    dtype = _ARRAYS.get(frozenset(types))
    if dtype is not None:
        try:
            return np.array(values, dtype=dtype)
        except OverflowError:  # an integer past 64 bits: pandas keeps it as an object
            return values
    return values


def _joined(name: str, parts: list[tuple[int, Any]]) -> Any:
    """One column from the pieces of a file — ``(rows, column or None)`` each — as
    :func:`_column` (or the list columns' readers) would give it for the whole file."""
    columns = [column for _, column in parts]
    if all(column is None for column in columns):
        return None
    if name in _LIST_COLUMNS:
        if any(column is None for column in columns):
            raise _NotPlain(name)  # only some records have the field
        return type(columns[0])._concat_same_type(columns)
    filled = [[math.nan] * n if column is None else column for n, column in parts]
    if len(filled) == 1:
        return filled[0]
    dtypes = {column.dtype for column in filled if isinstance(column, np.ndarray)}
    numeric = {np.dtype(np.int64), np.dtype(np.float64)}
    if all(isinstance(column, np.ndarray) for column in filled) and (
        len(dtypes) == 1 or dtypes <= numeric
    ):
        return np.concatenate(filled)  # int and float together: float, as pandas infers
    return [v for column in filled for v in (_as_list(column))]


def _as_list(column: list[Any] | np.ndarray) -> list[Any]:
    return column.tolist() if isinstance(column, np.ndarray) else column


#: Lines decoded at a time: only one piece's structs and values are alive at once, so a large
#: file needs about its size plus the table plus one piece, not five times its size (200k runs,
#: 143 MB: peak 554 MB instead of 709 MB). Smaller pieces save more memory but cost time (16 MB:
#: +40 %; 64 MB: +5 %; benchmarks/README.md, "Issue 26, fourth part").
CHUNK_BYTES = 64 << 20


def _pieces(data: bytes) -> list[tuple[int, int]]:
    """(start, stop) of consecutive pieces of whole lines of ``data``, each about
    :data:`CHUNK_BYTES` (the file's final newline left out)."""
    end = len(data) - 1 if data.endswith(b"\n") else len(data)
    pieces, start = [], 0
    while start < end:
        cut = data.find(b"\n", start + CHUNK_BYTES, end) if start + CHUNK_BYTES < end else -1
        stop = end if cut < 0 else cut
        pieces.append((start, stop))
        start = stop + 1
    return pieces


def decode_columns(data: bytes, fields: Sequence[str]) -> DecodedColumns | None:
    """The columns ``fields`` (and the nested objects) of the lines of ``data``, or None when
    a line needs the general reader (see the module docstring). The lines are decoded a piece
    at a time (:data:`CHUNK_BYTES`)."""
    wanted = tuple(dict.fromkeys((*fields, "environment", *NESTED)))
    decoder, view = _decoder(wanted), memoryview(data)  # no copy of the file's bytes
    parts: dict[str, list[tuple[int, Any]]] = {name: [] for name in fields}
    strings: dict[str, dict[Any, Any]] = {name: {} for name in fields}
    nested: list[tuple[int, dict[str, Any]]] = []
    environments: list[Any] = []
    unset, done = msgspec.UNSET, 0
    try:
        for start, stop in _pieces(data):
            rows = decoder.decode_lines(view[start:stop])
            if len(rows) != data.count(b"\n", start, stop) + 1:  # a blank line: refused
                return None
            for name in fields:  # C-level map: no tuple per row, no bytecode per value
                values = list(map(attrgetter(name), rows))
                read = _LIST_COLUMNS.get(name)
                column = read(values, name) if read else _column(values, name, strings[name])
                parts[name].append((len(rows), column))
            variants = parts["variant"][-1][1] if "variant" in parts else None
            nested.extend((done + i, objects) for i, objects in _nested(rows, variants))
            environments.extend(None if r.environment is unset else r.environment for r in rows)
            done += len(rows)
        if done == 0:
            return None
        columns = {}
        for name in fields:
            column = _joined(name, parts.pop(name))
            if column is not None:
                columns[name] = column
    except (msgspec.DecodeError, msgspec.ValidationError, _NotPlain):
        return None
    return DecodedColumns(columns, nested, environments)


def _present(raws: list[msgspec.Raw], name: str) -> bool:
    """Whether the records have field ``name`` (its raw text is empty where a record lacks
    it); a field only some records have is left to the general reader, which says what then."""
    lengths = set(map(len, raws))
    if 0 in lengths:
        if lengths == {0}:
            return False
        raise _NotPlain(name)
    return True


def _actions(raws: list[msgspec.Raw], name: str = "actions") -> ActionsArray | None:
    """The ``actions`` column straight as codes + offsets + vocabulary (no list per run kept);
    None when no record has the field."""
    if not _present(raws, name):
        return None
    flat: list[str] = []
    extend, decode = flat.extend, _ACTION_NAMES.decode
    ends = np.fromiter(
        (extend(decode(r)) or len(flat) for r in raws), dtype=np.int64, count=len(raws)
    )
    items = np.empty(len(flat), dtype=object)
    items[:] = flat
    codes, vocabulary = pd.factorize(items)
    return ActionsArray(codes, np.concatenate(([0], ends)), np.asarray(vocabulary, dtype=object))


_EMPTY_LIST = msgspec.Raw(b"[]")


def _records(raws: list[msgspec.Raw], name: str) -> RecordsArray | None:
    """A per-run list column (``violations``) stored flat, with no list made for a run whose
    list is empty (nearly all of them); None when no record has the field. An entry that is
    not a list is left to the general reader."""
    if not _present(raws, name):
        return None
    runs = np.flatnonzero(np.fromiter(map(_EMPTY_LIST.__ne__, raws), bool, len(raws)))
    lengths = np.zeros(len(raws), dtype=np.int64)
    items: list[Any] = []
    for i in runs.tolist():
        found = msgspec.json.decode(raws[i])
        if type(found) is not list:
            raise _NotPlain(name)
        lengths[i] = len(found)
        items.extend(found)
    flat = np.fromiter(items, dtype=object, count=len(items))
    return RecordsArray(flat, np.concatenate(([0], np.cumsum(lengths))))


_LIST_COLUMNS: dict[str, Callable[[list[Any], str], Any]] = {
    "actions": _actions,
    "violations": _records,
}


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
