"""The seven PandaProbe LLM-judge trace metrics (staged structured-output designs)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine
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
    stages: Stages,
) -> MetricResult:
    metadata = {**fields, "threshold": threshold, "success": score >= threshold}
    metadata["stages"] = dict(stages.outputs)
    return MetricResult(name=name, score=score, reason=reason, metadata=metadata)


#: What a judge metric computes once its options are checked: (trace, its stages, threshold).
_Body = Callable[[Trace, Stages, float], Awaitable[MetricResult]]


def _judge_metric(body: _Body) -> Callable[..., Coroutine[Any, Any, MetricResult]]:
    """The public judge metric named like ``body``: the options every judge takes, checked once.

    The metric is called as ``metric(trace, *, llm, model=DEFAULT_JUDGE_MODEL, threshold=0.5,
    max_invalid_retries=2, **params)`` (``params`` go to every completion); ``body`` gets the
    trace, the :class:`~reliability_lab.llm.judging.Stages` of this evaluation and the checked
    threshold.
    """
    name = body.__name__

    async def metric(
        trace: Trace,
        *,
        llm: JudgeLLM,
        model: str = DEFAULT_JUDGE_MODEL,
        threshold: float = 0.5,
        max_invalid_retries: int = 2,
        **params: Any,
    ) -> MetricResult:
        threshold = check_threshold(threshold)
        st = Stages(name, llm, model, max_invalid_retries=max_invalid_retries, params=params)
        return await body(trace, st, threshold)

    metric.__name__ = metric.__qualname__ = name
    metric.__doc__ = body.__doc__
    return metric


@_judge_metric
async def task_completion(trace: Trace, st: Stages, threshold: float) -> MetricResult:
    """Did the agent accomplish the user's objective? (2 stages: extract, score).

    Stage ``extract`` → ``{task, outcome}`` (outcome strictly factual); stage ``score`` →
    ``{verdict in [0, 1], reason}``. Score = verdict; metadata ``{task, outcome, threshold,
    success, stages}``.
    """
    extracted = await st.run("extract", TaskOutcome, prompts.task_outcome(trace))
    verdict = await st.run(
        "score", TaskVerdict, prompts.task_verdict(extracted.task, extracted.outcome)
    )
    fields = {"task": extracted.task, "outcome": extracted.outcome}
    return _result("task_completion", verdict.verdict, verdict.reason, fields, threshold, st)


@_judge_metric
async def tool_correctness(trace: Trace, st: Stages, threshold: float) -> MetricResult:
    """Did the agent select the right tools? (2 stages: extract, score).

    Stage ``extract`` → ``{user_input, tools_called, available_tools}``; stage ``score`` →
    ``{score, reason}`` judging correct, over-, under- and mis-selection. Metadata
    ``{user_input, tools_called, available_tools, threshold, success, stages}``.
    """
    ctx = await st.run("extract", ToolSelectionContext, prompts.tool_context(trace))
    fields = ctx.model_dump(mode="json")
    verdict = await st.run("score", ScoreWithReason, prompts.tool_score(fields))
    return _result("tool_correctness", verdict.score, verdict.reason, fields, threshold, st)


@_judge_metric
async def argument_correctness(trace: Trace, st: Stages, threshold: float) -> MetricResult:
    """Were the tool-call arguments right? (3 stages: extract, verdicts, reason).

    A trace without TOOL spans scores 1.0 (reason ``"No tool calls in trace; nothing to
    evaluate."``) with no judge call. Otherwise stage ``extract`` → ``{user_input,
    tool_calls}``, stage ``verdicts`` → one yes/no verdict per call, and
    ``score = #yes / #verdicts`` (computed here, not by the judge); stage ``reason`` explains
    it. Metadata ``{user_input, verdicts, threshold, success, stages}``.
    """
    name = "argument_correctness"
    if not trace.tool_spans():
        fields: dict[str, Any] = {"user_input": text_of(trace.input), "verdicts": []}
        reason = "No tool calls in trace; nothing to evaluate."
        return _result(name, 1.0, reason, fields, threshold, st)
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
    return _result(name, score, explained.reason, fields, threshold, st)


@_judge_metric
async def step_efficiency(trace: Trace, st: Stages, threshold: float) -> MetricResult:
    """Was the execution minimal? (2 stages: extract task, score).

    Metadata ``{task, threshold, success, stages}``.
    """
    task = await st.run("extract", TaskExtraction, prompts.task_only(trace))
    verdict = await st.run("score", ScoreWithReason, prompts.step_efficiency(task.task, trace))
    return _result(
        "step_efficiency", verdict.score, verdict.reason, {"task": task.task}, threshold, st
    )


@_judge_metric
async def confidence(trace: Trace, st: Stages, threshold: float) -> MetricResult:
    """Were the agent's actions decisive and well-founded? (1 stage: score).

    Metadata ``{threshold, success, stages}``. Also the ``confidence`` session signal.
    """
    verdict = await st.run("score", ScoreWithReason, prompts.confidence(trace))
    return _result("confidence", verdict.score, verdict.reason, {}, threshold, st)


async def _plan_metric(
    score_prompt: Callable[[str, list[str], Trace], str],
    trace: Trace,
    st: Stages,
    threshold: float,
) -> MetricResult:
    """The shared 3-stage design of the plan metrics: extract task, extract plan, score."""
    task = (await st.run("extract_task", TaskExtraction, prompts.task_only(trace))).task
    plan_out = await st.run("extract_plan", AgentPlan, prompts.plan(trace))
    plan = [step for step in plan_out.plan if step.strip()]
    if not plan:
        fields: dict[str, Any] = {"task": task, "plan": []}
        return _result(st.metric, 1.0, "No plan found in trace", fields, threshold, st)
    verdict = await st.run("score", ScoreWithReason, score_prompt(task, plan, trace))
    fields = {"task": task, "plan": plan}
    return _result(st.metric, verdict.score, verdict.reason, fields, threshold, st)


@_judge_metric
async def plan_adherence(trace: Trace, st: Stages, threshold: float) -> MetricResult:
    """Did execution follow the agent's plan? (3 stages: task, plan, score).

    No plan found → 1.0, reason ``"No plan found in trace"`` (no scoring call). Metadata
    ``{task, plan, threshold, success, stages}``.
    """
    return await _plan_metric(prompts.plan_adherence, trace, st, threshold)


@_judge_metric
async def plan_quality(trace: Trace, st: Stages, threshold: float) -> MetricResult:
    """Is the agent's plan itself good? (3 stages: task, plan, score).

    No plan found → 1.0, reason ``"No plan found in trace"`` (no scoring call). Metadata
    ``{task, plan, threshold, success, stages}``.
    """
    return await _plan_metric(_plan_quality_prompt, trace, st, threshold)


def _plan_quality_prompt(task: str, plan: list[str], trace: Trace) -> str:
    return prompts.plan_quality(task, plan)  # the plan's quality, whatever was executed
