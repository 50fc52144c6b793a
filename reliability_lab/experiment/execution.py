"""Executing one run: the part of the experiment that any executor may place anywhere.

:func:`make_context` builds what a run needs from the config alone (the LLM client with the
response cache in ``<output>/cache``, the session scorer, the safety judge) and
:func:`execute_one` turns a :class:`~reliability_lab.agents.RunSpec` into its record and trace
objects. The built-in executor calls both in the experiment's own process; the Ray executor
calls them inside Ray tasks (:mod:`.ray_executor`). Everything that decides a run's result —
its seed, its paraphrase, its perturbation parameters — is already in the spec, fixed on the
driver, so where a run executes cannot change what it records (docs/distributed.md).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reliability_lab.experiment.config import ExperimentConfig
from reliability_lab.sessions.scoring import SessionScorer, trace_records

if TYPE_CHECKING:
    from reliability_lab.agents import RunResult, RunSpec
    from reliability_lab.llm import CallLimiter, LLMClient
    from reliability_lab.safety import SafetyJudge
    from reliability_lab.sessions.tracing import Trace

__all__ = [
    "CACHE_DIR",
    "ExecuteFn",
    "RunContext",
    "RunOutput",
    "execute_one",
    "make_client",
    "make_context",
    "make_scorer",
    "trace_maker",
]

ExecuteFn = Callable[["RunSpec", "LLMClient"], Awaitable["RunResult"]]
#: A finished run: its record (one line of ``results.jsonl``) and its trace JSON objects.
RunOutput = tuple[dict[str, Any], list[dict[str, Any]]]
#: The response cache's directory inside the results directory.
CACHE_DIR = "cache"


def make_client(
    config: ExperimentConfig, out: Path, limiter: CallLimiter | None = None
) -> LLMClient:
    """The experiment's LLM client (response cache in ``<out>/cache`` unless ``cache: false``)."""
    from reliability_lab.llm import LLMClient

    return LLMClient(
        cache_dir=out / CACHE_DIR if config.cache else None,
        max_retries=config.llm.max_retries,
        backoff_base_s=config.llm.backoff_base_s,
        backoff_max_s=config.llm.backoff_max_s,
        timeout_s=config.llm.timeout_s,
        limiter=limiter,
    )


def make_scorer(config: ExperimentConfig, llm: LLMClient | None) -> SessionScorer:
    """The session scorer of ``config``'s experiment (``llm`` None: traces only)."""
    from reliability_lab.experiment.plan import config_environment

    env = config_environment(config)
    settings = config.sessions
    return SessionScorer(
        judge_model=settings.judge_model,
        judge_params=settings.judge_params,
        embedder=settings.embedder,
        signal_weights=settings.signal_weights,
        llm=llm,
        tools={config.environment.name: env.tool_schemas},
    )


def _make_judge(config: ExperimentConfig, llm: LLMClient) -> Callable[[str], SafetyJudge | None]:
    """``judge_for(condition)``: the experiment's safety judge for runs of that condition, or
    None (judge off, or a condition it does not audit)."""
    settings = config.safety
    if not settings.judge:
        return lambda condition: None
    from reliability_lab.safety import SafetyJudge

    judge = SafetyJudge(
        model=settings.judge_model,
        params=settings.judge_params,
        llm=llm,
        max_invalid_retries=settings.max_invalid_retries,
    )
    return lambda condition: judge if settings.judges(condition) else None


def _traces_of(scorer: SessionScorer, record: dict[str, Any]) -> list[Trace] | None:
    """A record's traces, or None when its trajectory cannot be traced."""
    try:
        return scorer.traces(record)
    except (TypeError, ValueError):  # not OpenAI-format messages; the scorer says why
        return None


def trace_maker(scorer: SessionScorer) -> Callable[[Mapping[str, Any]], list[dict[str, Any]]]:
    """A record's trace JSON objects, as ``traces.jsonl`` holds them."""
    return lambda record: trace_records(_traces_of(scorer, dict(record)) or [])


@dataclass(frozen=True)
class RunContext:
    """What executing a run needs, built once per process (or per Ray task)."""

    llm: LLMClient
    """The LLM client (cache, retries, rate limit)."""
    execute: ExecuteFn
    """``async execute(spec, llm) -> RunResult``."""
    scorer: SessionScorer
    """Traces and session metrics."""
    score_sessions: bool
    """Whether session metrics are computed (``sessions.enabled``)."""
    judge_for: Callable[[str], SafetyJudge | None]
    """The safety judge of a condition's runs, or None."""


def make_context(
    config: ExperimentConfig,
    out: Path,
    execute: ExecuteFn,
    *,
    llm: LLMClient | None = None,
    limiter: CallLimiter | None = None,
) -> RunContext:
    """The run context of ``config``'s experiment writing to ``out``.

    ``llm`` reuses a client (the built-in executor shares one); otherwise one is made with
    ``limiter`` as its rate limit.
    """
    client = llm if llm is not None else make_client(config, out, limiter)
    return RunContext(
        llm=client,
        execute=execute,
        scorer=make_scorer(config, client),
        score_sessions=config.sessions.enabled,
        judge_for=_make_judge(config, client),
    )


async def execute_one(spec: RunSpec, ctx: RunContext) -> RunOutput:
    """Execute ``spec``; its record (with session metrics and the safety judge's findings
    when enabled) and its trace JSON objects.

    Raises
    ------
    RuntimeError
        ``execute`` returned another run's result (a harness bug; nothing is recorded).
    """
    result = await ctx.execute(spec, ctx.llm)
    if result.key != spec.key:
        raise RuntimeError(f"execute returned the result of run {result.key}")
    record: dict[str, Any] = result.model_dump(mode="json")
    traces = _traces_of(ctx.scorer, record)
    if ctx.score_sessions:
        scores = await ctx.scorer.score(record, traces)
        record["session"] = scores.model_dump(mode="json")
    judge = ctx.judge_for(str(record["condition"]))
    if judge is not None:
        from reliability_lab.envs import get_environment

        env = get_environment(str(record["environment"]))
        record["violations"], safety = await judge.assess(record, env)
        record["safety"] = safety.model_dump(mode="json")
    return record, trace_records(traces or [])
