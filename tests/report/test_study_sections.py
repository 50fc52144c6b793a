"""The study sections added for issue 24's items 1, 6 and 8, at quick-mode scale: each runs,
and its table says what docs/statistics.md reads from it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import study_adaptive
import study_spread
import study_validity

pytestmark = pytest.mark.filterwarnings("ignore::reliability_lab.errors.UndefinedMetricWarning")


def test_spread_region_is_narrow_at_three_runs_and_grows_with_k() -> None:
    table = study_validity.spread_region_table(2000).set_index("K")
    region = table["region: CV ≤"]
    assert region.loc[3] <= 0.25 and region.loc[20] >= region.loc[5] >= 0.4


def test_calibrated_estimator_is_near_unbiased_only_by_construction() -> None:
    table = study_spread.spread_alternatives_table(4000, ks=(5,))
    bias = table.set_index(["values", "CV", "estimator"])["K=5"].str.split().str[0].astype(float)
    # fitted families: small; the log-normal fit under gamma values: far off
    assert abs(bias.loc[("gamma", 1.0, "calibrated")]) < 0.03
    assert bias.loc[("gamma", 1.5, "log-normal fit")] < -0.08


def test_adaptive_sections_run() -> None:
    design = study_adaptive.unbiased_design_table().set_index("design")
    column = "least within-task variance of an unbiased C_out,t"
    assert (
        design.loc["K₀ = 3, then +0 if unanimous, +7 if split", column]
        == (design.loc["uniform K = 3", column])
    )
    table = study_adaptive.adaptive_bias_table(1, 50)
    assert set(table["rule"]) == {"uniform", "uncertainty"}
    assert (table.loc[table["stop"] == "budget", "runs used (mean)"] == "600").all()


def test_two_level_section_runs() -> None:
    table = study_validity.two_level_coverage_table(2, 50, sizes=(20,), truth_tasks=500)
    assert list(table["bootstrap"]) == ["tasks", "two-level"]
    assert set(study_validity.TWO_LEVEL_METRICS) <= set(table.columns)
