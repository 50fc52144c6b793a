"""The run table's trajectory column: every run's action names as integer codes, stored once.

A run table of 400k runs holds about 4 million action names. As Python lists of strings they
take 300+ MB and every consumer (validation, the trajectory metrics, the report) walked them
again. :class:`ActionsArray` keeps them the way the metrics read them: one ``int32`` code per
action (runs concatenated), each run's end offset, and the vocabulary of distinct names, the
same layout as an Arrow ``list<dictionary<int32, string>>`` array (without needing pyarrow).
It is a pandas extension array (dtype ``"actions"``): indexing a row gives a ``list`` of
str, iterating gives lists, ``astype(object)`` gives an object column of lists, so
notebooks, ``to_csv``, pickling and ``to_parquet`` see what they saw before
(docs/run_table.md, "Columns").

:func:`encode_actions` builds it from any sequence of per-run lists in one pass; it is how the
run table is made (:func:`~reliability_lab.runs.validate_run_table`) and how the flat metric
functions read a list of lists.
"""

from __future__ import annotations

import builtins
import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from pandas.api.extensions import ExtensionArray, ExtensionDtype, register_extension_dtype

from reliability_lab._columns import is_exactly, not_str

__all__ = ["ActionsArray", "ActionsDtype", "EncodedActions", "encode_actions"]

_CODE = np.int32


@register_extension_dtype
class ActionsDtype(ExtensionDtype):
    """The dtype of the ``actions`` column: per-run lists of action names, stored as codes."""

    name = "actions"
    type = list
    kind = "O"
    na_value = None

    @classmethod
    def construct_array_type(cls) -> builtins.type[ActionsArray]:
        return ActionsArray

    @property
    def _is_immutable(self) -> bool:
        return True


