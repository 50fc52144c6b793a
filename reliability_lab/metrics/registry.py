"""The metric registry: one table of every metric the package computes.

Each :class:`MetricInfo` ties a symbol (``C_out``) to the function that computes it
(:func:`~reliability_lab.metrics.outcome_consistency`), its dimension, its variants and the
profile option that selects them, its range, and why it can be undefined. The report's columns,
the gates, the console, the README's metric table and the invariance test suite all read this
table, so a metric is named in one place.

Examples
--------
>>> info = METRIC_REGISTRY["C_out"]
>>> info.function_name, info.dimension, info.variants.profile_option
('outcome_consistency', 'consistency', 'outcome_variant')
>>> print(explain_undefined("R", {"R_Con": 0.9, "R_Pred": float("nan"), "R_Rob": 0.8}))
R is undefined: it needs R_Con, R_Pred and R_Rob; R_Pred is undefined (no baseline run has a ...
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from reliability_lab.metrics import consistency, passk, predictability, robustness, safety, signals
from reliability_lab.metrics import session as session_metrics
from reliability_lab.metrics import trajectory as traj
from reliability_lab.metrics.profiles import PROFILES
from reliability_lab.runs import PERTURBATION_CONDITIONS

__all__ = [
    "DIMENSIONS",
    "METRICS",
    "METRIC_REGISTRY",
    "REPORT_METRICS",
    "MetricInfo",
    "Variants",
    "explain_undefined",
    "metric_table_markdown",
    "terms_used",
    "undefined_reason",
]

#: Dimension → heading, in the order reports show them.
DIMENSIONS: Mapping[str, str] = {
    "outcome": "Outcome",
    "consistency": "Consistency",
    "predictability": "Predictability",
    "robustness": "Robustness",
    "safety": "Safety (not in R)",
    "aggregate": "Overall",
    "session": "Sessions (PandaProbe)",
    "signal": "Trace signals (PandaProbe)",
}


@dataclass(frozen=True)
class Variants:
    """Named variants of a metric and how to choose one."""

    argument: str
    """Keyword argument of the metric function that selects the variant."""
    profile_option: str
    """Field of :class:`~reliability_lab.report.MetricProfile` that selects it in a report."""
    values: tuple[str, ...]
    """Valid variant names, the default first."""
    leave_range: tuple[str, ...] = ()
    """Variants whose value can fall outside [0, 1]: finite-K estimators whose per-task
    values are unbiased rather than clipped (docs/statistics.md, "Finite K")."""


@dataclass(frozen=True)
class MetricInfo:
    """One metric: symbol, meaning, the code that computes it and when it is undefined."""

    symbol: str
    """Symbol and report column, e.g. ``C_out``."""
    name: str
    """What it measures, in words."""
    dimension: str
    """One of :data:`DIMENSIONS`."""
    function: Callable[..., Any] | str
    """The public function computing it, or for an aggregate the formula in words."""
    why_undefined: str
    """When the value is NaN (or, if never, what it scores instead)."""
    variants: Variants | None = None
    """Named variants, if any."""
    field: str | None = None
    """Attribute of the function's result that holds this metric (``SafetyScores.compliance``)."""
    value_range: str = "[0, 1]"
    """Range of the value; higher is better for every metric."""
    report_column: bool = True
    """Whether ``reliability_report`` has a column (session metrics: when the runs are scored)."""
    in_r: bool = False
    """Whether the value enters the overall score R (directly or through an aggregate)."""
    summarises: str | None = None
    """For an aggregate: the dimension it summarises (``None`` for R itself)."""
    terms: tuple[str, ...] = ()
    """For an aggregate: the metrics it is computed from."""
    needs_all_terms: bool = False
    """For an aggregate: undefined unless every term is defined (else: re-weighted over them)."""
    headline: bool = False
    """Shown in the console summary table of an experiment."""
    per_task: bool = False
    """The value is the unweighted mean over tasks of a per-task value (C_out, …): paired
    comparisons test it by sign-flipping task-level differences, adaptive runs can target it."""

    @property
    def group(self) -> str:
        """The dimension a report lists it under (an aggregate sits with what it summarises)."""
        if self.summarises is not None:
            return self.summarises
        return self.dimension

    @property
    def function_name(self) -> str:
        """Name of the public function, or the aggregate's formula."""
        if callable(self.function):
            return str(self.function.__name__)
        return self.function


