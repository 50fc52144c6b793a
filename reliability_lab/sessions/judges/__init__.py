"""PandaProbe's seven LLM-judge trace metrics (docs/pandaprobe.md, "Judges").

Each judge runs PandaProbe's staged design: every stage is one structured-output call through
``LLMClient.acompletion(..., response_format={"type": "json_schema", ...})``, validated with a
pydantic schema (score fields must lie in [0, 1]) and asked again on invalid JSON
(``max_invalid_retries``, default 2) before a :class:`JudgeError` is raised. Every stage's
validated output is kept in ``metadata["stages"]``. ``success = score >= threshold`` (default
0.5; 0 is honoured). Any litellm model string can judge; the default ``"sim/judge"`` is the
offline simulated model, whose scores are a simulation and say nothing about the agent.

Judges are coroutines: ``await task_completion(trace, llm=client)``; :func:`run_judge` is the
synchronous entry point by name.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from reliability_lab.llm.judging import (
    DEFAULT_JUDGE_MODEL,
    CachingLLM,
    JudgeError,
    JudgeLLM,
    check_threshold,
)
from reliability_lab.metrics.signals import MetricResult
from reliability_lab.sessions.judges._metrics import (
    argument_correctness,
    confidence,
    plan_adherence,
    plan_quality,
    step_efficiency,
    task_completion,
    tool_correctness,
)
from reliability_lab.sessions.tracing import Trace

__all__ = [
    "DEFAULT_JUDGE_MODEL",
    "JUDGES",
    "CachingLLM",
    "JudgeError",
    "JudgeLLM",
    "argument_correctness",
    "check_threshold",
    "confidence",
    "plan_adherence",
    "plan_quality",
    "run_judge",
    "step_efficiency",
    "task_completion",
    "tool_correctness",
]

JudgeFn = Callable[..., Coroutine[Any, Any, MetricResult]]

#: Registry: judge name -> coroutine function ``(trace, *, llm, model, threshold, ...)``.
JUDGES: dict[str, JudgeFn] = {
    "task_completion": task_completion,
    "tool_correctness": tool_correctness,
    "argument_correctness": argument_correctness,
    "step_efficiency": step_efficiency,
    "confidence": confidence,
    "plan_adherence": plan_adherence,
    "plan_quality": plan_quality,
}


def run_judge(
    name: str,
    trace: Trace,
    *,
    llm: JudgeLLM | None = None,
    model: str = DEFAULT_JUDGE_MODEL,
    threshold: float = 0.5,
    **params: Any,
) -> MetricResult:
    """Run the judge ``name`` on one trace synchronously (works inside Jupyter too).

    ``llm`` defaults to a new ``reliability_lab.llm.LLMClient()``; ``params`` go to the judge
    (``max_invalid_retries``) and on to every completion call (``temperature``, ``api_base``…).
    """
    if name not in JUDGES:
        raise ValueError(f"unknown judge {name!r}; valid judges are {', '.join(JUDGES)}")
    from reliability_lab._sync import run_sync

    if llm is None:
        from reliability_lab.llm import LLMClient

        llm = LLMClient()
    return run_sync(JUDGES[name](trace, llm=llm, model=model, threshold=threshold, **params))
