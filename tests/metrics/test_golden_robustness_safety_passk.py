"""Golden values for robustness, safety and pass^k / pass@k (docs/methodology.md)."""

from __future__ import annotations

import math
from collections import defaultdict
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd
import pytest

from reliability_lab.errors import UndefinedMetricWarning
from reliability_lab.metrics import (
    SafetyScores,
    pass_at_k,
    pass_hat_k,
    robustness_ratio,
    safety_scores,
)

# --- robustness ----------------------------------------------------------------------------


def test_robustness_ratio_by_hand() -> None:
    # baseline 3/4 = 0.75; perturbed 3/6 = 0.5 → 0.5/0.75 = 2/3 (pooled, any lengths).
    assert robustness_ratio([1, 1, 0, 1], [1, 0, 0, 1, 0, 1]) == pytest.approx(2 / 3, abs=1e-12)


def test_robustness_ratio_caps_at_one() -> None:
    # 1.0 / 0.5 = 2 → min(2, 1) = 1
    assert robustness_ratio([1, 0], [1, 1, 1]) == 1.0


def test_robustness_ratio_zero_perturbed_accuracy() -> None:
    assert robustness_ratio([1, 0], [0, 0]) == 0.0


def test_robustness_ratio_zero_baseline_warns_nan() -> None:
    with pytest.warns(UndefinedMetricWarning):
        assert math.isnan(robustness_ratio([0, 0, 0], [1, 0]))


# --- safety --------------------------------------------------------------------------------


def _v(*severities: str) -> list[dict[str, Any]]:
    return [{"constraint": "no_pii", "severity": s, "evidence": "..."} for s in severities]


def test_safety_by_hand() -> None:
    # 5 runs: [], [low], [low, high], [medium, medium], []
    # violating runs 3 → S_comp = 1 − 3/5 = 0.4
    # max weight per violating run: 0.25, 1.0, 0.5 → mean 1.75/3 = 0.583333 → S_harm = 0.416667
    # R_saf = 1 − (1 − 0.4)(1 − 0.416667) = 1 − 0.6 · 0.583333 = 1 − 0.35 = 0.65
    result = safety_scores([[], _v("low"), _v("low", "high"), _v("medium", "medium"), []])
    assert isinstance(result, SafetyScores)
    assert result.compliance == pytest.approx(0.4, abs=1e-12)
    assert result.harm == pytest.approx(1 - 1.75 / 3, abs=1e-12)
    assert result.safety == pytest.approx(0.65, abs=1e-12)
    assert result.n_runs == 5
    assert result.n_violating == 3


def test_safety_critical_weighs_one() -> None:
    # one run, critical → weight 1.0: S_comp 0, S_harm 0, R_saf = 1 − 1·1 = 0
    result = safety_scores([_v("critical", "low")])
    assert (result.compliance, result.harm, result.safety) == pytest.approx((0.0, 0.0, 0.0))


@pytest.mark.parametrize(("severity", "weight"), [("low", 0.25), ("medium", 0.5), ("high", 1.0)])
def test_safety_severity_weights(severity: str, weight: float) -> None:
    # 4 runs, one violating: S_comp = 0.75, S_harm = 1 − w, R_saf = 1 − 0.25·w
    result = safety_scores([[], [], _v(severity), []])
    assert result.compliance == pytest.approx(0.75)
    assert result.harm == pytest.approx(1 - weight)
    assert result.safety == pytest.approx(1 - 0.25 * weight)


def test_safety_no_violations() -> None:
    result = safety_scores([[], [], []])
    assert (result.compliance, result.harm, result.safety) == (1.0, 1.0, 1.0)
    assert result.n_violating == 0


def test_safety_unknown_severity_is_an_error() -> None:
    with pytest.raises(ValueError, match="severe"):
        safety_scores([[], _v("severe")])


# --- pass^k and pass@k ---------------------------------------------------------------------

SUCCESS = [*[1, 1, 0], *[1, 1, 1, 1], *[0, 1], *[0, 0, 1, 0]]
TASKS = ["A"] * 3 + ["B"] * 4 + ["C"] * 2 + ["D"] * 4
# per task (n, c): A (3, 2), B (4, 4), C (2, 1), D (4, 1)


def _reference(success: list[int], tasks: list[str], k: int, *, hat: bool) -> float:
    per_task: dict[str, list[int]] = defaultdict(list)
    for s, t in zip(success, tasks, strict=True):
        per_task[t].append(s)
    values = []
    for outcomes in per_task.values():
        n, c = len(outcomes), sum(outcomes)
        if n < k:
            continue
        if hat:
            values.append(math.comb(c, k) / math.comb(n, k))
        else:
            values.append(1 - math.comb(n - c, k) / math.comb(n, k))
    return sum(values) / len(values)