class ActionsArray(ExtensionArray):
    """Per-run lists of action names as codes + offsets + vocabulary (see the module docstring).

    Parameters
    ----------
    codes : ndarray of int32
        The vocabulary index of every action, runs concatenated.
    offsets : ndarray of int64
        ``n_runs + 1`` positions: run ``i`` is ``codes[offsets[i]:offsets[i + 1]]``.
    vocabulary : ndarray of str (object)
        Distinct action names.

    Examples
    --------
    >>> acts = ActionsArray.from_lists([["search", "buy"], [], ["search"]])
    >>> acts[0], len(acts), acts.lengths.tolist()
    (['search', 'buy'], 3, [2, 0, 1])
    >>> pd.Series(acts).map(len).tolist()
    [2, 0, 1]
    """

    def __init__(self, codes: np.ndarray, offsets: np.ndarray, vocabulary: np.ndarray) -> None:
        self.codes = np.asarray(codes, dtype=_CODE)
        self.offsets = np.asarray(offsets, dtype=np.int64)
        self.vocabulary = np.asarray(vocabulary, dtype=object)
        if self.offsets.ndim != 1 or len(self.offsets) == 0 or self.offsets[-1] != len(codes):
            raise ValueError("ActionsArray: offsets must run from 0 to the number of codes")

    @classmethod
    def from_lists(cls, values: Any, name: str = "actions") -> ActionsArray:
        """Encode per-run lists of str; raises TypeError naming ``name`` for anything else."""
        encoded = encode_actions(values)
        encoded.raise_for(name)
        assert encoded.array is not None
        return encoded.array

    # -- what the metrics read -------------------------------------------------------------
    @property
    def lengths(self) -> np.ndarray:
        """Number of actions of every run."""
        return np.diff(self.offsets)

    def run_of_action(self) -> np.ndarray:
        """The run (0 … n − 1) of every code."""
        return np.repeat(np.arange(len(self)), self.lengths)

    # -- pandas ExtensionArray interface ----------------------------------------------------
    @property
    def dtype(self) -> ActionsDtype:
        return ActionsDtype()

    @property
    def nbytes(self) -> int:
        return int(self.codes.nbytes + self.offsets.nbytes + self.vocabulary.nbytes)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    @classmethod
    def _from_sequence(cls, scalars: Any, *, dtype: Any = None, copy: bool = False) -> ActionsArray:
        return cls.from_lists(scalars)

    @classmethod
    def _from_factorized(cls, values: Any, original: Any) -> ActionsArray:
        raise TypeError("action lists are not hashable: they cannot be grouped or factorised")

    def _values_for_factorize(self) -> tuple[np.ndarray, Any]:
        raise TypeError("action lists are not hashable: they cannot be grouped or factorised")

    def __getitem__(self, item: Any) -> Any:
        if isinstance(item, int | np.integer):
            i = int(item) + len(self) if item < 0 else int(item)
            if not 0 <= i < len(self):
                raise IndexError(f"index {item} is out of bounds for {len(self)} runs")
            return self.vocabulary[self.codes[self.offsets[i] : self.offsets[i + 1]]].tolist()
        if isinstance(item, slice):
            start, stop, step = item.indices(len(self))
            if step != 1:
                return self.take(np.arange(start, stop, step))
            stop = max(start, stop)
            first, last = self.offsets[start], self.offsets[stop]
            offsets = self.offsets[start : stop + 1] - first
            return ActionsArray(self.codes[first:last], offsets, self.vocabulary)
        key = pd.api.indexers.check_array_indexer(self, item)
        if key.dtype == bool:  # runs kept in order: keep their codes by one mask
            lengths = self.lengths
            offsets = np.concatenate(([0], np.cumsum(lengths[key])))
            return ActionsArray(self.codes[np.repeat(key, lengths)], offsets, self.vocabulary)
        return self.take(key)

    def __iter__(self) -> Iterator[list[str]]:
        flat = self.vocabulary[self.codes].tolist()
        bounds = self.offsets.tolist()
        return map(flat.__getitem__, map(slice, bounds[:-1], bounds[1:]))

    def to_lists(self) -> np.ndarray:
        """Object array of per-run ``list`` of str (what the column held before codes)."""
        out = np.empty(len(self), dtype=object)
        out[:] = list(iter(self))
        return out

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self.to_lists()

    def astype(self, dtype: Any, copy: bool = True) -> Any:
        if isinstance(dtype, ActionsDtype) or dtype == "actions":
            return self.copy() if copy else self
        if pd.api.types.pandas_dtype(dtype) == np.dtype(object):
            return self.to_lists()
        return super().astype(dtype, copy=copy)

    def isna(self) -> np.ndarray:
        return np.zeros(len(self), dtype=bool)

    def copy(self) -> ActionsArray:
        """A new array sharing the (never modified) buffers: the column is immutable."""
        return ActionsArray(self.codes, self.offsets, self.vocabulary)

    def view(self, dtype: Any = None) -> ActionsArray:
        if dtype is not None:
            raise TypeError("actions: cannot view action lists as another dtype")
        return self.copy()

    def __setitem__(self, key: Any, value: Any) -> None:
        raise TypeError(
            "the actions column is immutable (stored as codes): assign a whole new column, "
            "e.g. runs['actions'] = [...]"
        )

    def take(
        self,
        indices: Any,
        *,
        allow_fill: bool = False,
        fill_value: Any = None,
    ) -> ActionsArray:
        """Runs at ``indices``; with ``allow_fill``, −1 gives an empty list (no actions)."""
        idx = np.asarray(indices, dtype=np.intp)
        lengths = self.lengths
        if allow_fill:
            if fill_value not in (None, []) and not _is_na(fill_value):
                raise TypeError(f"actions: fill value must be an empty list, got {fill_value!r}")
            if (idx < -1).any():
                raise ValueError("take: indices below -1 with allow_fill")
            missing = idx == -1
            idx = np.where(missing, 0, idx)
        elif len(idx) and ((idx >= len(self)) | (idx < -len(self))).any():
            raise IndexError(f"take: index out of bounds for {len(self)} runs")
        else:
            missing = None
            idx = np.where(idx < 0, idx + len(self), idx)
        if len(self) == 0 and len(idx):
            return _empty_runs(len(idx), self.vocabulary)
        new_lengths = lengths[idx] if len(idx) else np.zeros(0, dtype=np.int64)
        if missing is not None:
            new_lengths = np.where(missing, 0, new_lengths)
        offsets = np.concatenate(([0], np.cumsum(new_lengths)))
        shift = np.repeat(self.offsets[:-1][idx] - offsets[:-1], new_lengths)
        codes = self.codes[np.arange(offsets[-1]) + shift]
        return ActionsArray(codes, offsets, self.vocabulary)

    @classmethod
    def _concat_same_type(cls, to_concat: Sequence[ActionsArray]) -> ActionsArray:
        vocabulary, remapped = _merge_vocabularies(to_concat)
        lengths = np.concatenate([a.lengths for a in to_concat])
        offsets = np.concatenate(([0], np.cumsum(lengths)))
        codes = np.concatenate(remapped) if remapped else np.zeros(0, dtype=_CODE)
        return cls(codes, offsets, vocabulary)

    def __eq__(self, other: Any) -> Any:
        if isinstance(other, pd.Series | pd.Index | pd.DataFrame):
            return NotImplemented
        if isinstance(other, ActionsArray | np.ndarray | list) and len(other) == len(self):
            return np.fromiter(map(_same, self, other), dtype=bool, count=len(self))
        return np.fromiter((_same(run, other) for run in self), dtype=bool, count=len(self))

    def __ne__(self, other: Any) -> Any:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else ~equal

    def _formatter(self, boxed: bool = False) -> Any:
        """Rows shown as pandas shows a column of lists: ``[search, buy]``."""
        from pandas.io.formats.printing import pprint_thing

        return pprint_thing

    def _reduce(self, name: str, *, skipna: bool = True, keepdims: bool = False, **kwargs: Any):  # type: ignore[no-untyped-def]
        raise TypeError(f"actions: cannot compute '{name}' of action lists")


