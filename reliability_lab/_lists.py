"""Per-run list columns of the run table, stored flat: every run's items concatenated, and
each run's end offset.

A run table of 400k runs has 400k entries in each of its list columns (``actions``,
``violations``, ``faults``), nearly all of them short or empty. As an object column of Python
lists every entry is a container the garbage collector tracks and walks again at each full
collection, and every consumer flattens the lists anew. :class:`ListsArray` is the pandas
extension array both list columns share: indexing a row gives a new ``list``, iterating gives
lists, ``astype(object)`` gives an object column of lists, so notebooks, ``to_dict``,
``to_csv``, pickling and ``to_parquet`` see what a column of lists gave them
(docs/run_table.md, "Columns"). The stored buffers are never modified: the column is
immutable, and a whole new column is assigned to change it.

:class:`RecordsArray` (dtype ``"records"``) holds per-run lists of any items — the
``violations`` and ``faults`` columns' dicts; :class:`~reliability_lab._actions.ActionsArray`
(dtype ``"actions"``) holds action names as integer codes.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterator, Sequence
from typing import Any, Self

import numpy as np
import pandas as pd
from pandas.api.extensions import ExtensionArray, ExtensionDtype, register_extension_dtype

from reliability_lab._columns import FlatLists, flatten_lists

__all__ = ["ListsArray", "RecordsArray", "RecordsDtype"]


class ListsArray(ExtensionArray):
    """Per-run lists stored flat (see the module docstring); subclasses say what an item is.

    A subclass stores one entry per item in ``_flat`` (runs concatenated) beside ``offsets``
    (``n_runs + 1`` positions: run ``i`` is ``_flat[offsets[i]:offsets[i + 1]]``) and
    implements :meth:`_like` and :meth:`_items`.
    """

    offsets: np.ndarray

    @property
    def _flat(self) -> np.ndarray:
        raise NotImplementedError

    def _like(self, flat: np.ndarray, offsets: np.ndarray) -> Self:
        """An array of the same kind (sharing everything else, e.g. a vocabulary)."""
        raise NotImplementedError

    def _items(self, flat: np.ndarray) -> list[Any]:
        """The Python items of the stored entries ``flat``."""
        raise NotImplementedError

    def _check_offsets(self) -> None:
        if self.offsets.ndim != 1 or len(self.offsets) == 0 or self.offsets[-1] != len(self._flat):
            raise ValueError(
                f"{type(self).__name__}: offsets must run from 0 to the number of items"
            )

    # -- what the metrics read -------------------------------------------------------------
    @property
    def lengths(self) -> np.ndarray:
        """Number of items of every run."""
        return np.diff(self.offsets)

    # -- pandas ExtensionArray interface ----------------------------------------------------
    def __len__(self) -> int:
        return len(self.offsets) - 1

    @classmethod
    def _from_factorized(cls, values: Any, original: Any) -> Self:
        raise TypeError("per-run lists are not hashable: they cannot be grouped or factorised")

    def _values_for_factorize(self) -> tuple[np.ndarray, Any]:
        raise TypeError("per-run lists are not hashable: they cannot be grouped or factorised")

    def __getitem__(self, item: Any) -> Any:
        if isinstance(item, int | np.integer):
            i = int(item) + len(self) if item < 0 else int(item)
            if not 0 <= i < len(self):
                raise IndexError(f"index {item} is out of bounds for {len(self)} runs")
            return self._items(self._flat[self.offsets[i] : self.offsets[i + 1]])
        if isinstance(item, slice):
            start, stop, step = item.indices(len(self))
            if step != 1:
                return self.take(np.arange(start, stop, step))
            stop = max(start, stop)
            first, last = self.offsets[start], self.offsets[stop]
            return self._like(self._flat[first:last], self.offsets[start : stop + 1] - first)
        key = pd.api.indexers.check_array_indexer(self, item)
        if key.dtype == bool:  # runs kept in order: keep their items by one mask
            lengths = self.lengths
            offsets = np.concatenate(([0], np.cumsum(lengths[key])))
            return self._like(self._flat[np.repeat(key, lengths)], offsets)
        return self.take(key)

    def __iter__(self) -> Iterator[list[Any]]:
        flat = self._items(self._flat)
        bounds = self.offsets.tolist()
        return map(flat.__getitem__, map(slice, bounds[:-1], bounds[1:]))

    def to_lists(self) -> np.ndarray:
        """Object array of per-run ``list`` (what an object column of lists held)."""
        out = np.empty(len(self), dtype=object)
        out[:] = list(iter(self))
        return out

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self.to_lists()

    def astype(self, dtype: Any, copy: bool = True) -> Any:
        if isinstance(dtype, type(self.dtype)) or dtype == self.dtype.name:
            return self.copy() if copy else self
        if pd.api.types.pandas_dtype(dtype) == np.dtype(object):
            return self.to_lists()
        return super().astype(dtype, copy=copy)

    def isna(self) -> np.ndarray:
        return np.zeros(len(self), dtype=bool)

    def copy(self) -> Self:
        """A new array sharing the (never modified) buffers: the column is immutable."""
        return self._like(self._flat, self.offsets)

    def view(self, dtype: Any = None) -> Self:
        if dtype is not None:
            raise TypeError(f"{self.dtype.name}: cannot view per-run lists as another dtype")
        return self.copy()

    def __setitem__(self, key: Any, value: Any) -> None:
        raise TypeError(
            f"a column of dtype {self.dtype.name!r} is immutable (stored flat): assign a whole "
            "new column, e.g. runs[column] = [...]"
        )

    def take(self, indices: Any, *, allow_fill: bool = False, fill_value: Any = None) -> Self:
        """Runs at ``indices``; with ``allow_fill``, −1 gives an empty list."""
        idx = np.asarray(indices, dtype=np.intp)
        if allow_fill:
            if fill_value not in (None, []) and not _is_na(fill_value):
                raise TypeError(
                    f"{self.dtype.name}: fill value must be an empty list, got {fill_value!r}"
                )
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
            return self._like(self._flat[:0], np.zeros(len(idx) + 1, dtype=np.int64))
        new_lengths = self.lengths[idx] if len(idx) else np.zeros(0, dtype=np.int64)
        if missing is not None:
            new_lengths = np.where(missing, 0, new_lengths)
        offsets = np.concatenate(([0], np.cumsum(new_lengths)))
        shift = np.repeat(self.offsets[:-1][idx] - offsets[:-1], new_lengths)
        return self._like(self._flat[np.arange(offsets[-1]) + shift], offsets)

    def __eq__(self, other: Any) -> Any:
        if isinstance(other, pd.Series | pd.Index | pd.DataFrame):
            return NotImplemented
        if isinstance(other, ListsArray | np.ndarray | list) and len(other) == len(self):
            return np.fromiter(map(_same, self, other), dtype=bool, count=len(self))
        return np.fromiter((_same(run, other) for run in self), dtype=bool, count=len(self))

    def __ne__(self, other: Any) -> Any:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else ~equal

    def _formatter(self, boxed: bool = False) -> Any:
        """Rows shown as pandas shows a column of lists."""
        from pandas.io.formats.printing import pprint_thing

        return pprint_thing

    def _reduce(self, name: str, *, skipna: bool = True, keepdims: bool = False, **kwargs: Any):  # type: ignore[no-untyped-def]
        raise TypeError(f"{self.dtype.name}: cannot compute '{name}' of per-run lists")


def _same(run: list[Any], other: Any) -> bool:
    try:
        return bool(run == list(other)) if not isinstance(other, str) else False
    except (TypeError, ValueError):
        return False


def _is_na(value: Any) -> bool:
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


@register_extension_dtype
class RecordsDtype(ExtensionDtype):
    """The dtype of the ``violations`` and ``faults`` columns: per-run lists of records."""

    name = "records"
    type = list
    kind = "O"
    na_value = None

    @classmethod
    def construct_array_type(cls) -> builtins.type[RecordsArray]:
        return RecordsArray

    @property
    def _is_immutable(self) -> bool:
        return True


class RecordsArray(ListsArray):
    """Per-run lists of items (dicts, in the run table) stored flat.

    Parameters
    ----------
    items : ndarray (object)
        Every run's items, runs concatenated.
    offsets : ndarray of int64
        ``n_runs + 1`` positions: run ``i`` is ``items[offsets[i]:offsets[i + 1]]``.

    Examples
    --------
    >>> v = RecordsArray.from_lists([[{"severity": "low"}], [], []])
    >>> v[0], v[1], v.lengths.tolist()
    ([{'severity': 'low'}], [], [1, 0, 0])
    >>> v[1] is v[1]  # every access is a new list
    False
    """

    def __init__(self, items: np.ndarray, offsets: np.ndarray) -> None:
        self.items = np.asarray(items, dtype=object)
        if self.items.ndim != 1:
            raise ValueError("RecordsArray: items must be one-dimensional")
        self.offsets = np.asarray(offsets, dtype=np.int64)
        self._check_offsets()

    @classmethod
    def empty(cls, n: int) -> RecordsArray:
        """``n`` runs, every one an empty list."""
        return cls(np.empty(0, dtype=object), np.zeros(n + 1, dtype=np.int64))

    @classmethod
    def from_lists(cls, values: Any, name: str = "column") -> RecordsArray:
        """From per-run lists (tuples and 1-D arrays too); TypeError naming ``name`` and the
        first runs whose entry is not one."""
        flat = flatten_lists(values)
        if not flat.is_list.all():
            rows = np.flatnonzero(~flat.is_list)
            raise TypeError(
                f"{name}: expected a list per run; runs {rows[:5].tolist()} ({len(rows)} in all)"
            )
        return cls.from_flat_lists(flat)

    @classmethod
    def from_flat_lists(cls, flat: FlatLists) -> RecordsArray:
        """From a column flattened by :func:`~reliability_lab._columns.flatten_lists` whose
        every entry is a list (as stored, when it already was a :class:`RecordsArray`)."""
        return cls(flat.items, np.concatenate(([0], np.cumsum(flat.lengths))))

    def as_flat_lists(self) -> FlatLists:
        """The column flattened as :func:`~reliability_lab._columns.flatten_lists` gives it
        (no pass over the runs: it is stored flat)."""
        n = len(self)
        return FlatLists(
            is_list=np.ones(n, dtype=bool),
            items=self.items,
            lengths=self.lengths,
            not_list_type=np.zeros(n, dtype=bool),
        )

    @property
    def _flat(self) -> np.ndarray:
        return self.items

    def _like(self, flat: np.ndarray, offsets: np.ndarray) -> RecordsArray:
        return RecordsArray(flat, offsets)

    def _items(self, flat: np.ndarray) -> list[Any]:
        return flat.tolist()

    @property
    def dtype(self) -> RecordsDtype:
        return RecordsDtype()

    @property
    def nbytes(self) -> int:
        return int(self.items.nbytes + self.offsets.nbytes)

    @classmethod
    def _from_sequence(cls, scalars: Any, *, dtype: Any = None, copy: bool = False) -> RecordsArray:
        return cls.from_lists(scalars)

    @classmethod
    def _concat_same_type(cls, to_concat: Sequence[RecordsArray]) -> RecordsArray:
        lengths = np.concatenate([a.lengths for a in to_concat])
        items = np.concatenate([a.items for a in to_concat]) if to_concat else np.empty(0, object)
        return cls(items, np.concatenate(([0], np.cumsum(lengths))))
