"""``execute_run``: the tool-calling agent loop plus post-hoc confidence elicitation."""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from typing import Any

from reliability_lab.agents._confidence import CONFIDENCE_QUESTION, parse_confidence
from reliability_lab.agents._records import RunResult, RunSpec
from reliability_lab.envs import Episode, ToolError, get_environment
from reliability_lab.llm import Completion, LLMCallError, LLMClient
from reliability_lab.perturbations import Perturbation, ToolOutcome, build_perturbation
from reliability_lab.runs import is_simulated_model

__all__ = ["execute_run"]


@dataclass
class _Meter:
    """Resource totals over a run's LLM calls."""

    cost: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latencies: list[float] = field(default_factory=list)

    def add(self, completion: Completion) -> None:
        self.cost += completion.cost_usd  # NaN (unknown price) propagates: total unknown
        self.prompt_tokens += completion.prompt_tokens
        self.completion_tokens += completion.completion_tokens
        self.latencies.append(completion.latency_s)


def _call_tool(episode: Episode, name: str, raw_arguments: str) -> ToolOutcome:
    """Run one tool call; return (result text, is_error). Never raises."""
    try:
        arguments = json.loads(raw_arguments or "{}")
    except json.JSONDecodeError as exc:
        return ToolOutcome(f"Error: arguments for {name} are not valid JSON ({exc.msg}).", True)
    try:
        return ToolOutcome(episode.call_tool(name, arguments), False)
    except ToolError as exc:
        return ToolOutcome(str(exc), True)
    except Exception as exc:  # a bug in a user-defined tool: shown to the agent, counted
        return ToolOutcome(f"Error: tool {name} failed: {type(exc).__name__}: {exc}", True)


@dataclass
class _State:
    messages: list[dict[str, Any]]
    actions: list[str] = field(default_factory=list)
    errors: int = 0
    final: str | None = None
    error: str | None = None


async def _agent_loop(
    spec: RunSpec,
    llm: LLMClient,
    episode: Episode,
    tools: list[dict[str, Any]],
    meter: _Meter,
    state: _State,
    perturbation: Perturbation,
) -> None:
    params = {"seed": spec.seed, **spec.params}

    def execute(name: str, arguments: str) -> ToolOutcome:
        return _call_tool(episode, name, arguments)

    for step in range(spec.max_steps):
        fault = perturbation.llm_fault(step)
        if fault is not None:  # an injected fault of the agent's own call: its failure
            state.error = f"agent: injected fault: {fault}"
            return
        completion = await llm.acompletion(
            model=spec.model,
            messages=state.messages,
            tools=tools,
            cache_key_extra=spec.identity,
            **params,
        )
        meter.add(completion)
        message = completion.message
        state.messages.append(message)
        calls = message.get("tool_calls")
        if not calls:
            state.final = message.get("content") or ""
            return
        for call in calls:
            name = call["function"]["name"]
            state.actions.append(name)
            arguments = call["function"]["arguments"]
            text, failed = perturbation.call_tool(name, arguments, step, execute)
            state.errors += failed
            state.messages.append({"role": "tool", "tool_call_id": call["id"], "content": text})
    state.error = f"agent: reached max_steps={spec.max_steps} without a final answer"


async def _elicit(
    spec: RunSpec,
    llm: LLMClient,
    tools: list[dict[str, Any]],
    meter: _Meter,
    messages: list[dict[str, Any]],
) -> tuple[float, str, str | None, str | None]:
    """``(confidence, source, raw reply, error)``; ``error`` is ``<category>: <cause>`` when
    the question itself failed (the run's outcome stands: it is not an infrastructure error)."""
    if not spec.elicit_confidence:
        return math.nan, "none", None, None
    ask = [*messages, {"role": "user", "content": CONFIDENCE_QUESTION}]
    params = {"seed": spec.seed, **spec.params}
    try:
        completion = await llm.acompletion(
            model=spec.model,
            messages=ask,
            tools=tools,
            cache_key_extra=spec.identity + "|confidence",
            **params,
        )
    except LLMCallError as exc:
        return math.nan, "fallback", None, f"{exc.category}: {exc}"
    meter.add(completion)
    raw = completion.message.get("content")
    value = parse_confidence(raw)
    return value, ("fallback" if math.isnan(value) else "elicited"), raw, None


