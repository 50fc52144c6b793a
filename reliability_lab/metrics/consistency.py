"""Consistency across repeated runs: outcome, confidence and resource consistency.

Conventions: docs/methodology.md, "Consistency"; the finite-K variants: docs/statistics.md.

Each metric is computed per task and averaged over the tasks where it is defined
(unweighted). The per-task kernels (``*_per_task``) are shared with the report, whose
bootstrap re-weights tasks without recomputing them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from reliability_lab.metrics._arrays import (
    Groups,
    as_confidence,
    as_groups,
    as_success,
    check_option,
    check_same_length,
    nanmean_or_warn,
)

__all__ = [
    "OUTCOME_VARIANTS",
    "RESOURCE_VARIANTS",
    "SPREAD_VARIANTS",
    "confidence_consistency",
    "outcome_consistency",
    "resource_consistency",
]

#: ``corrected`` = (2p̂ − 1)², the authors' fix; ``literal`` = the methodology page's formula;
#: ``unbiased`` = 1 − 4s², unbiased for (2p − 1)² at every K ≥ 2 (docs/statistics.md).
OUTCOME_VARIANTS = ("corrected", "literal", "unbiased")
#: How C_conf and C_res turn a task's spread into a score: ``plug_in`` = exp(−CV) of the
#: observed values; ``jackknife`` = its delete-one-run jackknife, bias O(1/K²) instead of O(1/K).
SPREAD_VARIANTS = ("plug_in", "jackknife")
#: C_res variants: the spread variants, and ``hal`` — HAL's ``reliability_eval`` rule: a zero
#: cost, time, call count, action count or latency counts as not recorded, while zero errors
#: are values, but a task whose errors average 0 contributes no error CV.
RESOURCE_VARIANTS = (*SPREAD_VARIANTS, "hal")
#: ε in the literal formula's denominator p̂(1 − p̂) + ε.
LITERAL_EPSILON = 1e-8
#: Values a task needs for the jackknife variant: every delete-one sample must keep two.
JACKKNIFE_MIN_VALUES = 3


def outcome_from_counts(n: np.ndarray, successes: np.ndarray, variant: str) -> np.ndarray:
    """C_out,t from each task's number of runs ``n`` and of successes; NaN where n < 2.

    Examples
    --------
    >>> n, s = np.array([5.0, 2.0, 1.0]), np.array([4.0, 1.0, 1.0])
    >>> outcome_from_counts(n, s, "corrected").round(4).tolist()  # (2·0.8 − 1)², 0, n < 2
    [0.36, 0.0, nan]
    >>> outcome_from_counts(n, s, "unbiased").round(4).tolist()  # 1 − 4·0.2, 1 − 4·0.5
    [0.2, -1.0, nan]
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        p = successes / n  # NaN for a task without runs (skipped)
        sample_var = n / (n - 1.0) * p * (1.0 - p)  # ddof=1 variance of 0/1 outcomes
        if variant == "corrected":
            value = (2.0 * p - 1.0) ** 2
        elif variant == "unbiased":
            value = 1.0 - 4.0 * sample_var
        else:
            value = np.clip(1.0 - sample_var / (p * (1.0 - p) + LITERAL_EPSILON), 0.0, 1.0)
    return np.where(n >= 2, value, np.nan)


def outcome_per_task(success: np.ndarray, groups: Groups, variant: str) -> np.ndarray:
    """C_out,t for every task; NaN where a task has fewer than 2 runs."""
    return outcome_from_counts(groups.count(), groups.sum(success.astype(float)), variant)


