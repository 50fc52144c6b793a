"""``reliability-lab report PATH`` on other harnesses' logs: summary, gates, --output, errors."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from reliability_lab.cli import main
from reliability_lab.io import load_tau2_bench
from reliability_lab.results import load_results
from tests.io.test_tau2_bench import _results


@pytest.fixture
def tau2(tmp_path: Path) -> Path:
    return _results(tmp_path, "tau2.json")


def test_report_prints_the_summary(tau2: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(tau2), "--n-boot", "20", "--gate", "accuracy >= 0.5"]) == 0
    out = capsys.readouterr().out
    assert f"Results: tau2.json  ({tau2})" in out
    assert "Total runs: 16  Attempted: 15  Infrastructure errors: 1" in out
    assert "K: 4" in out and "claude-3-7-sonnet" in out
    assert "Gate (accuracy >= 0.5) [claude-3-7-sonnet]: PASSED" in out
    assert out.rstrip().endswith("✓ PASSED")


def test_failing_and_undefined_gates(tau2: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["report", str(tau2), "--n-boot", "10", "--gate", "accuracy >= 0.99"]
    assert main([*args, "--quiet"]) == 1
    assert capsys.readouterr().out == "✗ FAILED\n"
    assert main(["report", str(tau2), "--n-boot", "10", "--gate", "P_brier >= 0.5"]) == 1
    assert "P_brier is undefined (no baseline run has a confidence)" in capsys.readouterr().out


def test_output_is_a_results_directory(
    tau2: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "summary"
    assert main(["report", str(tau2), "--n-boot", "10", "--output", str(out)]) == 0
    first = capsys.readouterr().out
    for name in ("header.json", "results.jsonl", "summary.json", "aggregate_stats.json"):
        assert (out / name).exists(), name
    assert sorted(p.name for p in out.glob("run_*")) == ["run_1", "run_2", "run_3", "run_4"]
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["config"]["imported_from"] == {"format": "tau2-bench", "path": str(tau2)}
    # read back: the run table and the printed summary are the same
    imported = load_tau2_bench(tau2).sort_values(["task_id", "run"]).reset_index(drop=True)
    again = load_results(out).sort_values(["task_id", "run"]).reset_index(drop=True)
    columns = ["agent", "task_id", "run", "success", "score", "actions", "cost_usd", "error"]
    assert again[columns].equals(imported[columns])
    assert main(["report", str(out)]) == 0
    assert capsys.readouterr().out.splitlines()[1:] == first.splitlines()[1:]
    # writing again over an imported directory is fine
    assert main(["report", str(tau2), "--n-boot", "10", "--output", str(out), "--quiet"]) == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--gate", "R >>= 1"], "cannot parse gate 'R >>= 1'"),
        (["--gate", "speed >= 1"], "unknown metric 'speed'"),
        (["--profile", "nope"], "profile='nope' is not valid; choose one of"),
        (["--scorer", "match"], "--scorer applies to inspect logs, not to 'tau2-bench'"),
    ],
)
def test_bad_options_exit_2(
    tau2: Path, args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", str(tau2), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_bad_inputs_exit_2_naming_file_record_and_field(
    tau2: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads(tau2.read_text(encoding="utf-8"))
    data["simulations"][3]["termination_reason"] = "bored"
    tau2.write_text(json.dumps(data), encoding="utf-8")
    assert main(["report", str(tau2)]) == 2
    err = capsys.readouterr().err
    assert f"{tau2}: simulation 3 (id 'sim-0-3'): field 'termination_reason'" in err
    assert "Traceback" not in err
    odd = tmp_path / "odd.json"
    odd.write_text('{"x": 1}', encoding="utf-8")
    assert main(["report", str(odd)]) == 2
    assert "cannot tell which harness wrote this; name the format with --format" in (
        capsys.readouterr().err
    )
    assert main(["report", str(odd), "--format", "tau2-bench"]) == 2
    assert "odd.json" in capsys.readouterr().err
    assert main(["report", str(tmp_path / "missing.json")]) == 2
    assert "missing.json: file not found" in capsys.readouterr().err


def test_results_directories_keep_their_own_settings(
    tau2: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "imported"
    assert main(["report", str(tau2), "--n-boot", "5", "--output", str(out), "--quiet"]) == 0
    capsys.readouterr()
    before = (out / "summary.json").read_bytes()
    # a gate on a results directory is a re-analysis: printed, summary.json left alone
    assert main(["report", str(out), "--gate", "accuracy >= 0.0"]) == 0
    assert capsys.readouterr().out.startswith("Re-analysis (gates changed;")
    assert (out / "summary.json").read_bytes() == before
    assert main(["report", str(out), "--agent", "x"]) == 2
    assert "--agent apply to imported logs" in capsys.readouterr().err
    experiment = tmp_path / "experiment"
    experiment.mkdir()
    (experiment / "header.json").write_text('{"config": {"name": "x"}}', encoding="utf-8")
    assert main(["report", str(tau2), "--output", str(experiment)]) == 2
    assert "refusing to overwrite" in capsys.readouterr().err


def test_command_line_in_a_fresh_process_without_litellm(tau2: Path) -> None:
    probe = (
        "import sys\n"
        "from reliability_lab.cli import main\n"
        f"code = main(['report', {str(tau2)!r}, '--n-boot', '10'])\n"
        "print('litellm loaded:', any(m.split('.')[0] == 'litellm' for m in sys.modules))\n"
        "sys.exit(code)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert "\nno gates\n" in done.stdout  # no gate declared: no verdict to pass
    assert "litellm loaded: False" in done.stdout


def test_sessions_from_the_logs_conversations(
    tau2: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "summary"
    args = ["report", str(tau2), "--n-boot", "10", "--sessions", "--output", str(out)]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "Session metrics" in printed and "SIMULATED" in printed  # sim/judge is the default
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    imported = load_tau2_bench(tau2)
    attempted = int(imported["error"].map(lambda e: not str(e).startswith("infra")).sum())
    assert summary["sessions"]["enabled"] and summary["sessions"]["judge_model"] == "sim/judge"
    assert summary["sessions"]["n_scored"] == attempted  # every attempted run has a conversation
    agent = next(iter(summary["reliability"]["agents"].values()))
    assert 0.0 <= agent["agent_reliability"] <= 1.0
    # read back from the written directory: the same per-run session values
    again = load_results(out)
    assert again["agent_reliability"].notna().sum() == attempted
    assert main(["report", str(out)]) == 0
    assert capsys.readouterr().out.splitlines()[1:] == printed.splitlines()[1:]


def test_sessions_need_conversations_and_judge_model_needs_sessions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = tmp_path / "runs.csv"
    table.write_text("agent,task_id,run,success\na,t1,0,1\na,t1,1,0\n", encoding="utf-8")
    assert main(["report", str(table), "--format", "table", "--sessions"]) == 2
    assert "keeps none" in capsys.readouterr().err
    assert main(["report", str(table), "--format", "table", "--judge-model", "sim/judge"]) == 2
    assert "--judge-model applies with --sessions" in capsys.readouterr().err


def test_logs_without_safety_findings_leave_safety_undefined(
    tau2: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # τ²-bench records no safety findings: S_comp, S_harm and R_saf are n/a, not 1.0
    out = tmp_path / "summary"
    assert main(["report", str(tau2), "--n-boot", "10", "--output", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "Safety: not checked" in printed
    agent = next(
        iter(json.loads((out / "summary.json").read_text())["reliability"]["agents"].values())
    )
    assert agent["S_comp"] is None and agent["R_saf"] is None  # NaN is written as null
    assert "checked for safety" in agent["why_undefined"]
    assert not load_results(out)["safety_checked"].any()  # kept when read back
    assert main(["report", str(out)]) == 0
    assert "Safety: not checked" in capsys.readouterr().out


def test_a_table_with_violations_is_checked() -> None:
    from reliability_lab import reliability_report
    from reliability_lab.io import from_records

    finding = '[{"constraint": "pii_exposure", "severity": "high", "evidence": "x"}]'
    table = pd.DataFrame(
        [
            {"agent": "a", "task_id": f"t{t}", "run": r, "success": 1, "violations": v}
            for t in range(3)
            for r, v in enumerate(["[]", finding])
        ]
    )
    with pytest.warns(UserWarning):  # the other dimensions are undefined for this table
        checked = reliability_report(from_records(table), n_boot=0).iloc[0]
    assert checked["S_comp"] == pytest.approx(0.5)  # 3 of 6 runs violate
    bare = from_records(table.drop(columns="violations"))
    assert not bare["safety_checked"].any()
    with pytest.warns(UserWarning):
        report = reliability_report(bare, n_boot=0).iloc[0]
    assert math.isnan(report["S_comp"]) and math.isnan(report["R_saf"])
