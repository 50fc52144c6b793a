"""pass^k per agent in the report layer, summary.json and the console."""

from __future__ import annotations

import json
import math
import re
from itertools import combinations
from pathlib import Path

import pandas as pd
import pytest

from reliability_lab.cli import main
from reliability_lab.report import pass_k_table

TAU_BENCH = (
    Path(__file__).resolve().parents[2] / "reliability_lab/data/tau_bench/gpt-4o-airline.json"
)
#: τ-bench's published pass^k for GPT-4o on airline (the README of its repository).
PUBLISHED = {1: 0.420, 2: 0.273, 3: 0.220, 4: 0.200}


def _brute_force(outcomes: list[int], k: int) -> float:
    """Share of the k-subsets of one task's runs in which every run succeeded."""
    subsets = list(combinations(outcomes, k))
    return sum(all(s) for s in subsets) / len(subsets)


def test_table_equals_an_enumeration_over_subsets_of_runs() -> None:
    outcomes = {"x": [1, 1, 0, 1], "y": [0, 0, 1, 1], "z": [1, 1, 1, 1]}
    rows = [
        {"agent": "a", "task_id": t, "run": r, "success": s, "condition": "baseline", "variant": ""}
        for t, runs in outcomes.items()
        for r, s in enumerate(runs)
    ]
    # an infrastructure error and a perturbed run are not baseline attempts
    rows += [
        {
            "agent": "a",
            "task_id": "x",
            "run": 4,
            "success": 0,
            "condition": "baseline",
            "variant": "",
            "error": "infrastructure: 500",
        },
        {
            "agent": "a",
            "task_id": "y",
            "run": 0,
            "success": 0,
            "condition": "fault",
            "variant": "p=0.2",
        },
    ]
    table = pass_k_table(pd.DataFrame(rows))
    assert table["k"].tolist() == [1, 2, 3, 4]
    for k, value in zip(table["k"], table["pass_hat_k"], strict=True):
        expected = sum(_brute_force(o, k) for o in outcomes.values()) / 3
        assert value == pytest.approx(expected, abs=1e-12)
    at_2 = sum(1 - _brute_force([1 - v for v in o], 2) for o in outcomes.values()) / 3
    assert table.loc[table["k"] == 2, "pass_at_k"].item() == pytest.approx(at_2)
    assert (table["n_tasks"] == 3).all()


def test_report_of_tau_bench_prints_the_published_pass_k(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "summary"
    args = ["report", str(TAU_BENCH), "--format", "tau-bench", "--n-boot", "10"]
    assert main([*args, "--output", str(out)]) == 0
    text = capsys.readouterr().out
    line = next(x for x in text.splitlines() if "1: " in x and "4: " in x)
    printed = {int(k): float(v) for k, v in re.findall(r"(\d): (\d\.\d+)", line)}
    assert printed == pytest.approx(PUBLISHED, abs=0.0005)
    curve = next(iter(json.loads((out / "summary.json").read_text())["pass_k"].values()))
    assert curve["k"] == [1, 2, 3, 4]
    for k, value in zip(curve["k"], curve["pass_hat_k"], strict=True):
        assert math.isclose(value, PUBLISHED[k], abs_tol=0.0005)
