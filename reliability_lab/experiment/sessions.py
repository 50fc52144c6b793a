"""Each experiment run as a PandaProbe session: its traces and its two session metrics.

After a run finishes, :class:`SessionRecorder` turns its trajectory into traces (one per agent
step, a TOOL span per tool call; :func:`~reliability_lab.tracing.traces_from_trajectory`) and,
when the config's ``sessions`` block is enabled, evaluates them with
:func:`~reliability_lab.session.aevaluate_session` through the runner's shared ``LLMClient``
(judge calls use its retries and on-disk cache). The scores go on the run's record
(:class:`~reliability_lab.agents._records.SessionScores`); the traces go to ``traces.jsonl``.

Strictness: if any signal of a session failed (judge or embedding call), both of the run's
session scores are NaN and ``error`` lists the failures; a partial score never enters the
report.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from reliability_lab.agents._records import SessionScores
from reliability_lab.experiment.config import SessionSettings
from reliability_lab.runtable import INFRASTRUCTURE_PREFIX
from reliability_lab.tracing import Trace, traces_from_trajectory

if TYPE_CHECKING:
    from reliability_lab.embeddings import Embedder
    from reliability_lab.judges import CachingLLM
    from reliability_lab.llm import LLMClient

__all__ = ["SessionRecorder", "session_id_of", "trace_records"]

_KEY_FIELDS = ("agent", "task_id", "condition", "variant", "run")
_MAX_LISTED_FAILURES = 3


def session_id_of(record: Mapping[str, Any]) -> str:
    """Session id of a run: ``agent|task_id|condition|variant|run`` (stable across resumes).

    Examples
    --------
    >>> session_id_of({"agent": "a", "task_id": "t1", "condition": "baseline", "variant": "",
    ...                "run": 2})
    'a|t1|baseline||2'
    """
    return "|".join(str(record.get(k, "")) for k in _KEY_FIELDS)


def trace_records(traces: Sequence[Trace]) -> list[dict[str, Any]]:
    """Traces as PandaProbe-style JSON objects (what ``traces.jsonl`` holds, one per line).

    The id is written under PandaProbe's name ``trace_id``; fields that are None are left out.
    :func:`reliability_lab.tracing.load_traces` reads them back.
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


class SessionRecorder:
    """Builds a run's traces and (optionally) its session metrics.

    Parameters
    ----------
    settings : SessionSettings
        The config's ``sessions`` block.
    llm : LLMClient
        The runner's shared client (judge calls go through its retries and disk cache).
    tools : mapping of environment name to tool schemas
        Tool schemas offered to the agent, stored in every trace's
        ``metadata["available_tools"]`` for the tool judges.
    """

    def __init__(
        self,
        settings: SessionSettings,
        llm: LLMClient,
        tools: Mapping[str, Sequence[Mapping[str, Any]]],
    ) -> None:
        self.settings = settings
        self._tools = tools
        self._llm = llm
        self._judge_llm: CachingLLM | None = None
        self._embed: Embedder | None = None

    def traces(self, record: Mapping[str, Any]) -> list[Trace]:
        """The traces of a run record (a ``results.jsonl`` line): one per agent step.

        Session id :func:`session_id_of`; every trace's ``metadata["run"]`` holds the run's
        identity, seed and model.
        """
        sid = session_id_of(record)
        run_meta = {k: record.get(k) for k in (*_KEY_FIELDS, "seed", "model")}
        traces = traces_from_trajectory(
            record.get("trajectory") or [],
            session_id=sid,
            tools=self._tools.get(str(record.get("environment", ""))),
            model=record.get("model"),
        )
        return [t.model_copy(update={"metadata": {**t.metadata, "run": run_meta}}) for t in traces]

    def _clients(self) -> tuple[CachingLLM, Embedder]:
        if self._judge_llm is None or self._embed is None:
            from reliability_lab.embeddings import LiteLLMEmbedder, default_embedder
            from reliability_lab.judges import CachingLLM

            self._judge_llm = CachingLLM(self._llm)
            name = self.settings.embedder
            self._embed = (
                default_embedder() if name == "hashing" else LiteLLMEmbedder(name, llm=self._llm)
            )
        return self._judge_llm, self._embed

    def not_scored(self, error: str | None, *, n_traces: int) -> SessionScores:
        """Scores of a session that is not evaluated (NaN) with ``error`` saying why."""
        return SessionScores(
            error=error,
            n_traces=n_traces,
            judge_model=self.settings.judge_model,
            embedder=self.settings.embedder,
        )

    async def evaluate(self, run_error: str | None, traces: Sequence[Trace]) -> SessionScores:
        """Session metrics of one run's traces; failures are recorded in ``error``, never raised.

        Runs that ended in an infrastructure error (``run_error``) and runs without any agent
        step are not evaluated: NaN scores with the reason in ``error``.
        """
        settings = self.settings
        base = self.not_scored(None, n_traces=len(traces))
        if run_error is not None and run_error.startswith(INFRASTRUCTURE_PREFIX):
            return base.model_copy(update={"error": f"not evaluated: run failed ({run_error})"})
        if not traces:
            return base.model_copy(update={"error": "not evaluated: the run has no agent step"})
        from reliability_lab.session import aevaluate_session

        judge, embed = self._clients()
        try:
            ev = await aevaluate_session(
                traces,
                judge_model=settings.judge_model,
                embed=embed,
                signal_weights=settings.signal_weights,
                llm=judge,
                judge_params=settings.judge_params,
            )
        except Exception as exc:  # e.g. a malformed trajectory: reported, never scored
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
            }
        )
