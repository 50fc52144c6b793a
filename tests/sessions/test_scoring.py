"""One per-run scorer: the runner and session_metrics_for_results agree on every run."""

from __future__ import annotations

import asyncio
import math
from typing import Any

from reliability_lab.sessions import SessionScorer, session_metrics_for_results
from reliability_lab.sessions.embeddings import HashingEmbedder
from tests.sessions.fakes import ScriptedLLM
from tests.sessions.test_evaluate import _record, responder


class _FailingToolJudge(ScriptedLLM):
    """The scripted judge, except every tool_correctness call fails like a provider timeout."""

    async def acompletion(self, **kwargs: Any) -> Any:  # type: ignore[override]
        if kwargs["response_format"]["json_schema"]["name"] == "ToolSelectionContext":
            from reliability_lab.llm import LLMCallError

            raise LLMCallError("timeout", "scripted judge timeout")
        return await super().acompletion(**kwargs)


def test_a_failed_judge_call_gives_nan_with_its_cause_not_a_partial_score() -> None:
    # Before the scorers were unified, this public function returned a partial
    # agent_reliability (0.2978) with no error while the runner reported NaN with the cause.
    df = session_metrics_for_results(
        [_record(0)], llm=_FailingToolJudge(responder=responder), embed=HashingEmbedder()
    )
    row = df.iloc[0]
    assert math.isnan(row["agent_reliability"]) and math.isnan(row["agent_consistency"])
    assert "tool_correctness at trace" in row["session_error"]
    assert "scripted judge timeout" in row["session_error"]
    assert row["n_failed_signals"] == row["n_traces"] == 2


def test_public_function_and_scorer_give_identical_scores() -> None:
    record = _record(0)
    llm = ScriptedLLM(responder=responder)
    scorer = SessionScorer(llm=llm, embedder=HashingEmbedder())
    direct = asyncio.run(scorer.score(record))
    table = session_metrics_for_results([record], llm=llm, embed=HashingEmbedder()).iloc[0]
    assert direct.error is None
    assert (table["agent_reliability"], table["agent_consistency"]) == (
        direct.agent_reliability,
        direct.agent_consistency,
    )


def test_scorer_reports_untraceable_and_infrastructure_runs() -> None:
    scorer = SessionScorer(llm=ScriptedLLM(responder=responder), embedder=HashingEmbedder())
    bad = asyncio.run(scorer.score({**_record(0), "trajectory": [{"role": 3}]}))
    assert bad.error is not None and bad.error.startswith("evaluation failed: cannot build traces")
    infra = asyncio.run(scorer.score(_record(0, error="infrastructure: server: down")))
    assert infra.error == "not evaluated: run failed (infrastructure: server: down)"
    empty = asyncio.run(scorer.score({**_record(0), "trajectory": []}))
    assert empty.error == "not evaluated: the run has no agent step"
    assert all(math.isnan(s.agent_reliability) for s in (bad, infra, empty))


def test_scores_keep_each_traces_risk_for_plotting() -> None:
    # The per-trace risks stored with a run are agent_reliability's: recomputed here from the
    # session's signal values as max over signals of weight · (1 − value).
    from reliability_lab.sessions import DEFAULT_SIGNAL_WEIGHTS, evaluate_session

    record = _record(0)
    llm = ScriptedLLM(responder=responder)
    scorer = SessionScorer(llm=llm, embedder=HashingEmbedder())
    scores = asyncio.run(scorer.score(record))
    evaluation = evaluate_session(scorer.traces(record), llm=llm, embed=HashingEmbedder())
    values = evaluation.signal_values()
    assert list(scores.trace_risks) == list(evaluation.trace_ids)
    for tid, signals in values.items():
        risks = [DEFAULT_SIGNAL_WEIGHTS[s] * (1 - float(v)) for s, v in signals.items()]  # type: ignore[arg-type]
        assert scores.trace_risks[tid]["step_risk"] == round(max(risks), 4)
        assert scores.trace_risks[tid]["confidence_risk"] == round(1 - values[tid]["confidence"], 4)  # type: ignore[operator]
    assert scores.flagged_traces == [
        t for t, r in scores.trace_risks.items() if r["step_risk"] > 0.5
    ]
    bad = asyncio.run(
        SessionScorer(llm=_FailingToolJudge(responder=responder), embedder=HashingEmbedder()).score(
            record
        )
    )
    assert bad.trace_risks == {} and bad.flagged_traces == []  # a failed session keeps none
