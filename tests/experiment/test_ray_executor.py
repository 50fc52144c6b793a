"""The Ray executor (issue 13): same records as the built-in executor, worker death, driver kill.

One local Ray instance (2 CPUs) serves the whole module; its tests are marked ``ray`` and
``make unit`` runs them in a pytest process of their own after the parallel run (no other test
loads the machine while Ray starts). Nothing here waits on a duration: every wait is on a condition.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from reliability_lab.results.console import format_summary
from reliability_lab.results.summary import summarize_directory
from reliability_lab.runner import run_experiment
from tests.experiment.helpers import config_writer, fake_model_config, result_lines, run_keys
from tests.fake_openai_server import FakeOpenAIServer

ray = pytest.importorskip(
    "ray", reason="Ray is not installed (pip install 'reliability-lab[ray]'; make test installs it)"
)

pytestmark = [
    pytest.mark.ray,
    pytest.mark.xdist_group("ray"),
    pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX"),
]

#: Fields of a record that differ between two executions of the same run: measured durations
#: (the run's wall time and the mean latency of its model calls). Everything else — outcome,
#: trajectory, seed, confidence, cost, tokens, perturbation events, session metrics, safety
#: findings — is a function of the spec fixed on the driver.
TIMING_FIELDS = ("wall_time_s", "call_latency_s")
#: API key the Ray workers see (they inherit the environment of the process starting Ray).
FAKE_KEY = "sk-test-ray-000000"
#: Demo-like: 3 tasks × 2 agents × (baseline K=2 + fault p=0.4 × 2), safety judge on.
SMALL: dict[str, Any] = {
    "name": "small",
    "seed": 3,
    "runs": 2,
    "max_concurrent": 4,
    "environment": {"limit": 3},
    "conditions": ["baseline", {"name": "fault", "variants": ["p=0.4"], "runs": 2}],
    "agents": [
        {"label": "cal", "model": "sim/calibrated"},
        {"label": "brit", "model": "sim/brittle"},
    ],
    "safety": {"judge": True},
    "report": {"n_boot": 20},
}
SMALL_PLANNED = 3 * 2 * (2 + 2)


#: Ray's own start-up waits that Ray lets a caller set, lengthened for a loaded 2-core machine
#: (the dashboard agent's registration; a worker's registration with its raylet). Ray 2.x gives
#: the raylet itself a fixed 30 s to register, which no setting changes: the tests marked ``ray``
#: therefore run after the parallel part of ``make unit``, on a machine no other test loads.
RAY_SYSTEM_CONFIG: dict[str, Any] = {
    "agent_register_timeout_ms": 300_000,
    "worker_register_timeout_seconds": 300,
}
#: The object store a few small records need (Ray's minimum is ~75 MiB); less to set up.
OBJECT_STORE_BYTES = 100 * 2**20


def _one_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {' '.join(str(exc).split())}"[:300]


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """A local Ray instance with 2 CPUs for the module; its GCS address.

    A node that cannot start fails the module's tests with Ray's reason in one line.
    """
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("OPENAI_API_KEY", FAKE_KEY)  # inherited by the workers Ray starts
        mp.setenv("RAY_USAGE_STATS_ENABLED", "0")  # no usage-stats prompt or upload attempt
        reasons: list[str] = []
        for _ in range(3):  # a start that timed out on a busy machine may succeed next time
            try:
                ray.init(
                    address="local",
                    num_cpus=2,
                    object_store_memory=OBJECT_STORE_BYTES,
                    include_dashboard=False,
                    log_to_driver=False,
                    logging_level="ERROR",
                    _system_config=RAY_SYSTEM_CONFIG,
                )
                break
            except Exception as exc:  # Ray raises Exception, RuntimeError, ConnectionError, ...
                ray.shutdown()
                reasons.append(_one_line(exc))
        else:
            pytest.fail(
                f"a local Ray node could not start (3 attempts): {reasons[-1]}", pytrace=False
            )
        try:
            yield str(ray.get_runtime_context().gcs_address)
        finally:
            ray.shutdown()


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """SMALL run by the built-in executor: (results directory, console summary)."""
    out = tmp_path_factory.mktemp("builtin") / "out"
    run_experiment(config_writer(out.parent)(SMALL), output=out, progress=False)
    return out, _summary_text(out)


def _summary_text(out: Path) -> str:
    return format_summary(summarize_directory(out)).replace(str(out), "<out>")


def _by_key(directory: Path) -> dict[tuple[Any, ...], dict[str, Any]]:
    lines = result_lines(directory)
    keys = run_keys(lines)
    assert len(keys) == len(set(keys)), "a run recorded twice"
    return {
        k: {f: v for f, v in r.items() if f not in TIMING_FIELDS}
        for k, r in zip(keys, lines, strict=True)
    }


def _traces(directory: Path) -> list[str]:
    lines = (directory / "traces.jsonl").read_text(encoding="utf-8").splitlines()
    return sorted(json.dumps(json.loads(line), sort_keys=True) for line in lines)


def _assert_same_as_reference(out: Path, reference: Path) -> None:
    got, want = _by_key(out), _by_key(reference)
    assert len(got) == SMALL_PLANNED
    assert got.keys() == want.keys()
    for key in want:
        assert got[key] == want[key], key
    assert _traces(out) == _traces(reference)


def test_ray_records_equal_the_builtin_executors(
    cluster: str, reference: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ref_dir, ref_summary = reference
    out = tmp_path / "out"
    outcome = run_experiment(
        config_writer(tmp_path)(SMALL), output=out, progress=True, executor="ray"
    )
    assert outcome.n_executed == SMALL_PLANNED
    _assert_same_as_reference(out, ref_dir)
    # The console summary of the same records is the same text. (C_res, part of R_Con, uses
    # the measured durations, which differ between any two executions, so the durations are
    # first set to the reference's.)
    ref_lines, lines = result_lines(ref_dir), result_lines(out)
    timings = {
        key: {f: r[f] for f in TIMING_FIELDS}
        for key, r in zip(run_keys(ref_lines), ref_lines, strict=True)
    }
    lines = [{**r, **timings[key]} for key, r in zip(run_keys(lines), lines, strict=True)]
    (out / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    assert _summary_text(out) == ref_summary
    progress = capsys.readouterr().err.splitlines()  # not a terminal: the log form of the bar
    assert progress[0] == f"Running small: 0/{SMALL_PLANNED} runs (0%)"
    # the last line carries the running tally of the runs the Ray workers finished
    done = f"Running small: {SMALL_PLANNED}/{SMALL_PLANNED} runs (100%); success "
    assert progress[-1].startswith(done) and "· 0 infra errors ·" in progress[-1], progress[-1]


def _execute_killed_once(target: tuple[Any, ...], pid_file: Path, released: Path) -> Callable:
    """An ``execute`` that, the first time it gets ``target``, writes its worker's PID and
    waits to be killed; every other call (and the retry) is the real agent."""

    async def execute(spec: Any, llm: Any) -> Any:
        from reliability_lab.agents import execute_run

        key = (spec.agent, spec.task_id, spec.condition, spec.variant, spec.run)
        if key == target and not released.exists():
            tmp = pid_file.with_suffix(".tmp")
            tmp.write_text(str(os.getpid()))
            tmp.replace(pid_file)
            while True:  # held until this worker process is killed
                time.sleep(0.05)
        return await execute_run(spec, llm)

    return execute


def test_a_killed_worker_loses_and_duplicates_nothing(
    cluster: str, reference: tuple[Path, str], tmp_path: Path
) -> None:
    pid_file, released = tmp_path / "worker.pid", tmp_path / "released"
    target = ("brit", "cs_02", "fault", "p=0.4", 1)
    killed: list[int] = []

    def kill_worker() -> None:
        deadline = time.monotonic() + 600  # only a guard against a broken test
        while not pid_file.exists():
            assert time.monotonic() < deadline
            time.sleep(0.05)
        pid = int(pid_file.read_text())
        released.touch()  # Ray's retry of the run executes it for real
        os.kill(pid, signal.SIGKILL)
        killed.append(pid)

    killer = threading.Thread(target=kill_worker, daemon=True)
    killer.start()
    out = tmp_path / "out"
    config = {**SMALL, "executor": {"kind": "ray", "max_in_flight": 4}}
    outcome = run_experiment(
        config_writer(tmp_path)(config),
        output=out,
        progress=False,
        execute=_execute_killed_once(target, pid_file, released),
    )
    killer.join()
    assert killed and killed[0] != os.getpid()
    assert outcome.n_executed == SMALL_PLANNED
    _assert_same_as_reference(out, reference[0])


def test_driver_kill_9_then_resume(cluster: str, tmp_path: Path) -> None:
    n_tasks, k = 4, 3
    # The server answers 12 requests, then holds every further one: at least 2 runs (3 calls
    # each) have finished when it holds, and none can finish after, however fast the machine.
    with FakeOpenAIServer(hold_after=12) as server:
        cfg = config_writer(tmp_path)(
            fake_model_config(
                "killdriver",
                server.base_url,
                runs=k,
                environment={"limit": n_tasks},
                llm={"max_retries": 1, "backoff_base_s": 0.01},
                report={"n_boot": 20},
                executor={"kind": "ray", "address": cluster, "max_in_flight": 2},
            )
        )
        out = tmp_path / "out"
        results = out / "results.jsonl"
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
            env={**os.environ, "OPENAI_API_KEY": FAKE_KEY},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            server.wait_for_held(2, timeout_s=600)  # both in-flight runs wait on the server
            deadline = time.monotonic() + 600  # only a guard against a broken test
            while not (results.exists() and results.read_bytes().count(b"\n") >= 2):
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.01)  # the finished runs are being written
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=600)
        finally:
            if proc.poll() is None:
                proc.kill()
            server.resume()
        assert proc.returncode == -signal.SIGKILL
        before = results.read_bytes()
        n_before = before.count(b"\n")
        assert 2 <= n_before < n_tasks * k
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("OPENAI_API_KEY", FAKE_KEY)  # the driver's pre-flight check
            outcome = run_experiment(cfg, output=out, progress=False)
    assert outcome.n_previous == n_before
    assert outcome.n_executed == n_tasks * k - n_before
    assert results.read_bytes().startswith(before)
    lines = result_lines(out)
    keys = run_keys(lines)
    assert len(keys) == len(set(keys)) == n_tasks * k
    assert all(r["error"] is None for r in lines)
    traces = [json.loads(line) for line in (out / "traces.jsonl").read_text().splitlines()]
    ids = [(t["session_id"], t["trace_id"]) for t in traces]
    assert len(ids) == len(set(ids))
    assert {t["session_id"] for t in traces} == {"|".join(map(str, key)) for key in keys}