def _judge(
    episode: Episode, final: str | None, trajectory: list[dict[str, Any]]
) -> tuple[float, list[dict[str, Any]], str | None]:
    try:
        score = float(episode.score(final))
        violations = episode.violations(final, trajectory)
    except Exception as exc:  # a broken checker is a harness failure, not an agent failure
        return math.nan, [], f"infrastructure: checker: {type(exc).__name__}: {exc}"
    if not 0.0 <= score <= 1.0:
        return math.nan, [], f"infrastructure: checker: score {score!r} outside [0, 1]"
    return score, violations, None


async def execute_run(spec: RunSpec, llm: LLMClient) -> RunResult:
    """Run one agent on one task and record everything the run table needs.

    The loop: system prompt + task instruction, the environment's tools; every assistant
    message with ``tool_calls`` gets one tool message per call (errors as text, counted); the
    first message without tool calls is the final answer; after ``max_steps`` model calls
    without one the run ends with ``error="agent: ..."``. Then the model is asked (same
    conversation) for a 0–100 confidence, parsed with :func:`parse_confidence`.

    Provider failures never raise: after :class:`LLMCallError` the result has
    ``success=False``, ``score=NaN`` and ``error="infrastructure: <category>: <cause>"``.
    A failed or unparseable confidence reply gives ``confidence=NaN`` with
    ``confidence_source="fallback"``; a failed confidence *call* also records why in
    ``confidence_error`` (``<category>: <cause>``) — the run itself keeps its outcome.

    The run's condition is applied by the perturbation its registered factory builds
    (:func:`~reliability_lab.perturbations.build_perturbation`): it may reword the instruction,
    change the tool schemas and results the agent sees, fail tool calls, or fail the agent's own
    LLM calls — such an injected fault ends the run with ``error="agent: injected fault: ..."``,
    the agent's failure, never an ``infrastructure:`` error. Its record is ``perturbation``.
    The confidence question is never perturbed.

    Parameters
    ----------
    spec : RunSpec
        What to run.
    llm : LLMClient
        The LLM boundary (retries, cache, cost).

    Returns
    -------
    RunResult
    """
    start = time.perf_counter()
    env = get_environment(spec.environment)
    episode = env.start(spec.task_id)
    perturbation = build_perturbation(
        spec.condition,
        spec.variant,
        options=spec.condition_options,
        seed=spec.seed,
        environment=env,
        task=episode.task,
        data=spec.condition_data,
    )
    tools = perturbation.tools(list(env.tool_schemas))
    state = _State(
        [
            {"role": "system", "content": env.system_prompt},
            {"role": "user", "content": perturbation.instruction(episode.task.instruction)},
        ]
    )
    meter = _Meter()
    score: float = math.nan
    violations: list[dict[str, Any]] = []
    confidence, source, raw, confidence_error = math.nan, "none", None, None
    try:
        await _agent_loop(spec, llm, episode, tools, meter, state, perturbation)
    except LLMCallError as exc:
        state.error = f"infrastructure: {exc.category}: {exc}"
    if state.error is None or state.error.startswith("agent:"):
        score, violations, checker_error = _judge(episode, state.final, state.messages)
        confidence, source, raw, confidence_error = await _elicit(
            spec, llm, tools, meter, state.messages
        )
        state.error = checker_error or state.error
    success = state.error is None and score >= spec.pass_threshold
    return RunResult(
        agent=spec.agent,
        task_id=spec.task_id,
        condition=spec.condition,
        variant=spec.variant,
        run=spec.run,
        success=bool(success),
        score=score,
        confidence=confidence,
        confidence_source=source,
        actions=state.actions,
        cost_usd=meter.cost,
        wall_time_s=time.perf_counter() - start,
        api_calls=len(meter.latencies),
        num_actions=len(state.actions),
        num_errors=state.errors,
        call_latency_s=(
            sum(meter.latencies) / len(meter.latencies) if meter.latencies else math.nan
        ),
        violations=violations,
        error=state.error,
        seed=spec.seed,
        model=spec.model,
        environment=spec.environment,
        simulated=is_simulated_model(spec.model),
        prompt_tokens=meter.prompt_tokens,
        completion_tokens=meter.completion_tokens,
        final_answer=state.final,
        confidence_raw=raw,
        confidence_error=confidence_error,
        trajectory=state.messages,
        perturbation=perturbation.record(),
    )
