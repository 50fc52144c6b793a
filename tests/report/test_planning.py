"""plan_runs: variance components against closed forms, predictions against fresh simulations."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from reliability_lab import plan_runs, reliability_report
from reliability_lab.simulate import SimulatedAgent, Simulation, simulate_runs

pytestmark = pytest.mark.filterwarnings("ignore::reliability_lab.errors.UndefinedMetricWarning")

AGENT = SimulatedAgent(name="a", success_a=2.0, success_b=2.0, trajectory_noise=None)
# accuracy of tasks p ~ Beta(2, 2): σ_b² = Var(p) = ab/((a + b)²(a + b + 1)) = 0.05 and
# σ_w² = E[p(1 − p)] = ab/((a + b)(a + b + 1)) = 0.2
SIGMA2_BETWEEN, SIGMA2_WITHIN = 4 / (16 * 5), 4 / (4 * 5)


def test_variance_components_of_accuracy_match_the_closed_forms() -> None:
    pilot = simulate_runs(AGENT, n_tasks=400, runs=5, seed=1)
    plan = plan_runs(pilot, metric="accuracy", halfwidth=0.02, n_boot=400)
    row = plan.table.loc[("a", "accuracy")]
    assert row["sigma2_between"] == pytest.approx(SIGMA2_BETWEEN, rel=0.3)
    assert row["sigma2_within"] == pytest.approx(SIGMA2_WITHIN, rel=0.2)
    assert (row["T0"], row["K0"]) == (400, 5)


def test_recommended_design_reaches_the_target_halfwidth() -> None:
    pilot = simulate_runs(AGENT, n_tasks=60, runs=4, seed=2)
    plan = plan_runs(pilot, metric="accuracy", halfwidth=0.06, max_tasks=150, n_boot=400)
    row = plan.table.loc[("a", "accuracy")]
    t, k = int(row["tasks"]), int(row["runs_per_task"])
    assert t <= 150
    # the half-width predicted by the closed-form components for the same design
    z = 1.959964
    predicted = z * math.sqrt((SIGMA2_BETWEEN + SIGMA2_WITHIN / k) / t)
    assert predicted == pytest.approx(0.06, rel=0.35)
    widths = []
    for seed in range(6):  # fresh experiments of the recommended size
        runs = Simulation(AGENT, t, k, seed=100 + seed).runs(k)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            row_ = reliability_report(runs, n_boot=300, seed=seed).iloc[0]
        widths.append((row_["accuracy_hi"] - row_["accuracy_lo"]) / 2)
    assert np.mean(widths) == pytest.approx(0.06, rel=0.25)


def test_explanation_shows_the_reasoning_and_each_option() -> None:
    pilot = simulate_runs(AGENT, n_tasks=30, runs=3, seed=3)
    plan = plan_runs(pilot, metric=["C_out", "accuracy"], halfwidth=0.1, n_boot=200)
    text = str(plan)
    assert "V(K) = σ_b² + σ_w²/K" in text and "allowance for the pilot" in text
    assert "C_out [a]: pilot 30 tasks × K₀ = 3 runs" in text
    assert "→ recommend" in text
    options = plan.options.loc[("a", "accuracy")]
    assert list(options.index) == sorted(options.index)
    # more runs per task never need more tasks
    assert (np.diff(options["tasks"].to_numpy()) <= 0).all()


def test_unreachable_target_says_why() -> None:
    pilot = simulate_runs(AGENT, n_tasks=30, runs=3, seed=4)
    plan = plan_runs(pilot, metric="accuracy", halfwidth=0.01, max_tasks=50, n_boot=200)
    assert math.isnan(plan.table.loc[("a", "accuracy"), "tasks"])
    assert "not reachable with 50 tasks" in plan.explanation
    assert "between-task spread alone (with the allowance) needs T ≥" in plan.explanation


def test_undefined_metric_cannot_be_planned() -> None:
    pilot = simulate_runs(AGENT, n_tasks=10, runs=3, seed=5)
    plan = plan_runs(pilot, metric="R_fault", halfwidth=0.1, n_boot=100)
    assert "cannot plan: the metric is undefined in the pilot" in plan.explanation


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"halfwidth": 0}, "halfwidth must be a number > 0"),
        ({"metric": "speed"}, "unknown metric 'speed'"),
        ({"n_boot": 10}, "n_boot must be an integer >= 50"),
        ({"confidence_level": 1.5}, "confidence_level must lie strictly between 0 and 1"),
        ({"max_tasks": 0}, "max_tasks must be a positive integer"),
    ],
)
def test_bad_arguments_are_named(kwargs: dict, message: str) -> None:
    pilot = simulate_runs(AGENT, n_tasks=5, runs=2, seed=6)
    with pytest.raises(ValueError, match=message):
        plan_runs(pilot, **kwargs)


def test_all_success_pilot_recommends_the_clopper_pearson_design_not_zero_tasks() -> None:
    pilot = pd.DataFrame(
        {
            "agent": "a",
            "task_id": [f"t{i}" for i in range(30) for _ in range(4)],
            "run": [0, 1, 2, 3] * 30,
            "success": 1,
        }
    )
    plan = plan_runs(pilot, metric=["accuracy", "C_out"], halfwidth=0.05, n_boot=100)
    for metric in ("accuracy", "C_out"):
        row = plan.table.loc[("a", metric)]
        # (1 − 0.025^(1/T))/2 ≤ 0.05 first holds at T = 36 (independent: log arithmetic)
        t = next(t for t in range(1, 100) if (1 - 0.025 ** (1 / t)) / 2 <= 0.05)
        assert int(row["tasks"]) == t == 36
        assert int(row["runs_per_task"]) == 2
    assert "Clopper–Pearson" in plan.explanation


def test_exact_c_out_variance_matches_a_monte_carlo_of_the_estimator() -> None:
    from reliability_lab.report._planvar import outcome_variance_at

    rng = np.random.default_rng(3)
    p = rng.beta(0.6, 0.6, 200_000)
    pilot_p = p[:3000]
    successes = rng.binomial(6, pilot_p)
    for k in (3, 5):
        x = rng.binomial(k, p)
        unbiased = 1 - 4 * x * (k - x) / (k * (k - 1))
        exact = outcome_variance_at("unbiased", k, successes, np.full(3000, 6))
        assert exact == pytest.approx(unbiased.var(), rel=0.03)
        # the σ_b² + σ_w²/K model is what underestimates at K = 3; the exact one does not
    assert outcome_variance_at("unbiased", 3, successes, np.full(3000, 3)) is None  # K₀ < 4


def test_a_higher_assurance_asks_for_more_tasks() -> None:
    pilot = simulate_runs(SimulatedAgent(name="a"), n_tasks=40, runs=4, seed=2)
    low, high = (
        plan_runs(pilot, metric="C_out", halfwidth=0.08, profile="unbiased", n_boot=100,
                  assurance=a).table.loc[("a", "C_out"), "tasks"]
        for a in (0.5, 0.9)
    )  # fmt: skip
    assert high > low
