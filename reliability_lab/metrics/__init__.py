"""Reliability metrics on flat per-run arrays (docs/methodology.md).

Pure functions over numpy/scipy/pandas; importing this package loads neither litellm nor
matplotlib, and loads each metric family only when one of its names is first used (PEP 562).
Inputs first (positional or by keyword), options keyword-only; higher is better for every
``*_score`` and ``*_consistency``. Undefined values are NaN with
:class:`~reliability_lab.UndefinedMetricWarning`. PandaProbe's pure session metrics
(:mod:`.session`) and trace signals (:mod:`.signals`) live here too. Every metric's symbol,
dimension and variants are listed in :data:`METRIC_REGISTRY` (:mod:`.registry`, with the metric
profiles of :mod:`.profiles`; also reachable as ``reliability_lab.report.METRIC_REGISTRY``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reliability_lab._lazy import lazy_exports

if TYPE_CHECKING:
    from reliability_lab.metrics.consistency import (
        OUTCOME_VARIANTS,
        RESOURCE_VARIANTS,
        SPREAD_VARIANTS,
        confidence_consistency,
        outcome_consistency,
        resource_consistency,
    )
    from reliability_lab.metrics.passk import pass_at_k, pass_hat_k
    from reliability_lab.metrics.predictability import (
        BINNINGS,
        RC_VARIANTS,
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
    from reliability_lab.metrics.safety import (
        DEFAULT_CONSTRAINTS,
        HARM_WEIGHTS,
        SAFETY_SYMBOLS,
        SafetyScores,
        safety_scores,
    )
    from reliability_lab.metrics.session import agent_consistency, agent_reliability
    from reliability_lab.metrics.signals import coherence, loop_detection
    from reliability_lab.metrics.trajectory import (
        DISTRIBUTION_VARIANTS,
        trajectory_distribution_consistency,
        trajectory_sequence_consistency,
    )
    from reliability_lab.metrics.views import (
        PassHatKCurve,
        pass_hat_k_curve,
        per_task_consistency,
    )

_WHERE = {
    "consistency": (
        "OUTCOME_VARIANTS",
        "RESOURCE_VARIANTS",
        "SPREAD_VARIANTS",
        "confidence_consistency",
        "outcome_consistency",
        "resource_consistency",
    ),
    "passk": ("pass_at_k", "pass_hat_k"),
    "predictability": (
        "BINNINGS",
        "RC_VARIANTS",
        "ReliabilityCurve",
        "RiskCoverageCurve",
        "auroc_score",
        "brier_score",
        "calibration_score",
        "reliability_curve",
        "risk_coverage_curve",
        "risk_coverage_score",
    ),
    "robustness": ("robustness_ratio",),
    "safety": (
        "DEFAULT_CONSTRAINTS",
        "HARM_WEIGHTS",
        "SAFETY_SYMBOLS",
        "SafetyScores",
        "safety_scores",
    ),
    "session": ("agent_consistency", "agent_reliability"),
    "signals": ("coherence", "loop_detection"),
    "trajectory": (
        "DISTRIBUTION_VARIANTS",
        "trajectory_distribution_consistency",
        "trajectory_sequence_consistency",
    ),
    "views": ("PassHatKCurve", "pass_hat_k_curve", "per_task_consistency"),
}
__getattr__, __dir__ = lazy_exports(
    __name__,
    {name: f"{__name__}.{module}" for module, names in _WHERE.items() for name in names},
)

__all__ = [
    "BINNINGS",
    "DEFAULT_CONSTRAINTS",
    "DISTRIBUTION_VARIANTS",
    "HARM_WEIGHTS",
    "OUTCOME_VARIANTS",
    "RC_VARIANTS",
    "RESOURCE_VARIANTS",
    "SAFETY_SYMBOLS",
    "SPREAD_VARIANTS",
    "PassHatKCurve",
    "ReliabilityCurve",
    "RiskCoverageCurve",
    "SafetyScores",
    "agent_consistency",
    "agent_reliability",
    "auroc_score",
    "brier_score",
    "calibration_score",
    "coherence",
    "confidence_consistency",
    "loop_detection",
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
