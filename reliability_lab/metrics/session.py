"""PandaProbe's session metrics ``agent_reliability`` and ``agent_consistency``.

Conventions: docs/pandaprobe.md, "Session metrics".

Both are pure functions of the per-trace signals of one session — an ordered mapping
``trace_id -> {signal name: value in [0, 1]}`` with signal names ``confidence``,
``loop_detection``, ``tool_correctness`` and ``coherence`` — and make no LLM or embedding calls.
:func:`~reliability_lab.sessions.evaluate_session` computes the signals from traces and then both
metrics.

Deliberate differences from PandaProbe (docs/pandaprobe.md, "Deliberate differences from
PandaProbe"): weights are validated (a negative weight or an unknown signal name is a
``ValueError``); signal values are validated (finite, in [0, 1]); a
signal that failed to compute is passed as a :class:`SignalFailure`, left out of the arithmetic
and reported in ``metadata["failed_signals"]`` and the reason; a session in which every signal
the metric needs failed raises :class:`SessionMetricError` instead of scoring 1.0.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from reliability_lab.metrics.signals import MetricResult

__all__ = [
    "DEFAULT_SIGNAL_WEIGHTS",
    "SESSION_METRICS",
    "SIGNAL_NAMES",
    "SessionMetricError",
    "SignalFailure",
    "agent_consistency",
    "agent_reliability",
    "validate_signal_weights",
]

#: PandaProbe's default signal weights (signal order is the metadata order).
DEFAULT_SIGNAL_WEIGHTS: dict[str, float] = {
    "confidence": 1.0,
    "loop_detection": 1.0,
    "tool_correctness": 0.8,
    "coherence": 1.0,
}
SIGNAL_NAMES: tuple[str, ...] = tuple(DEFAULT_SIGNAL_WEIGHTS)
#: The session metrics, by name: a run scored as a session carries one value of each.
SESSION_METRICS: tuple[str, ...] = ("agent_reliability", "agent_consistency")

#: Per-trace metadata key of each signal's (unweighted) risk 1 - x.
_RISK_KEYS = {
    "confidence": "confidence_risk",
    "loop_detection": "loop_risk",
    "tool_correctness": "tool_risk",
    "coherence": "coherence_risk",
}
TOP_K_PERCENTILE = 0.15
ENSEMBLE_WEIGHT = 0.1
FLAG_RISK = 0.5


@dataclass(frozen=True)
class SignalFailure:
    """A trace signal that could not be computed (e.g. the judge call failed).

    Attributes
    ----------
    cause : str
        Short cause, e.g. ``"LLMCallError(timeout): request timed out after 60 s"``.
    """

    cause: str

    def __str__(self) -> str:
        return f"failed: {self.cause}"


class SessionMetricError(ValueError):
    """A session metric could not be computed because every signal it needs failed."""


SignalValue = float | SignalFailure
Signals = Mapping[str, Mapping[str, SignalValue]]


def validate_signal_weights(signal_weights: Mapping[str, float] | None) -> dict[str, float]:
    """PandaProbe's default weights updated by ``signal_weights``, validated.

    A *deliberate difference* from PandaProbe (docs/pandaprobe.md, "Deliberate differences
    from PandaProbe"): an unknown signal name, a non-number, a negative or non-finite weight is
    an error naming it.

    Examples
    --------
    >>> validate_signal_weights({"coherence": 0.5})["coherence"]
    0.5
    """
    weights = dict(DEFAULT_SIGNAL_WEIGHTS)
    if signal_weights is None:
        return weights
    if not isinstance(signal_weights, Mapping):
        raise TypeError(
            f"signal_weights must be a mapping signal name -> weight, got {signal_weights!r}"
        )
    for name, weight in signal_weights.items():
        if name not in DEFAULT_SIGNAL_WEIGHTS:
            raise ValueError(
                f"signal_weights: unknown signal {name!r}; valid signals are "
                f"{', '.join(SIGNAL_NAMES)}"
            )
        if isinstance(weight, bool) or not isinstance(weight, int | float):
            raise TypeError(f"signal_weights[{name!r}] must be a number, got {weight!r}")
        if not math.isfinite(weight) or weight < 0:
            raise ValueError(
                f"signal_weights[{name!r}] must be a finite number >= 0, got {weight!r}"
            )
        weights[name] = float(weight)
    return weights


def _split_signals(
    signals: Signals,
) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, str]]]:
    """Validate ``signals``; return (computed values, failures) per trace, in trace order."""
    if not isinstance(signals, Mapping):
        raise TypeError(
            f"signals must be a mapping trace_id -> {{signal: value}}, got {type(signals).__name__}"
        )
    values: dict[str, dict[str, float]] = {}
    failures: dict[str, dict[str, str]] = {}
    for tid, per_trace in signals.items():
        if not isinstance(per_trace, Mapping):
            raise TypeError(
                f"signals[{tid!r}] must be a mapping signal -> value, got {per_trace!r}"
            )
        values[str(tid)] = {}
        for name, value in per_trace.items():
            if name not in DEFAULT_SIGNAL_WEIGHTS:
                raise ValueError(
                    f"signals[{tid!r}]: unknown signal {name!r}; valid signals are "
                    f"{', '.join(SIGNAL_NAMES)}"
                )
            if isinstance(value, SignalFailure):
                failures.setdefault(str(tid), {})[name] = value.cause
                continue
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise TypeError(
                    f"signals[{tid!r}][{name!r}] must be a number in [0, 1] or a "
                    f"SignalFailure, got {value!r}"
                )
            if not 0.0 <= value <= 1.0:  # also rejects NaN
                raise ValueError(f"signals[{tid!r}][{name!r}] must be in [0, 1], got {value!r}")
            values[str(tid)][name] = float(value)
    return values, failures


def _empty_session(name: str) -> MetricResult:
    return MetricResult(
        name=name,
        score=1.0,
        reason="No traces or signals to evaluate.",
        metadata={"note": "empty_session"},
    )


def _failure_note(failures: dict[str, dict[str, str]], relevant: tuple[str, ...]) -> str:
    n = sum(1 for per in failures.values() for s in per if s in relevant)
    if n == 0:
        return ""
    return f" {n} signal(s) failed to compute and were left out (see metadata.failed_signals)."


def _no_evaluable(
    name: str, failures: dict[str, dict[str, str]], relevant: tuple[str, ...]
) -> MetricResult:
    failed = {t: {s: c for s, c in per.items() if s in relevant} for t, per in failures.items()}
    failed = {t: per for t, per in failed.items() if per}
    if failed:
        raise SessionMetricError(
            f"{name}: every signal it needs failed to compute, so the session cannot be scored; "
            f"failures: {failed}"
        )
    return MetricResult(name=name, score=1.0, reason="No evaluable traces.", metadata={})


def agent_reliability(
    signals: Signals, *, signal_weights: Mapping[str, float] | None = None
) -> MetricResult:
    """PandaProbe's agent_reliability: worst-case (tail) risk across a session's traces.

    Per trace, ``risk = max over present signals of w_s · (1 − x_s)``; traces with no computed
    signal are skipped; a trace is flagged when ``risk > 0.5``. With the ``n`` risks sorted
    descending, ``k = max(1, ceil(0.15 n))``, ``raw = 0.9 · mean(top k) + 0.1 · max`` and
    ``score = clamp(1 − raw, 0, 1)``, rounded to 4 decimals (metadata values too).

    Parameters
    ----------
    signals : mapping
        ``trace_id -> {signal: value in [0, 1] or SignalFailure}`` in trace order.
    signal_weights : mapping, optional
        Overrides of the default weights {confidence 1.0, loop_detection 1.0,
        tool_correctness 0.8, coherence 1.0}; unknown names or negative weights raise.

    Returns
    -------
    MetricResult
        Reason ``"No elevated risk across {n} traces."`` or ``"Elevated risk in {f} of {n}
        traces."``. Empty mapping → 1.0 ``"No traces or signals to evaluate."`` with metadata
        ``{"note": "empty_session"}``; no evaluable trace → 1.0 ``"No evaluable traces."``.

    Raises
    ------
    SessionMetricError
        If no trace has a computed signal and at least one signal failed.

    References
    ----------
    docs/pandaprobe.md, "agent_reliability"; PandaProbe's published session-metric
    documentation, "Agent Reliability".

    Examples
    --------
    >>> r = agent_reliability({"t1": {"confidence": 0.9}, "t2": {"confidence": 0.3}})
    >>> r.score, r.reason  # k = 1, raw = 0.9 · 0.7 + 0.1 · 0.7 = 0.7
    (0.3, 'Elevated risk in 1 of 2 traces.')
    """
    weights = validate_signal_weights(signal_weights)
    values, failures = _split_signals(signals)
    if not values:
        return _empty_session("agent_reliability")
    risks: list[float] = []
    details: dict[str, dict[str, float]] = {}
    flagged: list[str] = []
    for tid, present in values.items():
        if not present:
            continue
        detail = {_RISK_KEYS[s]: round(1.0 - present[s], 4) for s in SIGNAL_NAMES if s in present}
        risk = max(weights[s] * (1.0 - present[s]) for s in SIGNAL_NAMES if s in present)
        detail["step_risk"] = round(risk, 4)
        details[tid] = detail
        risks.append(risk)
        if risk > FLAG_RISK:
            flagged.append(tid)
    if not risks:
        return _no_evaluable("agent_reliability", failures, SIGNAL_NAMES)
    ordered = sorted(risks, reverse=True)
    k = max(1, math.ceil(len(ordered) * TOP_K_PERCENTILE))
    mean_top_k = sum(ordered[:k]) / k
    max_risk = ordered[0]
    raw = (1.0 - ENSEMBLE_WEIGHT) * mean_top_k + ENSEMBLE_WEIGHT * max_risk
    score = round(max(0.0, min(1.0, 1.0 - raw)), 4)
    n = len(risks)
    if flagged:
        reason = f"Elevated risk in {len(flagged)} of {n} traces."
    else:
        reason = f"No elevated risk across {n} traces."
    metadata: dict[str, Any] = {
        "total_traces_in_session": len(values),
        "traces_evaluated": n,
        "raw_risk": round(raw, 4),
        "signal_weights": weights,
        "per_trace_signals": details,
        "flagged_traces": flagged,
        "aggregation": {
            "method": "max_compose_top_k",
            "top_k_percentile": TOP_K_PERCENTILE,
            "ensemble_weight": ENSEMBLE_WEIGHT,
            "mean_top_k_risk": round(mean_top_k, 4),
            "max_risk": round(max_risk, 4),
        },
    }
    if failures:
        metadata["failed_signals"] = failures
    reason += _failure_note(failures, SIGNAL_NAMES)
    return MetricResult(name="agent_reliability", score=score, reason=reason, metadata=metadata)


def agent_consistency(
    signals: Signals, *, signal_weights: Mapping[str, float] | None = None
) -> MetricResult:
    """PandaProbe's agent_consistency: weighted RMS of confidence risk amplified by the others.

    Only traces with a computed ``confidence`` signal count. Per trace,
    ``penalty = Σ w_s · (1 − x_s)`` over the other present signals,
    ``wu = (1 + penalty) · w_conf · (1 − confidence)``; ``rms = sqrt(mean wu²)`` and
    ``score = clamp(1 − rms, 0, 1)``, rounded to 4 decimals (metadata values too).

    Parameters
    ----------
    signals : mapping
        ``trace_id -> {signal: value in [0, 1] or SignalFailure}`` in trace order.
    signal_weights : mapping, optional
        Overrides of the default weights (validated as in :func:`agent_reliability`).

    Returns
    -------
    MetricResult
        Reason by rounded score: ≥ 0.8 ``"Consistent performance across {n} traces."``,
        ≥ 0.5 ``"Moderate instability detected across {n} traces."``, else
        ``"High instability across {n} traces; multiple signals compound."``. Empty mapping and
        no-evaluable-trace cases as in :func:`agent_reliability`.

    Raises
    ------
    SessionMetricError
        If no trace has a computed confidence and at least one confidence signal failed.

    References
    ----------
    docs/pandaprobe.md, "agent_consistency"; PandaProbe's published session-metric
    documentation, "Agent Consistency".

    Examples
    --------
    >>> r = agent_consistency({"t1": {"confidence": 0.5, "coherence": 0.5}})
    >>> r.score  # penalty = 0.5, wu = 1.5 · 0.5 = 0.75, rms = 0.75
    0.25
    """
    weights = validate_signal_weights(signal_weights)
    values, failures = _split_signals(signals)
    if not values:
        return _empty_session("agent_consistency")
    uncertainties: list[float] = []
    details: dict[str, dict[str, float]] = {}
    for tid, present in values.items():
        if "confidence" not in present:
            continue
        conf_risk = 1.0 - present["confidence"]
        detail = {"confidence_risk": round(conf_risk, 4)}
        penalty = 0.0
        for s in SIGNAL_NAMES[1:]:
            if s in present:
                penalty += weights[s] * (1.0 - present[s])
                detail[_RISK_KEYS[s]] = round(1.0 - present[s], 4)
        wu = (1.0 + penalty) * (weights["confidence"] * conf_risk)
        detail["situational_penalty"] = round(penalty, 4)
        detail["weighted_uncertainty"] = round(wu, 4)
        details[tid] = detail
        uncertainties.append(wu)
    if not uncertainties:
        return _no_evaluable("agent_consistency", failures, ("confidence",))
    rms = math.sqrt(sum(wu * wu for wu in uncertainties) / len(uncertainties))
    score = round(max(0.0, min(1.0, 1.0 - rms)), 4)
    n = len(uncertainties)
    if score >= 0.8:
        reason = f"Consistent performance across {n} traces."
    elif score >= 0.5:
        reason = f"Moderate instability detected across {n} traces."
    else:
        reason = f"High instability across {n} traces; multiple signals compound."
    metadata: dict[str, Any] = {
        "total_traces_in_session": len(values),
        "traces_evaluated": n,
        "raw_instability": round(rms, 4),
        "signal_weights": weights,
        "per_trace_signals": details,
        "aggregation": {"method": "weighted_rms", "rms_value": round(rms, 4)},
    }
    if failures:
        metadata["failed_signals"] = failures
    reason += _failure_note(failures, SIGNAL_NAMES)
    return MetricResult(name="agent_consistency", score=score, reason=reason, metadata=metadata)
