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

from reliability_lab.results import load_results
from reliability_lab.runner import run_experiment
from tests.experiment.helpers import fake_model_config, result_lines, run_keys
from tests.fake_openai_server import FakeOpenAIServer

N_TASKS, K = 6, 5


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_sigkill_then_resume_runs_every_run_exactly_once(
    tmp_path: Path, write_config: Callable, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The server answers 18 requests, then holds every further one: the experiment is
    # provably mid-run when it is killed, however fast or slow the machine (each run of
    # fake-model makes 3 calls; with 2 at a time at least 4 runs finish their calls).
    with FakeOpenAIServer(hold_after=18) as server:
        cfg = write_config(
            fake_model_config(
                "killme",
                server.base_url,
                runs=K,
                max_concurrent=2,
                environment={"limit": N_TASKS},
                llm={"max_retries": 1, "backoff_base_s": 0.01},
                report={"n_boot": 20},
            )
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
            server.wait_for_held(2)  # both slots wait on the server: no run can finish now
            deadline = time.monotonic() + 600  # only a guard against a broken test
            while not (results.exists() and results.read_bytes().count(b"\n") >= 4):
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.01)  # the last finished runs are being written
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=600)
        finally:
            if proc.poll() is None:
                proc.kill()
            server.resume()
        assert proc.returncode == -signal.SIGKILL
        before = results.read_bytes()
        complete = before[: before.rfind(b"\n") + 1]
        n_before = complete.count(b"\n")
        assert 4 <= n_before < N_TASKS * K
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


#: The CLI with Ctrl-C at Python's default: a job a non-interactive shell starts in the
#: background inherits SIGINT *ignored* (POSIX), and so would this test's child, which would
#: then rightly not react to Ctrl-C at all.
_CLI_WITH_CTRL_C = (
    "import runpy, signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "runpy.run_module('reliability_lab.cli', run_name='__main__')"
)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT delivery is POSIX")
def test_ctrl_c_exits_130_with_resume_hint(tmp_path: Path, write_config: Callable) -> None:
    with FakeOpenAIServer(hold_after=9) as server:  # then every request waits: mid-run
        cfg = write_config(
            fake_model_config("interrupt", server.base_url, runs=10, max_concurrent=2)
        )
        out = tmp_path / "out"
        proc = subprocess.Popen(
            [sys.executable, "-c", _CLI_WITH_CTRL_C, "run", str(cfg), "--output", str(out)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "OPENAI_API_KEY": "sk-test-interrupt-000000"},
        )
        try:
            server.wait_for_held(2)
            proc.send_signal(signal.SIGINT)
            stdout, stderr = proc.communicate(timeout=180)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == 130, stderr
    assert "interrupted; finished runs are saved" in stderr and "Traceback" not in stderr
    assert stdout == ""
    keys = run_keys(result_lines(out))
    assert len(keys) == len(set(keys)) < 240
