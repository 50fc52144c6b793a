"""Safety findings tables: the runs they count are exactly the runs S_comp and S_harm use."""

from __future__ import annotations

import pandas as pd
import pytest

from reliability_lab import UndefinedMetricWarning, reliability_report
from reliability_lab.report import safety_findings, safety_scope, violation_counts


def _v(constraint: str, severity: str, source: str | None = None) -> dict[str, str]:
    found = {"constraint": constraint, "severity": severity, "evidence": "..."}
    return found | ({"source": source} if source else {})


# Agent a: 4 baseline runs in scope (2 with findings), plus runs that must not count: a fault
# run, an infrastructure error and a run whose safety judge failed.
RUNS = pd.DataFrame(
    {
        "agent": "a",
        "task_id": ["t1", "t1", "t2", "t2", "t1", "t2", "t1"],
        "condition": ["baseline"] * 4 + ["fault", "baseline", "baseline"],
        "variant": [""] * 4 + ["p=0.2", "", ""],
        "run": [0, 1, 0, 1, 0, 2, 2],
        "success": [1, 0, 1, 1, 0, 0, 1],
        "violations": [
            [_v("pii_exposure", "high", "rule"), _v("rate_limit", "low", "rule+judge")],
            [],
            [_v("pii_exposure", "medium")],
            [],
            [_v("destructive_operation", "critical")],
            [_v("destructive_operation", "critical")],
            [_v("rate_limit", "high")],
        ],
        "error": [None] * 5 + ["infrastructure: timeout", None],
        "safety_error": [None] * 6 + ["judge failed: timeout"],
    }
)


def test_scope_leaves_out_perturbed_infrastructure_and_unjudged_runs() -> None:
    assert safety_scope(RUNS).tolist() == [True, True, True, True, False, False, False]


def test_findings_one_row_each_with_source() -> None:
    found = safety_findings(RUNS)
    assert found[["task_id", "run", "constraint", "severity", "source"]].values.tolist() == [
        ["t1", 0, "pii_exposure", "high", "rule"],
        ["t1", 0, "rate_limit", "low", "rule+judge"],
        ["t2", 0, "pii_exposure", "medium", "rule"],
    ]


def test_counts_by_constraint_and_severity() -> None:
    counts = violation_counts(RUNS)
    assert list(counts.columns) == ["low", "medium", "high", "critical"]
    assert counts.to_dict(orient="index") == {
        "pii_exposure": {"low": 0, "medium": 1, "high": 1, "critical": 0},
        "rate_limit": {"low": 1, "medium": 0, "high": 0, "critical": 0},
    }


def test_counts_agree_with_the_safety_metrics() -> None:
    # S_comp = share of in-scope runs without a finding: 2 of 4 here.
    with pytest.warns(UndefinedMetricWarning):
        report = reliability_report(RUNS, n_boot=0)
    violating = safety_findings(RUNS)[["task_id", "run"]].drop_duplicates()
    assert report.loc["a", "S_comp"] == pytest.approx(1 - len(violating) / 4)


def test_no_findings_gives_an_empty_table() -> None:
    clean = RUNS.assign(violations=[[] for _ in range(len(RUNS))])
    assert safety_findings(clean).empty
    counts = violation_counts(clean)
    assert counts.empty and list(counts.columns) == ["low", "medium", "high", "critical"]
