"""``reliability-lab`` command line: exit codes, --quiet output, errors without tracebacks."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from reliability_lab.cli import main
from tests.experiment.helpers import sim_config

TINY = sim_config("cli", ("cal",), sessions=True, seed=0)


def _config(tmp_path: Path, gates: list[Any], name: str = "exp.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump({**TINY, "gates": gates}), encoding="utf-8")
    return path


def test_validate_ok(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = _config(tmp_path, ["R >= 0.5"])
    assert main(["validate", str(cfg)]) == 0
    out = capsys.readouterr().out
    assert "1 agents × 2 tasks × 1 condition variant(s) × K=2 = 4 runs" in out
    assert "simulated model" in out


def test_validate_reports_config_errors_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = tmp_path / "bad.yaml"
    cfg.write_text(yaml.safe_dump({"name": "x", "agents": [{"label": "a"}]}), encoding="utf-8")
    assert main(["validate", str(cfg)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"{cfg}: line 2: agents[0].model: Field required" in captured.err
    assert "Traceback" not in captured.err


def test_unknown_task_and_environment_are_input_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = tmp_path / "t.yaml"
    cfg.write_text(yaml.safe_dump({**TINY, "environment": {"tasks": ["nope"]}}), encoding="utf-8")
    assert main(["validate", str(cfg)]) == 2
    assert "environment.tasks[0]: unknown task 'nope'" in capsys.readouterr().err
    cfg.write_text(yaml.safe_dump({**TINY, "environment": {"name": "zoo"}}), encoding="utf-8")
    assert main(["run", str(cfg)]) == 2
    assert "environment.name: unknown environment 'zoo'" in capsys.readouterr().err


def test_unknown_simulated_profile_is_an_input_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = tmp_path / "s.yaml"
    cfg.write_text(
        yaml.safe_dump({**TINY, "agents": [{"label": "a", "model": "sim/nonexistent"}]}),
        encoding="utf-8",
    )
    assert main(["validate", str(cfg)]) == 2
    err = capsys.readouterr().err
    assert "agents[0].model: unknown simulated profile 'nonexistent'" in err
    assert "sim/calibrated" in err


def test_missing_files_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(tmp_path / "none.yaml")]) == 2
    assert "none.yaml: file not found" in capsys.readouterr().err
    assert main(["report", str(tmp_path / "nodir")]) == 2
    assert "file not found" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["run"],
        ["frobnicate"],
        ["run", "x.yaml", "--runs", "0"],
        ["run", "x.yaml", "--seed", "-1"],
    ],
)
def test_usage_errors_exit_2(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2


def test_gates_decide_exit_status_and_quiet_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    passing = _config(tmp_path, ["accuracy >= 0.0", "R_Con >= 0.0"], "pass.yaml")
    assert main(["run", str(passing), "--output", str(tmp_path / "p"), "--quiet"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "✓ PASSED\n"
    assert captured.err == ""  # no progress bar, no warnings in quiet mode

    failing = _config(tmp_path, [{"metric": "accuracy", "op": ">", "value": 1.0}], "fail.yaml")
    assert main(["run", str(failing), "--output", str(tmp_path / "f"), "--quiet"]) == 1
    assert capsys.readouterr().out == "✗ FAILED\n"

    # a gate needing more runs than exist fails even though the metric is fine
    needy = _config(tmp_path, [{"metric": "accuracy", "value": 0.0, "min_runs": 5}], "n.yaml")
    assert main(["run", str(needy), "--output", str(tmp_path / "n")]) == 1
    out = capsys.readouterr().out
    assert "only 4 attempted runs (< min_runs 5)" in out and out.rstrip().endswith(
        f"Results written to {tmp_path / 'n'}"
    )


def test_summary_block_and_report_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = _config(tmp_path, ["accuracy >= 0.0"])
    out_dir = tmp_path / "out"
    assert main(["run", str(cfg), "--output", str(out_dir), "--runs", "3", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    assert "SIMULATED MODEL" in out
    for heading in ("accuracy", "R_Con", "R_Pred", "R_Rob", "R_saf", "infra"):
        assert heading in out
    assert "Gate (accuracy >= 0) [cal]: PASSED" in out and "✓ PASSED" in out
    assert "agent_reliability" in out and "offline SIMULATED judge" in out  # session metrics
    header = json.loads((out_dir / "header.json").read_text())
    assert header["config"]["runs"] == 3 and header["seed"] == 4
    summary = json.loads((out_dir / "summary.json").read_text())

    (out_dir / "summary.json").unlink()
    shutil.rmtree(out_dir / "run_1")
    assert main(["report", str(out_dir), "--quiet", "--write-summary"]) == 0
    assert capsys.readouterr().out == "✓ PASSED\n"
    assert json.loads((out_dir / "summary.json").read_text())["metrics"] == summary["metrics"]
    assert main(["report", str(out_dir)]) == 0  # the report command shows them too, with CIs
    report_out = capsys.readouterr().out
    rel = summary["reliability"]["agents"]["cal"]
    assert (
        f"{rel['agent_reliability']:.2f} [{rel['agent_reliability_lo']:.2f}, "
        f"{rel['agent_reliability_hi']:.2f}]" in report_out
    )
    assert (out_dir / "run_1" / "results.jsonl").exists()

    # resuming the finished directory runs nothing and says so
    assert main(["run", str(cfg), "--output", str(out_dir), "--runs", "3", "--seed", "4"]) == 0
    assert "Resumed: 6 of 6 runs were already done; executed 0." in capsys.readouterr().out


def test_report_rejects_damaged_results(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = _config(tmp_path, [])
    out_dir = tmp_path / "out"
    assert main(["run", str(cfg), "--output", str(out_dir), "--quiet"]) == 0
    capsys.readouterr()
    lines = (out_dir / "results.jsonl").read_text().splitlines()
    lines[1] = lines[1][:40]
    (out_dir / "results.jsonl").write_text("\n".join(lines) + "\n")
    assert main(["report", str(out_dir)]) == 2
    err = capsys.readouterr().err
    assert "results.jsonl: line 2: not a valid result record" in err and "Traceback" not in err


def test_console_script_entry_point(tmp_path: Path) -> None:
    """The installed ``reliability-lab`` command (pyproject entry point) in a real process."""
    exe = Path(sys.executable).with_name("reliability-lab")
    command = [str(exe)] if exe.exists() else [sys.executable, "-m", "reliability_lab.cli"]
    cfg = _config(tmp_path, ["accuracy >= 0.0"])
    env = {**os.environ, "OPENAI_API_KEY": "sk-test-SECRET-cli-0123456789"}
    proc = subprocess.run(
        [*command, "run", str(cfg), "--output", str(tmp_path / "o"), "--quiet", "--runs", "1"],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert (proc.returncode, proc.stdout) == (0, "✓ PASSED\n"), proc.stderr
    for path in (tmp_path / "o").rglob("*"):
        if path.is_file():
            assert b"sk-test-SECRET" not in path.read_bytes()


def test_empty_results_and_unwritable_output_are_input_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = _config(tmp_path, [])
    out_dir = tmp_path / "out"
    assert main(["run", str(cfg), "--output", str(out_dir), "--quiet", "--runs", "1"]) == 0
    (out_dir / "results.jsonl").write_text("")
    assert main(["report", str(out_dir)]) == 2
    assert "no finished runs yet" in capsys.readouterr().err
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    assert main(["run", str(cfg), "--output", str(blocker / "sub"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("reliability-lab: error:") and "Traceback" not in err