def outcome_consistency(success: Any, task_id: Any, *, variant: str = "corrected") -> float:
    """Outcome consistency C_out: do repeated runs of a task agree on success?

    Per task with K ≥ 2 runs and success rate p̂:

    - ``variant="corrected"`` (default): C_out,t = (2p̂ − 1)² = 1 − p̂(1 − p̂)/0.25.
    - ``variant="literal"``: C_out,t = clip(1 − s²/(p̂(1 − p̂) + ε), 0, 1) with the sample
      variance s² (ddof=1), as printed on the methodology page. For 0/1 outcomes it is 1 for
      unanimous tasks and 0 otherwise; kept to reproduce preprint-era numbers.
    - ``variant="unbiased"``: C_out,t = 1 − 4s² with s² = K/(K − 1)·p̂(1 − p̂), the ddof=1
      variance. Its expectation is (2p − 1)² exactly for every K ≥ 2, whereas the corrected
      form's is (2p − 1)² + 4p(1 − p)/K: its value does not depend on how many runs were made.
      A single task can score below 0 (down to −1/(K − 1) for a 50/50 task); the mean over
      tasks is the estimate, and it is not clipped (docs/statistics.md, "Finite K").

    C_out is the unweighted mean over tasks with K ≥ 2. Range [0, 1] (``unbiased``: [−1, 1]);
    1 when every task is unanimous. Tasks with one run are skipped; if none has two, NaN with
    :class:`~reliability_lab.UndefinedMetricWarning`.

    Parameters
    ----------
    success : array of bool or 0/1, one per run
    task_id : array of task labels, one per run
    variant : {"corrected", "literal", "unbiased"}

    References
    ----------
    Rabanser et al., "Towards a Science of AI Agent Reliability" (2026);
    docs/methodology.md, "Consistency".

    Examples
    --------
    >>> outcome_consistency([1, 1, 1, 1, 0], ["t"] * 5)
    0.36
    >>> outcome_consistency([1, 1, 1, 1, 0], ["t"] * 5, variant="literal")
    0.0
    >>> round(outcome_consistency([1, 1, 1, 1, 0], ["t"] * 5, variant="unbiased"), 4)  # 1 − 4·0.2
    0.2
    >>> outcome_consistency([1, 1, 1, 0, 1, 0], ["a", "a", "a", "b", "b", "b"])
    0.5
    """
    check_option(variant, "variant", OUTCOME_VARIANTS)
    y = as_success(success)
    groups = as_groups(task_id)
    check_same_length(success=y, task_id=groups.codes)
    per_task = outcome_per_task(y, groups, variant)
    return nanmean_or_warn(per_task, "C_out", "no task has 2 or more runs")


