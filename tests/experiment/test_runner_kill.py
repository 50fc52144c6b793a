"""kill -9 in the middle of an experiment loses no finished run and duplicates none."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from reliability_lab.experiment import load_results, run_experiment
from tests.experiment.helpers import config_writer, result_lines, run_keys
from tests.fake_openai_server import FakeOpenAIServer

N_TASKS, K = 6, 5


@pytest.fixture
def write_config(tmp_path: Path) -> Callable[..., Path]:
    return config_writer(tmp_path)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_sigkill_then_resume_runs_every_run_exactly_once(
    tmp_path: Path, write_config: Callable, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeOpenAIServer(latency_s=0.04) as server:
        cfg = write_config(
            {
                "name": "killme",
                "runs": K,
                "max_concurrent": 2,
                "environment": {"limit": N_TASKS},
                "agents": [
                    {
                        "label": "a",
                        "model": "openai/fake-model",
                        "params": {"api_base": server.base_url},
                    },
                ],
                "llm": {"max_retries": 1, "backoff_base_s": 0.01, "timeout_s": 5},
                "report": {"n_boot": 20},
            }
        )
        out = tmp_path / "out"
        results = out / "results.jsonl"
        env = {**os.environ, "OPENAI_API_KEY": "sk-test-kill-000000"}
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "reliability_lab.cli",
                "run",
                str(cfg),
                "--output",
                str(out),
                "--quiet",
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                if results.exists() and results.read_bytes().count(b"\n") >= 5:
                    break
                assert proc.poll() is None, "the run finished before it could be killed"
                time.sleep(0.005)
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=10)
        finally:
            if proc.poll() is None:
                proc.kill()
        assert proc.returncode == -signal.SIGKILL
        before = results.read_bytes()
        complete = before[: before.rfind(b"\n") + 1]
        n_before = complete.count(b"\n")
        assert 5 <= n_before < N_TASKS * K
        # as if the kill had landed in the middle of writing a line
        with results.open("ab") as fh:
            fh.write(b'{"schema_version": 1, "agent": "a", "task_id": "cs_0')
        monkeypatch.setenv("OPENAI_API_KEY", env["OPENAI_API_KEY"])  # the resume needs it too
        with pytest.warns(UserWarning, match="incomplete last line"):
            outcome = run_experiment(cfg, output=out, progress=False)
    assert outcome.n_previous == n_before
    assert outcome.n_executed == N_TASKS * K - n_before
    after = results.read_bytes()
    assert after.startswith(complete)  # nothing finished before the kill was rewritten
    keys = run_keys(result_lines(out))
    assert len(keys) == len(set(keys)) == N_TASKS * K
    runs = load_results(out)
    assert sorted(runs["run"].unique()) == list(range(K))
    assert runs.groupby("task_id").size().eq(K).all()
    # traces: exactly the recorded runs' sessions, no trace twice (a run killed after its
    # traces were written but before its result line was executed again)
    traces = [json.loads(line) for line in (out / "traces.jsonl").read_text().splitlines()]
    ids = [(t["session_id"], t["trace_id"]) for t in traces]
    assert len(ids) == len(set(ids))
    with_steps = {
        "|".join(str(r[k]) for k in ("agent", "task_id", "condition", "variant", "run"))
        for r in result_lines(out)
        if any(m["role"] == "assistant" for m in r["trajectory"])
    }
    assert all(r["error"] is None for r in result_lines(out))
    assert {t["session_id"] for t in traces} == with_steps == {"|".join(map(str, k)) for k in keys}


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT delivery is POSIX")
def test_ctrl_c_exits_130_with_resume_hint(tmp_path: Path, write_config: Callable) -> None:
    cfg = write_config(
        {
            "name": "interrupt",
            "runs": 10,
            "max_concurrent": 2,
            "agents": [{"label": "a", "model": "sim/calibrated"}],
        }
    )
    out = tmp_path / "out"
    results = out / "results.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "reliability_lab.cli", "run", str(cfg), "--output", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not (results.exists() and results.stat().st_size > 0):
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.005)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    assert "interrupted; finished runs are saved" in stderr and "Traceback" not in stderr
    assert stdout == ""
    keys = run_keys(result_lines(out))
    assert 0 < len(keys) == len(set(keys)) < 240
