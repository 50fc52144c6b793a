"""Adaptive allocation rules: ``uniform`` never looks at a task's outcomes and keeps the
unbiased C_out unbiased; ``uncertainty`` does, and is labelled biased (issue 24, item 6)."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from reliability_lab.errors import ConfigError
from reliability_lab.report.allocation import AdaptiveAllocator, fewest_runs
from reliability_lab.results.adaptive_block import adaptive_lines, adaptive_summary
from reliability_lab.simulate import SimulatedAgent, Simulation

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import study_adaptive

pytestmark = pytest.mark.filterwarnings("ignore::reliability_lab.errors.UndefinedMetricWarning")


def _allocator(rule: str) -> AdaptiveAllocator:
    return AdaptiveAllocator("C_out", 1e-9, max_runs=8, budget=10**6, batch=3, n_boot=20, rule=rule)


def test_uniform_rule_ignores_outcomes_and_keeps_k_within_one() -> None:
    sim = Simulation(SimulatedAgent(trajectory_noise=None), 7, 8, seed=3)
    flipped = sim.runs(3).assign(success=lambda t: ~t["success"].astype(bool))
    allocator = _allocator("uniform")
    assert allocator.step(sim.runs(3)).tasks == allocator.step(flipped).tasks
    counts = np.full(7, 3)
    ids = {name: i for i, name in enumerate(sim.task_ids())}
    for _ in range(6):
        for task in allocator.step(sim.runs(counts)).tasks:
            counts[ids[task]] += 1
        assert counts.max() - counts.min() <= 1


def test_uncertainty_rule_does_look_at_outcomes() -> None:
    runs = Simulation(SimulatedAgent(trajectory_noise=None), 12, 8, seed=1).runs(3)
    allocator = _allocator("uncertainty")
    split = runs.groupby("task_id")["success"].mean().between(0.1, 0.9)
    chosen = set(allocator.step(runs).tasks)
    assert chosen <= set(split[split].index)  # split tasks first


def test_fewest_runs_breaks_ties_by_label() -> None:
    assert fewest_runs(pd.Series([2, 2, 1], index=["b", "a", "c"]), 2) == ["c", "a"]


def test_unknown_rule_is_rejected() -> None:
    with pytest.raises(
        ValueError, match=r"rule='greedy': choose one of \['uniform', 'uncertainty'\]"
    ):
        _allocator("greedy")


def _beta_binomial(k: int, a: float) -> np.ndarray:
    s = np.arange(k + 1)
    log = [
        math.lgamma(k + 1) - math.lgamma(x + 1) - math.lgamma(k - x + 1)
        + math.lgamma(x + a) + math.lgamma(k - x + a) - math.lgamma(k + 2 * a)
        - 2 * math.lgamma(a) + math.lgamma(2 * a)
        for x in s
    ]  # fmt: skip
    return np.exp(log)


def test_least_variance_of_uniform_k_is_the_u_statistic_variance() -> None:
    # uniform K: the unbiased estimator 1 − 4·K/(K − 1)·p̂(1 − p̂) is the only one; its mean
    # within-task variance under Beta(a, a) by enumeration of the success count
    a = 0.6
    for k in (3, 5):
        s = np.arange(k + 1)
        theta_hat = 1 - 4 * k / (k - 1) * (s / k) * (1 - s / k)
        second = float(_beta_binomial(k, a) @ theta_hat**2)

        # E[θ²] = E[(1 − 4p(1 − p))²] from Beta moments E[p^i(1 − p)^j]
        def m(i: int, j: int) -> float:
            return math.exp(
                math.lgamma(a + i) + math.lgamma(a + j) - math.lgamma(2 * a + i + j)
                - 2 * math.lgamma(a) + math.lgamma(2 * a)
            )  # fmt: skip

        expected = second - (m(0, 0) - 8 * m(1, 1) + 16 * m(2, 2))
        variance, runs = study_adaptive.min_unbiased_variance(k, (0, 0), a)
        assert runs == pytest.approx(k)
        assert variance == pytest.approx(expected, rel=1e-9)


def test_extra_runs_for_split_tasks_alone_cannot_help_an_unbiased_estimator() -> None:
    # K₀ = 3 and runs only for split tasks: (2p − 1)² − p³ − (1 − p)³·… leaves one unbiased
    # estimator, the first stage's own — the extra runs do not lower its variance at all
    variance_uniform, _ = study_adaptive.min_unbiased_variance(3, (0, 0), 0.6)
    variance_adaptive, runs = study_adaptive.min_unbiased_variance(3, (0, 7), 0.6)
    assert runs > 5
    assert variance_adaptive == pytest.approx(variance_uniform, rel=1e-6)


def _record(tmp_path: Path, settings: dict[str, Any]) -> Path:
    (tmp_path / "adaptive.json").write_text(
        json.dumps({"settings": settings, "initial_runs": 2, "rounds": []})
    )
    return tmp_path


def test_records_before_the_rules_are_labelled_biased(tmp_path: Path) -> None:
    runs = Simulation(SimulatedAgent(trajectory_noise=None), 3, 2, seed=0).runs(2)
    info = adaptive_summary(
        _record(tmp_path, {"metric": "C_out", "halfwidth": 0.05, "max_runs": 4}), runs
    )
    assert info is not None and info["allocation"] == "uncertainty" and info["bias"]
    legacy = {k: v for k, v in info.items() if k not in ("allocation", "unbiased_note")}
    assert any(line.startswith("    biased: ") for line in adaptive_lines({"adaptive": legacy}))


def test_unknown_rule_in_a_record_names_the_file(tmp_path: Path) -> None:
    runs = Simulation(SimulatedAgent(trajectory_noise=None), 3, 2, seed=0).runs(2)
    with pytest.raises(ConfigError, match=r"adaptive.json: settings.allocation='greedy'"):
        adaptive_summary(_record(tmp_path, {"allocation": "greedy"}), runs)
