"""The run table's trajectory column: every run's action names as integer codes, stored once.

A run table of 400k runs holds about 4 million action names. As Python lists of strings they
take 300+ MB and every consumer (validation, the trajectory metrics, the report) walked them
again. :class:`ActionsArray` keeps them the way the metrics read them: one ``int32`` code per
action (runs concatenated), each run's end offset, and the vocabulary of distinct names, the
same layout as an Arrow ``list<dictionary<int32, string>>`` array (without needing pyarrow).
It is a pandas extension array (dtype ``"actions"``; the list-column behaviour it shares with
the ``violations`` and ``faults`` columns is :class:`~reliability_lab._lists.ListsArray`):
indexing a row gives a ``list`` of str, iterating gives lists, ``astype(object)`` gives an
object column of lists, so notebooks, ``to_csv``, pickling and ``to_parquet`` see what they saw
before (docs/run_table.md, "Columns").

:func:`encode_actions` builds it from any sequence of per-run lists in one pass; it is how the
run table is made (:func:`~reliability_lab.runs.validate_run_table`) and how the flat metric
functions read a list of lists.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from pandas.api.extensions import ExtensionDtype, register_extension_dtype

from reliability_lab._columns import flatten_lists, not_str
from reliability_lab._lists import ListsArray

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


class ActionsArray(ListsArray):
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
        self._check_offsets()

    @classmethod
    def from_lists(cls, values: Any, name: str = "actions") -> ActionsArray:
        """Encode per-run lists of str; raises TypeError naming ``name`` for anything else."""
        encoded = encode_actions(values)
        encoded.raise_for(name)
        assert encoded.array is not None
        return encoded.array

    @classmethod
    def empty(cls, n: int) -> ActionsArray:
        """``n`` runs without actions."""
        return cls(np.zeros(0, dtype=_CODE), np.zeros(n + 1, dtype=np.int64), np.empty(0, object))

    # -- the stored entries are codes into the vocabulary -----------------------------------
    @property
    def _flat(self) -> np.ndarray:
        return self.codes

    def _like(self, flat: np.ndarray, offsets: np.ndarray) -> ActionsArray:
        return ActionsArray(flat, offsets, self.vocabulary)

    def _items(self, flat: np.ndarray) -> list[Any]:
        return self.vocabulary[flat].tolist()

    # -- pandas ExtensionArray interface ----------------------------------------------------
    @property
    def dtype(self) -> ActionsDtype:
        return ActionsDtype()

    @property
    def nbytes(self) -> int:
        return int(self.codes.nbytes + self.offsets.nbytes + self.vocabulary.nbytes)

    @classmethod
    def _from_sequence(cls, scalars: Any, *, dtype: Any = None, copy: bool = False) -> ActionsArray:
        return cls.from_lists(scalars)

    @classmethod
    def _concat_same_type(cls, to_concat: Sequence[ActionsArray]) -> ActionsArray:
        vocabulary, remapped = _merge_vocabularies(to_concat)
        lengths = np.concatenate([a.lengths for a in to_concat])
        offsets = np.concatenate(([0], np.cumsum(lengths)))
        codes = np.concatenate(remapped) if remapped else np.zeros(0, dtype=_CODE)
        return cls(codes, offsets, vocabulary)


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
    flat = flatten_lists(values)
    if not flat.is_list.all():
        return EncodedActions(None, not_list=~flat.is_list)
    items = flat.items
    try:  # types are checked on the distinct names, once each
        codes, uniques = pd.factorize(items)
        vocabulary = np.asarray(uniques, dtype=object)
        valid = not (codes < 0).any() and not not_str(vocabulary).any()
    except TypeError:  # an unhashable name (a list where a str belongs)
        valid = False
    if not valid:
        bad = not_str(items)
        missing = bad & np.asarray(pd.isna(items), dtype=bool)
        per_run = np.zeros((2, len(flat.is_list)), dtype=bool)
        per_run[0, flat.run[missing]] = True
        per_run[1, flat.run[bad & ~missing]] = True
        return EncodedActions(
            None,
            missing=per_run[0] if per_run[0].any() else None,
            not_str=per_run[1] if per_run[1].any() else None,
        )
    offsets = np.concatenate(([0], np.cumsum(flat.lengths)))
    return EncodedActions(ActionsArray(codes, offsets, vocabulary))
