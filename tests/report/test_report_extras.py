"""Per-variant robustness, optional session-score columns, console rendering and the demo."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import reliability_lab as rl
from reliability_lab.errors import RunTableError, UndefinedMetricWarning
from reliability_lab.report.text import format_report


def _runs() -> pd.DataFrame:
    # baseline: 3/4 successes; prompt/p1: 1/2; prompt/p2: 2/2; fault/f1: 0/2
    rows = [
        ("baseline", "", "t1", 0, True),
        ("baseline", "", "t1", 1, True),
        ("baseline", "", "t2", 0, True),
        ("baseline", "", "t2", 1, False),
        ("prompt", "p1", "t1", 0, True),
        ("prompt", "p1", "t2", 0, False),
        ("prompt", "p2", "t1", 0, True),
        ("prompt", "p2", "t2", 0, True),
        ("fault", "f1", "t1", 0, False),
        ("fault", "f1", "t2", 0, False),
    ]
    return pd.DataFrame(rows, columns=["condition", "variant", "task_id", "run", "success"]).assign(
        agent="a"
    )


def test_robustness_by_variant_by_hand() -> None:
    table = rl.robustness_by_variant(_runs()).set_index(["condition", "variant"])
    # p1: 0.5 / 0.75 = 2/3; p2: 1.0 / 0.75 → capped at 1; f1: 0 / 0.75 = 0
    assert table.loc[("prompt", "p1"), "robustness"] == pytest.approx(2 / 3)
    assert table.loc[("prompt", "p2"), "robustness"] == 1.0
    assert table.loc[("fault", "f1"), "robustness"] == 0.0
    assert (table["baseline_accuracy"] == 0.75).all()
    assert table.loc[("prompt", "p1"), "n_runs"] == 2


def test_robustness_by_variant_zero_baseline_is_nan() -> None:
    runs = _runs().assign(success=lambda d: np.where(d["condition"] == "baseline", False, True))
    assert rl.robustness_by_variant(runs)["robustness"].isna().all()


def test_session_scores_are_averaged_per_task_then_over_tasks() -> None:
    runs = _runs().query("condition == 'baseline'").copy()
    runs["agent_reliability"] = [1.0, 0.5, 0.2, np.nan]  # t1 mean 0.75, t2 mean 0.2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        report = rl.reliability_report(runs, n_boot=200, seed=1)
    assert report.loc["a", "agent_reliability"] == pytest.approx((0.75 + 0.2) / 2)
    lo, hi = report.loc["a", ["agent_reliability_lo", "agent_reliability_hi"]]
    assert 0.2 <= lo <= 0.475 <= hi <= 0.75
    assert "agent_consistency" not in report.columns


def test_session_scores_outside_unit_interval_are_rejected() -> None:
    runs = _runs().assign(agent_consistency=1.5)
    with pytest.raises(RunTableError, match="agent_consistency"):
        rl.reliability_report(runs, n_boot=0)


def test_format_report_shows_intervals_and_na() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        report = rl.reliability_report(_runs(), n_boot=100, seed=0)
    text = format_report(report)
    assert "a: 2 tasks, 10 runs (4 baseline), 0 infrastructure errors excluded" in text
    assert "accuracy    0.750  [" in text
    assert "P_brier       n/a" in text  # no confidences
    assert "R_struct      n/a" in text  # no structural runs
    with pytest.raises(ValueError, match="missing columns"):
        format_report(report.drop(columns=["R"]))


def test_demo_prints_published_pass_hat_k_and_report(capsys: pytest.CaptureFixture[str]) -> None:
    from reliability_lab import demo

    assert demo.main() == 0
    out = capsys.readouterr().out
    for k, published in demo.PUBLISHED_PASS_HAT_K.items():
        assert f"pass^{k}   {published:.3f}    {published:.3f}" in out
    assert "C_out       0.560" in out  # (14 + 12·0.25 + 4·0.25 + 10) / 50, see notebook 01
    assert "P_brier       n/a" in out and "R_Rob         n/a" in out
    # τ-bench has no confidences and no perturbations: R (which needs all three dimensions) is
    # n/a, and the text says why; R_Con is defined and names its terms.
    r_line = next(line for line in out.splitlines() if line.startswith("    R "))
    assert "n/a" in r_line and "needs R_Con, R_Pred and R_Rob; undefined: R_Pred, R_Rob" in r_line
    r_con = next(line for line in out.splitlines() if line.startswith("    R_Con "))
    assert not math.isnan(float(r_con.split()[1])) and "from C_out+C_traj_d+C_traj_s" in r_con


def _with_infrastructure_errors(seed: int) -> pd.DataFrame:
    """Two agents, four conditions, confidences, resources, actions and violations; some runs
    are infrastructure errors, among them every run of one task of agent b."""
    rng = np.random.default_rng(seed)
    rows = []
    for agent in ("a", "b"):
        for task in range(6):
            for condition in ("baseline", "fault", "structural", "prompt"):
                for run in range(4):
                    crashed = rng.random() < 0.15 or (agent, task) == ("b", 5)
                    rows.append(
                        {
                            "agent": agent,
                            "task_id": f"t{task}",
                            "condition": condition,
                            "variant": "" if condition == "baseline" else "v",
                            "run": run,
                            "success": bool(rng.random() < 0.6) and not crashed,
                            "confidence": float(rng.choice([0.2, 0.5, 0.8, 0.9])),
                            "cost_usd": float(rng.gamma(2.0, 0.01)),
                            "actions": list(rng.choice(["a", "b", "c"], rng.integers(1, 4))),
                            "violations": (
                                [{"constraint": "c", "severity": "high"}]
                                if rng.random() < 0.1
                                else []
                            ),
                            "error": "infrastructure: timeout" if crashed else None,
                        }
                    )
    return pd.DataFrame(rows)


@pytest.mark.parametrize("bootstrap", ["tasks", "two-level"])
def test_infrastructure_runs_count_as_if_absent(bootstrap: str) -> None:
    # The report leaves infrastructure errors out by row position (no copy of the table); it
    # must equal the report of the table without them, intervals included (same seed).
    runs = _with_infrastructure_errors(3)
    crashed = runs["error"].notna()
    assert crashed.any() and not crashed.all()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        got = rl.reliability_report(runs, n_boot=200, seed=5, bootstrap=bootstrap)
        expected = rl.reliability_report(runs[~crashed], n_boot=200, seed=5, bootstrap=bootstrap)
    assert got["n_infra_errors"].tolist() == runs[crashed].groupby("agent").size().tolist()
    assert got.loc["b", "n_tasks"] == 5  # t5 of b has only infrastructure errors
    same = [c for c in got.columns if c != "n_infra_errors"]
    pd.testing.assert_frame_equal(got[same], expected[same].astype(got[same].dtypes))


@pytest.mark.parametrize("bootstrap", ["tasks", "two-level"])
def test_each_agent_as_if_alone_whatever_the_row_order(bootstrap: str) -> None:
    # The report reads each agent's runs by row position in the validated table (its label
    # codes, no group copies). Rows of the two agents interleaved at random, labels sharing
    # tasks: each agent's row must equal the report of its runs alone, intervals included.
    runs = _with_infrastructure_errors(4)
    shuffled = runs.sample(frac=1.0, random_state=1).reset_index(drop=True)
    assert shuffled["agent"].iloc[:10].nunique() == 2  # interleaved
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        together = rl.reliability_report(shuffled, n_boot=150, seed=2, bootstrap=bootstrap)
        for agent in ("a", "b"):
            alone = rl.reliability_report(
                runs[runs["agent"] == agent], n_boot=150, seed=2, bootstrap=bootstrap
            )
            pd.testing.assert_frame_equal(together.loc[[agent]], alone)
