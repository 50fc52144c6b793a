"""Input validation and grouping helpers shared by every metric function.

Every public metric validates its inputs here, so error messages read the same across the
package: they name the argument and show the offending value.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence, Sized
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from reliability_lab.errors import UndefinedMetricWarning

if TYPE_CHECKING:
    from reliability_lab._actions import ActionsArray

__all__ = [
    "Groups",
    "as_confidence",
    "as_groups",
    "as_success",
    "check_option",
    "check_same_length",
    "nanmean_or_warn",
    "undefined",
    "warn_undefined",
]

_SHOW = 5


def _show(values: np.ndarray, mask: np.ndarray) -> str:
    idx = np.flatnonzero(mask)[:_SHOW]
    shown = ", ".join(f"[{i}]={values[i]!r}" for i in idx)
    more = f" (+{int(mask.sum()) - len(idx)} more)" if mask.sum() > len(idx) else ""
    return shown + more


def _as_1d(values: Any, name: str) -> np.ndarray:
    if isinstance(values, str | bytes):
        raise TypeError(
            f"{name}: expected an array of values, got a single {type(values).__name__}"
        )
    arr = np.asarray(values.to_numpy() if isinstance(values, pd.Series) else values)
    if arr.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D array, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name}: empty input; at least one run is required")
    return arr


def as_success(values: Any, name: str = "success") -> np.ndarray:
    """Return a bool array; accepts bools or numbers that are exactly 0 or 1."""
    arr = _as_1d(values, name)
    if arr.dtype == bool:
        return arr
    if arr.dtype == object:
        is_num = np.array([isinstance(v, bool | int | float | np.number) for v in arr], dtype=bool)
        if not is_num.all():
            raise TypeError(f"{name}: expected bools or 0/1, got {_show(arr, ~is_num)}")
        arr = arr.astype(float)
    if not np.issubdtype(arr.dtype, np.number):
        raise TypeError(f"{name}: expected bools or 0/1, got dtype {arr.dtype}")
    bad = ~np.isin(arr, (0, 1))
    if bad.any():
        raise ValueError(f"{name}: values must be True/False or 0/1, got {_show(arr, bad)}")
    return arr.astype(bool)


def as_confidence(values: Any, name: str = "confidence", *, allow_nan: bool = False) -> np.ndarray:
    """Return a float array of probabilities in [0, 1] (NaN only if ``allow_nan``)."""
    arr = _as_1d(values, name)
    try:
        arr = arr.astype(float)
    except (TypeError, ValueError):
        raise TypeError(f"{name}: expected numbers in [0, 1], got dtype {arr.dtype}") from None
    nan = np.isnan(arr)
    if nan.any() and not allow_nan:
        raise ValueError(
            f"{name}: NaN at {_show(arr, nan)}; drop runs without a confidence before calling"
        )
    bad = ~nan & ~((arr >= 0) & (arr <= 1))
    if bad.any():
        raise ValueError(f"{name}: values must lie in [0, 1], got {_show(arr, bad)}")
    return arr


def check_same_length(**arrays: Sized) -> int:
    """Raise if the named arrays differ in length; return the common length."""
    lengths = {name: len(arr) for name, arr in arrays.items()}
    if len(set(lengths.values())) > 1:
        listed = ", ".join(f"{k} has {v}" for k, v in lengths.items())
        raise ValueError(f"length mismatch: {listed} (one element per run is required)")
    return next(iter(lengths.values()))


def check_option(value: Any, name: str, valid: Sequence[Any]) -> None:
    """Raise a ValueError listing the valid choices when ``value`` is not one of them."""
    if value not in valid:
        raise ValueError(f"{name}={value!r} is not valid; choose one of {list(valid)}")


@dataclass(frozen=True)
class Groups:
    """Task labels factorised to integer codes ``0 .. n - 1`` (first-appearance order).

    ``weight`` optionally gives each entry a multiplicity (a whole number ≥ 1): an entry then
    counts as that many identical runs. The report's two-level bootstrap scores resampled runs
    this way, through the same per-task kernels as the point estimate (``None`` = 1 each).
    """

    codes: np.ndarray
    labels: np.ndarray
    weight: np.ndarray | None = None

    @property
    def n(self) -> int:
        return len(self.labels)

    def count(self, mask: np.ndarray | None = None) -> np.ndarray:
        """Number of runs per group (optionally only where ``mask``)."""
        weights = None if mask is None else mask.astype(float)
        if self.weight is not None:
            weights = self.weight if weights is None else weights * self.weight
        return np.bincount(self.codes, weights=weights, minlength=self.n).astype(float)

    def sum(self, values: np.ndarray) -> np.ndarray:
        """Per-group sum of ``values`` (same length as ``codes``), each counted ``weight`` times."""
        if self.weight is not None:
            values = values * self.weight
        return np.bincount(self.codes, weights=values, minlength=self.n)

    def entry_weight(self) -> np.ndarray:
        """The multiplicity of every entry (ones without ``weight``)."""
        return np.ones(len(self.codes)) if self.weight is None else self.weight


def as_groups(task_id: Any, name: str = "task_id") -> Groups:
    """Validate task labels (no missing values) and factorise them."""
    arr = _as_1d(task_id, name)
    codes, labels = pd.factorize(arr, sort=False)
    missing = codes < 0  # None, NaN, NaT, pd.NA: what pd.isna calls missing
    if missing.any():
        raise ValueError(f"{name}: missing task labels at {_show(arr, missing)}")
    return Groups(codes=np.asarray(codes, dtype=np.intp), labels=np.asarray(labels))


def warn_undefined(message: str) -> None:
    """Emit an :class:`UndefinedMetricWarning`."""
    warnings.warn(message, UndefinedMetricWarning, stacklevel=4)


def undefined(message: str) -> float:
    """Warn with :class:`UndefinedMetricWarning` and return NaN."""
    warn_undefined(message)
    return float("nan")


def nanmean_or_warn(per_task: np.ndarray, metric: str, why: str) -> float:
    """Unweighted mean over tasks that are defined; NaN with a warning if none is."""
    finite = per_task[~np.isnan(per_task)]
    if finite.size == 0:
        return undefined(f"{metric} is undefined: {why}")
    return float(finite.mean())


def as_actions(values: Any, name: str = "actions") -> ActionsArray:
    """Validate a sequence of per-run action lists; return them encoded as codes, in one pass.

    Every action must be named by a str: a ``None`` or NaN name is an error (a trajectory metric
    could not tell it from another action), never silently skipped. A run-table column (dtype
    ``"actions"``) is already encoded and is returned as is.
    """
    from reliability_lab._actions import encode_actions

    if isinstance(values, str | bytes):
        raise TypeError(f"{name}: expected one list of action names per run, got a string")
    encoded = encode_actions(values)
    if encoded.array is not None:
        if len(encoded.array) == 0:
            raise ValueError(f"{name}: empty input; at least one run is required")
        return encoded.array
    runs = np.empty(len(values), dtype=object)
    runs[:] = list(values)
    if encoded.not_list is not None:
        raise TypeError(
            f"{name}: expected a list of action names per run, got {_show(runs, encoded.not_list)}"
        )
    if encoded.missing is not None:
        shown = _show(runs, encoded.missing)
        raise TypeError(f"{name}: missing action name (None or NaN) in run {shown}")
    bad = encoded.not_str if encoded.not_str is not None else np.zeros(len(runs), dtype=bool)
    raise TypeError(f"{name}: action names must be str; run {_show(runs, bad)}")
