"""Each run as a PandaProbe session: its traces and its two session metrics.

:class:`SessionScorer` is the one per-run scorer. The experiment runner calls it after every run,
and :func:`session_metrics_for_results` calls it on records a user already has, so both give the
same numbers for the same run. It turns a run's trajectory into traces (one per agent step, a
TOOL span per tool call; :func:`~reliability_lab.sessions.tracing.traces_from_trajectory`) and
evaluates them with :func:`~reliability_lab.sessions.evaluate.aevaluate_session`.

Strictness: if any signal of a session failed (a judge or
embedding call), both of the run's session scores are NaN and ``error`` lists the failures; a
partial score never reaches a report. Runs that ended in an ``infrastructure:`` error and runs
without an agent step are not evaluated (NaN, with the reason). See docs/pandaprobe.md,
"Sessions in the experiment runner".
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import pandas as pd
from pydantic import BaseModel, ConfigDict, field_validator

from reliability_lab._sync import blocking
from reliability_lab.llm.judging import DEFAULT_JUDGE_MODEL
from reliability_lab.metrics.session import SESSION_METRICS, validate_signal_weights
from reliability_lab.runs import KEY_COLUMNS, is_infrastructure, session_id
from reliability_lab.sessions.tracing import Trace, traces_from_trajectory

if TYPE_CHECKING:
    from reliability_lab.sessions.embeddings import Embedder
    from reliability_lab.sessions.judges import CachingLLM, JudgeLLM

__all__ = [
    "HASHING_EMBEDDER",
    "SessionScorer",
    "SessionScores",
    "asession_metrics_for_results",
    "session_metrics_for_results",
    "trace_records",
]

#: Name of the offline lexical embedder in configs and result files.
HASHING_EMBEDDER = "hashing"
_MAX_LISTED_FAILURES = 3
Granularity = Literal["step", "user_turn"]


class SessionScores(BaseModel):
    """PandaProbe session metrics of one run (the run is one session).

    NaN-safe JSON like the run record it is stored on. Both scores are NaN whenever ``error`` is
    set: a failed judge or embedding call is a failed signal, reported here and never turned into
    a score.
    """

    model_config = ConfigDict(
        use_attribute_docstrings=True, ser_json_inf_nan="null", extra="forbid"
    )

    agent_reliability: float = math.nan
    """``agent_reliability`` score in [0, 1]; NaN when not computed (see ``error``)."""
    agent_consistency: float = math.nan
    """``agent_consistency`` score in [0, 1]; NaN when not computed (see ``error``)."""
    error: str | None = None
    """Why the scores are NaN (failed signals with their causes, or a run not evaluated)."""
    reasons: dict[str, str] = {}
    """The metrics' reasons, e.g. ``{"agent_reliability": "Elevated risk in 1 of 4 traces."}``."""
    n_traces: int = 0
    """Traces in the session (one per agent step)."""
    n_failed_signals: int = 0
    """Trace signals whose judge or embedding call failed."""
    judge_model: str = ""
    """litellm model string of the judge (``sim/judge`` = the offline simulated judge)."""
    embedder: str = ""
    """``hashing`` (offline lexical embedder) or a litellm embedding model string."""
    trace_risks: dict[str, dict[str, float]] = {}
    """agent_reliability's per-trace risks, trace id → {each present signal's unweighted risk
    ``confidence_risk``, ``loop_risk``, ``tool_risk``, ``coherence_risk`` (1 − x), and the
    weighted ``step_risk``}, in session order (its metadata ``per_trace_signals``); empty when
    not computed."""
    flagged_traces: list[str] = []
    """Trace ids whose ``step_risk`` exceeds 0.5 (agent_reliability's ``flagged_traces``)."""

    @field_validator(*SESSION_METRICS, mode="before")
    @classmethod
    def _none_is_nan(cls, value: Any) -> Any:
        return math.nan if value is None else value


def trace_records(traces: Sequence[Trace]) -> list[dict[str, Any]]:
    """Traces as PandaProbe-style JSON objects (what ``traces.jsonl`` holds, one per line).

    The id is written under PandaProbe's name ``trace_id``; fields that are None are left out.
    :func:`reliability_lab.sessions.tracing.load_traces` reads them back.
    """
    out = []
    for t in traces:
        data = t.model_dump(mode="json", exclude_none=True)
        out.append({"trace_id": data.pop("id"), **data})
    return out


def _failures(failed: Mapping[str, Mapping[str, str]]) -> str:
    items = [
        f"{sig} at trace {tid}: {cause}"
        for tid, sig_map in failed.items()
        for sig, cause in sig_map.items()
    ]
    shown = "; ".join(items[:_MAX_LISTED_FAILURES])
    more = len(items) - _MAX_LISTED_FAILURES
    return f"{len(items)} signal(s) failed: {shown}" + (f"; and {more} more" if more > 0 else "")


