"""Intervals where the task bootstrap cannot vary: one task (undefined) and metrics at 0 or 1
on every task (task-level Clopper–Pearson), issue 24 item 7."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from scipy.stats import beta

from reliability_lab import reliability_report
from reliability_lab.errors import UndefinedMetricWarning


def _runs(n_tasks: int, success: int | list[int], k: int = 3) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "agent": "a",
            "task_id": [f"t{i}" for i in range(n_tasks) for _ in range(k)],
            "run": list(range(k)) * n_tasks,
            "success": success,
        }
    )


def _clopper_pearson(x: int, n: int, alpha: float = 0.05) -> tuple[float, float]:
    # Independent: the Beta-quantile form of the exact binomial interval.
    lo = 0.0 if x == 0 else float(beta.ppf(alpha / 2, x, n - x + 1))
    hi = 1.0 if x == n else float(beta.ppf(1 - alpha / 2, x + 1, n - x))
    return lo, hi


@pytest.mark.parametrize("success", [1, 0])
def test_all_success_or_all_failure_gets_a_task_level_clopper_pearson_interval(
    success: int,
) -> None:
    with pytest.warns(UndefinedMetricWarning, match="Clopper–Pearson"):
        report = reliability_report(_runs(20, success), n_boot=200)
    row = report.loc["a"]
    lo, hi = _clopper_pearson(20 * success, 20)
    assert (row["accuracy_lo"], row["accuracy_hi"]) == pytest.approx((lo, hi))
    # C_out is 1 on every task either way: T of T tasks deterministic
    assert row["C_out"] == 1.0
    assert (row["C_out_lo"], row["C_out_hi"]) == pytest.approx(_clopper_pearson(20, 20))
    assert row["accuracy_hi"] - row["accuracy_lo"] > 0.1  # not the [1, 1] of the issue


def test_one_task_has_undefined_intervals_and_a_warning() -> None:
    with pytest.warns(UndefinedMetricWarning, match="one task"):
        report = reliability_report(_runs(1, [1, 0, 1]), n_boot=100)
    row = report.loc["a"]
    assert row["accuracy"] == pytest.approx(2 / 3)
    assert math.isnan(row["accuracy_lo"]) and math.isnan(row["C_out_hi"])


def test_an_ordinary_interval_is_untouched() -> None:
    runs = _runs(10, [1, 0, 1] * 5 + [1, 1, 1] * 5)
    report = reliability_report(runs, n_boot=300)
    row = report.loc["a"]
    assert row["accuracy_lo"] < row["accuracy"] < row["accuracy_hi"] < 1
