"""A rerun executes runs recorded as infrastructure errors again; agent failures never."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reliability_lab.cli import main
from reliability_lab.results import load_results
from reliability_lab.results.audit import AUDIT_FILE, read_audit
from reliability_lab.runner import run_experiment
from tests.experiment.helpers import config_writer, result_lines, run_keys
from tests.fake_openai_server import FakeOpenAIServer

N_TASKS, K = 3, 2


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-retry-0000000000")


def _config(base_url: str) -> dict[str, Any]:
    return {
        "name": "retry",
        "runs": K,
        "max_concurrent": 4,
        "environment": {"limit": N_TASKS},
        "agents": [
            {"label": "net", "model": "openai/fake-model", "params": {"api_base": base_url}},
            # one step is too few for these tasks: every run is an agent failure
            {"label": "short", "model": "sim/calibrated", "max_steps": 1},
        ],
        "llm": {"max_retries": 0},
        "sessions": {"enabled": False},
        "report": {"n_boot": 20},
    }


def _first_run_fails_on_the_network(
    server: FakeOpenAIServer, tmp_path: Path
) -> tuple[Path, Path, list[dict[str, Any]]]:
    cfg = config_writer(tmp_path)(_config(server.base_url))
    out = tmp_path / "out"
    server.script = [("status", 503)]  # the provider is down for the first run
    first = run_experiment(cfg, output=out, progress=False)
    assert first.n_executed == 2 * N_TASKS * K
    records = result_lines(out)
    net = [r for r in records if r["agent"] == "net"]
    short = [r for r in records if r["agent"] == "short"]
    assert all(r["error"].startswith("infrastructure: server:") for r in net)
    assert all(r["error"].startswith("agent: reached max_steps=1") for r in short)
    server.script = []  # the provider is back
    return cfg, out, records


def test_rerun_retries_infrastructure_failures_only(
    server: FakeOpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg, out, before = _first_run_fails_on_the_network(server, tmp_path)
    raw_before = {
        tuple(r[k] for k in ("agent", "task_id", "run")): line
        for r, line in zip(before, (out / "results.jsonl").read_text().splitlines(), strict=True)
    }
    assert main(["run", str(cfg), "--output", str(out)]) == 0
    stdout = capsys.readouterr().out
    n_net = N_TASKS * K
    assert (
        f"Resumed: {n_net} of {2 * n_net} runs were already done; retried {n_net} "
        f"infrastructure failure(s); executed {n_net}." in stdout
    )
    after = result_lines(out)
    keys = run_keys(after)
    assert len(keys) == len(set(keys)) == 2 * n_net  # every run once
    assert all(r["error"] is None for r in after if r["agent"] == "net")
    # agent failures were not executed again: their lines are byte for byte the same
    lines = (out / "results.jsonl").read_text().splitlines()
    for record, line in zip(after, lines, strict=True):
        if record["agent"] == "short":
            assert line == raw_before[(record["agent"], record["task_id"], record["run"])]
    # the old records are kept in the audit file, with why and when, not in the run table
    audit = read_audit(out)
    assert sorted(json.dumps(a["record"], sort_keys=True) for a in audit) == sorted(
        json.dumps(r, sort_keys=True) for r in before if r["agent"] == "net"
    )
    assert {a["reason"] for a in audit} == {"infrastructure error; run executed again"}
    assert all(a["moved_at"].endswith("Z") for a in audit)
    runs = load_results(out)
    assert len(runs) == 2 * n_net and runs["error"].str.startswith("infrastructure").sum() == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["audit"] == {"infrastructure error; run executed again": n_net}
    # traces: exactly one copy per recorded run (the failed attempts' traces are gone)
    traces = [json.loads(x) for x in (out / "traces.jsonl").read_text().splitlines()]
    ids = [(t["session_id"], t["trace_id"]) for t in traces]
    assert len(ids) == len(set(ids))
    assert {t["session_id"] for t in traces} <= {"|".join(map(str, k)) for k in keys}


def test_no_retry_infra_keeps_the_records(
    server: FakeOpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg, out, _ = _first_run_fails_on_the_network(server, tmp_path)
    before = (out / "results.jsonl").read_bytes()
    n_requests = len(server.requests)
    assert main(["run", str(cfg), "--output", str(out), "--no-retry-infra"]) == 0
    assert "executed 0" in capsys.readouterr().out
    assert (out / "results.jsonl").read_bytes() == before
    assert len(server.requests) == n_requests and not (out / AUDIT_FILE).exists()


def test_python_api_retry_switch(server: FakeOpenAIServer, tmp_path: Path) -> None:
    cfg, out, _ = _first_run_fails_on_the_network(server, tmp_path)
    kept = run_experiment(cfg, output=out, progress=False, retry_infra=False)
    assert (kept.n_retried, kept.n_executed) == (0, 0)
    retried = run_experiment(cfg, output=out, progress=False)
    assert (retried.n_retried, retried.n_executed) == (N_TASKS * K, N_TASKS * K)
    again = run_experiment(cfg, output=out, progress=False)  # nothing left to retry
    assert (again.n_retried, again.n_executed) == (0, 0)


def test_move_is_crash_safe_at_every_step(
    server: FakeOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A crash after the audit append but before results.jsonl is replaced: nothing lost,
    nothing duplicated, and the next resume finishes the move without a second audit copy."""
    import reliability_lab.results.audit as audit_mod

    cfg, out, before = _first_run_fails_on_the_network(server, tmp_path)
    original = (out / "results.jsonl").read_bytes()

    def crash(path: Path, lines: list[bytes]) -> None:
        raise KeyboardInterrupt  # as if killed between the two writes

    monkeypatch.setattr(audit_mod, "replace_lines", crash)
    with pytest.raises(KeyboardInterrupt):
        run_experiment(cfg, output=out, progress=False)
    assert (out / "results.jsonl").read_bytes() == original  # nothing lost
    assert len(read_audit(out)) == N_TASKS * K
    monkeypatch.undo()
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-retry-0000000000")
    outcome = run_experiment(cfg, output=out, progress=False)
    assert outcome.n_retried == outcome.n_executed == N_TASKS * K
    assert len(read_audit(out)) == N_TASKS * K  # not written twice
    keys = run_keys(result_lines(out))
    assert len(keys) == len(set(keys)) == len(before)
