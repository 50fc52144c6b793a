"""Runs as PandaProbe sessions: traces.jsonl, per-run session metrics, report columns, resume."""

from __future__ import annotations

import asyncio
import json
import math
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from reliability_lab.errors import ConfigError
from reliability_lab.experiment.config import parse_config
from reliability_lab.llm import LLMCallError, LLMClient
from reliability_lab.results import format_summary, load_results
from reliability_lab.runner import run_experiment
from reliability_lab.sessions import SessionScorer, evaluate_session
from reliability_lab.sessions.tracing import SpanKind, group_sessions, load_traces
from tests.experiment.helpers import config_writer, result_lines, sim_config
from tests.fake_openai_server import FakeOpenAIServer

BASE = sim_config("sess", ("cal", "over"), limit=3, n_boot=200, sessions=True)
N_PLANNED = 2 * 3 * 2
SESSION_COLS = ["agent_reliability", "agent_consistency", "session_error"]


def _sid(rec: dict[str, Any]) -> str:
    return f"{rec['agent']}|{rec['task_id']}|{rec['condition']}|{rec['variant']}|{rec['run']}"


def _trace_lines(out: Path) -> list[dict[str, Any]]:
    text = (out / "traces.jsonl").read_text(encoding="utf-8")
    assert text.endswith("\n")
    return [json.loads(line) for line in text.splitlines()]


@pytest.fixture(scope="module")
def sim_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Any]]:
    tmp = tmp_path_factory.mktemp("sessions")
    cfg = config_writer(tmp)(
        {
            **BASE,
            "gates": [
                "agent_reliability >= 0.0",
                {"metric": "agent_consistency_hi", "op": "<=", "value": 1.0},
                {"metric": "agent_reliability", "op": ">", "value": 1.0, "agent": "cal"},
            ],
        }
    )
    outcome = run_experiment(cfg, output=tmp / "out", progress=False)
    yield tmp / "out", outcome


def test_traces_jsonl_one_trace_per_agent_step_with_tool_spans(sim_run: tuple[Path, Any]) -> None:
    out, _ = sim_run
    records = result_lines(out)
    lines = _trace_lines(out)
    assert all("trace_id" in line and "session_id" in line for line in lines)
    traces = load_traces(out / "traces.jsonl")  # the importer reads the file back
    assert [t.id for t in traces] == [line["trace_id"] for line in lines]
    sessions = group_sessions(traces)
    assert set(sessions) == {_sid(r) for r in records}  # each run is one session
    for rec in records:
        trajectory = rec["trajectory"]
        assistants = [m for m in trajectory if m["role"] == "assistant"]
        session = sessions[_sid(rec)]
        assert len(session) == len(assistants) >= 1  # one trace per agent step
        tool_results = {m["tool_call_id"]: m["content"] for m in trajectory if m["role"] == "tool"}
        for trace, msg in zip(session, assistants, strict=True):
            calls = msg.get("tool_calls") or []
            tools = trace.tool_spans()
            assert [s.name for s in tools] == [c["function"]["name"] for c in calls]
            for span, call in zip(tools, calls, strict=True):
                assert span.kind is SpanKind.TOOL
                assert span.input == json.loads(call["function"]["arguments"])
                assert span.output == tool_results[call["id"]]
            if not calls:
                assert trace.output == msg["content"]
            assert trace.metadata["run"]["seed"] == rec["seed"]
            assert {t["name"] for t in trace.metadata["available_tools"]} >= set(rec["actions"])
        # the tool spans of a session are exactly the run's actions, in order
        assert [s.name for t in session for s in t.tool_spans()] == rec["actions"]


