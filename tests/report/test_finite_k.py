"""The ``unbiased`` profile and the two-level bootstrap, against independent computations.

Brute force here means: per-task values from Python's ``statistics`` module and explicit loops
over left-out runs, and two-level replicates rebuilt as explicit resampled run tables scored
with ``n_boot=0``; expectations from exact enumeration over outcome sequences.
"""

from __future__ import annotations

import itertools
import math
import statistics
import warnings

import numpy as np
import pandas as pd
import pytest

from reliability_lab import reliability_report
from reliability_lab.metrics import (
    outcome_consistency,
    resource_consistency,
    trajectory_distribution_consistency,
    trajectory_sequence_consistency,
)
from reliability_lab.metrics.profiles import get_profile
from reliability_lab.report._report import agent_rng, bootstrap_replicates
from reliability_lab.report._taskstats import TaskStats
from reliability_lab.report._within import RunResampler
from reliability_lab.runs import validate_run_table

pytestmark = pytest.mark.filterwarnings("ignore::reliability_lab.errors.UndefinedMetricWarning")


def _table(seed: int, conditions: tuple[str, ...] = ("baseline",)) -> pd.DataFrame:
    """Tasks with 2–5 runs, coarse confidences and costs (ties, all-equal tasks), actions."""
    rng = np.random.default_rng(seed)
    rows = []
    for t in range(6):
        k = int(rng.integers(2, 6))
        for condition in conditions:
            for r in range(k):
                cost = float(rng.choice([1.0, 2.0, 2.0, 5.0])) if t != 0 else 3.0
                rows.append(
                    {
                        "agent": "a",
                        "task_id": f"t{t}",
                        "condition": condition,
                        "variant": "" if condition == "baseline" else "v",
                        "run": r,
                        "success": bool(rng.random() < 0.6),
                        "confidence": float(rng.choice([0.2, 0.5, 0.5, 0.9])),
                        "confidence_source": "elicited",
                        "actions": [
                            str(a) for a in rng.choice(["x", "y", "z"], rng.integers(1, 4))
                        ],
                        "cost_usd": cost if rng.random() > 0.15 else math.nan,
                        "api_calls": float(rng.integers(1, 4)),
                        "violations": [],
                    }
                )
    return validate_run_table(pd.DataFrame(rows))


def _jackknife(rows: list[dict[str, float]], names: tuple[str, ...]) -> float:
    """θ_J over the runs recording one of the resources with ≥ 3 values (explicit loop)."""
    used = [n for n in names if sum(not math.isnan(r[n]) for r in rows) >= 3]
    units = [r for r in rows if any(not math.isnan(r[n]) for n in used)]
    if not used:
        return math.nan

    def theta(sample: list[dict[str, float]]) -> float:
        cvs = []
        for n in used:
            values = [r[n] for r in sample if not math.isnan(r[n])]
            cvs.append(
                0.0 if len(set(values)) == 1 else statistics.stdev(values) / statistics.mean(values)
            )
        return math.exp(-statistics.mean(cvs))

    n = len(units)
    left_out = [theta(units[:i] + units[i + 1 :]) for i in range(n)]
    return n * theta(units) - (n - 1) * statistics.mean(left_out)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_unbiased_profile_by_brute_force(seed: int) -> None:
    runs = _table(seed)
    report = reliability_report(runs, profile="unbiased", n_boot=0).loc["a"]
    c_out, c_res, c_conf = [], [], []
    for _, task in runs.groupby("task_id"):
        outcomes = task["success"].astype(float).tolist()
        c_out.append(1 - 4 * statistics.variance(outcomes))
        records = task[["cost_usd", "api_calls", "confidence"]].to_dict("records")
        c_res.append(_jackknife(records, ("cost_usd", "api_calls")))
        c_conf.append(_jackknife(records, ("confidence",)))
    assert report["C_out"] == pytest.approx(statistics.mean(c_out), abs=1e-12)
    assert report["C_res"] == pytest.approx(np.nanmean(c_res), abs=1e-12)
    assert report["C_conf"] == pytest.approx(np.nanmean(c_conf), abs=1e-12)


def _plug_in_cv(values: list[float]) -> float:
    values = [v for v in values if not math.isnan(v)]
    if len(values) < 2:
        return math.nan
    return 0.0 if len(set(values)) == 1 else statistics.stdev(values) / statistics.mean(values)