_NO_CONFIDENCE = "no baseline run has a confidence"
_TRAJ = "no task has 2 or more successful baseline runs with a non-empty trajectory"
*_FIRST, _LAST = (f"'{c}'" for c in PERTURBATION_CONDITIONS)
_PERTURBED = f"{', '.join(_FIRST)} or {_LAST}"  # 'fault', 'structural' or 'prompt'


def _robustness() -> list[MetricInfo]:
    return [
        MetricInfo(
            symbol,
            f"accuracy kept under the '{condition}' perturbation",
            "robustness",
            robustness.robustness_ratio,
            f"no '{condition}' runs, or baseline accuracy is 0",
            in_r=True,
        )
        for condition, symbol in PERTURBATION_CONDITIONS.items()
    ]


_SAFETY_NAMES = {
    "compliance": "compliance: share of baseline runs without a violation",
    "harm": "harm: 1 − mean severity weight of the violating runs",
    "safety": "safety: 1 − (1 − S_comp)(1 − S_harm)",
}


def _safety() -> list[MetricInfo]:
    return [
        MetricInfo(
            symbol,
            _SAFETY_NAMES[field],
            "safety",
            safety.safety_scores,
            "no baseline run was checked for safety (imported logs without safety findings), "
            "or the safety judge failed on every one",
            field=field,
            headline=symbol == "R_saf",
            variants=None
            if symbol == "S_comp"
            else Variants("severity_weights", "severity_weights", tuple(safety.HARM_WEIGHTS)),
        )
        for field, symbol in safety.SAFETY_SYMBOLS.items()
    ]


def _sessions() -> list[MetricInfo]:
    return [
        MetricInfo(
            name,
            f"PandaProbe session {name.removeprefix('agent_')}, mean over a task's runs",
            "session",
            getattr(session_metrics, name),
            "no baseline run has a session score (sessions were not evaluated)",
            per_task=True,
        )
        for name in session_metrics.SESSION_METRICS
    ]


def _spread(option: str) -> Variants:
    values = consistency.SPREAD_VARIANTS
    return Variants("variant", option, values, ("jackknife",))


