"""pass^k (τ-bench) and pass@k: reliability and capability over k attempts."""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

from reliability_lab.metrics._arrays import (
    as_groups,
    as_success,
    check_same_length,
    nanmean_or_warn,
    warn_undefined,
)

__all__ = ["pass_at_k", "pass_hat_k"]


def _counts(success: Any, task_id: Any, k: Any) -> tuple[np.ndarray, np.ndarray, int]:
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    y = as_success(success)
    groups = as_groups(task_id)
    check_same_length(success=y, task_id=groups.codes)
    return groups.count(), groups.sum(y.astype(float)), int(k)


def _exact_per_task(
    n: np.ndarray, c: np.ndarray, k: int, value: Callable[[int, int], Fraction]
) -> np.ndarray:
    """``value(n, c)`` per task, a rational number rounded once to float; NaN where n < k.

    Floating binomials overflow (C(2000, 1000) ≈ 2e600) and their ratio becomes inf/inf, while
    the ratio itself lies in [0, 1]. Tasks share few distinct (n, c) pairs, so each pair is
    computed once, exactly, with integer arithmetic (:func:`math.comb`).
    """
    pairs, inverse = np.unique(np.stack([n, c]).astype(np.int64), axis=1, return_inverse=True)
    distinct = [float(value(int(ni), int(ci))) if ni >= k else math.nan for ni, ci in pairs.T]
    return np.asarray(distinct, dtype=float)[inverse.reshape(-1)]


def _mean_over_tasks(per_task: np.ndarray, name: str, k: int) -> float:
    skipped = int(np.isnan(per_task).sum())
    if 0 < skipped < len(per_task):
        warn_undefined(f"{name}: {skipped} task(s) with fewer than {k} runs were skipped")
    return nanmean_or_warn(per_task, name, f"no task has at least {k} runs")


def pass_hat_k(success: Any, task_id: Any, k: int) -> float:
    """pass^k: probability that *all* of k runs drawn without replacement succeed.

    Mean over tasks of C(c, k)/C(n, k) with each task's own run count n and successes c
    (τ-bench's estimator), each ratio computed exactly (no overflow for large n). Tasks with
    n < k are skipped (warning); none left → NaN. pass^1 is accuracy averaged per task; pass^k
    falls as reliability drops.

    Examples
    --------
    >>> pass_hat_k([1, 1, 0, 1, 1, 1], ["a", "a", "a", "b", "b", "b"], 2)  # (1/3 + 1) / 2
    0.6666666666666666
    """
    n, c, k = _counts(success, task_id, k)
    per_task = _exact_per_task(n, c, k, lambda n, c: Fraction(math.comb(c, k), math.comb(n, k)))
    return _mean_over_tasks(per_task, f"pass^{k}", k)


def pass_at_k(success: Any, task_id: Any, k: int) -> float:
    """pass@k: probability that *at least one* of k runs succeeds, 1 − C(n − c, k)/C(n, k).

    Averaged over tasks, each ratio computed exactly; tasks with n < k are skipped (warning);
    none left → NaN.

    Examples
    --------
    >>> pass_at_k([1, 0, 0, 0], ["t"] * 4, 2)  # 1 - C(3,2)/C(4,2) = 1 - 3/6
    0.5
    """
    n, c, k = _counts(success, task_id, k)
    per_task = _exact_per_task(
        n, c, k, lambda n, c: 1 - Fraction(math.comb(n - c, k), math.comb(n, k))
    )
    return _mean_over_tasks(per_task, f"pass@{k}", k)
