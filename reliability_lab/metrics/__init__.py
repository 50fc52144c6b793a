"""Reliability metrics on flat per-run arrays (SPEC §2).

Pure functions over numpy/scipy/pandas; importing this package loads neither litellm nor
matplotlib. Inputs first, options keyword-only; higher is better for every ``*_score`` and
``*_consistency``. Undefined values are NaN with :class:`~reliability_lab.UndefinedMetricWarning`.
"""

from reliability_lab.metrics.consistency import (
    OUTCOME_VARIANTS,
    confidence_consistency,
    outcome_consistency,
    resource_consistency,
)
from reliability_lab.metrics.passk import pass_at_k, pass_hat_k
from reliability_lab.metrics.predictability import (
    BINNINGS,
    ReliabilityCurve,
    RiskCoverageCurve,
    auroc_score,
    brier_score,
    calibration_score,
    reliability_curve,
    risk_coverage_curve,
    risk_coverage_score,
)
from reliability_lab.metrics.robustness import robustness_ratio
from reliability_lab.metrics.safety import DEFAULT_CONSTRAINTS, SafetyScores, safety_scores
from reliability_lab.metrics.trajectory import (
    DISTRIBUTION_VARIANTS,
    trajectory_distribution_consistency,
    trajectory_sequence_consistency,
)
from reliability_lab.metrics.views import PassHatKCurve, pass_hat_k_curve, per_task_consistency

__all__ = [
    "BINNINGS",
    "DEFAULT_CONSTRAINTS",
    "DISTRIBUTION_VARIANTS",
    "OUTCOME_VARIANTS",
    "PassHatKCurve",
    "ReliabilityCurve",
    "RiskCoverageCurve",
    "SafetyScores",
    "auroc_score",
    "brier_score",
    "calibration_score",
    "confidence_consistency",
    "outcome_consistency",
    "pass_at_k",
    "pass_hat_k",
    "pass_hat_k_curve",
    "per_task_consistency",
    "reliability_curve",
    "resource_consistency",
    "risk_coverage_curve",
    "risk_coverage_score",
    "robustness_ratio",
    "safety_scores",
    "trajectory_distribution_consistency",
    "trajectory_sequence_consistency",
]