def test_default_profile_keeps_the_plug_in_values() -> None:
    runs = _table(3)
    default = reliability_report(runs, n_boot=0).loc["a"]
    c_res, c_conf, c_out = [], [], []
    for _, task in runs.groupby("task_id"):
        cvs = [_plug_in_cv(list(task[n])) for n in ("cost_usd", "api_calls")]
        c_res.append(math.exp(-np.nanmean(cvs)))
        c_conf.append(math.exp(-_plug_in_cv(list(task["confidence"]))))
        c_out.append((2 * task["success"].mean() - 1) ** 2)
    assert default["C_res"] == pytest.approx(statistics.mean(c_res), abs=1e-12)
    assert default["C_conf"] == pytest.approx(statistics.mean(c_conf), abs=1e-12)
    assert default["C_out"] == pytest.approx(statistics.mean(c_out), abs=1e-12)


@pytest.mark.parametrize("k", [2, 3, 5, 8])
@pytest.mark.parametrize("p", [0.1, 0.5, 0.75])
def test_unbiased_outcome_has_expectation_2p_minus_1_squared(k: int, p: float) -> None:
    # Exact expectation over all 2^K outcome sequences of one task.
    expected_unbiased = expected_corrected = 0.0
    for outcomes in itertools.product([0, 1], repeat=k):
        weight = p ** sum(outcomes) * (1 - p) ** (k - sum(outcomes))
        expected_unbiased += weight * outcome_consistency(outcomes, ["t"] * k, variant="unbiased")
        expected_corrected += weight * outcome_consistency(outcomes, ["t"] * k)
    assert expected_unbiased == pytest.approx((2 * p - 1) ** 2, abs=1e-12)
    # … while the default is biased upward by 4p(1 − p)/K (docs/statistics.md, "Finite K").
    assert expected_corrected == pytest.approx((2 * p - 1) ** 2 + 4 * p * (1 - p) / k, abs=1e-12)


def _resampled_table(runs: pd.DataFrame, copies: object) -> pd.DataFrame:
    """The explicit run table of one two-level replicate: each drawn copy of a task is a new
    task, each drawn (task, run) unit repeated as often as it was drawn, under new run indices."""
    labels = sorted(runs["task_id"].unique())
    parts = []
    for c, t in enumerate(copies.task):  # type: ignore[attr-defined]
        task_runs = runs[runs["task_id"] == labels[t]]
        run_ids = sorted(task_runs["run"].unique())
        new_run = 0
        for u, run_id in enumerate(run_ids):
            times = int(copies.mult[copies.slot_start[c] + u])  # type: ignore[attr-defined]
            for _ in range(times):
                unit = task_runs[task_runs["run"] == run_id].copy()
                unit["task_id"] = f"{labels[t]}#{c}"
                unit["run"] = new_run
                unit["origin"] = run_id
                new_run += 1
                parts.append(unit)
    return pd.concat(parts, ignore_index=True)


def _pair_similarity(first: list[str], second: list[str]) -> tuple[float, float]:
    pair = [first, second]
    return (
        trajectory_distribution_consistency(pair, ["t", "t"], [1, 1]),
        trajectory_sequence_consistency(pair, ["t", "t"], [1, 1]),
    )


def _trajectory_of_copies(resampled: pd.DataFrame) -> tuple[float, float]:
    """Mean over copies of the mean similarity over pairs of drawn eligible runs, a run never
    paired with its own duplicate (both duplicates carry the same ``origin``)."""
    per_copy = []
    base = resampled[(resampled["condition"] == "baseline") & resampled["success"]]
    for _, copy in base.groupby("task_id"):
        runs = [r for r in copy.itertuples() if len(r.actions)]
        sims = [
            _pair_similarity(a.actions, b.actions)
            for a, b in itertools.combinations(runs, 2)
            if a.origin != b.origin
        ]
        if sims:
            per_copy.append(np.mean(sims, axis=0))
    return tuple(np.mean(per_copy, axis=0)) if per_copy else (math.nan, math.nan)  # type: ignore[return-value]


@pytest.mark.parametrize("profile", ["default", "unbiased"])
@pytest.mark.parametrize("seed", [0, 1])
def test_two_level_replicate_is_the_report_of_the_resampled_runs(profile: str, seed: int) -> None:
    runs = _table(seed, conditions=("baseline", "fault"))
    prof = get_profile(profile)
    stats = TaskStats.build(runs, prof)
    resampler = RunResampler.build(runs, stats, prof)
    task_weights = np.random.default_rng(seed).multinomial(6, np.full(6, 1 / 6), size=1)
    copies = resampler._draw(task_weights, np.random.default_rng(99))
    values = {
        k: v[0] for k, v in resampler.evaluate(task_weights, np.random.default_rng(99)).items()
    }
    resampled = _resampled_table(runs, copies)
    explicit = reliability_report(resampled.drop(columns="origin"), profile=profile, n_boot=0)
    expected = explicit.iloc[0].to_dict()
    expected["C_traj_d"], expected["C_traj_s"] = _trajectory_of_copies(resampled)
    terms = [expected["C_traj_d"], expected["C_traj_s"]]
    traj = math.nan if all(map(math.isnan, terms)) else np.nanmean(terms)
    expected["R_Con"] = np.nanmean([expected["C_out"], traj, expected["C_res"]])
    expected["R"] = np.mean([expected["R_Con"], expected["R_Pred"], expected["R_Rob"]])
    for name, value in values.items():
        assert value == pytest.approx(expected[name], abs=1e-12, nan_ok=True), name


