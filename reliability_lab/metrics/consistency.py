"""Consistency across repeated runs: outcome, confidence and resource consistency.

Conventions: docs/methodology.md, "Consistency".

Each metric is computed per task and averaged over the tasks where it is defined
(unweighted). The per-task kernels (``*_per_task``) are shared with the report, whose
bootstrap re-weights tasks without recomputing them.
"""

from __future__ import annotations

from collections.abc import Mapping
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
    "confidence_consistency",
    "outcome_consistency",
    "resource_consistency",
]

#: ``corrected`` = (2p̂ − 1)², the authors' fix; ``literal`` = the methodology page's formula.
OUTCOME_VARIANTS = ("corrected", "literal")
#: ε in the literal formula's denominator p̂(1 − p̂) + ε.
LITERAL_EPSILON = 1e-8


def outcome_per_task(success: np.ndarray, groups: Groups, variant: str) -> np.ndarray:
    """C_out,t for every task; NaN where a task has fewer than 2 runs."""
    n = groups.count()
    with np.errstate(invalid="ignore", divide="ignore"):
        p = groups.sum(success.astype(float)) / n  # NaN for a task without runs (skipped)
        if variant == "corrected":
            value = (2.0 * p - 1.0) ** 2
        else:
            sample_var = n / (n - 1.0) * p * (1.0 - p)  # ddof=1 variance of 0/1 outcomes
            value = np.clip(1.0 - sample_var / (p * (1.0 - p) + LITERAL_EPSILON), 0.0, 1.0)
    return np.where(n >= 2, value, np.nan)


def outcome_consistency(success: Any, task_id: Any, *, variant: str = "corrected") -> float:
    """Outcome consistency C_out: do repeated runs of a task agree on success?

    Per task with K ≥ 2 runs and success rate p̂:

    - ``variant="corrected"`` (default): C_out,t = (2p̂ − 1)² = 1 − p̂(1 − p̂)/0.25.
    - ``variant="literal"``: C_out,t = clip(1 − s²/(p̂(1 − p̂) + ε), 0, 1) with the sample
      variance s² (ddof=1), as printed on the methodology page. For 0/1 outcomes it is 1 for
      unanimous tasks and 0 otherwise; kept to reproduce preprint-era numbers.

    C_out is the unweighted mean over tasks with K ≥ 2. Range [0, 1]; 1 when every task is
    unanimous. Tasks with one run are skipped; if none has two, NaN with
    :class:`~reliability_lab.UndefinedMetricWarning`.

    Parameters
    ----------
    success : array of bool or 0/1, one per run
    task_id : array of task labels, one per run
    variant : {"corrected", "literal"}

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
    >>> outcome_consistency([1, 1, 1, 0, 1, 0], ["a", "a", "a", "b", "b", "b"])
    0.5
    """
    check_option(variant, "variant", OUTCOME_VARIANTS)
    y = as_success(success)
    groups = as_groups(task_id)
    check_same_length(success=y, task_id=groups.codes)
    per_task = outcome_per_task(y, groups, variant)
    return nanmean_or_warn(per_task, "C_out", "no task has 2 or more runs")


def _group_cv(values: np.ndarray, groups: Groups) -> tuple[np.ndarray, np.ndarray]:
    """(CV, mean) per group over non-NaN values, CV = std(ddof=1)/mean.

    Groups with < 2 values → NaN; groups whose values are all equal → CV 0 exactly (this also
    covers all-zero resources, and avoids a float mean leaving a 1e-17 deviation); mean ≤ 0
    otherwise → NaN.
    """
    present = ~np.isnan(values)
    x = np.where(present, values, 0.0)
    n = groups.count(present)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = groups.sum(x) / n
        dev = np.where(present, x - mean[groups.codes], 0.0)
        std = np.sqrt(groups.sum(dev * dev) / (n - 1.0))
        cv = std / mean
    lo = np.full(groups.n, np.inf)
    hi = np.full(groups.n, -np.inf)
    np.minimum.at(lo, groups.codes[present], x[present])
    np.maximum.at(hi, groups.codes[present], x[present])
    cv = np.where(lo == hi, 0.0, np.where(mean > 0, cv, np.nan))
    return np.where(n >= 2, cv, np.nan), mean


def confidence_per_task(confidence: np.ndarray, groups: Groups) -> np.ndarray:
    """C_conf,t = exp(−std(ddof=1)/mean) over a task's non-NaN confidences; mean ≤ 0 → NaN."""
    cv, mean = _group_cv(confidence, groups)
    with np.errstate(invalid="ignore"):
        return np.where(mean > 0, np.exp(-cv), np.nan)


def confidence_consistency(confidence: Any, task_id: Any) -> float:
    """Confidence consistency C_conf: is self-reported confidence stable across runs?

    Per task, over runs that have a confidence (NaN entries are skipped):
    C_conf,t = exp(−CV) with CV = std(ddof=1)/mean. Tasks with fewer than 2 confidences or
    mean ≤ 0 are skipped. Range (0, 1]; 1 when every run reports the same confidence.
    Reported but not part of R_Con.

    Examples
    --------
    >>> confidence_consistency([0.8, 0.8, 0.8], ["t", "t", "t"])
    1.0
    >>> round(confidence_consistency([0.5, 1.0], ["t", "t"]), 4)  # CV = 0.3536/0.75
    0.6241
    """
    conf = as_confidence(confidence, allow_nan=True)
    groups = as_groups(task_id)
    check_same_length(confidence=conf, task_id=groups.codes)
    per_task = confidence_per_task(conf, groups)
    why = "no task has 2 or more confidences with a positive mean"
    return nanmean_or_warn(per_task, "C_conf", why)


def resource_per_task(resources: Mapping[str, np.ndarray], groups: Groups) -> np.ndarray:
    """C_res,t = exp(−mean CV over the resources with ≥ 2 recorded values in the task)."""
    if not resources:
        return np.full(groups.n, np.nan)
    cvs = np.vstack([_group_cv(values, groups)[0] for values in resources.values()])
    available = ~np.isnan(cvs)
    count = available.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_cv = np.where(available, cvs, 0.0).sum(axis=0) / count
    return np.where(count > 0, np.exp(-mean_cv), np.nan)


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


def resource_consistency(resources: Mapping[str, Any], task_id: Any) -> float:
    """Resource consistency C_res: is resource use (cost, time, calls …) stable across runs?

    Per task over **all** its runs (not conditioned on success) and for each resource with
    at least two recorded (non-NaN) values: CV = std(ddof=1)/mean, with CV = 0 when all
    values are equal (including all zero). C_res,t = exp(−mean of the available CVs); a task
    with no available resource is skipped. Range (0, 1].

    Parameters
    ----------
    resources : mapping of resource name → per-run values (NaN = not recorded; 0 is real)
    task_id : array of task labels, one per run

    Examples
    --------
    >>> round(resource_consistency({"cost_usd": [0.01, 10, 0.01, 10]}, ["t"] * 4), 5)
    0.31588
    >>> resource_consistency({"api_calls": [3, 3, float("nan")]}, ["t"] * 3)
    1.0
    """
    if not isinstance(resources, Mapping):
        raise TypeError(
            f"resources: expected a mapping of resource name -> values, "
            f"got {type(resources).__name__}"
        )
    groups = as_groups(task_id)
    arrays = {name: _as_resource(v, name, len(groups.codes)) for name, v in resources.items()}
    per_task = resource_per_task(arrays, groups)
    why = "no task has a resource with 2 or more recorded values"
    return nanmean_or_warn(per_task, "C_res", why)
