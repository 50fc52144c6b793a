"""The jackknife C_res / C_conf: where they are within 0.01 of exp(−CV) (the table REGION,
re-derived here by an independent Monte Carlo), and the report's warning on both sides."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from reliability_lab import reliability_report
from reliability_lab.metrics._arrays import Groups
from reliability_lab.metrics.consistency import resource_per_task
from reliability_lab.report._spread import REGION, SpreadRegion, region_for
from reliability_lab.simulate import SimulatedAgent, simulate_runs

N_TASKS = 20_000  # per Monte Carlo cell: SE of the mean bias ≤ 0.0015 in these cells


def _values(family: str, cv: float, shape: tuple[int, int], seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if family == "log-normal":  # mean 1, CV² = exp(σ²) − 1
        sigma = math.sqrt(math.log1p(cv**2))
        return np.exp(sigma * rng.standard_normal(shape) - sigma**2 / 2)
    return rng.gamma(1 / cv**2, cv**2, shape)  # mean 1, CV = 1/√shape


def _bias(family: str, cv: float, k: int, seed: int) -> tuple[float, float]:
    """Mean jackknife exp(−CV) − exp(−CV) over N_TASKS tasks, and its standard error."""
    x = _values(family, cv, (N_TASKS, k), seed)
    groups = Groups(codes=np.repeat(np.arange(N_TASKS), k), labels=np.arange(N_TASKS))
    err = resource_per_task({"v": x.ravel()}, groups, "jackknife") - math.exp(-cv)
    return float(err.mean()), float(err.std(ddof=1) / math.sqrt(N_TASKS))


@pytest.mark.parametrize("row", REGION, ids=lambda r: f"K={r.runs}")
def test_region_edge_is_within_and_beyond_it_is_not(row: SpreadRegion) -> None:
    # at the edge: within 0.01 (+ 3 SE of Monte Carlo noise) for both families
    for family in ("log-normal", "gamma"):
        bias, se = _bias(family, row.max_cv, row.runs, seed=row.runs)
        assert abs(bias) <= 0.01 + 3 * se, (family, bias)
    # 0.15 beyond the edge: off by more than 0.01 for at least one family
    worst = max(
        abs(_bias(f, row.max_cv + 0.15, row.runs, seed=99 + row.runs)[0])
        for f in ("log-normal", "gamma")
    )
    assert worst > 0.01


@pytest.mark.parametrize("row", REGION, ids=lambda r: f"K={r.runs}")
def test_observed_edge_is_the_median_plug_in_cv_at_the_edge(row: SpreadRegion) -> None:
    medians = []
    for family in ("log-normal", "gamma"):
        x = _values(family, row.max_cv, (N_TASKS, row.runs), seed=5)
        medians.append(float(np.median(x.std(axis=1, ddof=1) / x.mean(axis=1))))
    assert min(medians) == pytest.approx(row.max_observed, abs=0.015)


def _warnings(family: str, cv: float, runs: int, profile: str = "unbiased") -> list[str]:
    table = simulate_runs(SimulatedAgent(trajectory_noise=None), n_tasks=200, runs=runs, seed=3)
    table["cost_usd"] = _values(family, cv, (200, runs), seed=runs).ravel()
    table["confidence"] = 0.7  # C_conf: CV 0, inside every row
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        reliability_report(table, profile=profile, n_boot=0)
    return [str(w.message) for w in caught if "(jackknife)" in str(w.message)]


@pytest.mark.parametrize("family", ["log-normal", "gamma"])
@pytest.mark.parametrize("runs", [3, 5, 10, 20])
def test_warning_fires_outside_the_region_and_not_inside(family: str, runs: int) -> None:
    row = region_for(runs)
    assert row is not None
    inside = max(row.max_cv - 0.1, 0.05)
    assert _warnings(family, inside, runs) == []
    texts = _warnings(family, row.max_cv + 0.3, runs)
    assert len(texts) == 1 and "C_res (jackknife) is within 0.01" in texts[0]
    assert f"CV ≤ {row.max_cv}" in texts[0]


def test_two_runs_per_task_say_the_jackknife_needs_three() -> None:
    texts = _warnings("gamma", 0.3, 2)  # C_res and C_conf are undefined, whatever the CV
    assert len(texts) == 2 and all("(jackknife) needs ≥ 3 runs per task" in t for t in texts)


def test_another_profile_is_silent() -> None:
    assert _warnings("log-normal", 1.2, 3, profile="default") == []
