"""The simulation study of docs/statistics.md, small and fast: bias vs K, interval coverage,
power of the paired comparison, adaptive vs uniform allocation.

True values come from closed forms computed here, not from the code under test: for
p ~ Beta(a, a), E[(2p − 1)²] = 4·Var(p) = 1/(2a + 1), and for one task E[(2p̂ − 1)²] =
(2p − 1)² + 4p(1 − p)/K = θ + (1 − θ)/K. Replication counts are small and tolerances loose
but meaningful (several binomial standard errors away from the failure they guard against).
The full tables: tools/simulation_study.py.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from reliability_lab import compare_agents, reliability_report
from reliability_lab.report.allocation import AdaptiveAllocator
from reliability_lab.simulate import SimulatedAgent, Simulation, simulate_runs

pytestmark = pytest.mark.filterwarnings("ignore::reliability_lab.errors.UndefinedMetricWarning")

A = 0.6
THETA = 1 / (2 * A + 1)  # E[(2p − 1)²] under Beta(0.6, 0.6) = 5/11
#: The issue's measurements (Beta(0.6, 0.6), 1,000 tasks): default C_out at K = 2, 5, 10 and
#: the true value of its task sample.
ISSUE = {2: 0.724, 5: 0.529, 10: 0.483}
ISSUE_TRUTH = 0.430
FAST = SimulatedAgent(trajectory_noise=None)


def _report(runs: object, **options: object) -> object:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return reliability_report(runs, **options).iloc[0]  # type: ignore[arg-type]


def test_population_value_is_the_closed_form() -> None:
    assert SimulatedAgent(success_a=A, success_b=A).population_values()["C_out"] == pytest.approx(
        THETA, abs=1e-12
    )


def test_default_c_out_bias_follows_the_finite_k_formula_and_the_issue() -> None:
    sim = Simulation(FAST, 1000, 10, seed=3)
    theta_tasks = float(np.mean((2 * sim.p - 1) ** 2))  # this task sample's K → ∞ value
    assert theta_tasks == pytest.approx(THETA, abs=0.04)  # ±3.5 SE of a 1000-task mean
    for k, measured in ISSUE.items():
        value = _report(sim.runs(k), n_boot=0)["C_out"]
        # our simulator: E = θ + (1 − θ)/K; the binomial noise of a 1000-task mean is < 0.01
        assert value == pytest.approx(theta_tasks + (1 - theta_tasks) / k, abs=0.025), k
        # the issue's numbers obey the same law with their own task sample's θ = 0.430 …
        assert measured == pytest.approx(ISSUE_TRUTH + (1 - ISSUE_TRUTH) / k, abs=0.02), k
        # … and ours reproduce them up to the two task samples' difference in θ
        assert value == pytest.approx(measured, abs=0.04), k


@pytest.mark.parametrize("k", [3, 5])
def test_unbiased_profile_removes_the_bias_of_every_consistency_term(k: int) -> None:
    sim = Simulation(FAST, 2000, k, seed=4)
    kappa = FAST.confidence_concentration
    truth = {
        "C_out": np.mean((2 * sim.p - 1) ** 2),
        "C_res": np.mean(np.exp(-sim.cv)),
        "C_conf": np.mean(np.exp(-np.sqrt((1 - sim.mu) / (sim.mu * (kappa + 1))))),
    }
    runs = sim.runs(k)
    default = _report(runs, n_boot=0)
    unbiased = _report(runs, n_boot=0, profile="unbiased")
    # C_out: default biased by (1 − θ)/K; unbiased within 4 SE (sd ≤ 0.02 at 2000 tasks)
    assert default["C_out"] - truth["C_out"] == pytest.approx((1 - truth["C_out"]) / k, abs=0.03)
    assert unbiased["C_out"] == pytest.approx(truth["C_out"], abs=0.03)
    for name in ("C_res", "C_conf"):  # plug-in biased upward; jackknife at least 3× closer
        bias_default = default[name] - truth[name]
        assert bias_default > 0.005, name
        assert abs(unbiased[name] - truth[name]) < bias_default / 3, name


def _coverage(t: int, k: int, profile: str, bootstrap: str, reps: int, target: float) -> float:
    hits = 0
    for rep in range(reps):
        runs = Simulation(FAST, t, k, seed=1000 + rep).runs(k)
        row = _report(runs, n_boot=150, profile=profile, bootstrap=bootstrap, seed=rep)
        hits += row["C_out_lo"] <= target <= row["C_out_hi"]
    return hits / reps


def test_tasks_bootstrap_covers_the_k_value_but_not_the_limit_at_200_tasks() -> None:
    k = 5
    k_value = THETA + (1 - THETA) / k  # the population's expected default C_out at K = 5
    # the issue measured 3.5 % coverage of the K → ∞ value at 200 tasks
    assert _coverage(200, k, "default", "tasks", 25, THETA) <= 0.2
    assert _coverage(200, k, "default", "tasks", 25, k_value) >= 0.8
    assert _coverage(200, k, "unbiased", "tasks", 25, THETA) >= 0.8


@pytest.mark.parametrize("t", [20, 50])
@pytest.mark.parametrize("bootstrap", ["tasks", "two-level"])
def test_small_samples_cover_their_estimands(t: int, bootstrap: str) -> None:
    k = 5
    assert _coverage(t, k, "default", bootstrap, 25, THETA + (1 - THETA) / k) >= 0.75
    assert _coverage(t, k, "unbiased", bootstrap, 25, THETA) >= 0.75


def test_compare_agents_detects_a_true_difference_and_holds_its_level() -> None:
    # True difference in C_out: 1/(2·0.35 + 1) − 1/(2·0.6 + 1) = 0.134.
    other = SimulatedAgent(name="B", success_a=0.35, success_b=0.35, trajectory_noise=None)
    same = SimulatedAgent(name="B", trajectory_noise=None)
    rejections = {"alternative": 0, "null": 0}
    reps = 16
    for rep in range(reps):
        for label, b in (("alternative", other), ("null", same)):
            runs = simulate_runs(
                [SimulatedAgent(name="A", trajectory_noise=None), b],
                n_tasks=100,
                runs=5,
                seed=200 + rep,
            )
            table = compare_agents(
                runs, "A", "B", metrics=["C_out"], profile="unbiased", n_boot=300
            )
            rejections[label] += table.loc["C_out", "p_value"] < 0.05
    assert rejections["alternative"] / reps >= 0.4  # power ≈ 0.7 in the full study
    assert rejections["null"] / reps <= 0.25  # level 5 %: P(≥ 4 of 16) < 0.01


def _halfwidth_curve(sim: Simulation, totals: list[int], adaptive: bool, t: int) -> list[float]:
    allocator = AdaptiveAllocator(
        "C_out", 1e-9, max_runs=sim.max_runs, budget=10**6, batch=t // 5, profile="unbiased",
        n_boot=200, rule="uncertainty",
    )  # fmt: skip
    if not adaptive:
        return [allocator.current_halfwidth(sim.runs(n // t)) for n in totals]
    counts = np.full(t, totals[0] // t)
    ids = sim.task_ids()
    widths = []
    for total in totals:
        while counts.sum() < total:
            step = allocator.step(sim.runs(counts))
            for task in step.tasks:
                counts[ids.index(task)] += 1
        widths.append(allocator.current_halfwidth(sim.runs(counts)))
    return widths


def test_adaptive_allocation_narrows_the_interval_with_fewer_runs() -> None:
    t = 60
    agent = SimulatedAgent(trajectory_noise=None, deterministic_share=0.5)
    totals = [3 * t, 4 * t, 6 * t, 8 * t]
    uniform, adaptive = [], []
    for seed in range(3):
        sim = Simulation(agent, t, 30, seed=seed)
        uniform.append(_halfwidth_curve(sim, totals, False, t))
        adaptive.append(_halfwidth_curve(sim, totals, True, t))
    u, a = np.mean(uniform, axis=0), np.mean(adaptive, axis=0)
    # after one extra run per task on average, adaptive is narrower than uniform K = 4 …
    assert a[1] < u[1]
    # … and reaches the width uniform needs K = 8 for with at most 6 runs per task
    assert a[2] <= u[3] + 0.003
    assert not math.isnan(float(a[-1]))