class SessionScorer:
    """Scores runs as PandaProbe sessions; one instance serves many runs.

    Judge calls go through one :class:`~reliability_lab.sessions.judges.CachingLLM` (identical
    requests are answered once) around ``llm``, so they share its retries and on-disk cache; each
    distinct text is embedded once per session.

    Parameters
    ----------
    judge_model : str, default "sim/judge"
        Any litellm model string; the default is the offline simulated judge.
    judge_params : mapping, optional
        Extra completion parameters for the judge (temperature, api_base, …).
    embedder : str or Embedder, default "hashing"
        ``"hashing"`` (the offline lexical embedder), a litellm embedding model string, or an
        embedder object.
    signal_weights : mapping, optional
        Overrides of the default signal weights (validated).
    llm : LLMClient or JudgeLLM, optional
        Client for judge and embedding calls; a default ``LLMClient()`` when omitted.
    granularity : {"step", "user_turn"}
        What a trace is (see :func:`~reliability_lab.sessions.tracing.traces_from_trajectory`).
    tools : mapping, optional
        Environment name → tool schemas offered to the agent, stored in every trace's
        ``metadata["available_tools"]`` for the tool judges.
    """

    def __init__(
        self,
        *,
        judge_model: str = DEFAULT_JUDGE_MODEL,
        judge_params: Mapping[str, Any] | None = None,
        embedder: str | Embedder = HASHING_EMBEDDER,
        signal_weights: Mapping[str, float] | None = None,
        llm: JudgeLLM | None = None,
        granularity: Granularity = "step",
        tools: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
    ) -> None:
        if not isinstance(judge_model, str) or not judge_model:
            raise ValueError(f"judge_model must be a non-empty model string, got {judge_model!r}")
        if granularity not in ("step", "user_turn"):
            raise ValueError(f"granularity must be 'step' or 'user_turn', got {granularity!r}")
        self.judge_model = judge_model
        self.judge_params = dict(judge_params or {})
        self.signal_weights = validate_signal_weights(signal_weights)
        self.granularity: Granularity = granularity
        self.embedder_name = embedder if isinstance(embedder, str) else repr(embedder)
        self._embedder_spec = embedder
        self._tools = dict(tools or {})
        self._llm = llm
        self._judge: CachingLLM | None = None
        self._embed: Embedder | None = None

    def traces(self, record: Mapping[str, Any]) -> list[Trace]:
        """The traces of a run record (a ``results.jsonl`` line or a ``RunResult`` dump).

        Session id :func:`~reliability_lab.runs.session_id`; every trace's
        ``metadata["run"]`` holds the run's identity, seed and model.

        Raises
        ------
        TypeError, ValueError
            The trajectory is not a list of OpenAI-format messages.
        """
        run_meta = {k: record.get(k) for k in (*KEY_COLUMNS, "seed", "model")}
        traces = traces_from_trajectory(
            record.get("trajectory") or [],
            session_id=session_id(record),
            granularity=self.granularity,
            tools=self._tools.get(str(record.get("environment", ""))),
            model=record.get("model"),
        )
        return [t.model_copy(update={"metadata": {**t.metadata, "run": run_meta}}) for t in traces]

    def not_scored(self, error: str | None, *, n_traces: int = 0) -> SessionScores:
        """Scores of a session that is not evaluated (NaN), with ``error`` saying why."""
        return SessionScores(
            error=error,
            n_traces=n_traces,
            judge_model=self.judge_model,
            embedder=self.embedder_name,
        )

    def _clients(self) -> tuple[CachingLLM, Embedder]:
        if self._judge is None or self._embed is None:
            from reliability_lab.sessions.embeddings import LiteLLMEmbedder, default_embedder
            from reliability_lab.sessions.judges import CachingLLM

            if self._llm is None:
                from reliability_lab.llm import LLMClient

                self._llm = LLMClient()
            llm = self._llm
            self._judge = llm if isinstance(llm, CachingLLM) else CachingLLM(llm)
            spec = self._embedder_spec
            if spec == HASHING_EMBEDDER:
                self._embed = default_embedder()
            elif isinstance(spec, str):
                self._embed = LiteLLMEmbedder(spec, llm=llm)  # type: ignore[arg-type]
            else:
                self._embed = spec
        return self._judge, self._embed

    async def score(
        self, record: Mapping[str, Any], traces: Sequence[Trace] | None = None
    ) -> SessionScores:
        """Session metrics of one run; failures are recorded in ``error``, never raised.

        Parameters
        ----------
        record : mapping
            The run record; its ``error`` decides whether the run is evaluated.
        traces : sequence of Trace, optional
            The run's traces when already built (``traces(record)`` otherwise).
        """
        run_error = record.get("error")
        if is_infrastructure(run_error):
            return self.not_scored(f"not evaluated: run failed ({run_error})")
        if traces is None:
            try:
                traces = self.traces(record)
            except (TypeError, ValueError) as exc:
                return self.not_scored(f"evaluation failed: cannot build traces: {exc}")
        base = self.not_scored(None, n_traces=len(traces))
        if not traces:
            return base.model_copy(update={"error": "not evaluated: the run has no agent step"})
        from reliability_lab.sessions.evaluate import aevaluate_session

        judge, embed = self._clients()
        try:
            ev = await aevaluate_session(
                traces,
                judge_model=self.judge_model,
                embed=embed,
                signal_weights=self.signal_weights,
                llm=judge,
                judge_params=self.judge_params,
            )
        except Exception as exc:  # e.g. a malformed trace: reported, never scored
            return base.model_copy(
                update={"error": f"evaluation failed: {type(exc).__name__}: {exc}"}
            )
        failed = ev.failed_signals
        rel, con = ev.agent_reliability, ev.agent_consistency
        reasons = {m.name: m.reason for m in (rel, con) if m is not None}
        n_failed = sum(len(v) for v in failed.values())
        if failed or rel is None or con is None:
            problems = [_failures(failed)] if failed else []
            problems += [f"{name}: {why}" for name, why in ev.errors.items()]
            return base.model_copy(
                update={
                    "error": "; ".join(problems),
                    "n_failed_signals": n_failed,
                    "reasons": reasons,
                }
            )
        return base.model_copy(
            update={
                "agent_reliability": rel.score,
                "agent_consistency": con.score,
                "reasons": reasons,
                "trace_risks": rel.metadata.get("per_trace_signals", {}),
                "flagged_traces": rel.metadata.get("flagged_traces", []),
            }
        )