def _same(run: list[str], other: Any) -> bool:
    try:
        return bool(run == list(other)) if not isinstance(other, str) else False
    except TypeError:
        return False


def _is_na(value: Any) -> bool:
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def _empty_runs(n: int, vocabulary: np.ndarray) -> ActionsArray:
    return ActionsArray(np.zeros(0, dtype=_CODE), np.zeros(n + 1, dtype=np.int64), vocabulary)


def _merge_vocabularies(arrays: Sequence[ActionsArray]) -> tuple[np.ndarray, list[np.ndarray]]:
    """One vocabulary for several arrays and each array's codes translated into it."""
    names = np.concatenate([a.vocabulary for a in arrays]) if arrays else np.zeros(0, object)
    where, vocabulary = pd.factorize(names)
    remapped, start = [], 0
    for a in arrays:
        table = where[start : start + len(a.vocabulary)].astype(_CODE)
        remapped.append(table[a.codes])
        start += len(a.vocabulary)
    return np.asarray(vocabulary, dtype=object), remapped


@dataclass(frozen=True)
class EncodedActions:
    """The result of :func:`encode_actions`: the array, or per-run masks of what is wrong."""

    array: ActionsArray | None
    not_list: np.ndarray | None = None
    """Runs whose entry is not a list, tuple or 1-D array."""
    missing: np.ndarray | None = None
    """Runs with a missing action name (None or NaN)."""
    not_str: np.ndarray | None = None
    """Runs with an action name that is not a str."""

    def raise_for(self, name: str) -> None:
        """Raise a TypeError naming ``name`` and the first bad runs, if any."""
        for mask, what in (
            (self.not_list, "expected a list of action names per run"),
            (self.missing, "missing action name (None or NaN)"),
            (self.not_str, "action names must be str"),
        ):
            if mask is not None:
                rows = np.flatnonzero(mask)
                raise TypeError(f"{name}: {what}; runs {rows[:5].tolist()} ({len(rows)} in all)")


def encode_actions(values: Any) -> EncodedActions:
    """Per-run lists of action names → :class:`ActionsArray`, in one pass over the names.

    ``values`` is an :class:`ActionsArray` or a Series of dtype ``"actions"`` (returned as
    is), or any sequence whose entries are lists, tuples or 1-D arrays of str. Codes number
    the names in order of first appearance. Nothing is raised: a bad entry is reported as a
    mask (:class:`EncodedActions`) so each caller words the error its own way.
    """
    if isinstance(values, pd.Series | pd.Index):
        if isinstance(values.dtype, ActionsDtype):
            return EncodedActions(values.array)  # type: ignore[arg-type]
        values = values.to_numpy(dtype=object)
    if isinstance(values, ActionsArray):
        return EncodedActions(values)
    if isinstance(values, np.ndarray) and values.dtype == object and values.ndim == 1:
        runs = values
    else:
        runs = np.empty(len(values), dtype=object)
        runs[:] = list(values)
    is_list = is_exactly(runs, list)
    other = np.flatnonzero(~is_list)
    is_list[other] = [
        isinstance(v, tuple) or (isinstance(v, np.ndarray) and v.ndim == 1) for v in runs[other]
    ]
    if not is_list.all():
        return EncodedActions(None, not_list=~is_list)
    lengths = np.fromiter(map(len, runs), dtype=np.int64, count=len(runs))
    offsets = np.concatenate(([0], np.cumsum(lengths)))
    items = np.fromiter(itertools.chain.from_iterable(runs), dtype=object, count=int(offsets[-1]))
    bad = not_str(items)
    if bad.any():
        run = np.repeat(np.arange(len(runs)), lengths)
        missing = bad & np.asarray(pd.isna(items), dtype=bool)
        per_run = np.zeros((2, len(runs)), dtype=bool)
        per_run[0, run[missing]] = True
        per_run[1, run[bad & ~missing]] = True
        return EncodedActions(
            None,
            missing=per_run[0] if per_run[0].any() else None,
            not_str=per_run[1] if per_run[1].any() else None,
        )
    codes, vocabulary = pd.factorize(items)
    return EncodedActions(ActionsArray(codes, offsets, np.asarray(vocabulary, dtype=object)))
