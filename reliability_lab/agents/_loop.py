"""``execute_run``: one run of an agent on the ``ctx`` contract, then judging and confidence."""

from __future__ import annotations

import asyncio
import inspect
import json
import math
import time
import traceback
from collections.abc import Callable
from typing import Any

from reliability_lab.agents._builtin import tool_loop
from reliability_lab.agents._callable import resolve_agent
from reliability_lab.agents._confidence import CONFIDENCE_QUESTION, parse_confidence
from reliability_lab.agents._context import (
    AgentContext,
    AgentFailure,
    AgentOutput,
    InjectedLLMFault,
)
from reliability_lab.agents._records import RunResult, RunSpec
from reliability_lab.envs import Episode
from reliability_lab.envs._sources import ensure_environment
from reliability_lab.llm import LLMCallError, LLMClient
from reliability_lab.perturbations import build_perturbation
from reliability_lab.runs import is_simulated_model

__all__ = ["execute_run", "format_agent_exception"]

#: Frames of the agent's traceback kept in a run's ``error``.
TRACEBACK_FRAMES = 3


def format_agent_exception(exc: BaseException) -> str:
    """``agent: <Type>: <message>`` plus the last frames of its traceback (the run's error)."""
    frames = traceback.extract_tb(exc.__traceback__)[-TRACEBACK_FRAMES:]
    lines = [f"  File {f.filename!r}, line {f.lineno}, in {f.name}: {f.line or ''}" for f in frames]
    head = f"agent: {type(exc).__name__}: {exc}"
    return "\n".join([head, "Traceback (last frames):", *lines]) if lines else head


async def _invoke(agent: Callable[..., Any], ctx: AgentContext) -> Any:
    """Call ``agent(ctx)``: awaited if async, else on a worker thread (so ``ctx.llm.complete``
    can wait for the event loop); a returned awaitable is awaited."""
    call = getattr(agent, "__call__", None)  # noqa: B004 (an object with async __call__)
    if inspect.iscoroutinefunction(agent) or inspect.iscoroutinefunction(call):
        result = await agent(ctx)
    else:
        result = await asyncio.to_thread(agent, ctx)
    if inspect.isawaitable(result):
        result = await result
    return result


def _answer_of(result: Any) -> tuple[str | None, float | None, dict[str, Any] | None]:
    """``(answer, confidence, metadata)`` of what ``solve`` returned; TypeError otherwise."""
    if isinstance(result, AgentOutput):
        if result.answer is not None and not isinstance(result.answer, str):
            raise TypeError(f"AgentOutput.answer must be a str or None, got {result.answer!r:.80}")
        metadata = json.loads(json.dumps(dict(result.metadata), default=repr))
        return result.answer, result.confidence, metadata or None
    if isinstance(result, str) or result is None:
        return result, None, None
    raise TypeError(f"solve(ctx) returned {type(result).__name__}; expected str or AgentOutput")


async def _elicit(
    spec: RunSpec, llm: LLMClient, ctx: AgentContext
) -> tuple[float, str, str | None, str | None]:
    """``(confidence, source, raw reply, error)``; ``error`` is ``<category>: <cause>`` when
    the question itself failed (the run's outcome stands: it is not an infrastructure error)."""
    if not spec.elicit_confidence or not spec.model:
        return math.nan, "none", None, None
    ask = [*ctx.transcript, {"role": "user", "content": CONFIDENCE_QUESTION}]
    tools = [t.schema() for t in ctx.tools]
    try:
        completion = await llm.acompletion(
            model=spec.model,
            messages=ask,
            tools=tools or None,
            cache_key_extra=spec.identity + "|confidence",
            **{"seed": spec.seed, **spec.params},
        )
    except LLMCallError as exc:
        return math.nan, "fallback", None, f"{exc.category}: {exc}"
    ctx.meter.add(completion)
    raw = completion.message.get("content")
    value = parse_confidence(raw)
    return value, ("fallback" if math.isnan(value) else "elicited"), raw, None


def _own_confidence(value: float | None) -> tuple[float, str, str | None, str | None] | None:
    """The agent's own confidence as ``(confidence, source, raw, error)``; None if not given."""
    if value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if not 0.0 <= number <= 1.0:
        return math.nan, "fallback", repr(value), f"agent: confidence {value!r} is not in [0, 1]"
    return number, "agent", None, None


async def _judge(
    episode: Episode, final: str | None, trajectory: list[dict[str, Any]], llm: LLMClient
) -> tuple[float, list[dict[str, Any]], str | None]:
    try:
        score = float(await episode.ascore(final, llm))
        violations = episode.violations(final, trajectory)
    except Exception as exc:  # a broken checker is a harness failure, not an agent failure
        return math.nan, [], f"infrastructure: checker: {type(exc).__name__}: {exc}"
    if not 0.0 <= score <= 1.0:
        return math.nan, [], f"infrastructure: checker: score {score!r} outside [0, 1]"
    return score, violations, None


