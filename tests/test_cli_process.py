"""The command as a process: --version, python -m, SIGTERM, broken pipes, warnings, CI logs."""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import reliability_lab
from reliability_lab.cli import main
from reliability_lab.results.lock import DirectoryLock
from reliability_lab.runner.progress import LineProgress
from tests.experiment.helpers import (
    TINY_PLANNED,
    config_writer,
    fake_model_config,
    result_lines,
    run_keys,
)
from tests.fake_openai_server import FakeOpenAIServer

ROOT = Path(__file__).resolve().parents[1]
posix = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and pipes")


def _cli(*argv: str, **kw: Any) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "reliability_lab", *argv],
        cwd=ROOT,
        text=True,
        **{"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, **kw},
    )


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out == f"reliability-lab {reliability_lab.__version__}\n"


def test_python_dash_m(finished: tuple[Path, Path]) -> None:
    proc = _cli("report", str(finished[1]), "--quiet")
    stdout, stderr = proc.communicate(timeout=300)
    assert (proc.returncode, stdout) == (0, "✓ PASSED\n"), stderr


@posix
def test_report_into_a_closed_pipe_prints_no_error(finished: tuple[Path, Path]) -> None:
    """`reliability-lab report DIR | head`: the reader is gone before the report is printed."""
    read, write = os.pipe()
    os.close(read)  # no reader at all: the first write fails, whatever the machine's speed
    proc = _cli("report", str(finished[1]), stdout=write)
    os.close(write)
    _, stderr = proc.communicate(timeout=300)
    assert stderr == ""  # no BrokenPipeError, no "Exception ignored" at exit
    assert proc.returncode == 141


def test_warnings_print_as_one_line(finished: tuple[Path, Path], tmp_path: Path) -> None:
    cfg, src = finished
    out = tmp_path / "out"
    shutil.copytree(src, out)
    with (out / "results.jsonl").open("ab") as fh:  # a line cut short by a kill
        fh.write(b'{"schema_version": 1, "agent": "cal", "task_')
    proc = _cli("run", str(cfg), "--output", str(out), "--quiet")
    _, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stderr
    lines = stderr.splitlines()
    assert lines == [
        f"reliability-lab: warning: {out / 'results.jsonl'}: removed an incomplete last line "
        f"(line {TINY_PLANNED + 1}) left by an interrupted run; that run will be executed again"
    ]


def test_progress_in_a_log_is_lines_not_carriage_returns(
    finished: tuple[Path, Path], tmp_path: Path
) -> None:
    cfg, _ = finished
    proc = _cli("run", str(cfg), "--output", str(tmp_path / "out"))  # stderr is a pipe
    _, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stderr
    assert "\r" not in stderr
    assert stderr.splitlines()[0] == "Running tiny: 0/8 runs (0%)"
    last = stderr.splitlines()[-1]
    assert last.startswith("Running tiny: 8/8 runs (100%); success ")
    assert "0 infra errors · $" in last and "(simulated price)" in last and "ETA" not in last


def test_line_progress_prints_at_the_interval_only() -> None:
    now = [0.0]
    out = io.StringIO()
    bar = LineProgress(total=4, desc="x", file=out, interval_s=10.0, clock=lambda: now[0])
    bar.update()
    now[0] = 10.0
    bar.update()
    bar.update()
    bar.close()
    assert out.getvalue().splitlines() == [
        "x: 0/4 runs (0%)",
        "x: 2/4 runs (50%)",
        "x: 3/4 runs (75%)",
    ]


@posix
def test_sigterm_says_finished_runs_are_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeOpenAIServer(hold_after=12) as server:  # then every request waits: mid-run
        cfg = config_writer(tmp_path)(
            fake_model_config(
                "term",
                server.base_url,
                runs=3,
                max_concurrent=2,
                environment={"limit": 4},
                sessions={"enabled": False},
            )
        )
        out = tmp_path / "out"
        env = {**os.environ, "OPENAI_API_KEY": "sk-test-term-0000000000"}
        proc = _cli("run", str(cfg), "--output", str(out), env=env)
        try:
            server.wait_for_held(2)
            proc.send_signal(signal.SIGTERM)
            _, stderr = proc.communicate(timeout=300)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == 143, stderr
    assert "terminated (SIGTERM); finished runs are saved" in stderr
    assert "Traceback" not in stderr
    keys = run_keys(result_lines(out))  # complete lines only, each run once
    assert len(keys) == len(set(keys)) < 12
    with DirectoryLock(out):  # released on the way out
        pass
    header = json.loads((out / "header.json").read_text())
    assert header["suite_name"] == "term"
