"""Robustness: how much accuracy survives a perturbation? (docs/methodology.md, "Robustness")"""

from __future__ import annotations

from typing import Any

import numpy as np

from reliability_lab.metrics._arrays import as_success, undefined

__all__ = ["robustness_from_accuracy", "robustness_ratio"]


def robustness_from_accuracy(acc_baseline: np.ndarray, acc_perturbed: np.ndarray) -> np.ndarray:
    """min(Acc_perturbed / Acc_baseline, 1), NaN where Acc_baseline is 0 (batch-friendly)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.minimum(acc_perturbed / acc_baseline, 1.0)
    return np.where(acc_baseline > 0, ratio, np.nan)


def robustness_ratio(success_baseline: Any, success_perturbed: Any) -> float:
    """Robustness R = min(Acc_perturbed / Acc_baseline, 1) with accuracies pooled over runs.

    Used for R_fault, R_struct and R_prompt (conditions ``fault``, ``structural``,
    ``prompt``) and per perturbation variant. The two inputs are the outcomes of *all* runs
    (over all tasks) of one agent under baseline and under the perturbation; they need not
    have the same length. NaN with :class:`~reliability_lab.UndefinedMetricWarning` when
    the baseline accuracy is 0. Range [0, 1]; capped at 1 when the perturbation helps.

    Examples
    --------
    >>> robustness_ratio([1, 1, 1, 0], [1, 0, 1, 0])  # (2/4) / (3/4)
    0.6666666666666666
    >>> robustness_ratio([1, 0], [1, 1])
    1.0
    """
    base = as_success(success_baseline, "success_baseline")
    pert = as_success(success_perturbed, "success_perturbed")
    if not base.any():
        return undefined("robustness is undefined: baseline accuracy is 0")
    return float(robustness_from_accuracy(np.asarray(base.mean()), np.asarray(pert.mean())))
