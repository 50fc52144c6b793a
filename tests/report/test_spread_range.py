"""The jackknife C_res / C_conf warn outside the range where the study finds them unbiased."""

from __future__ import annotations

import warnings

import pytest

from reliability_lab import reliability_report
from reliability_lab.report._spread import MAX_CV, MIN_RUNS
from reliability_lab.simulate import SimulatedAgent, simulate_runs


def _jackknife_warnings(resource_cv: float, runs: int, profile: str = "unbiased") -> list[str]:
    table = simulate_runs(
        SimulatedAgent(resource_cv=resource_cv, trajectory_noise=None), n_tasks=40, runs=runs
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        reliability_report(table, profile=profile, n_boot=0)
    return [str(w.message) for w in caught if "(jackknife)" in str(w.message)]


def test_large_resource_cv_warns_about_c_res() -> None:
    # resource_cv 1.2: per-task CVs drawn from [0.6, 1.8], all above MAX_CV
    texts = _jackknife_warnings(1.2, 6)
    assert len(texts) == 1 and "C_res (jackknife)" in texts[0]
    assert f"CV ≤ {MAX_CV}" in texts[0]


def test_three_runs_warn_for_both_spread_metrics() -> None:
    texts = _jackknife_warnings(0.1, 3)
    assert {t.split("(jackknife)")[0].split()[-1] for t in texts} == {"C_res", "C_conf"}
    assert f"≥ {MIN_RUNS} runs" in texts[0]


@pytest.mark.parametrize(("cv", "runs", "profile"), [(0.1, 6, "unbiased"), (1.2, 3, "default")])
def test_inside_the_range_or_another_profile_is_silent(cv: float, runs: int, profile: str) -> None:
    assert _jackknife_warnings(cv, runs, profile) == []
