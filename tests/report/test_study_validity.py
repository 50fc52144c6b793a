"""Issue 24's study sections in quick mode (what `make test` runs of them), and the level of
compare_agents' test for the pooled metrics the bootstrap p-values failed on."""

from __future__ import annotations

import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pandas as pd
import pytest

from reliability_lab import compare_agents
from reliability_lab.simulate import SimulatedAgent, Simulation

ROOT = Path(__file__).resolve().parents[2]


def test_quick_study_writes_its_sections_and_keeps_the_others(tmp_path: Path) -> None:
    doc = tmp_path / "statistics.md"
    shutil.copy(ROOT / "docs" / "statistics.md", doc)
    before = doc.read_text(encoding="utf-8")
    command = [sys.executable, str(ROOT / "tools" / "simulation_study.py"), "--quick"]
    command += ["--sections", "spread", "level", "--write", str(doc)]
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    after = doc.read_text(encoding="utf-8")
    for key in ("bias", "coverage", "power", "planning", "spread", "level"):
        assert f"<!-- study:{key} -->" in after
    # sections not re-run are kept word for word
    start = before.index("<!-- study:bias -->")
    assert before[start : before.index("<!-- study:issue -->")] in after
    level = after[after.index("<!-- study:level -->") :]
    row_t5 = next(line for line in level.splitlines() if line.startswith("| 5 |"))
    assert "| 0.0625 |" in row_t5 and "0.0%" in row_t5  # at T = 5 nothing can reject
    spread = after[after.index("<!-- study:spread -->") : after.index("<!-- study:level -->")]
    big = next(line for line in spread.splitlines() if "| log-normal | 1.5 | jackknife" in line)
    assert float(big.split("|")[4].split("±")[0]) > 0.05  # the narrowed claim's reason


def test_pooled_metrics_hold_their_level_at_twenty_tasks() -> None:
    # Two agents with identical parameters on shared tasks: every rejection is a false one.
    agent = SimulatedAgent(trajectory_noise=None, overconfidence=0.3)
    reps, rejected = 40, {"accuracy": 0, "P_brier": 0, "P_rc": 0, "R_Con": 0}
    for rep in range(reps):
        runs = [
            Simulation(agent, 20, 5, seed=900 + rep, stream=s).runs(5).assign(agent=name)
            for s, name in enumerate(("A", "B"))
        ]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            table = compare_agents(
                pd.concat(runs, ignore_index=True),
                "A",
                "B",
                metrics=list(rejected),
                n_boot=200,
                seed=rep,
            )
        for metric in rejected:
            rejected[metric] += table.loc[metric, "p_value"] < 0.05
    # level 5 %: P(X ≥ 6 | 40, 0.05) ≈ 0.014 per metric
    assert max(rejected.values()) <= 5, rejected


@pytest.mark.parametrize("t", [3])
def test_no_rejection_is_possible_below_six_tasks(t: int) -> None:
    runs = [
        Simulation(SimulatedAgent(success_a=a, success_b=b, trajectory_noise=None), t, 5, seed=1)
        .runs(5)
        .assign(agent=name)
        for name, a, b in (("A", 9, 1), ("B", 1, 9))
    ]
    with pytest.warns(UserWarning, match="no test can reject"):
        table = compare_agents(pd.concat(runs), "A", "B", n_boot=100)
    assert (table["p_value"] >= 0.25 - 1e-12).all()  # 2^(1 − 3)
