"""pass^k (τ-bench) and pass@k: reliability and capability over k attempts."""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.special import comb

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


def _mean_over_tasks(per_task: np.ndarray, name: str, k: int) -> float:
    skipped = int(np.isnan(per_task).sum())
    if 0 < skipped < len(per_task):
        warn_undefined(f"{name}: {skipped} task(s) with fewer than {k} runs were skipped")
    return nanmean_or_warn(per_task, name, f"no task has at least {k} runs")


def pass_hat_k(success: Any, task_id: Any, k: int, /) -> float:
    """pass^k: probability that *all* of k runs drawn without replacement succeed.

    Mean over tasks of C(c, k)/C(n, k) with each task's own run count n and successes c
    (τ-bench's estimator). Tasks with n < k are skipped (warning); none left → NaN.
    pass^1 is accuracy averaged per task; pass^k falls as reliability drops.

    Examples
    --------
    >>> pass_hat_k([1, 1, 0, 1, 1, 1], ["a", "a", "a", "b", "b", "b"], 2)  # (1/3 + 1) / 2
    0.6666666666666666
    """
    n, c, k = _counts(success, task_id, k)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_task = np.where(n >= k, comb(c, k) / comb(n, k), np.nan)
    return _mean_over_tasks(per_task, f"pass^{k}", k)


def pass_at_k(success: Any, task_id: Any, k: int, /) -> float:
    """pass@k: probability that *at least one* of k runs succeeds, 1 − C(n − c, k)/C(n, k).

    Averaged over tasks; tasks with n < k are skipped (warning); none left → NaN.

    Examples
    --------
    >>> pass_at_k([1, 0, 0, 0], ["t"] * 4, 2)  # 1 - C(3,2)/C(4,2) = 1 - 3/6
    0.5
    """
    n, c, k = _counts(success, task_id, k)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_task = np.where(n >= k, 1.0 - comb(n - c, k) / comb(n, k), np.nan)
    return _mean_over_tasks(per_task, f"pass@{k}", k)
