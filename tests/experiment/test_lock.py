"""One writer per results directory: a second process exits 2 at once, naming the holder."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from reliability_lab.cli import main
from reliability_lab.results.lock import LOCK_FILE, DirectoryLock, DirectoryLockedError
from tests.experiment.helpers import TINY, fake_model_config, result_lines, run_keys
from tests.fake_openai_server import FakeOpenAIServer

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes and signals")
ROOT = Path(__file__).resolve().parents[2]


def test_second_writer_exits_2_naming_the_holder(
    tmp_path: Path, write_config: Callable, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    cfg = write_config(TINY)
    with DirectoryLock(out, command="reliability-lab run other.yaml"):
        assert main(["run", str(cfg), "--output", str(out), "--quiet"]) == 2
        err = capsys.readouterr().err
    assert f"{out}: in use by pid {os.getpid()} on host {socket.gethostname()}" in err
    assert "(reliability-lab run other.yaml)" in err and "Traceback" not in err
    assert not (out / "results.jsonl").exists() and not (out / "header.json").exists()
    # released: the same command now runs
    assert main(["run", str(cfg), "--output", str(out), "--quiet"]) == 0
    assert json.loads((out / LOCK_FILE).read_text() or "{}") == {}  # holder details cleared


def test_lock_is_exclusive_within_one_process_too(tmp_path: Path) -> None:
    with DirectoryLock(tmp_path, command="first"):
        with pytest.raises(DirectoryLockedError, match=r"in use by pid .*\(first\)"):
            DirectoryLock(tmp_path, command="second").acquire()
    DirectoryLock(tmp_path).acquire()  # free again (released by the context manager)


def test_a_killed_holder_leaves_no_stale_lock(tmp_path: Path) -> None:
    code = (
        "import sys, time\n"
        "from reliability_lab.results.lock import DirectoryLock\n"
        f"DirectoryLock({str(tmp_path)!r}, command='holder').acquire()\n"
        "print('locked', flush=True)\n"
        "time.sleep(600)\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "locked\n"
        with pytest.raises(DirectoryLockedError, match=rf"pid {proc.pid} .*\(holder\)"):
            DirectoryLock(tmp_path).acquire()
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    with DirectoryLock(tmp_path, command="next"):  # the OS released it with the process
        assert json.loads((tmp_path / LOCK_FILE).read_text())["command"] == "next"


def test_two_runs_started_together_execute_every_run_once(
    tmp_path: Path, write_config: Callable
) -> None:
    """The issue's scenario: a second `run` while the first is mid-flight."""
    with FakeOpenAIServer() as server:
        cfg = write_config(
            fake_model_config(
                "twice",
                server.base_url,
                runs=2,
                max_concurrent=2,
                environment={"limit": 3},
                sessions={"enabled": False},
                report={"n_boot": 20},
            )
        )
        out = tmp_path / "out"
        env = {**os.environ, "OPENAI_API_KEY": "sk-test-lock-0000000000"}
        server.pause()  # the first process's requests wait: it is provably mid-run
        first = subprocess.Popen(
            [sys.executable, "-m", "reliability_lab", "run", str(cfg), "--output", str(out)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        try:
            server.wait_for_held(2)
            # the second process must give up at once (the bound only keeps a broken lock
            # from hanging the test: it would wait on the paused server forever)
            second = subprocess.run(
                [sys.executable, "-m", "reliability_lab", "run", str(cfg), "--output", str(out)],
                env=env,
                capture_output=True,
                text=True,
                cwd=ROOT,
                timeout=600,
            )
            assert second.returncode == 2, second.stderr
            err = second.stderr
            assert f"in use by pid {first.pid} on host {socket.gethostname()}" in err
            assert f"run {cfg} --output {out})" in err and "Traceback" not in err
            server.resume()
            _, stderr = first.communicate(timeout=300)
        finally:
            if first.poll() is None:
                first.kill()
    assert first.returncode == 0, stderr
    keys = run_keys(result_lines(out))
    assert len(keys) == len(set(keys)) == 2 * 3
