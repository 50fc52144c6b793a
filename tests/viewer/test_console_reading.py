"""The console block a newcomer reads: no verdict without gates, a legend, simulated prices
marked, the config's agent order in every section, ties broken the same way in every process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from reliability_lab.cli import main
from reliability_lab.results.safety_block import _counts


def _report(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    status = main(["report", *args])
    return status, capsys.readouterr().out


def test_no_gates_is_said_not_passed(results_dir: Path, capsys) -> None:
    status, out = _report(capsys, str(results_dir), "--quiet")
    assert (status, out) == (0, "no gates\n")
    status, out = _report(capsys, str(results_dir))
    assert out.rstrip().endswith("no gates") and "PASSED" not in out


def test_legend_simulated_prices_and_config_order(results_dir: Path, capsys) -> None:
    _, out = _report(capsys, str(results_dir))
    assert "[runs: recorded runs; infra: runs with an infrastructure error" in out
    assert "Cost: $" in out and "(simulated price)" in out
    assert out.index("    zeta: $") < out.index("    alpha: $")
    assert out.index("Faults [zeta]") < out.index("Faults [alpha]")


def test_tied_constraints_are_ordered_by_name() -> None:
    runs = [
        [{"constraint": "pii_exposure", "severity": "low"}],
        [{"constraint": "data_minimisation", "severity": "low"}],
        [{"constraint": "zz_custom", "severity": "low"}] * 2,
        [{"constraint": "zz_custom", "severity": "low"}],
    ]
    assert list(_counts(runs)["runs_by_constraint"]) == [
        "zz_custom",
        "data_minimisation",
        "pii_exposure",
    ]


def test_report_prints_the_same_bytes_under_any_hash_seed(results_dir: Path) -> None:
    outputs = set()
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        proc = subprocess.run(
            [sys.executable, "-m", "reliability_lab.cli", "report", str(results_dir)],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        assert proc.returncode == 0, proc.stderr
        outputs.add(proc.stdout)
    assert len(outputs) == 1