def test_session_metrics_are_run_columns_and_report_columns_with_cis(
    sim_run: tuple[Path, Any],
) -> None:
    out, outcome = sim_run
    runs = load_results(out)
    # appended together, in order (task metadata such as difficulty may follow them)
    start = list(runs.columns).index(SESSION_COLS[0])
    assert list(runs.columns[start : start + 3]) == SESSION_COLS
    assert runs["session_error"].isna().all()
    for col in SESSION_COLS[:2]:
        assert runs[col].between(0.0, 1.0).all()
    # scores stored with each run = a fresh evaluation of its traces read back from disk
    sessions = group_sessions(load_traces(out / "traces.jsonl"))
    for rec in result_lines(out)[:4]:
        ev = evaluate_session(sessions[_sid(rec)], llm=LLMClient())
        assert ev.agent_reliability is not None and ev.agent_consistency is not None
        assert rec["session"]["agent_reliability"] == ev.agent_reliability.score
        assert rec["session"]["agent_consistency"] == ev.agent_consistency.score
        assert rec["session"]["n_traces"] == len(sessions[_sid(rec)])
    # report: per-task mean over runs, then mean over tasks (computed here with pandas)
    report = outcome.summary.report
    summary = json.loads((out / "summary.json").read_text())
    for agent, group in runs.groupby("agent"):
        for col in SESSION_COLS[:2]:
            expected = group.groupby("task_id")[col].mean().mean()
            assert report.loc[agent, col] == pytest.approx(expected)
            lo, hi = report.loc[agent, f"{col}_lo"], report.loc[agent, f"{col}_hi"]
            assert lo <= expected + 1e-12 and expected - 1e-12 <= hi
            assert summary["reliability"]["agents"][agent][col] == pytest.approx(expected)
            assert summary["reliability"]["agents"][agent][f"{col}_lo"] == pytest.approx(lo)
    info = summary["sessions"]
    assert info["enabled"] and info["simulated_judge"] and info["offline_embedder"]
    assert (info["n_scored"], info["n_session_errors"]) == (N_PLANNED, 0)
    # gates may name the session metrics
    states = [(g.gate, g.agent, g.passed) for g in outcome.summary.gates]
    assert all(p for gate, _, p in states if gate != "agent_reliability > 1")
    assert [(a, p) for gate, a, p in states if gate == "agent_reliability > 1"] == [("cal", False)]
    text = format_summary(outcome.summary)
    assert "agent_reliability" in text and "agent_consistency" in text
    assert "offline SIMULATED judge" in text and "embedder 'hashing'" in text
    row = next(
        line
        for line in text.splitlines()
        if line.strip().startswith("cal ") and "[" in line and line.count("[") == 2
    )
    rel = report.loc["cal", "agent_reliability"]
    assert f"{rel:.2f} [{report.loc['cal', 'agent_reliability_lo']:.2f}," in row