_ROW_COLUMNS = (
    *KEY_COLUMNS,
    *SESSION_METRICS,
    "n_traces",
    "n_failed_signals",
    "session_error",
)


def _record_dict(record: Any, index: int) -> Mapping[str, Any]:
    if hasattr(record, "model_dump"):
        record = record.model_dump()
    if not isinstance(record, Mapping):
        raise TypeError(
            f"records[{index}] must be a dict or RunResult, got {type(record).__name__}"
        )
    missing = [k for k in (*KEY_COLUMNS, "trajectory") if k not in record]
    if missing:
        raise ValueError(f"records[{index}]: missing key(s) {', '.join(missing)}")
    return record


async def asession_metrics_for_results(
    records: Sequence[Any],
    *,
    judge_model: str = DEFAULT_JUDGE_MODEL,
    embed: str | Embedder = HASHING_EMBEDDER,
    llm: JudgeLLM | None = None,
    signal_weights: Mapping[str, float] | None = None,
    granularity: Granularity = "step",
    judge_params: Mapping[str, Any] | None = None,
) -> pd.DataFrame:
    """Session metrics for experiment runs: one row per run (each run is one session).

    ``session_metrics_for_results`` runs it to completion; inside a running event loop (a
    Jupyter cell) prefer ``await asession_metrics_for_results(...)``, so that every LLM call
    stays on that one loop.

    The same scorer as the experiment runner (:class:`SessionScorer`), so a run scores the same
    here as in its results directory: if any signal of a session failed, both scores are NaN and
    ``session_error`` gives the cause.

    Parameters
    ----------
    records : sequence of dict or RunResult
        Each with keys agent, task_id, condition, variant, run, trajectory (and optionally
        ``error``: runs whose error starts with ``"infrastructure:"`` are not evaluated).
    judge_model, embed, llm, signal_weights, judge_params
        As in :class:`SessionScorer`; one client, embedder and judge memo serve all runs.
    granularity : {"step", "user_turn"}
        What a trace is (see :func:`reliability_lab.sessions.tracing.traces_from_trajectory`).

    Returns
    -------
    pandas.DataFrame
        Columns agent, task_id, condition, variant, run, agent_reliability,
        agent_consistency, n_traces, n_failed_signals, session_error. A metric that could not
        be computed is NaN and ``session_error`` says why (None when both were computed).
    """
    rows_in = [_record_dict(r, i) for i, r in enumerate(records)]
    scorer = SessionScorer(
        judge_model=judge_model,
        judge_params=judge_params,
        embedder=embed,
        signal_weights=signal_weights,
        llm=llm,
        granularity=granularity,
    )
    scores = await asyncio.gather(*(scorer.score(r) for r in rows_in))
    rows = [
        {
            **{k: rec[k] for k in KEY_COLUMNS},
            "agent_reliability": s.agent_reliability,
            "agent_consistency": s.agent_consistency,
            "n_traces": s.n_traces,
            "n_failed_signals": s.n_failed_signals,
            "session_error": s.error,
        }
        for rec, s in zip(rows_in, scores, strict=True)
    ]
    return pd.DataFrame(rows, columns=list(_ROW_COLUMNS))


session_metrics_for_results = blocking(asession_metrics_for_results, "session_metrics_for_results")