@dataclass(frozen=True)
class _Moments:
    """One variable's per-group moments over its recorded (non-NaN) entries."""

    groups: Groups
    present: np.ndarray  # per entry
    x: np.ndarray  # per entry, 0 where not recorded
    n: np.ndarray  # per group: recorded values (counted with multiplicity)
    mean: np.ndarray
    m2: np.ndarray  # Σ (x − mean)²
    lo: np.ndarray
    hi: np.ndarray
    n_lo: np.ndarray  # values equal to lo / to hi
    n_hi: np.ndarray

    @classmethod
    def of(cls, values: np.ndarray, groups: Groups) -> _Moments:
        present = ~np.isnan(values)
        x = np.where(present, values, 0.0)
        n = groups.count(present)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = groups.sum(x) / n
        dev = np.where(present, x - mean[groups.codes], 0.0)
        lo = np.full(groups.n, np.inf)
        hi = np.full(groups.n, -np.inf)
        np.minimum.at(lo, groups.codes[present], x[present])
        np.maximum.at(hi, groups.codes[present], x[present])
        at_lo = present & (x == lo[groups.codes])
        at_hi = present & (x == hi[groups.codes])
        return cls(
            groups, present, x, n, mean, groups.sum(dev * dev), lo, hi,
            groups.count(at_lo), groups.count(at_hi),
        )  # fmt: skip

    def cv(self) -> np.ndarray:
        """CV = std(ddof=1)/mean per group: < 2 values → NaN; all values equal → 0 exactly
        (this also covers all-zero resources, and avoids a float mean leaving a 1e-17
        deviation); mean ≤ 0 otherwise → NaN."""
        return _cv(self.n, self.mean, self.m2, self.lo == self.hi)

    def cv_without_each(self) -> np.ndarray:
        """Per entry: the group's CV with one copy of that entry left out (its own CV for an
        entry that did not record the variable). Closed-form downdates, no loop over runs —
        except where a downdate cancels most digits (one value dominating its group): those
        entries' moments are computed again from the remaining values."""
        g = self.groups.codes
        n, mean, x = self.n[g], self.mean[g], self.x
        with np.errstate(invalid="ignore", divide="ignore"):
            n1 = n - 1.0
            mean1 = (n * mean - x) / n1
            m2_1 = np.maximum(self.m2[g] - (x - mean) ** 2 * n / n1, 0.0)
            left = np.abs(mean1 * n1)  # the sum of the other values
            lossy = self.present & (
                (m2_1 < _CANCELLATION * self.m2[g]) | (left < _CANCELLATION * np.abs(x))
            )
        redo = np.flatnonzero(lossy & (n1 >= 1))
        if redo.size:
            mean1[redo], m2_1[redo] = self._moments_without(redo)
        lo, hi = self.lo[g], self.hi[g]
        equal = (lo == hi) | (
            ((x == lo) & (self.n_lo[g] == 1) & (self.n_hi[g] == n1))
            | ((x == hi) & (self.n_hi[g] == 1) & (self.n_lo[g] == n1))
        )
        return np.where(self.present, _cv(n1, mean1, m2_1, equal), self.cv()[g])

    def _moments_without(self, entries: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Mean and Σ (x − mean)² of each entry's group without that entry, from the values
        (two passes, no downdate): one row per entry, padded to the largest group."""
        g = self.groups.codes
        order = np.argsort(g, kind="stable")  # each group's entries: one slice of order
        bounds = np.searchsorted(g[order], np.arange(self.groups.n + 1))
        start, stop = bounds[g[entries]], bounds[g[entries] + 1]
        slots = start[:, None] + np.arange(int((stop - start).max()))[None, :]
        inside = slots < stop[:, None]
        members = order[np.where(inside, slots, 0)]
        keep = inside & self.present[members] & (members != entries[:, None])
        values = np.where(keep, self.x[members], 0.0)
        count = keep.sum(axis=1)
        mean = values.sum(axis=1) / count
        dev = np.where(keep, values - mean[:, None], 0.0)
        return mean, (dev * dev).sum(axis=1)


#: A downdate that leaves less than this share of the magnitude it started from has lost
#: more than three of the sixteen significant digits: recompute it from the values instead.
_CANCELLATION = 1e-3


def _cv(n: np.ndarray, mean: np.ndarray, m2: np.ndarray, equal: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        cv = np.sqrt(m2 / (n - 1.0)) / mean
    cv = np.where(equal, 0.0, np.where(mean > 0, cv, np.nan))
    return np.where(n >= 2, cv, np.nan)


def _exp_neg_mean_cv(moments: list[_Moments], groups: Groups, variant: str) -> np.ndarray:
    """exp(−mean CV) per group over the variables with enough values (plug-in or jackknife).

    ``plug_in``: θ_t = exp(−mean of the CVs of the variables with ≥ 2 values).
    ``jackknife``: over the variables with ≥ 3 values and the n runs recording at least one
    of them, θ_J = n·θ − (n − 1)·mean_i θ_(−i), θ_(−i) being θ without run i. The plug-in's
    O(1/n) bias (the ddof=1 standard deviation is biased low and exp(−x) is convex) cancels,
    leaving O(1/n²); a single task's θ_J can leave [0, 1].
    """
    if not moments:
        return np.full(groups.n, np.nan)
    need = 2 if variant == "plug_in" else JACKKNIFE_MIN_VALUES
    used = np.vstack([m.n >= need for m in moments])  # variables × groups
    n_used = used.sum(axis=0)
    cvs = np.vstack([m.cv() for m in moments])
    usable = used & ~np.isnan(cvs)
    with np.errstate(invalid="ignore", divide="ignore"):
        theta = np.exp(-np.where(usable, cvs, 0.0).sum(axis=0) / usable.sum(axis=0))
    theta = np.where(usable.any(axis=0), theta, np.nan)
    if variant == "plug_in":
        return theta
    g = groups.codes
    loo = np.vstack([np.where(used[r][g], m.cv_without_each(), 0.0) for r, m in enumerate(moments)])
    unit = np.vstack([used[r][g] & m.present for r, m in enumerate(moments)]).any(axis=0)
    unit = np.asarray(unit, dtype=bool)
    with np.errstate(invalid="ignore", divide="ignore"):
        theta_loo = np.exp(-loo.sum(axis=0) / n_used[g])
        n = groups.count(unit)
        mean_loo = groups.sum(np.where(unit, theta_loo, 0.0)) / n
        value = n * theta - (n - 1.0) * mean_loo
    return np.where(usable.any(axis=0), value, np.nan)


def confidence_per_task(
    confidence: np.ndarray, groups: Groups, variant: str = "plug_in"
) -> np.ndarray:
    """C_conf,t = exp(−std(ddof=1)/mean) over a task's non-NaN confidences (``jackknife``:
    its delete-one jackknife, ≥ 3 confidences); mean ≤ 0 → NaN."""
    moments = _Moments.of(confidence, groups)
    value = _exp_neg_mean_cv([moments], groups, variant)
    with np.errstate(invalid="ignore"):
        return np.where(moments.mean > 0, value, np.nan)


def confidence_consistency(confidence: Any, task_id: Any, *, variant: str = "plug_in") -> float:
    """Confidence consistency C_conf: is self-reported confidence stable across runs?

    Per task, over runs that have a confidence (NaN entries are skipped):
    C_conf,t = exp(−CV) with CV = std(ddof=1)/mean. Tasks with fewer than 2 confidences or
    mean ≤ 0 are skipped. Range (0, 1]; 1 when every run reports the same confidence.
    Reported but not part of R_Con.

    ``variant="jackknife"`` replaces each task's value by its delete-one jackknife
    θ_J = n·θ − (n − 1)·mean_i θ_(−i) over the task's n ≥ 3 confidences, which removes the
    plug-in's O(1/n) upward bias (docs/statistics.md, "Finite K"); a single task's θ_J can
    leave [0, 1] (it lies in [−(n − 1), n]); the mean over tasks is not clipped.

    Examples
    --------
    >>> confidence_consistency([0.8, 0.8, 0.8], ["t", "t", "t"])
    1.0
    >>> round(confidence_consistency([0.5, 1.0], ["t", "t"]), 4)  # CV = 0.3536/0.75
    0.6241
    >>> round(confidence_consistency([0.5, 1.0, 1.0], ["t"] * 3, variant="jackknife"), 4)
    0.6228
    """
    check_option(variant, "variant", SPREAD_VARIANTS)
    conf = as_confidence(confidence, allow_nan=True)
    groups = as_groups(task_id)
    check_same_length(confidence=conf, task_id=groups.codes)
    per_task = confidence_per_task(conf, groups, variant)
    need = 2 if variant == "plug_in" else JACKKNIFE_MIN_VALUES
    why = f"no task has {need} or more confidences with a positive mean"
    return nanmean_or_warn(per_task, "C_conf", why)


def resource_per_task(
    resources: Mapping[str, np.ndarray], groups: Groups, variant: str = "plug_in"
) -> np.ndarray:
    """C_res,t = exp(−mean CV over the resources with ≥ 2 recorded values in the task)
    (``jackknife``: its delete-one-run jackknife over the resources with ≥ 3 values;
    ``hal``: HAL's rule, :data:`RESOURCE_VARIANTS`)."""
    if variant == "hal":
        return _hal_resource_per_task(resources, groups)
    return _exp_neg_mean_cv([_Moments.of(v, groups) for v in resources.values()], groups, variant)


def _hal_resource_per_task(resources: Mapping[str, np.ndarray], groups: Groups) -> np.ndarray:
    """exp(−mean CV) with HAL's rule: zeros of every resource but ``num_errors`` are dropped;
    ``num_errors`` keeps its zeros but gives no CV where its mean is 0."""
    cvs = []
    for name, values in resources.items():
        if name == "num_errors":
            moments = _Moments.of(values, groups)
            cvs.append(np.where(moments.mean > 0, moments.cv(), np.nan))
        else:
            positive = np.where(values > 0, values, np.nan)
            cvs.append(_Moments.of(positive, groups).cv())
    if not cvs:
        return np.full(groups.n, np.nan)
    stack = np.vstack(cvs)
    usable = ~np.isnan(stack)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_cv = np.where(usable, stack, 0.0).sum(axis=0) / usable.sum(axis=0)
    return np.where(usable.any(axis=0), np.exp(-mean_cv), np.nan)


def _as_resource(values: Any, name: str, n: int) -> np.ndarray:
    arr = _resource_values(values, name)
    if len(arr) != n:
        raise ValueError(f"length mismatch: resources[{name!r}] has {len(arr)}, task_id has {n}")
    return arr


def _resource_values(values: Any, name: str) -> np.ndarray:
    """A non-negative float array that may contain NaN (= not recorded)."""
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"resources[{name!r}]: expected numbers (NaN = not recorded)") from None
    if arr.ndim != 1:
        raise ValueError(f"resources[{name!r}]: expected a 1-D array, got shape {arr.shape}")
    bad = np.isinf(arr) | (arr < 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"resources[{name!r}]: values must be finite and >= 0, got [{i}]={arr[i]!r}"
        )
    return arr