def test_within_only_keeps_every_task_once() -> None:
    runs = _table(4)
    prof = get_profile("default")
    stats = TaskStats.build(runs, prof)
    resampler = RunResampler.build(runs, stats, prof)
    copies = resampler._draw(np.ones((1, 6), dtype=np.int64), np.random.default_rng(0))
    assert sorted(copies.task.tolist()) == list(range(6))
    # every copy draws exactly its task's K runs
    per_copy = np.bincount(copies.slot_copy, weights=copies.mult)
    assert per_copy.tolist() == runs.groupby("task_id")["run"].nunique().tolist()


def test_two_level_intervals_are_centred_seeded_and_recorded() -> None:
    runs = _table(5)
    first = reliability_report(runs, n_boot=300, bootstrap="two-level", seed=7)
    again = reliability_report(runs, n_boot=300, bootstrap="two-level", seed=7)
    pd.testing.assert_frame_equal(first, again)
    assert first.attrs["bootstrap"] == "two-level"
    assert reliability_report(runs, n_boot=10).attrs["bootstrap"] == "tasks"
    row = first.loc["a"]
    for name in ("C_out", "C_conf", "accuracy", "P_brier"):
        assert row[f"{name}_lo"] <= row[name] <= row[f"{name}_hi"], name


def test_two_level_replicates_shift_without_centring() -> None:
    # Why the centring: redrawing runs inflates (2p̂ − 1)² per task by 4p̂(1 − p̂)/K on average.
    runs = _table(6)
    prof = get_profile("default")
    stats = TaskStats.build(runs, prof)
    resampler = RunResampler.build(runs, stats, prof)
    draws = bootstrap_replicates(stats, 4000, agent_rng(0, "a"), resampler)
    point = reliability_report(runs, n_boot=0).loc["a", "C_out"]
    per_task = runs.groupby("task_id")["success"].agg(["mean", "count"])
    inflation = (4 * per_task["mean"] * (1 - per_task["mean"]) / per_task["count"]).mean()
    assert np.mean(draws["C_out"]) - point == pytest.approx(inflation, abs=0.02)


def test_unknown_bootstrap_lists_the_valid_ones() -> None:
    with pytest.raises(ValueError, match=r"bootstrap='runs' is not valid.*tasks.*two-level"):
        reliability_report(_table(0), bootstrap="runs")


def test_unbiased_profile_is_recorded() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = reliability_report(_table(0), profile="unbiased", n_boot=0)
    assert report.attrs["profile"]["outcome_variant"] == "unbiased"
    assert report.attrs["profile"]["resource_variant"] == "jackknife"


def _jackknife_by_hand(values: list[float]) -> float:
    """θ_J = n·θ − (n − 1)·mean θ_(−i), θ = exp(−CV), each CV from scratch (statistics)."""

    def theta(xs: list[float]) -> float:
        if len(set(xs)) == 1:
            return 1.0
        return math.exp(-statistics.stdev(xs) / statistics.mean(xs))

    n = len(values)
    loo = [theta(values[:i] + values[i + 1 :]) for i in range(n)]
    return n * theta(values) - (n - 1) * sum(loo) / n


@pytest.mark.parametrize(
    "values",
    [
        list(p)
        for base in ([0.0, 0.01, 10.0], [0.0, 0.0, 0.01, 0.01, 10.0])
        for p in sorted(set(itertools.permutations(base)))
    ],
)
def test_jackknife_spread_is_exact_when_one_value_dominates(values: list[float]) -> None:
    # Leaving out 10.0 leaves (0, 0.01): a downdate of the sums of squares from 66.7 to 5e-5
    # cancels ~6 digits, and the result then depended on the order of the runs (hypothesis
    # found 3e-11 and 4e-11 differences between two orders of the same runs).
    got = resource_consistency({"cost_usd": values}, ["t"] * len(values), variant="jackknife")
    assert got == pytest.approx(_jackknife_by_hand(values), rel=0, abs=1e-13)