async def _solve(
    agent: Callable[..., Any], ctx: AgentContext
) -> tuple[str | None, float | None, dict[str, Any] | None, str | None]:
    """Run the agent; ``(answer, own confidence, metadata, error)``. Never raises but for
    harness bugs: the agent's exceptions are its failure, an escaping LLMCallError is an
    infrastructure error."""
    try:
        answer, confidence, metadata = _answer_of(await _invoke(agent, ctx))
    except LLMCallError as exc:
        return None, None, None, f"infrastructure: {exc.category}: {exc}"
    except InjectedLLMFault as exc:  # an injected fault of the agent's own call: its failure
        return None, None, None, f"agent: injected fault: {exc}"
    except AgentFailure as exc:
        return None, None, None, f"agent: {exc}"
    except Exception as exc:  # the agent's own code failed: this run's failure
        return None, None, None, format_agent_exception(exc)
    return answer, confidence, metadata, None


async def execute_run(spec: RunSpec, llm: LLMClient) -> RunResult:
    """Run one agent on one task and record everything the run table needs.

    The agent is ``spec.agent_entry`` (a user's ``solve(ctx)``, docs/your_agent.md) or, when
    empty, the built-in tool loop (:func:`~reliability_lab.agents._builtin.tool_loop`); both
    run on the same :class:`~reliability_lab.agents.AgentContext`, which applies the run's
    condition (:func:`~reliability_lab.perturbations.build_perturbation`): it may reword the
    instruction, change the tool schemas and results the agent sees, fail tool calls, or fail
    the agent's own LLM calls — such an injected fault ends the run with
    ``error="agent: injected fault: ..."``, the agent's failure. Its record is ``perturbation``.

    An exception of the agent's own code is the run's failure (``error="agent: <Type>:
    <message>"`` and the last traceback frames); an :class:`LLMCallError` escaping the agent
    gives ``success=False``, ``score=NaN`` and ``error="infrastructure: <category>: <cause>"``.
    Otherwise the answer is scored and, unless the agent reported its own confidence
    (``confidence_source="agent"``), the model is asked the confidence question over the
    recorded transcript (:func:`parse_confidence`); a failed or unparseable reply gives NaN with
    ``confidence_source="fallback"`` (and the cause in ``confidence_error``). The question is
    never perturbed. Calls an agent makes outside ``ctx.llm`` are not counted: a user agent
    that made no ``ctx.llm`` call has ``cost_usd`` NaN ("not recorded"), never 0.

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
    # the registered environment, or the one built from the run's factory / task set
    env = ensure_environment(spec.environment, spec.environment_source, spec.import_root)
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
    ctx = AgentContext(spec, episode, perturbation, llm)
    ctx.llm.bind_loop(asyncio.get_running_loop())
    agent = resolve_agent(spec.agent_entry, spec.import_root) if spec.agent_entry else tool_loop
    answer, own, metadata, error = await _solve(agent, ctx)
    untracked = bool(spec.agent_entry) and ctx.llm_calls == 0
    score: float = math.nan
    violations: list[dict[str, Any]] = []
    confidence, source, raw, confidence_error = math.nan, "none", None, None
    if error is None or error.startswith("agent:"):
        ctx.finish(answer)
        score, violations, checker_error = await _judge(episode, answer, ctx.transcript, llm)
        reported = _own_confidence(own) if error is None else None
        confidence, source, raw, confidence_error = reported or await _elicit(spec, llm, ctx)
        error = checker_error or error
    meter = ctx.meter
    success = error is None and score >= spec.pass_threshold
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
        actions=ctx.actions,
        cost_usd=math.nan if untracked else meter.cost,
        wall_time_s=time.perf_counter() - start,
        api_calls=len(meter.latencies),
        num_actions=len(ctx.actions),
        num_errors=ctx.errors,
        call_latency_s=(
            sum(meter.latencies) / len(meter.latencies) if meter.latencies else math.nan
        ),
        violations=violations,
        error=error,
        seed=spec.seed,
        model=spec.model,
        environment=spec.environment,
        simulated=is_simulated_model(spec.model),
        prompt_tokens=meter.prompt_tokens,
        completion_tokens=meter.completion_tokens,
        final_answer=answer,
        confidence_raw=raw,
        confidence_error=confidence_error,
        trajectory=ctx.transcript,
        perturbation=perturbation.record(),
        agent_metadata=metadata,
    )
