"""Evaluate whole sessions: per-trace signals (2 judges, 2 embedding signals) + session metrics."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from reliability_lab._sync import blocking
from reliability_lab.metrics.session import (
    SIGNAL_NAMES,
    SessionMetricError,
    SignalFailure,
    agent_consistency,
    agent_reliability,
    validate_signal_weights,
)
from reliability_lab.metrics.signals import MetricResult, coherence, loop_detection, text_of
from reliability_lab.sessions import judges
from reliability_lab.sessions.embeddings import Embedder, default_embedder
from reliability_lab.sessions.judges import DEFAULT_JUDGE_MODEL, CachingLLM, JudgeError, JudgeLLM
from reliability_lab.sessions.tracing import Trace

if TYPE_CHECKING:
    pass

__all__ = ["SessionEvaluation", "aevaluate_session", "evaluate_session"]


def _cause(exc: BaseException) -> str:
    category = getattr(exc, "category", None)
    name = type(exc).__name__ + (f"({category})" if category else "")
    return f"{name}: {exc}"


@dataclass(frozen=True)
class SessionEvaluation:
    """Signals and session metrics of one session.

    Attributes
    ----------
    session_id : str or None
        The traces' session id.
    trace_ids : tuple of str
        Trace ids in session order.
    trace_signals : dict
        ``trace_id -> {signal: MetricResult or SignalFailure}`` for the 4 signals.
    agent_reliability, agent_consistency : MetricResult or None
        The session metrics; ``None`` when the metric could not be computed (see ``errors``).
    errors : dict
        ``metric name -> cause`` for each session metric that failed (all its signals failed).
    """

    session_id: str | None
    trace_ids: tuple[str, ...]
    trace_signals: dict[str, dict[str, MetricResult | SignalFailure]]
    agent_reliability: MetricResult | None
    agent_consistency: MetricResult | None
    errors: dict[str, str] = field(default_factory=dict)

    def signal_values(self) -> dict[str, dict[str, float | SignalFailure]]:
        """``trace_id -> {signal: score or SignalFailure}``, the session metrics' input."""
        return {
            tid: {s: (r if isinstance(r, SignalFailure) else r.score) for s, r in sig.items()}
            for tid, sig in self.trace_signals.items()
        }

    @property
    def failed_signals(self) -> dict[str, dict[str, str]]:
        """``trace_id -> {signal: cause}`` for every signal that failed."""
        out: dict[str, dict[str, str]] = {}
        for tid, sig in self.trace_signals.items():
            for name, r in sig.items():
                if isinstance(r, SignalFailure):
                    out.setdefault(tid, {})[name] = r.cause
        return out


async def _embedding_lookup(
    embed: Embedder, traces: Sequence[Trace]
) -> Callable[[list[str]], list[Any]]:
    texts = list(
        dict.fromkeys(t for tr in traces for t in (text_of(tr.input), text_of(tr.output)) if t)
    )
    aembed = getattr(embed, "aembed", None)
    vectors = list(await aembed(texts) if aembed is not None else embed(texts)) if texts else []
    if len(vectors) != len(texts):
        raise ValueError(f"embedder returned {len(vectors)} vectors for {len(texts)} texts")
    table = dict(zip(texts, vectors, strict=True))
    return lambda batch: [table[t] for t in batch]


async def _judge_signal(
    coro: Awaitable[MetricResult], sem: asyncio.Semaphore, errors: tuple[type[BaseException], ...]
) -> MetricResult | SignalFailure:
    async with sem:
        try:
            return await coro
        except errors as exc:
            return SignalFailure(_cause(exc))


def _embedding_signals(
    traces: Sequence[Trace],
    lookup: Callable[[list[str]], list[Any]] | SignalFailure,
    threshold: float,
) -> list[dict[str, MetricResult | SignalFailure]]:
    out: list[dict[str, MetricResult | SignalFailure]] = []
    for i, trace in enumerate(traces):
        row: dict[str, MetricResult | SignalFailure] = {}
        for name in ("loop_detection", "coherence"):
            if isinstance(lookup, SignalFailure):
                row[name] = lookup
                continue
            try:
                if name == "coherence":
                    row[name] = coherence(
                        trace.input, trace.output, embed=lookup, threshold=threshold
                    )
                else:
                    previous = [t.output for t in traces[:i]]
                    row[name] = loop_detection(
                        trace.output, previous, embed=lookup, threshold=threshold
                    )
            except ValueError as exc:  # e.g. vectors of different lengths
                row[name] = SignalFailure(_cause(exc))
        out.append(row)
    return out


