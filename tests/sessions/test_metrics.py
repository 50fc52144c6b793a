"""agent_reliability / agent_consistency: hand-derived values in the comments.

Rules: docs/pandaprobe.md, "Session metrics".
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from reliability_lab.metrics.session import (
    SessionMetricError,
    SignalFailure,
    agent_consistency,
    agent_reliability,
)

DEFAULT_W = {"confidence": 1.0, "loop_detection": 1.0, "tool_correctness": 0.8, "coherence": 1.0}


@pytest.mark.parametrize("metric", [agent_reliability, agent_consistency])
def test_empty_session(metric) -> None:  # type: ignore[no-untyped-def]
    r = metric({})
    assert (r.score, r.reason, r.metadata) == (
        1.0,
        "No traces or signals to evaluate.",
        {"note": "empty_session"},
    )


@pytest.mark.parametrize("metric", [agent_reliability, agent_consistency])
def test_no_evaluable_traces(metric) -> None:  # type: ignore[no-untyped-def]
    r = metric({"t1": {}, "t2": {}})
    assert (r.score, r.reason, r.metadata) == (1.0, "No evaluable traces.", {})


def test_consistency_needs_confidence() -> None:
    r = agent_consistency({"t1": {"coherence": 0.1}, "t2": {"loop_detection": 0.0}})
    assert (r.score, r.reason, r.metadata) == (1.0, "No evaluable traces.", {})


# risk per trace = max over present signals of w * (1 - x):
# t1: conf .1, loop 0, tool .8*.5=.4, coh .2 -> .4     t2: conf .8 -> .8 (flagged)
# t3: coh .7 (flagged)   t4: loop .55 (flagged)   t5: tool .8*.7 = .56 (flagged)
# t6: 0   t7: conf .5 -> .5 (not flagged: strict >)   t8: no signals -> not evaluated
# n = 7, k = max(1, ceil(7 * .15)) = ceil(1.05) = 2; sorted .8 .7 .56 .55 .5 .4 0
# mean top 2 = .75, max = .8, raw = .9 * .75 + .1 * .8 = .755, score = .245
SESSION = {
    "t1": {"confidence": 0.9, "loop_detection": 1.0, "tool_correctness": 0.5, "coherence": 0.8},
    "t2": {"confidence": 0.2},
    "t3": {"coherence": 0.3},
    "t4": {"loop_detection": 0.45},
    "t5": {"tool_correctness": 0.3},
    "t6": {"confidence": 1.0, "coherence": 1.0},
    "t7": {"confidence": 0.5},
    "t8": {},
}


def test_reliability_full_example() -> None:
    r = agent_reliability(SESSION)
    assert r.score == 0.245
    assert r.reason == "Elevated risk in 4 of 7 traces."
    md = r.metadata
    assert list(md) == [
        "total_traces_in_session",
        "traces_evaluated",
        "raw_risk",
        "signal_weights",
        "per_trace_signals",
        "flagged_traces",
        "aggregation",
    ]
    assert (md["total_traces_in_session"], md["traces_evaluated"], md["raw_risk"]) == (8, 7, 0.755)
    assert md["signal_weights"] == DEFAULT_W
    assert md["flagged_traces"] == ["t2", "t3", "t4", "t5"]
    assert md["per_trace_signals"]["t1"] == {
        "confidence_risk": 0.1,
        "loop_risk": 0.0,
        "tool_risk": 0.5,
        "coherence_risk": 0.2,
        "step_risk": 0.4,
    }
    assert md["per_trace_signals"]["t5"] == {"tool_risk": 0.7, "step_risk": 0.56}
    assert md["per_trace_signals"]["t6"] == {
        "confidence_risk": 0.0,
        "coherence_risk": 0.0,
        "step_risk": 0.0,
    }
    assert "t8" not in md["per_trace_signals"]
    assert md["aggregation"] == {
        "method": "max_compose_top_k",
        "top_k_percentile": 0.15,
        "ensemble_weight": 0.1,
        "mean_top_k_risk": 0.75,
        "max_risk": 0.8,
    }


def test_reliability_weight_override() -> None:
    # w_conf = .5: t1 max(.05, 0, .4, .2) = .4, t2 .4, t7 .25; others unchanged
    # sorted .7 .56 .55 .4 .4 .25 0; mean top 2 = .63; raw = .9*.63 + .1*.7 = .637
    r = agent_reliability(SESSION, signal_weights={"confidence": 0.5})
    assert r.score == 0.363
    assert r.reason == "Elevated risk in 3 of 7 traces."
    assert r.metadata["signal_weights"] == {**DEFAULT_W, "confidence": 0.5}
    assert r.metadata["per_trace_signals"]["t2"] == {"confidence_risk": 0.8, "step_risk": 0.4}


def test_reliability_single_trace_and_no_risk_and_clamp() -> None:
    # k = 1: raw = .9 * .75 + .1 * .75 = .75
    r = agent_reliability({"only": {"coherence": 0.25}})
    assert (r.score, r.reason) == (0.25, "Elevated risk in 1 of 1 traces.")
    # risks .1, .2; k = 1; raw = .2 -> .8
    r = agent_reliability({"a": {"confidence": 0.9}, "b": {"confidence": 0.8}})
    assert (r.score, r.reason) == (0.8, "No elevated risk across 2 traces.")
    # weight 3: risk 3 -> raw 3 -> score clamped at 0; raw_risk reported unclamped
    r = agent_reliability({"a": {"confidence": 0.0}}, signal_weights={"confidence": 3})
    assert r.score == 0.0 and r.metadata["raw_risk"] == 3.0


# t1: conf risk .4; penalty = 1*.1 + .8*.5 + 1*.2 = .7; wu = 1.7 * .4 = .68
# t2: conf risk .1; penalty 0; wu = .1      t3: no confidence -> skipped
# t4: conf risk 0; penalty 1; wu = 2 * 0 = 0
# rms = sqrt((.4624 + .01 + 0) / 3) = sqrt(.157467) = .396821 -> score .603179
CONS = {
    "t1": {"confidence": 0.6, "loop_detection": 0.9, "tool_correctness": 0.5, "coherence": 0.8},
    "t2": {"confidence": 0.9},
    "t3": {"loop_detection": 0.2},
    "t4": {"confidence": 1.0, "coherence": 0.0},
}


def test_consistency_full_example() -> None:
    r = agent_consistency(CONS)
    assert r.score == 0.6032
    assert r.reason == "Moderate instability detected across 3 traces."
    md = r.metadata
    assert list(md) == [
        "total_traces_in_session",
        "traces_evaluated",
        "raw_instability",
        "signal_weights",
        "per_trace_signals",
        "aggregation",
    ]
    assert (md["total_traces_in_session"], md["traces_evaluated"]) == (4, 3)
    assert md["raw_instability"] == 0.3968
    assert md["aggregation"] == {"method": "weighted_rms", "rms_value": 0.3968}
    assert md["per_trace_signals"]["t1"] == {
        "confidence_risk": 0.4,
        "loop_risk": 0.1,
        "tool_risk": 0.5,
        "coherence_risk": 0.2,
        "situational_penalty": 0.7,
        "weighted_uncertainty": 0.68,
    }
    assert md["per_trace_signals"]["t4"] == {
        "confidence_risk": 0.0,
        "coherence_risk": 1.0,
        "situational_penalty": 1.0,
        "weighted_uncertainty": 0.0,
    }
    assert "t3" not in md["per_trace_signals"]


def test_consistency_reason_bands() -> None:
    # conf .8: wu = .2, rms = .2 -> score .8 (>= .8 is "consistent")
    r = agent_consistency({"a": {"confidence": 0.8}})
    assert (r.score, r.reason) == (0.8, "Consistent performance across 1 traces.")
    # conf .5: score .5 -> moderate
    r = agent_consistency({"a": {"confidence": 0.5}})
    assert (r.score, r.reason) == (0.5, "Moderate instability detected across 1 traces.")
    # conf .5, coherence .5: penalty .5, wu = 1.5 * .5 = .75 -> .25
    r = agent_consistency({"a": {"confidence": 0.5, "coherence": 0.5}})
    assert (r.score, r.reason) == (
        0.25,
        "High instability across 1 traces; multiple signals compound.",
    )
    # weight 2 on confidence: wu = 2 * 1 = 2 -> score clamped to 0
    r = agent_consistency({"a": {"confidence": 0.0}}, signal_weights={"confidence": 2.0})
    assert r.score == 0.0 and r.metadata["raw_instability"] == 2.0


@pytest.mark.parametrize("metric", [agent_reliability, agent_consistency])
@pytest.mark.parametrize(
    "weights,match",
    [
        ({"confidence": -0.1}, "signal_weights\\['confidence'\\].*-0.1"),
        ({"coherance": 1.0}, "unknown signal 'coherance'.*loop_detection"),
        ({"coherence": math.nan}, "signal_weights\\['coherence'\\]"),
    ],
)
def test_weights_validated(metric, weights, match) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=match):
        metric({"t": {"confidence": 0.5}}, signal_weights=weights)


@pytest.mark.parametrize(
    "signals,match",
    [
        ({"t": {"confidence": 1.5}}, "signals\\['t'\\]\\['confidence'\\].*1.5"),
        ({"t": {"confidence": math.nan}}, "signals\\['t'\\]\\['confidence'\\]"),
        ({"t": {"task_completion": 0.5}}, "unknown signal 'task_completion'"),
    ],
)
def test_signal_values_validated(signals, match) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=match):
        agent_reliability(signals)


def test_failed_signals_are_reported_not_replaced() -> None:
    # t1: confidence failed -> left out; risk from coherence .5; t2 risk .1
    # k = 1, raw = .5 -> score .5; nothing flagged (.5 is not > .5)
    signals: dict[str, Any] = {
        "t1": {"confidence": SignalFailure("LLMCallError(timeout): slow"), "coherence": 0.5},
        "t2": {"confidence": 0.9},
    }
    r = agent_reliability(signals)
    assert r.score == 0.5
    assert r.reason.startswith("No elevated risk across 2 traces.")
    assert "1 signal(s) failed" in r.reason
    assert r.metadata["failed_signals"] == {"t1": {"confidence": "LLMCallError(timeout): slow"}}
    assert r.metadata["per_trace_signals"]["t1"] == {"coherence_risk": 0.5, "step_risk": 0.5}
    # consistency: only t2 has a computed confidence: wu = .1 -> .9
    c = agent_consistency(signals)
    assert c.score == 0.9 and c.metadata["traces_evaluated"] == 1
    assert c.metadata["failed_signals"] == {"t1": {"confidence": "LLMCallError(timeout): slow"}}


def test_all_failed_session_is_an_error() -> None:
    fail = SignalFailure("JudgeError: invalid JSON")
    signals: dict[str, Any] = {
        "t1": {"confidence": fail, "coherence": fail},
        "t2": {"loop_detection": fail},
    }
    with pytest.raises(SessionMetricError, match=r"agent_reliability.*invalid JSON"):
        agent_reliability(signals)
    with pytest.raises(SessionMetricError, match="agent_consistency"):
        agent_consistency(signals)
    # every confidence failed but other signals computed: reliability works, consistency errors
    mixed: dict[str, Any] = {"t1": {"confidence": fail, "coherence": 0.9}}
    assert agent_reliability(mixed).score == pytest.approx(0.9)
    with pytest.raises(SessionMetricError):
        agent_consistency(mixed)
