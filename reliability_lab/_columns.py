"""Vectorised checks of object columns: types of many values, and per-run lists flattened.

The run-table validator and the metric functions both check columns of Python objects (task
labels, per-run lists of action names or violations). These helpers do it without a Python call
per run: types are compared in one C-level pass, and list columns are flattened once.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["FlatLists", "flatten_lists", "is_exactly", "not_str"]


def is_exactly(values: np.ndarray, cls: type) -> np.ndarray:
    """Mask of the entries whose type is exactly ``cls`` (one C-level pass, no Python call)."""
    types = np.fromiter(map(type, values), dtype=object, count=len(values))
    return np.asarray(np.equal(types, np.asarray(cls, dtype=object)), dtype=bool)


def not_str(values: np.ndarray) -> np.ndarray:
    """Mask of the entries of an object array that are not ``str`` (vectorised).

    ``infer_dtype`` answers the common all-str case in C; otherwise types are compared without
    a Python call per entry, and only entries of another type are checked for str subclasses.
    """
    if len(values) == 0 or pd.api.types.infer_dtype(values, skipna=False) == "string":
        return np.zeros(len(values), dtype=bool)
    bad = ~is_exactly(values, str)
    idx = np.flatnonzero(bad)
    bad[idx] = [not isinstance(v, str) for v in values[idx]]
    return bad


@dataclass(frozen=True)
class FlatLists:
    """An object column of per-run lists, flattened (see :func:`flatten_lists`)."""

    is_list: np.ndarray
    """Per run: whether the entry is a list, tuple or 1-D array."""
    items: np.ndarray
    """Every item of those entries, in order (object array)."""
    lengths: np.ndarray
    """Per run: number of items (0 where ``is_list`` is false)."""
    not_list_type: np.ndarray
    """Per run: a tuple or array (a sequence to convert to ``list``), or not a sequence."""

    @cached_property
    def run(self) -> np.ndarray:
        """Position (0 … n − 1) of the run each item belongs to (made when first read)."""
        return np.repeat(np.arange(len(self.lengths)), self.lengths)

    def runs_where(self, item_mask: np.ndarray) -> np.ndarray:
        """Per-run mask: the run has at least one item where ``item_mask`` is true."""
        rows = np.zeros(len(self.is_list), dtype=bool)
        rows[self.run[item_mask]] = True
        return rows


def flatten_lists(values: Any) -> FlatLists:
    """Flatten a sequence of per-run lists without a Python call per run.

    Examples
    --------
    >>> flat = flatten_lists([["a", "b"], [], ("c",), "not a list"])
    >>> flat.is_list.tolist(), flat.items.tolist(), flat.run.tolist()
    ([True, True, True, False], ['a', 'b', 'c'], [0, 0, 2])
    """
    array = values.array if isinstance(values, pd.Series) else values
    flattened = getattr(array, "as_flat_lists", None)  # a column stored flat (._lists)
    if flattened is not None:
        return flattened()
    column = values.to_numpy(dtype=object) if isinstance(values, pd.Series) else values
    if isinstance(column, np.ndarray) and column.dtype == object and column.ndim == 1:
        arr = column
    else:
        arr = np.fromiter(column, dtype=object, count=len(column))
    not_list_type = ~is_exactly(arr, list)
    is_list = ~not_list_type
    other = np.flatnonzero(not_list_type)
    # a tuple is a list to read (an empty ``()`` per run is how a column of none is built)
    is_list[other] = is_exactly(arr[other], tuple)
    other = other[~is_list[other]]
    is_list[other] = [
        isinstance(v, list | tuple) or (isinstance(v, np.ndarray) and v.ndim == 1)
        for v in arr[other]
    ]
    lists = arr[is_list]
    lengths = np.zeros(len(arr), dtype=np.int64)
    lengths[is_list] = np.fromiter(map(len, lists), dtype=np.int64, count=len(lists))
    total = int(lengths.sum())
    items = np.fromiter(itertools.chain.from_iterable(lists), dtype=object, count=total)
    return FlatLists(is_list, items, lengths, not_list_type)
