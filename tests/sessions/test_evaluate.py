"""evaluate_session and session_metrics_for_results: signals, failures, real sim judge."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
import pytest

from reliability_lab.sessions import SignalFailure, evaluate_session, session_metrics_for_results
from reliability_lab.sessions.embeddings import HashingEmbedder, LiteLLMEmbedder
from reliability_lab.sessions.tracing import Trace
from tests.sessions.fakes import ScriptedLLM, const_embed

TRACES = [
    Trace(id="a", session_id="s", input="check order", output="order A1 is open"),
    Trace(id="b", session_id="s", input="and now?", output="order A1 is open"),
]


def responder(schema: str, messages: list[dict[str, Any]]) -> Any:
    if schema == "ToolSelectionContext":
        return {"user_input": "u", "tools_called": [], "available_tools": []}
    if "decisive" in messages[-1]["content"]:  # the confidence prompt
        return {"score": 0.6, "reason": "some hesitation"}
    return {"score": 0.5, "reason": "tool choice so-so"}  # tool_correctness score stage


def test_evaluate_session_hand_computed() -> None:
    # const_embed: every cosine is 1. coherence: gap 0 -> 1.0 for both traces.
    # loop: a has no earlier trace -> 1.0; b repeats a's output exactly (Jaccard 1) -> 0.0
    # signals: a {conf .6, loop 1, tool .5, coh 1}, b {conf .6, loop 0, tool .5, coh 1}
    # reliability: a max(.4, 0, .8*.5, 0) = .4, b max(.4, 1, .4, 0) = 1; k = 1; raw = 1 -> 0
    # consistency: a penalty .4, wu = 1.4*.4 = .56; b penalty 1.4, wu = 2.4*.4 = .96
    #   rms = sqrt((.3136 + .9216)/2) = sqrt(.6176) = .785875 -> .2141
    llm = ScriptedLLM(responder=responder)
    ev = evaluate_session(TRACES, llm=llm, embed=const_embed)
    assert ev.session_id == "s" and ev.trace_ids == ("a", "b")
    assert ev.signal_values() == {
        "a": {"confidence": 0.6, "loop_detection": 1.0, "tool_correctness": 0.5, "coherence": 1.0},
        "b": {"confidence": 0.6, "loop_detection": 0.0, "tool_correctness": 0.5, "coherence": 1.0},
    }
    assert ev.agent_reliability is not None and ev.agent_consistency is not None
    assert (ev.agent_reliability.score, ev.agent_reliability.reason) == (
        0.0,
        "Elevated risk in 1 of 2 traces.",
    )
    assert ev.agent_consistency.score == 0.2141
    assert ev.errors == {} and ev.failed_signals == {}
    # 2 traces x (confidence 1 call + tool_correctness 2 calls) = 6 requests; the second
    # trace's tool-score request repeats the first one exactly (same extracted context), so the
    # in-memory judge memo answers it: 5 calls reach the client
    assert len(llm.calls) == 5
    assert {c["model"] for c in llm.calls} == {"sim/judge"}


def test_evaluate_session_weights_and_empty() -> None:
    llm = ScriptedLLM(responder=responder)
    ev = evaluate_session(
        TRACES, llm=llm, embed=const_embed, signal_weights={"loop_detection": 0.0}
    )
    # reliability without loop: both traces .4 -> raw .4 -> .6
    assert ev.agent_reliability is not None and ev.agent_reliability.score == 0.6
    with pytest.raises(ValueError, match="unknown signal 'loops'"):
        evaluate_session(TRACES, llm=llm, signal_weights={"loops": 1.0})
    empty = evaluate_session([], llm=llm)
    assert empty.agent_reliability is not None
    assert empty.agent_reliability.reason == "No traces or signals to evaluate."
    with pytest.raises(ValueError, match="trace id 'a' occurs more than once"):
        evaluate_session([TRACES[0], TRACES[0]], llm=llm)


def test_failed_judge_call_is_reported_not_masked() -> None:
    llm_mod = pytest.importorskip("reliability_lab.llm", reason="E1's LLM client is missing")

    def failing(schema: str, messages: list[dict[str, Any]]) -> Any:
        if "decisive" in messages[-1]["content"]:
            return llm_mod.LLMCallError("timeout", "request timed out")
        return responder(schema, messages)

    ev = evaluate_session(TRACES, llm=ScriptedLLM(responder=failing), embed=const_embed)
    for tid in ("a", "b"):
        failure = ev.trace_signals[tid]["confidence"]
        assert isinstance(failure, SignalFailure)
        assert "LLMCallError" in failure.cause and "timed out" in failure.cause
    # reliability still computed from the other signals, with the failures reported
    assert ev.agent_reliability is not None
    assert ev.agent_reliability.metadata["failed_signals"]["a"]["confidence"].startswith(
        "LLMCallError"
    )
    assert "2 signal(s) failed" in ev.agent_reliability.reason
    # consistency needs confidence, which failed everywhere: an error, not 1.0
    assert ev.agent_consistency is None
    assert "agent_consistency" in ev.errors and "timed out" in ev.errors["agent_consistency"]


def test_invalid_judge_output_and_embedder_failure_reported() -> None:
    def bad_embed(texts: list[str]) -> list[list[float]]:
        raise RuntimeError("embedding service down")

    llm = ScriptedLLM(responder=lambda schema, messages: "not json")
    ev = evaluate_session(TRACES, llm=llm, embed=bad_embed)
    assert all(
        isinstance(v, SignalFailure) for sig in ev.trace_signals.values() for v in sig.values()
    )
    assert "JudgeError" in ev.failed_signals["a"]["confidence"]
    assert "embedding service down" in ev.failed_signals["a"]["coherence"]
    assert ev.agent_reliability is None and ev.agent_consistency is None
    assert set(ev.errors) == {"agent_reliability", "agent_consistency"}


def _record(run: int, **extra: Any) -> dict[str, Any]:
    traj = [
        {"role": "user", "content": "check order A1"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "get_order", "arguments": '{"id": "A1"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "name": "get_order", "content": "open"},
        {"role": "assistant", "content": "Order A1 is open."},
    ]
    return {
        "agent": "ag",
        "task_id": "t1",
        "condition": "baseline",
        "variant": "",
        "run": run,
        "trajectory": traj,
        **extra,
    }


def test_session_metrics_for_results_fake_llm() -> None:
    records = [_record(0), _record(1, error="infrastructure: timeout: slow")]
    df = session_metrics_for_results(
        records, llm=ScriptedLLM(responder=responder), embed=HashingEmbedder()
    )
    assert list(df.columns[:7]) == [
        "agent",
        "task_id",
        "condition",
        "variant",
        "run",
        "agent_reliability",
        "agent_consistency",
    ]
    assert "session_error" in df.columns and len(df) == 2
    ok, failed = df.iloc[0], df.iloc[1]
    assert 0.0 <= ok["agent_reliability"] <= 1.0 and pd.isna(ok["session_error"])
    assert ok["n_traces"] == 2 and ok["n_failed_signals"] == 0
    assert math.isnan(failed["agent_reliability"]) and math.isnan(failed["agent_consistency"])
    assert "infrastructure" in failed["session_error"]
    with pytest.raises(ValueError, match=r"records\[0\]: missing key\(s\) trajectory"):
        session_metrics_for_results(
            [{"agent": "a", "task_id": "t", "condition": "c", "variant": "", "run": 0}],
            llm=ScriptedLLM(),
        )


def test_real_llm_client_with_sim_judge(tmp_path: Any) -> None:
    llm_mod = pytest.importorskip("reliability_lab.llm", reason="E1's LLM client is missing")
    client = llm_mod.LLMClient(cache_dir=tmp_path)
    df = session_metrics_for_results([_record(0), _record(1)], llm=client)
    assert df["session_error"].isna().all()
    assert df["agent_reliability"].between(0, 1).all()
    assert df["agent_consistency"].between(0, 1).all()
    # the simulated judge is deterministic: identical runs give identical session scores
    assert df["agent_reliability"].iloc[0] == df["agent_reliability"].iloc[1]


def test_litellm_embedder_batches_and_caches() -> None:
    class FakeEmbedClient:
        def __init__(self) -> None:
            self.batches: list[list[str]] = []

        async def aembedding(self, *, model: str, texts: list[str], **params: Any) -> Any:
            self.batches.append(texts)
            return [[float(len(t)), 1.0] for t in texts]

    client = FakeEmbedClient()
    emb = LiteLLMEmbedder("openai/text-embedding-3-small", llm=client)  # type: ignore[arg-type]
    assert emb(["ab", "abc", "ab"]) == [[2.0, 1.0], [3.0, 1.0], [2.0, 1.0]]
    assert emb(["abc", "d"]) == [[3.0, 1.0], [1.0, 1.0]]
    assert client.batches == [["ab", "abc"], ["d"]]  # each distinct text sent once
