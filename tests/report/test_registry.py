"""The metric registry is the one list of metrics: report, gates, console and README follow it."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import pytest

import reliability_lab.metrics as M
from reliability_lab.metrics.registry import terms_used
from reliability_lab.metrics.session import SESSION_METRICS
from reliability_lab.report import (
    DIMENSIONS,
    METRIC_REGISTRY,
    METRICS,
    PROFILES,
    REPORT_METRICS,
    MetricProfile,
    explain_undefined,
    metric_table_markdown,
)
from reliability_lab.results.console import SUMMARY_METRICS
from tests.report.test_golden_report import METRICS as REPORT_COLUMNS

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_metric_table_is_the_generated_one() -> None:
    text = README.read_text(encoding="utf-8")
    table = metric_table_markdown()
    assert table in text, "README.md's metric table differs from metric_table_markdown()"
    # …and no other version of it lingers there.
    assert text.count("| symbol | dimension |") == 1


def test_every_issue_listed_metric_is_registered() -> None:
    expected = {*REPORT_COLUMNS, *SESSION_METRICS, "coherence", "loop_detection"}
    assert set(METRIC_REGISTRY) == expected | {"pass^k", "pass@k"}
    for info in METRIC_REGISTRY.values():
        assert info.dimension in DIMENSIONS, info
        assert info.why_undefined and info.name, info
        assert info.value_range == "[0, 1]", info


def test_report_columns_follow_the_registry() -> None:
    # The report's metric columns, in the order they always had (the golden test's list).
    assert list(METRICS) == REPORT_COLUMNS
    assert REPORT_METRICS == (*METRICS, *SESSION_METRICS)
    assert SUMMARY_METRICS == ("accuracy", "R_Con", "R_Pred", "R_Rob", "R", "R_saf")


def test_variant_options_are_profile_fields() -> None:
    fields = {f.name for f in dataclasses.fields(MetricProfile)}
    for info in METRIC_REGISTRY.values():
        if info.variants is None:
            continue
        assert info.variants.profile_option in fields, info
        for profile in PROFILES.values():
            assert getattr(profile, info.variants.profile_option) in info.variants.values


def test_safety_fields_are_the_registry_fields() -> None:
    safety = {m.field: s for s, m in METRIC_REGISTRY.items() if m.dimension == "safety"}
    assert safety == dict(M.SAFETY_SYMBOLS)
    assert set(safety) <= {f.name for f in dataclasses.fields(M.SafetyScores)}


def test_aggregate_terms_are_registered_metrics() -> None:
    for info in METRIC_REGISTRY.values():
        assert set(info.terms) <= set(METRIC_REGISTRY), info
    assert METRIC_REGISTRY["R"].needs_all_terms
    assert not METRIC_REGISTRY["R_Con"].needs_all_terms  # re-weighted over defined terms


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ({"C_out": 0.5, "C_traj_d": math.nan, "C_traj_s": math.nan, "C_res": 1.0}, "C_out+C_res"),
        ({"C_traj_d": 1.0, "C_traj_s": 0.5}, "C_traj_d+C_traj_s"),
        ({}, ""),
    ],
)
def test_terms_used(values: dict[str, float], expected: str) -> None:
    assert "+".join(terms_used("R_Con", values)) == expected


def test_explain_undefined_names_each_missing_dimension() -> None:
    text = explain_undefined("R", {"R_Con": math.nan, "R_Pred": 0.7, "R_Rob": math.nan})
    assert text.startswith("R is undefined: it needs R_Con, R_Pred and R_Rob")
    assert "R_Con is undefined (none of C_out" in text
    assert "R_Rob is undefined (no 'fault', 'structural' or 'prompt' runs" in text
    assert "R_Pred is undefined" not in text
