"""The seven PandaProbe LLM-judge trace metrics (staged structured-output designs)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reliability_lab.llm.judging import (
    DEFAULT_JUDGE_MODEL,
    JudgeLLM,
    Stages,
    check_threshold,
)
from reliability_lab.metrics.signals import MetricResult, text_of
from reliability_lab.sessions.judges import _prompts as prompts
from reliability_lab.sessions.judges._schemas import (
    AgentPlan,
    ArgumentReason,
    ArgumentVerdicts,
    ScoreWithReason,
    TaskExtraction,
    TaskOutcome,
    TaskVerdict,
    ToolCallContext,
    ToolSelectionContext,
)
from reliability_lab.sessions.tracing import Trace

__all__ = [
    "argument_correctness",
    "confidence",
    "plan_adherence",
    "plan_quality",
    "step_efficiency",
    "task_completion",
    "tool_correctness",
]


def _result(
    name: str,
    score: float,
    reason: str,
    fields: dict[str, Any],
    threshold: float,
    stages: Stages | None,
) -> MetricResult:
    metadata = {**fields, "threshold": threshold, "success": score >= threshold}
    metadata["stages"] = dict(stages.outputs) if stages is not None else {}
    return MetricResult(name=name, score=score, reason=reason, metadata=metadata)


async def task_completion(
    trace: Trace,
    *,
    llm: JudgeLLM,
    model: str = DEFAULT_JUDGE_MODEL,
    threshold: float = 0.5,
    max_invalid_retries: int = 2,
    **params: Any,
) -> MetricResult:
    """Did the agent accomplish the user's objective? (2 stages: extract, score).

    Stage ``extract`` → ``{task, outcome}`` (outcome strictly factual); stage ``score`` →
    ``{verdict in [0, 1], reason}``. Score = verdict; metadata ``{task, outcome, threshold,
    success, stages}``.
    """
    threshold = check_threshold(threshold)
    st = Stages(
        "task_completion", llm, model, max_invalid_retries=max_invalid_retries, params=params
    )
    extracted = await st.run("extract", TaskOutcome, prompts.task_outcome(trace))
    verdict = await st.run(
        "score", TaskVerdict, prompts.task_verdict(extracted.task, extracted.outcome)
    )
    fields = {"task": extracted.task, "outcome": extracted.outcome}
    return _result("task_completion", verdict.verdict, verdict.reason, fields, threshold, st)


async def tool_correctness(
    trace: Trace,
    *,
    llm: JudgeLLM,
    model: str = DEFAULT_JUDGE_MODEL,
    threshold: float = 0.5,
    max_invalid_retries: int = 2,
    **params: Any,
) -> MetricResult:
    """Did the agent select the right tools? (2 stages: extract, score).

    Stage ``extract`` → ``{user_input, tools_called, available_tools}``; stage ``score`` →
    ``{score, reason}`` judging correct, over-, under- and mis-selection. Metadata
    ``{user_input, tools_called, available_tools, threshold, success, stages}``.
    """
    threshold = check_threshold(threshold)
    st = Stages(
        "tool_correctness", llm, model, max_invalid_retries=max_invalid_retries, params=params
    )
    ctx = await st.run("extract", ToolSelectionContext, prompts.tool_context(trace))
    fields = ctx.model_dump(mode="json")
    verdict = await st.run("score", ScoreWithReason, prompts.tool_score(fields))
    return _result("tool_correctness", verdict.score, verdict.reason, fields, threshold, st)


async def argument_correctness(
    trace: Trace,
    *,
    llm: JudgeLLM,
    model: str = DEFAULT_JUDGE_MODEL,
    threshold: float = 0.5,
    max_invalid_retries: int = 2,
    **params: Any,
) -> MetricResult:
    """Were the tool-call arguments right? (3 stages: extract, verdicts, reason).

    A trace without TOOL spans scores 1.0 (reason ``"No tool calls in trace; nothing to
    evaluate."``) with no judge call. Otherwise stage ``extract`` → ``{user_input,
    tool_calls}``, stage ``verdicts`` → one yes/no verdict per call, and
    ``score = #yes / #verdicts`` (computed here, not by the judge); stage ``reason`` explains
    it. Metadata ``{user_input, verdicts, threshold, success, stages}``.
    """
    threshold = check_threshold(threshold)
    if not trace.tool_spans():
        fields: dict[str, Any] = {"user_input": text_of(trace.input), "verdicts": []}
        return _result(
            "argument_correctness",
            1.0,
            "No tool calls in trace; nothing to evaluate.",
            fields,
            threshold,
            None,
        )
    st = Stages(
        "argument_correctness", llm, model, max_invalid_retries=max_invalid_retries, params=params
    )
    ctx = await st.run("extract", ToolCallContext, prompts.argument_context(trace))
    judged = await st.run(
        "verdicts", ArgumentVerdicts, prompts.argument_verdicts(ctx.model_dump(mode="json"))
    )
    verdicts = [v.model_dump(mode="json") for v in judged.verdicts]
    n_yes = sum(1 for v in judged.verdicts if v.verdict == "yes")
    score = n_yes / len(judged.verdicts)
    problems = [v.reason or "No reason provided" for v in judged.verdicts if v.verdict == "no"]
    explained = await st.run(
        "reason", ArgumentReason, prompts.argument_reason(ctx.user_input, score, problems)
    )
    fields = {"user_input": ctx.user_input, "verdicts": verdicts}
    return _result("argument_correctness", score, explained.reason, fields, threshold, st)


async def step_efficiency(
    trace: Trace,
    *,
    llm: JudgeLLM,
    model: str = DEFAULT_JUDGE_MODEL,
    threshold: float = 0.5,
    max_invalid_retries: int = 2,
    **params: Any,
) -> MetricResult:
    """Was the execution minimal? (2 stages: extract task, score).

    Metadata ``{task, threshold, success, stages}``.
    """
    threshold = check_threshold(threshold)
    st = Stages(
        "step_efficiency", llm, model, max_invalid_retries=max_invalid_retries, params=params
    )
    task = await st.run("extract", TaskExtraction, prompts.task_only(trace))
    verdict = await st.run("score", ScoreWithReason, prompts.step_efficiency(task.task, trace))
    return _result(
        "step_efficiency", verdict.score, verdict.reason, {"task": task.task}, threshold, st
    )


async def confidence(
    trace: Trace,
    *,
    llm: JudgeLLM,
    model: str = DEFAULT_JUDGE_MODEL,
    threshold: float = 0.5,
    max_invalid_retries: int = 2,
    **params: Any,
) -> MetricResult:
    """Were the agent's actions decisive and well-founded? (1 stage: score).

    Metadata ``{threshold, success, stages}``. Also the ``confidence`` session signal.
    """
    threshold = check_threshold(threshold)
    st = Stages("confidence", llm, model, max_invalid_retries=max_invalid_retries, params=params)
    verdict = await st.run("score", ScoreWithReason, prompts.confidence(trace))
    return _result("confidence", verdict.score, verdict.reason, {}, threshold, st)


async def _plan_metric(
    name: str,
    score_prompt: Callable[[str, list[str], Trace], str],
    trace: Trace,
    llm: JudgeLLM,
    model: str,
    threshold: float,
    max_invalid_retries: int,
    params: dict[str, Any],
) -> MetricResult:
    """The shared 3-stage design of the plan metrics: extract task, extract plan, score."""
    threshold = check_threshold(threshold)
    st = Stages(name, llm, model, max_invalid_retries=max_invalid_retries, params=params)
    task = (await st.run("extract_task", TaskExtraction, prompts.task_only(trace))).task
    plan_out = await st.run("extract_plan", AgentPlan, prompts.plan(trace))
    plan = [step for step in plan_out.plan if step.strip()]
    if not plan:
        fields: dict[str, Any] = {"task": task, "plan": []}
        return _result(name, 1.0, "No plan found in trace", fields, threshold, st)
    verdict = await st.run("score", ScoreWithReason, score_prompt(task, plan, trace))
    return _result(name, verdict.score, verdict.reason, {"task": task, "plan": plan}, threshold, st)


async def plan_adherence(
    trace: Trace,
    *,
    llm: JudgeLLM,
    model: str = DEFAULT_JUDGE_MODEL,
    threshold: float = 0.5,
    max_invalid_retries: int = 2,
    **params: Any,
) -> MetricResult:
    """Did execution follow the agent's plan? (3 stages: task, plan, score).

    No plan found → 1.0, reason ``"No plan found in trace"`` (no scoring call). Metadata
    ``{task, plan, threshold, success, stages}``.
    """
    return await _plan_metric(
        "plan_adherence",
        prompts.plan_adherence,
        trace,
        llm,
        model,
        threshold,
        max_invalid_retries,
        params,
    )


async def plan_quality(
    trace: Trace,
    *,
    llm: JudgeLLM,
    model: str = DEFAULT_JUDGE_MODEL,
    threshold: float = 0.5,
    max_invalid_retries: int = 2,
    **params: Any,
) -> MetricResult:
    """Is the agent's plan itself good? (3 stages: task, plan, score).

    No plan found → 1.0, reason ``"No plan found in trace"`` (no scoring call). Metadata
    ``{task, plan, threshold, success, stages}``.
    """
    return await _plan_metric(
        "plan_quality",
        lambda task, plan, _trace: prompts.plan_quality(task, plan),
        trace,
        llm,
        model,
        threshold,
        max_invalid_retries,
        params,
    )