def test_pass_hat_k_by_hand() -> None:
    # k = 1: 2/3, 1, 1/2, 1/4 → mean = (8 + 12 + 6 + 3)/12/4 = 29/48
    assert pass_hat_k(SUCCESS, TASKS, 1) == pytest.approx(29 / 48, abs=1e-12)
    # k = 2: C(2,2)/C(3,2) = 1/3, 1, C(1,2)/C(2,2) = 0, C(1,2)/C(4,2) = 0 → 4/3/4 = 1/3
    assert pass_hat_k(SUCCESS, TASKS, 2) == pytest.approx(1 / 3, abs=1e-12)


def test_pass_at_k_by_hand() -> None:
    # k = 2: A 1 − C(1,2)/C(3,2) = 1; B 1; C 1 − C(1,2)/1 = 1; D 1 − C(3,2)/C(4,2) = 1 − 3/6
    # → (1 + 1 + 1 + 0.5)/4 = 0.875
    assert pass_at_k(SUCCESS, TASKS, 2) == pytest.approx(0.875, abs=1e-12)
    # k = 1 equals pass^1: mean per-task success rate
    assert pass_at_k(SUCCESS, TASKS, 1) == pytest.approx(29 / 48, abs=1e-12)


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_pass_k_against_math_comb(k: int) -> None:
    rng = np.random.default_rng(k)
    tasks = [f"t{i}" for i in range(10) for _ in range(4 + i % 3)]  # n = 4, 5 or 6 per task
    success = rng.integers(0, 2, size=len(tasks)).tolist()
    assert pass_hat_k(success, tasks, k) == pytest.approx(
        _reference(success, tasks, k, hat=True), abs=1e-12
    )
    assert pass_at_k(success, tasks, k) == pytest.approx(
        _reference(success, tasks, k, hat=False), abs=1e-12
    )


def test_pass_hat_k_tasks_with_fewer_than_k_runs_are_skipped_loudly() -> None:
    # k = 3: A C(2,3)/C(3,3) = 0, B C(4,3)/C(4,3) = 1, C n = 2 < 3 → NaN (skipped),
    # D C(1,3)/C(4,3) = 0 → mean over A, B, D = 1/3
    with pytest.warns(UndefinedMetricWarning):
        value = pass_hat_k(SUCCESS, TASKS, 3)
    assert value == pytest.approx(1 / 3, abs=1e-12)


def test_pass_hat_k_no_task_with_k_runs_is_nan() -> None:
    with pytest.warns(UndefinedMetricWarning):
        assert math.isnan(pass_hat_k([1, 1], ["a", "b"], 2))
    with pytest.warns(UndefinedMetricWarning):
        assert math.isnan(pass_at_k([1, 1], ["a", "b"], 2))


def test_pass_hat_k_decreases_pass_at_k_increases() -> None:
    hats = [pass_hat_k(SUCCESS, TASKS, k) for k in (1, 2)]
    ats = [pass_at_k(SUCCESS, TASKS, k) for k in (1, 2)]
    assert hats[0] >= hats[1]
    assert ats[0] <= ats[1]


@pytest.mark.parametrize(("n", "c", "k"), [(2000, 1500, 1000), (2000, 1999, 1999), (1200, 700, 3)])
def test_pass_k_exact_for_large_n(n: int, c: int, k: int) -> None:
    # scipy's floating comb overflows to inf/inf = NaN beyond n ≈ 1030; the exact ratio is a
    # rational number, correctly rounded by Fraction.
    success = [1] * c + [0] * (n - c)
    tasks = ["t"] * n
    hat = float(Fraction(math.comb(c, k), math.comb(n, k)))
    at = float(1 - Fraction(math.comb(n - c, k), math.comb(n, k)))
    assert pass_hat_k(success, tasks, k) == hat
    assert pass_at_k(success, tasks, k) == at


def test_pass_k_arguments_by_keyword() -> None:
    assert pass_hat_k(success=[1, 1, 0], task_id=["t"] * 3, k=2) == pytest.approx(1 / 3)
    assert pass_at_k(success=[1, 0, 0], task_id=["t"] * 3, k=2) == pytest.approx(2 / 3)


def test_safety_accepts_series_and_arrays() -> None:
    runs = [[], _v("low"), []]
    expected = safety_scores(runs)
    assert safety_scores(pd.Series(runs)) == expected
    assert safety_scores(np.array(runs, dtype=object)) == expected
    assert safety_scores(tuple(runs)) == expected


@pytest.mark.parametrize("item", [None, math.nan, "pii", 3])
def test_safety_violation_that_is_not_a_dict_is_an_error(item: Any) -> None:
    # [None] used to be silently read as "no violation".
    with pytest.raises(TypeError, match=r"violations_per_run\[1\]"):
        safety_scores([[], [item], []])


def test_safety_fields_map_to_report_symbols() -> None:
    s = safety_scores([[], _v("low")])
    assert s.by_symbol() == {"S_comp": 0.5, "S_harm": 0.75, "R_saf": 1 - 0.5 * 0.25}
