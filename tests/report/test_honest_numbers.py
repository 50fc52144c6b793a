"""The report's honest-number rules (docs/methodology.md, 'Aggregates and intervals').

R needs all three dimensions; R_Con records the terms it used; bootstrap intervals record the
share of replicates in which a metric was undefined; gates on undefined metrics fail and say why.
Expected numbers come from hand computation or from probability (not from the code under test).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest

from reliability_lab import reliability_report
from reliability_lab.errors import RunTableError, UndefinedMetricWarning
from reliability_lab.experiment.gates import GateConfig, evaluate_gates
from reliability_lab.report.text import format_report


def _report(runs: pd.DataFrame, **kw: Any) -> tuple[pd.DataFrame, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = reliability_report(runs, **kw)
    stray = [w for w in caught if not issubclass(w.category, UndefinedMetricWarning)]
    assert not stray, [f"{w.category.__name__}: {w.message}" for w in stray]
    return report, [str(w.message) for w in caught]


def _never_succeeds() -> pd.DataFrame:
    # 5 tasks × 4 runs, always failing, no confidences, no perturbations, cost recorded.
    return pd.DataFrame(
        {
            "agent": "hopeless",
            "task_id": np.repeat([f"t{i}" for i in range(5)], 4),
            "run": np.tile(np.arange(4), 5),
            "success": False,
            "cost_usd": 0.02,
        }
    )


def test_r_needs_all_three_dimensions() -> None:
    report, messages = _report(_never_succeeds(), n_boot=0)
    row = report.loc["hopeless"]
    # C_out: unanimous failures → 1; C_res: identical costs → exp(0) = 1; no trajectories.
    assert row["C_out"] == 1.0 and row["C_res"] == 1.0
    assert row["R_Con"] == 1.0  # re-weighted over its available terms…
    assert row["R_Con_terms"] == "C_out+C_res"  # …and it says which
    assert math.isnan(row["R_Pred"]) and math.isnan(row["R_Rob"])
    assert math.isnan(row["R"])  # was (1 + …)/1 = 1.0: "perfectly reliable"
    r_warning = [m for m in messages if m.startswith("agent 'hopeless': R is undefined")]
    assert len(r_warning) == 1, messages
    assert "R_Pred" in r_warning[0] and "no baseline run has a confidence" in r_warning[0]
    assert "R_Rob" in r_warning[0] and "'fault'" in r_warning[0]
    assert "R_Con is undefined" not in r_warning[0]  # R_Con is defined
    assert "R is undefined: it needs R_Con, R_Pred and R_Rob" in row["why_undefined"]


def test_gate_on_undefined_r_fails_and_says_why() -> None:
    report, _ = _report(_never_succeeds(), n_boot=0)
    values = {**report.loc["hopeless"].to_dict(), "n_attempted": 20}
    (result,) = evaluate_gates([GateConfig.model_validate("R >= 0.7")], {"hopeless": values})
    assert not result.passed
    assert "R is undefined" in result.reason
    assert "R_Pred" in result.reason and "no baseline run has a confidence" in result.reason
    assert "R_Rob" in result.reason
    (lo,) = evaluate_gates([GateConfig.model_validate("P_auroc_lo >= 0.1")], {"hopeless": values})
    assert not lo.passed and "P_auroc is undefined" in lo.reason


def test_r_defined_when_all_dimensions_are() -> None:
    rows = []
    for t in range(4):
        for r in range(2):
            rows.append(("baseline", "", f"t{t}", r, r == 0 or t < 2, 0.75))
        rows.append(("fault", "f", f"t{t}", 0, t < 2, math.nan))
    runs = pd.DataFrame(
        rows, columns=["condition", "variant", "task_id", "run", "success", "confidence"]
    ).assign(agent="a")
    report, messages = _report(runs, n_boot=0)
    row = report.loc["a"]
    # C_out: t0, t1 unanimous (1), t2, t3 split (0) → 0.5; the only resource-free, action-free
    # consistency term, so R_Con = 0.5. Brier: 6 successes (0.25²) + 2 failures (0.75²) over 8
    # → 1 − (6·0.0625 + 2·0.5625)/8 = 0.8125. R_fault = (2/4)/(6/8) = 2/3.
    assert row["R_Con_terms"] == "C_out"
    assert row["R_Rob_terms"] == "R_fault"
    assert row["R"] == pytest.approx((0.5 + 0.8125 + 2 / 3) / 3, abs=1e-12)
    assert not any("R is undefined" in m for m in messages)


def test_bootstrap_records_the_undefined_share_and_warns() -> None:
    # 20 tasks × 3 runs, one failure (task t7). A replicate without t7 has one outcome class, so
    # its AUROC is undefined: P(t7 not drawn in 20 draws) = (19/20)^20 ≈ 0.3585.
    n_tasks, n_boot = 20, 2000
    runs = pd.DataFrame(
        {
            "agent": "a",
            "task_id": np.repeat([f"t{i}" for i in range(n_tasks)], 3),
            "run": np.tile(np.arange(3), n_tasks),
            "success": True,
            "confidence": np.linspace(0.5, 0.9, 3 * n_tasks),
        }
    )
    runs.loc[(runs["task_id"] == "t7") & (runs["run"] == 1), "success"] = False
    report, messages = _report(runs, n_boot=n_boot, seed=3)
    row = report.loc["a"]
    p = (1 - 1 / n_tasks) ** n_tasks
    sd = math.sqrt(p * (1 - p) / n_boot)
    assert abs(row["P_auroc_undef"] - p) < 5 * sd
    assert row["accuracy_undef"] == 0.0
    assert 0.0 <= row["P_brier_undef"] <= 0.0
    auroc = [m for m in messages if "P_auroc" in m and "bootstrap replicates" in m]
    assert len(auroc) == 1, messages
    assert f"{row['P_auroc_undef']:.1%}" in auroc[0]
    assert not any("accuracy" in m and "bootstrap replicates" in m for m in messages)


def test_undefined_share_is_nan_without_bootstrap() -> None:
    report, _ = _report(_never_succeeds(), n_boot=0)
    assert math.isnan(report.loc["hopeless", "C_out_undef"])


def test_task_without_baseline_runs_leaks_no_numpy_warning() -> None:
    runs = pd.DataFrame(
        {
            "agent": "a",
            "task_id": ["t1", "t1", "t2"],
            "run": [0, 1, 0],
            "success": [True, False, True],
            "condition": ["baseline", "baseline", "fault"],
        }
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        report = reliability_report(runs, n_boot=50)
    assert report.loc["a", "C_out"] == 0.0  # t1: p = ½ → 0; t2 has no baseline runs


def test_empty_run_table_is_a_clear_error() -> None:
    empty = pd.DataFrame(columns=["agent", "task_id", "run", "success"])
    with pytest.raises(RunTableError, match="runs: the run table is empty"):
        reliability_report(empty)


@pytest.mark.parametrize("missing", [None, math.nan])
def test_missing_action_name_is_rejected_by_the_report(missing: Any) -> None:
    actions = [["x"], [missing]]
    runs = pd.DataFrame(
        {"agent": "a", "task_id": "t", "run": [0, 1], "success": True, "actions": actions}
    )
    with pytest.raises(RunTableError, match="missing action name"):
        reliability_report(runs, n_boot=0)


def test_console_text_shows_reasons_and_terms() -> None:
    report, _ = _report(_never_succeeds(), n_boot=50)
    text = format_report(report)
    assert "R_Con" in text and "from C_out+C_res" in text
    r_line = next(line for line in text.splitlines() if line.strip().startswith("R "))
    assert "n/a" in r_line and "R_Pred" in r_line and "R_Rob" in r_line
    p_line = next(line for line in text.splitlines() if line.strip().startswith("P_brier"))
    assert "no baseline run has a confidence" in p_line