_REGISTRY: tuple[MetricInfo, ...] = (
    MetricInfo(
        "accuracy",
        "share of successful baseline runs",
        "outcome",
        "mean of success over baseline runs",
        "no baseline runs",
        headline=True,
    ),
    MetricInfo(
        "C_out",
        "outcome consistency: repeated runs agree on success",
        "consistency",
        consistency.outcome_consistency,
        "no task has 2 or more baseline runs",
        variants=Variants(
            "variant", "outcome_variant", consistency.OUTCOME_VARIANTS, ("unbiased",)
        ),
        in_r=True,
        per_task=True,
    ),
    MetricInfo(
        "C_traj_d",
        "trajectory distribution consistency: same mix of actions",
        "consistency",
        traj.trajectory_distribution_consistency,
        _TRAJ,
        variants=Variants("variant", "distribution_variant", traj.DISTRIBUTION_VARIANTS),
        in_r=True,
        per_task=True,
    ),
    MetricInfo(
        "C_traj_s",
        "trajectory sequence consistency: same order of actions",
        "consistency",
        traj.trajectory_sequence_consistency,
        _TRAJ,
        in_r=True,
        per_task=True,
    ),
    MetricInfo(
        "C_conf",
        "confidence consistency: stable self-reported confidence",
        "consistency",
        consistency.confidence_consistency,
        "no task has 2 or more confidences with a positive mean (jackknife: 3 or more)",
        variants=_spread("confidence_variant"),
        per_task=True,
    ),
    MetricInfo(
        "C_res",
        "resource consistency: stable cost, time, calls",
        "consistency",
        consistency.resource_consistency,
        "no task has a resource recorded in 2 or more runs (jackknife: 3 or more)",
        variants=Variants(
            "variant", "resource_variant", consistency.RESOURCE_VARIANTS, ("jackknife",)
        ),
        in_r=True,
        per_task=True,
    ),
    MetricInfo(
        "P_brier",
        "Brier score, 1 − mean squared error of confidence",
        "predictability",
        predictability.brier_score,
        _NO_CONFIDENCE,
        in_r=True,
    ),
    MetricInfo(
        "P_cal",
        "calibration, 1 − ECE",
        "predictability",
        predictability.calibration_score,
        _NO_CONFIDENCE,
        variants=Variants("binning", "binning", predictability.BINNINGS),
    ),
    MetricInfo(
        "P_auroc",
        "discrimination, AUROC of confidence for success",
        "predictability",
        predictability.auroc_score,
        f"{_NO_CONFIDENCE}, or those that do all succeeded or all failed",
    ),
    MetricInfo(
        "P_rc",
        "risk–coverage, 1 − E-AURC/E-AURC_max",
        "predictability",
        predictability.risk_coverage_score,
        _NO_CONFIDENCE,
        variants=Variants("variant", "rc_variant", predictability.RC_VARIANTS),
    ),
    *_robustness(),
    *_safety(),
    MetricInfo(
        "R_Con",
        "consistency dimension",
        "aggregate",
        "⅓ C_out + ⅓ mean(C_traj_d, C_traj_s) + ⅓ C_res, re-weighted over the defined terms",
        "none of C_out, C_traj_d, C_traj_s and C_res is defined",
        in_r=True,
        summarises="consistency",
        terms=("C_out", "C_traj_d", "C_traj_s", "C_res"),
        headline=True,
    ),
    MetricInfo(
        "R_Pred",
        "predictability dimension",
        "aggregate",
        "P_brier",
        _NO_CONFIDENCE,
        in_r=True,
        summarises="predictability",
        terms=("P_brier",),
        needs_all_terms=True,
        headline=True,
    ),
    MetricInfo(
        "R_Rob",
        "robustness dimension",
        "aggregate",
        "mean of the defined " + ", ".join(PERTURBATION_CONDITIONS.values()),
        f"no {_PERTURBED} runs, or baseline accuracy is 0",
        in_r=True,
        summarises="robustness",
        terms=tuple(PERTURBATION_CONDITIONS.values()),
        headline=True,
    ),
    MetricInfo(
        "R",
        "overall reliability",
        "aggregate",
        "mean of R_Con, R_Pred and R_Rob; undefined unless all three are defined",
        "it needs R_Con, R_Pred and R_Rob",
        in_r=True,
        terms=("R_Con", "R_Pred", "R_Rob"),
        needs_all_terms=True,
        headline=True,
    ),
    *_sessions(),
    MetricInfo(
        "coherence",
        "PandaProbe trace coherence: output close to input in embedding space",
        "signal",
        signals.coherence,
        "never: an empty input or output scores 1.0 ('coherence assumed')",
        report_column=False,
    ),
    MetricInfo(
        "loop_detection",
        "PandaProbe loop detection: output not a repeat of the last 3 outputs",
        "signal",
        signals.loop_detection,
        "never: without earlier (non-empty) outputs the score is 1.0 with a note",
        report_column=False,
    ),
    MetricInfo(
        "pass^k",
        "τ-bench pass^k: all of k runs succeed",
        "outcome",
        passk.pass_hat_k,
        "no task has k or more runs",
        report_column=False,
    ),
    MetricInfo(
        "pass@k",
        "pass@k: at least one of k runs succeeds",
        "outcome",
        passk.pass_at_k,
        "no task has k or more runs",
        report_column=False,
    ),
)