def resource_consistency(
    resources: Mapping[str, Any], task_id: Any, *, variant: str = "plug_in"
) -> float:
    """Resource consistency C_res: is resource use (cost, time, calls …) stable across runs?

    Per task over **all** its runs (not conditioned on success) and for each resource with
    at least two recorded (non-NaN) values: CV = std(ddof=1)/mean, with CV = 0 when all
    values are equal (including all zero). C_res,t = exp(−mean of the available CVs); a task
    with no available resource is skipped. Range (0, 1].

    ``variant="jackknife"``: the delete-one-run jackknife of each task's value over the
    resources with ≥ 3 recorded values and the runs recording one of them,
    θ_J = n·θ − (n − 1)·mean_i θ_(−i), which removes the plug-in's O(1/K) upward bias
    (docs/statistics.md, "Finite K"); a task's θ_J can leave [0, 1]; the mean is not clipped.

    Parameters
    ----------
    resources : mapping of resource name → per-run values (NaN = not recorded; 0 is real)
    task_id : array of task labels, one per run
    variant : {"plug_in", "jackknife", "hal"}

    Examples
    --------
    >>> round(resource_consistency({"cost_usd": [0.01, 10, 0.01, 10]}, ["t"] * 4), 5)
    0.31588
    >>> resource_consistency({"api_calls": [3, 3, float("nan")]}, ["t"] * 3)
    1.0
    >>> round(resource_consistency({"cost_usd": [1, 2, 3]}, ["t"] * 3, variant="jackknife"), 4)
    0.5724
    """
    check_option(variant, "variant", RESOURCE_VARIANTS)
    if not isinstance(resources, Mapping):
        raise TypeError(
            f"resources: expected a mapping of resource name -> values, "
            f"got {type(resources).__name__}"
        )
    groups = as_groups(task_id)
    arrays = {name: _as_resource(v, name, len(groups.codes)) for name, v in resources.items()}
    per_task = resource_per_task(arrays, groups, variant)
    need = JACKKNIFE_MIN_VALUES if variant == "jackknife" else 2
    why = f"no task has a resource with {need} or more recorded values"
    return nanmean_or_warn(per_task, "C_res", why)
