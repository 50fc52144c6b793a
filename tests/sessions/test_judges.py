"""The 7 LLM judges with a scripted judge: stage order, early exits, retries, arithmetic."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from reliability_lab.sessions import judges
from reliability_lab.sessions.judges import JudgeError
from reliability_lab.sessions.tracing import Span, SpanKind, Trace
from tests.sessions.fakes import ScriptedLLM

TRACE = Trace(id="t0", session_id="s", input="Refund order A1", output="Refunded A1.")
TOOL_TRACE = Trace(
    id="t1",
    session_id="s",
    input="Refund order A1 and B2",
    output="Done.",
    spans=(
        Span(name="get_order", kind=SpanKind.TOOL, input={"id": "A1"}, output="{...}"),
        Span(name="refund", kind=SpanKind.TOOL, input={"id": "A9"}, output="ok"),
        Span(name="refund", kind=SpanKind.TOOL, input={"id": "B2"}, output="ok"),
    ),
)


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_task_completion_stages_and_metadata() -> None:
    llm = ScriptedLLM(
        [
            {"task": "refund A1", "outcome": "called refund for A1"},
            {"verdict": 0.75, "reason": "mostly"},
        ]
    )
    r = run(judges.task_completion(TRACE, llm=llm, model="openai/gpt-4o-mini"))
    assert llm.schemas == ["TaskOutcome", "TaskVerdict"]
    assert [c["model"] for c in llm.calls] == ["openai/gpt-4o-mini"] * 2
    assert llm.calls[0]["response_format"]["type"] == "json_schema"
    assert "Refund order A1" in llm.calls[0]["messages"][-1]["content"]  # trace in the prompt
    assert "called refund for A1" in llm.calls[1]["messages"][-1]["content"]  # stage 1 reused
    assert (r.name, r.score, r.reason) == ("task_completion", 0.75, "mostly")
    assert r.metadata == {
        "task": "refund A1",
        "outcome": "called refund for A1",
        "threshold": 0.5,
        "success": True,
        "stages": {
            "extract": {"task": "refund A1", "outcome": "called refund for A1"},
            "score": {"verdict": 0.75, "reason": "mostly"},
        },
    }


def test_retry_on_invalid_json_then_success() -> None:
    llm = ScriptedLLM(
        [
            "I think the score is high",  # not JSON
            {"score": 1.7, "reason": "too high"},  # out of [0, 1]
            '```json\n{"score": 0.25, "reason": "hesitant"}\n```',  # fenced but valid
        ]
    )
    r = run(judges.confidence(TRACE, llm=llm))
    assert llm.schemas == ["ScoreWithReason"] * 3
    # each retry shows the judge its invalid reply and the validation problem
    retry_msgs = llm.calls[2]["messages"]
    assert retry_msgs[-2] == {
        "role": "assistant",
        "content": '{"score": 1.7, "reason": "too high"}',
    }
    assert "score" in retry_msgs[-1]["content"] and "not valid" in retry_msgs[-1]["content"]
    assert (r.score, r.reason) == (0.25, "hesitant")
    assert r.metadata == {
        "threshold": 0.5,
        "success": False,
        "stages": {"score": {"score": 0.25, "reason": "hesitant"}},
    }


def test_invalid_json_exhausts_retries() -> None:
    llm = ScriptedLLM(["nope", "{}", '{"task": 3}'])
    with pytest.raises(JudgeError, match=r"step_efficiency: stage 'extract'.*3 time"):
        run(judges.step_efficiency(TRACE, llm=llm, max_invalid_retries=2))
    assert len(llm.calls) == 3


def test_tool_correctness_two_stages() -> None:
    ctx = {
        "user_input": "refund",
        "tools_called": [{"name": "refund", "parameters": {"id": "B2"}}],
        "available_tools": [{"name": "refund", "description": "refund an order"}],
    }
    llm = ScriptedLLM([ctx, {"score": 0.6, "reason": "missed a lookup"}])
    r = run(judges.tool_correctness(TOOL_TRACE, llm=llm))
    assert llm.schemas == ["ToolSelectionContext", "ScoreWithReason"]
    assert r.score == 0.6
    assert {k: r.metadata[k] for k in ctx} == ctx
    assert list(r.metadata["stages"]) == ["extract", "score"]


def test_argument_correctness_arithmetic() -> None:
    calls = [
        {"name": "get_order", "parameters": {"id": "A1"}, "reasoning": None},
        {"name": "refund", "parameters": {"id": "A9"}, "reasoning": "refund"},
        {"name": "refund", "parameters": {"id": "B2"}, "reasoning": None},
    ]
    verdicts = [
        {"verdict": "yes", "reason": None},
        {"verdict": "no", "reason": "id A9 should be A1"},
        {"verdict": "yes", "reason": None},
    ]
    llm = ScriptedLLM(
        [
            {"user_input": "refund A1, B2", "tool_calls": calls},
            {"verdicts": verdicts},
            {"reason": "one wrong id"},
        ]
    )
    r = run(judges.argument_correctness(TOOL_TRACE, llm=llm, threshold=0.7))
    assert llm.schemas == ["ToolCallContext", "ArgumentVerdicts", "ArgumentReason"]
    assert r.score == 2 / 3  # 2 "yes" of 3 verdicts
    assert r.reason == "one wrong id"
    assert r.metadata["verdicts"] == verdicts
    assert r.metadata["success"] is False  # 0.667 < 0.7
    # the reason stage sees the score and the incorrect-call reasons
    assert "0.67" in llm.calls[2]["messages"][-1]["content"]
    assert "id A9 should be A1" in llm.calls[2]["messages"][-1]["content"]


def test_argument_correctness_four_verdicts_one_yes() -> None:
    ctx = {"user_input": "x", "tool_calls": []}
    v = [{"verdict": "no", "reason": "r"}] * 3 + [{"verdict": "yes", "reason": None}]
    llm = ScriptedLLM([ctx, {"verdicts": v}, {"reason": "bad"}])
    assert run(judges.argument_correctness(TOOL_TRACE, llm=llm)).score == 0.25  # 1 / 4


def test_argument_correctness_no_tool_calls_skips_judge() -> None:
    llm = ScriptedLLM([])
    r = run(judges.argument_correctness(TRACE, llm=llm))
    assert llm.calls == []
    assert (r.score, r.reason) == (1.0, "No tool calls in trace; nothing to evaluate.")
    assert r.metadata == {
        "user_input": "Refund order A1",
        "verdicts": [],
        "threshold": 0.5,
        "success": True,
        "stages": {},
    }


@pytest.mark.parametrize("name", ["plan_adherence", "plan_quality"])
def test_plan_metrics_no_plan_exits_early(name: str) -> None:
    llm = ScriptedLLM([{"task": "refund"}, {"plan": []}])
    r = run(judges.JUDGES[name](TRACE, llm=llm))
    assert llm.schemas == ["TaskExtraction", "AgentPlan"]  # no scoring call
    assert (r.score, r.reason) == (1.0, "No plan found in trace")
    assert r.metadata["plan"] == [] and r.metadata["success"] is True


@pytest.mark.parametrize("name", ["plan_adherence", "plan_quality"])
def test_plan_metrics_with_plan(name: str) -> None:
    plan = ["look up order", "refund it"]
    llm = ScriptedLLM([{"task": "refund"}, {"plan": plan}, {"score": 0.0, "reason": "skipped"}])
    r = run(judges.JUDGES[name](TRACE, llm=llm, threshold=0))
    assert llm.schemas == ["TaskExtraction", "AgentPlan", "ScoreWithReason"]
    assert json.dumps(plan, indent=2) in llm.calls[2]["messages"][-1]["content"]
    assert r.score == 0.0
    assert r.metadata["success"] is True  # threshold 0 is honoured: 0.0 >= 0
    assert r.metadata["threshold"] == 0.0 and r.metadata["plan"] == plan
    assert list(r.metadata["stages"]) == ["extract_task", "extract_plan", "score"]


def test_step_efficiency_and_judge_params_forwarded() -> None:
    llm = ScriptedLLM([{"task": "refund"}, {"score": 0.9, "reason": "lean"}])
    r = run(judges.step_efficiency(TRACE, llm=llm, temperature=0.3, api_base="http://127.0.0.1:1"))
    assert llm.calls[0]["temperature"] == 0.3 and llm.calls[1]["api_base"] == "http://127.0.0.1:1"
    assert r.metadata == {
        "task": "refund",
        "threshold": 0.5,
        "success": True,
        "stages": {"extract": {"task": "refund"}, "score": {"score": 0.9, "reason": "lean"}},
    }


def test_judge_llm_error_propagates() -> None:
    llm = ScriptedLLM([RuntimeError("boom")])
    with pytest.raises(RuntimeError, match="boom"):
        run(judges.confidence(TRACE, llm=llm))


def test_bad_threshold_and_unknown_judge() -> None:
    with pytest.raises(ValueError, match="threshold must be in"):
        run(judges.confidence(TRACE, llm=ScriptedLLM([]), threshold=-0.1))
    with pytest.raises(ValueError, match=r"unknown judge 'coherence'.*task_completion"):
        judges.run_judge("coherence", TRACE, llm=ScriptedLLM([]))


def test_run_judge_sync() -> None:
    llm = ScriptedLLM([{"score": 0.8, "reason": "ok"}])
    assert judges.run_judge("confidence", TRACE, llm=llm).score == 0.8