async def aevaluate_session(
    traces: Sequence[Trace],
    *,
    judge_model: str = DEFAULT_JUDGE_MODEL,
    embed: Embedder | None = None,
    signal_weights: Mapping[str, float] | None = None,
    llm: JudgeLLM | None = None,
    threshold: float = 0.5,
    judge_params: Mapping[str, Any] | None = None,
    max_concurrency: int = 8,
) -> SessionEvaluation:
    """Compute the 4 signals of every trace of one session and both session metrics.

    ``evaluate_session`` runs it to completion (also inside a running event loop);
    ``await aevaluate_session(...)`` keeps every LLM call on the caller's loop.

    Per trace (in session order): ``confidence`` and ``tool_correctness`` (LLM judges),
    ``coherence`` and ``loop_detection`` (embeddings; loop detection against all earlier traces
    of the session). A signal whose judge or embedding call fails becomes a
    :class:`~reliability_lab.sessions.SignalFailure` with its cause; the session metrics leave
    it out and report it. A metric whose signals all failed is ``None`` with its cause in
    ``errors``. Judge calls are memoised in memory (and by the client's disk cache if it has
    one); each distinct text is embedded once.

    Parameters
    ----------
    traces : sequence of Trace
        The session's traces, in order.
    judge_model : str, default "sim/judge"
        Any litellm model string; the default is the offline simulated judge.
    embed : Embedder, optional
        Defaults to the offline :class:`~reliability_lab.sessions.embeddings.HashingEmbedder`.
    signal_weights : mapping, optional
        Overrides of the default signal weights (validated).
    llm : LLMClient, optional
        Client for judge calls; a default ``LLMClient()`` when omitted.
    threshold : float, default 0.5
        Success threshold of the four trace signals.
    judge_params : mapping, optional
        Extra completion parameters for the judge (temperature, api_base, …).
    max_concurrency : int, default 8
        Maximum concurrent judge calls.
    """
    weights = validate_signal_weights(signal_weights)
    traces = list(traces)
    for i, t in enumerate(traces):
        if not isinstance(t, Trace):
            raise TypeError(f"traces[{i}] must be a reliability_lab.sessions.Trace, got {t!r:.80}")
    ids = [t.id for t in traces]
    if len(set(ids)) != len(ids):
        dup = next(x for x in ids if ids.count(x) > 1)
        raise ValueError(f"traces: trace id {dup!r} occurs more than once in the session")
    if llm is None:
        from reliability_lab.llm import LLMClient

        llm = LLMClient()
    client: JudgeLLM = llm if isinstance(llm, CachingLLM) else CachingLLM(llm)
    from reliability_lab.llm import LLMCallError  # lazy: importing litellm takes seconds

    errors = (JudgeError, LLMCallError)
    embed = default_embedder() if embed is None else embed
    lookup: Callable[[list[str]], list[Any]] | SignalFailure
    try:
        lookup = await _embedding_lookup(embed, traces)
    except Exception as exc:  # any embedder failure is reported per signal, never masked
        lookup = SignalFailure(_cause(exc))
    sem = asyncio.Semaphore(max_concurrency)
    params = dict(judge_params or {})
    calls = [
        _judge_signal(
            fn(t, llm=client, model=judge_model, threshold=threshold, **params), sem, errors
        )
        for t in traces
        for fn in (judges.confidence, judges.tool_correctness)
    ]
    judged = await asyncio.gather(*calls)
    embedded = _embedding_signals(traces, lookup, threshold)
    trace_signals: dict[str, dict[str, MetricResult | SignalFailure]] = {}
    for i, t in enumerate(traces):
        row = {"confidence": judged[2 * i], "tool_correctness": judged[2 * i + 1], **embedded[i]}
        trace_signals[t.id] = {s: row[s] for s in SIGNAL_NAMES}
    values = {
        tid: {s: (r if isinstance(r, SignalFailure) else r.score) for s, r in sig.items()}
        for tid, sig in trace_signals.items()
    }
    results: dict[str, MetricResult | None] = {}
    metric_errors: dict[str, str] = {}
    for name, metric in (
        ("agent_reliability", agent_reliability),
        ("agent_consistency", agent_consistency),
    ):
        try:
            results[name] = metric(values, signal_weights=weights)
        except SessionMetricError as exc:
            results[name] = None
            metric_errors[name] = str(exc)
    return SessionEvaluation(
        session_id=traces[0].session_id if traces else None,
        trace_ids=tuple(ids),
        trace_signals=trace_signals,
        agent_reliability=results["agent_reliability"],
        agent_consistency=results["agent_consistency"],
        errors=metric_errors,
    )


evaluate_session = blocking(aevaluate_session, "evaluate_session")
