"""PandaProbe's half of the toolkit: traces, trace signals, LLM judges and session metrics.

The data flow, one module each:

- :mod:`.tracing` — the :class:`Trace`/:class:`Span` model, PandaProbe JSON import and
  :func:`traces_from_trajectory` (a run's conversation → one trace per agent step);
- :mod:`reliability_lab.metrics.signals` — the embedding signals ``coherence`` and
  ``loop_detection`` (pure; they live beside the other metric kernels);
- :mod:`.embeddings` — the embedders they use (offline hashing, litellm, local model);
- :mod:`.judges` — the seven staged LLM-judge metrics;
- :mod:`reliability_lab.metrics.session` — the session metrics ``agent_reliability`` and
  ``agent_consistency`` (pure);
- :mod:`.evaluate` — one session's four signals per trace, then both session metrics;
- :mod:`.scoring` — :class:`SessionScorer`, the one per-run scorer the experiment runner and
  :func:`session_metrics_for_results` share.

Importing this package does not import litellm; only a judge or embedding call does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reliability_lab._lazy import lazy_exports

if TYPE_CHECKING:
    from reliability_lab.metrics.session import (
        DEFAULT_SIGNAL_WEIGHTS,
        SESSION_METRICS,
        SIGNAL_NAMES,
        SessionMetricError,
        SignalFailure,
        agent_consistency,
        agent_reliability,
        validate_signal_weights,
    )
    from reliability_lab.metrics.signals import MetricResult, coherence, loop_detection
    from reliability_lab.sessions.evaluate import (
        SessionEvaluation,
        aevaluate_session,
        evaluate_session,
    )
    from reliability_lab.sessions.scoring import (
        SessionScorer,
        SessionScores,
        asession_metrics_for_results,
        session_metrics_for_results,
        trace_records,
    )
    from reliability_lab.sessions.tracing import (
        Span,
        Trace,
        load_traces,
        traces_from_json,
        traces_from_trajectory,
    )

_WHERE = {
    **dict.fromkeys(("SessionEvaluation", "aevaluate_session", "evaluate_session"), "evaluate"),
    **dict.fromkeys(
        (
            "DEFAULT_SIGNAL_WEIGHTS",
            "SESSION_METRICS",
            "SIGNAL_NAMES",
            "SessionMetricError",
            "SignalFailure",
            "agent_consistency",
            "agent_reliability",
            "validate_signal_weights",
        ),
        "reliability_lab.metrics.session",
    ),
    **dict.fromkeys(
        (
            "SessionScorer",
            "SessionScores",
            "asession_metrics_for_results",
            "session_metrics_for_results",
            "trace_records",
        ),
        "scoring",
    ),
    **dict.fromkeys(
        ("MetricResult", "coherence", "loop_detection"), "reliability_lab.metrics.signals"
    ),
    **dict.fromkeys(
        ("Span", "Trace", "load_traces", "traces_from_json", "traces_from_trajectory"), "tracing"
    ),
}
__getattr__, __dir__ = lazy_exports(
    __name__,
    {name: module if "." in module else f"{__name__}.{module}" for name, module in _WHERE.items()},
)

__all__ = [
    "DEFAULT_SIGNAL_WEIGHTS",
    "SESSION_METRICS",
    "SIGNAL_NAMES",
    "MetricResult",
    "SessionEvaluation",
    "SessionMetricError",
    "SessionScorer",
    "SessionScores",
    "SignalFailure",
    "Span",
    "Trace",
    "aevaluate_session",
    "agent_consistency",
    "agent_reliability",
    "asession_metrics_for_results",
    "coherence",
    "evaluate_session",
    "load_traces",
    "loop_detection",
    "session_metrics_for_results",
    "trace_records",
    "traces_from_json",
    "traces_from_trajectory",
    "validate_signal_weights",
]