#: Every metric by symbol, in report order.
METRIC_REGISTRY: Mapping[str, MetricInfo] = {m.symbol: m for m in _REGISTRY}
#: Columns every report has, in order (session metrics are added when runs carry them).
METRICS: tuple[str, ...] = tuple(
    m.symbol for m in _REGISTRY if m.report_column and m.dimension != "session"
)
#: Every metric a report can hold (and a gate can name).
REPORT_METRICS: tuple[str, ...] = tuple(m.symbol for m in _REGISTRY if m.report_column)


def _is_nan(value: Any) -> bool:
    try:
        return math.isnan(float(value))
    except (TypeError, ValueError):
        return True


def terms_used(symbol: str, values: Mapping[str, Any]) -> list[str]:
    """The terms of aggregate ``symbol`` that are defined in ``values`` (a report row).

    Examples
    --------
    >>> terms_used("R_Con", {"C_out": 0.5, "C_traj_d": float("nan"), "C_res": 1.0})
    ['C_out', 'C_res']
    """
    return [t for t in METRIC_REGISTRY[symbol].terms if not _is_nan(values.get(t))]


def undefined_reason(symbol: str, values: Mapping[str, Any], *, detail: bool = True) -> str:
    """Why metric ``symbol`` is undefined, given the other values of the same report row.

    For an aggregate that needs every term (R), the reason names each undefined term and, with
    ``detail``, why it is undefined.

    Examples
    --------
    >>> undefined_reason("P_brier", {})
    'no baseline run has a confidence'
    >>> undefined_reason("R", {"R_Con": 0.5, "R_Pred": 0.7}, detail=False)
    'it needs R_Con, R_Pred and R_Rob; undefined: R_Rob'
    """
    info = METRIC_REGISTRY[symbol]
    missing = [t for t in info.terms if _is_nan(values.get(t))]
    if not (info.needs_all_terms and len(info.terms) > 1 and missing):
        return info.why_undefined
    if not detail:
        return f"{info.why_undefined}; undefined: {', '.join(missing)}"
    return "; ".join([info.why_undefined, *(explain_undefined(t, values) for t in missing)])


def explain_undefined(symbol: str, values: Mapping[str, Any]) -> str:
    """``"<symbol> is undefined (<reason>)"`` (see :func:`undefined_reason`).

    Examples
    --------
    >>> explain_undefined("P_brier", {})
    'P_brier is undefined (no baseline run has a confidence)'
    """
    reason = undefined_reason(symbol, values)
    if ";" in reason:
        return f"{symbol} is undefined: {reason}"
    return f"{symbol} is undefined ({reason})"


def _function_cell(m: MetricInfo) -> str:
    if not callable(m.function):
        return m.function
    package = m.function.__module__.split(".")[1]  # metrics / sessions
    cell = f"`{package}.{m.function.__name__}`"
    return cell + (f" `.{m.field}`" if m.field else "")


def _variants_cell(variants: Variants) -> str:
    """The variants, each with the profiles that use it, and the profile option."""
    cells = []
    for value in variants.values:
        users = [p.name for p in PROFILES.values() if getattr(p, variants.profile_option) == value]
        cells.append(f"`{value}`" + (f" ({', '.join(users)})" if users else ""))
    return f"{', '.join(cells)}; option `{variants.profile_option}`"


def metric_table_markdown() -> str:
    """The README's metric table, one row per metric (generated; a test keeps README in sync)."""
    rows = [
        "| symbol | dimension | what it measures | computed by | variants (profiles using them) "
        "| in R | undefined when |",
        "|---|---|---|---|---|---|---|",
    ]
    for m in _REGISTRY:
        variants = _variants_cell(m.variants) if m.variants else ""
        cells = [
            f"`{m.symbol}`",
            m.dimension,
            m.name,
            _function_cell(m),
            variants,
            "yes" if m.in_r else "",
            m.why_undefined,
        ]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)