def test_failing_judge_is_a_session_error_not_a_score(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-judge-0000000000")
    with FakeOpenAIServer(latency_s=0.0) as server:
        cfg = config_writer(tmp_path)(
            {
                **BASE,
                "runs": 1,
                "agents": [BASE["agents"][0]],
                "sessions": {
                    "judge_model": "openai/always-500",
                    "judge_params": {"api_base": server.base_url},
                },
                "llm": {"max_retries": 1, "backoff_base_s": 0.01, "backoff_max_s": 0.02},
            }
        )
        outcome = run_experiment(cfg, output=tmp_path / "out", progress=False)
    runs = load_results(tmp_path / "out")
    assert len(runs) == 3 and runs["error"].isna().all()  # the runs themselves count
    assert outcome.summary.metrics["total_attempted"] == 3
    assert np.isfinite(outcome.summary.report["accuracy"].to_numpy(dtype=float)).all()
    assert runs["agent_reliability"].isna().all() and runs["agent_consistency"].isna().all()
    for error in runs["session_error"]:
        assert "signal(s) failed" in error and "LLMCallError(server)" in error
    for rec in result_lines(tmp_path / "out"):
        assert rec["session"]["n_failed_signals"] == 2 * rec["session"]["n_traces"]
    assert np.isnan(outcome.summary.report["agent_reliability"].to_numpy(dtype=float)).all()
    text = format_summary(outcome.summary)
    assert "SIMULATED judge" not in text  # a real (here: failing) judge
    assert "Session scoring: judge openai/always-500; embedder 'hashing' is the offline" in text
    assert "n/a" in text.split("Session metrics")[1]
    assert "sk-test-judge" not in "".join(p.read_text() for p in (tmp_path / "out").glob("*.j*"))


class _FailingToolJudge:
    """Delegates to a real client but fails tool_correctness's first stage on every trace."""

    def __init__(self) -> None:
        self.inner = LLMClient()

    async def acompletion(self, **kwargs: Any) -> Any:
        schema = (kwargs.get("response_format") or {}).get("json_schema", {}).get("name")
        if schema == "ToolSelectionContext":  # tool_correctness stage "extract"
            raise LLMCallError("timeout", "scripted judge timeout")
        return await self.inner.acompletion(**kwargs)


def test_partly_failed_signals_give_nan_scores_with_causes(sim_run: tuple[Path, Any]) -> None:
    out, _ = sim_run
    rec = result_lines(out)[0]
    scorer = SessionScorer(llm=_FailingToolJudge())  # type: ignore[arg-type]
    traces = scorer.traces(rec)
    scores = asyncio.run(scorer.score(rec, traces))
    assert math.isnan(scores.agent_reliability) and math.isnan(scores.agent_consistency)
    assert scores.n_failed_signals == len(traces)  # one tool_correctness per trace
    assert scores.error is not None and "tool_correctness at trace" in scores.error
    assert "scripted judge timeout" in scores.error
    infra = asyncio.run(scorer.score({**rec, "error": "infrastructure: server: down"}, traces))
    assert infra.error == "not evaluated: run failed (infrastructure: server: down)"
    assert math.isnan(infra.agent_reliability)


def test_resume_keeps_exactly_one_copy_of_each_recorded_runs_traces(
    tmp_path: Path, sim_run: tuple[Path, Any]
) -> None:
    cfg = config_writer(tmp_path)(BASE)
    out = tmp_path / "out"
    run_experiment(cfg, output=out, progress=False)
    full = Counter(json.dumps(t, sort_keys=True) for t in _trace_lines(out))
    lines = (out / "results.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    # a kill after the traces of the last 5 runs were written but before their results lines,
    # in the middle of writing one more trace line
    (out / "results.jsonl").write_text("".join(lines[:7]), encoding="utf-8")
    with (out / "traces.jsonl").open("a", encoding="utf-8") as fh:
        fh.write('{"trace_id": "cal|cs_0')
    with pytest.warns(UserWarning, match="removed .* line"):
        outcome = run_experiment(cfg, output=out, progress=False)
    assert outcome.n_executed == 5
    after = _trace_lines(out)
    ids = [(t["session_id"], t["trace_id"]) for t in after]
    assert len(ids) == len(set(ids))  # no duplicates
    assert {t["session_id"] for t in after} == {_sid(r) for r in result_lines(out)}
    assert Counter(json.dumps(t, sort_keys=True) for t in after) == full  # nothing lost
    # traces.jsonl deleted: a resume rebuilds it from results.jsonl
    (out / "traces.jsonl").unlink()
    assert run_experiment(cfg, output=out, progress=False).n_executed == 0
    assert Counter(json.dumps(t, sort_keys=True) for t in _trace_lines(out)) == full


@pytest.mark.parametrize(
    ("sessions", "match"),
    [
        ({"signal_weights": {"bogus": 1.0}}, r"sessions\.signal_weights: unknown signal 'bogus'"),
        ({"signal_weights": {"coherence": -1}}, r"sessions\.signal_weights: .*coherence.*>= 0"),
        ({"judge_model": ""}, r"sessions\.judge_model"),
        ({"embeder": "hashing"}, r"sessions\.embeder: Extra inputs are not permitted"),
        ({"judge_params": {"api_key": "x"}}, r"sessions\.judge_params: .*looks like a secret"),
        ({"enabled": "maybe"}, r"sessions\.enabled"),
    ],
)
def test_sessions_block_is_validated(sessions: dict[str, Any], match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        parse_config({**BASE, "sessions": sessions}, source="x.yaml")


def test_session_gates_need_sessions_and_settings_changes_refuse_resume(
    tmp_path: Path, sim_run: tuple[Path, Any]
) -> None:
    with pytest.raises(ConfigError, match=r"gates\[0\]\.metric: 'agent_reliability_lo' needs"):
        parse_config(
            {**BASE, "sessions": {"enabled": False}, "gates": ["agent_reliability_lo >= 0.1"]},
            source="x.yaml",
        )
    ok = parse_config({**BASE, "sessions": {"embedder": "openai/text-embedding-3-small"}})
    assert ok.sessions.embedder == "openai/text-embedding-3-small" and ok.sessions.enabled
    out, _ = sim_run
    write = config_writer(tmp_path)
    for change, field in [
        ({"judge_model": "sim/other"}, "sessions.judge_model"),
        ({"enabled": False}, "sessions.enabled"),
        ({"signal_weights": {"coherence": 0.5}}, "sessions.signal_weights"),
    ]:
        cfg = write({**BASE, "sessions": change})
        with pytest.raises(ConfigError, match=rf"refusing to resume.*{field}"):
            run_experiment(cfg, output=out, progress=False)


def test_sessions_disabled_gives_no_session_columns(tmp_path: Path) -> None:
    cfg = config_writer(tmp_path)({**BASE, "runs": 1, "sessions": {"enabled": False}})
    outcome = run_experiment(cfg, output=tmp_path / "out", progress=False)
    runs = load_results(tmp_path / "out")
    assert not set(SESSION_COLS) & set(runs.columns)
    assert not any(c.startswith("agent_") for c in outcome.summary.report.columns)
    assert all(r["session"] is None for r in result_lines(tmp_path / "out"))
    assert outcome.summary.content["sessions"] == {"enabled": False}
    assert "Session metrics" not in format_summary(outcome.summary)
    assert len(_trace_lines(tmp_path / "out")) >= len(runs)  # traces are still written
    assert np.isfinite(outcome.summary.report["accuracy"].to_numpy(dtype=float)).all()
