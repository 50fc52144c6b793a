"""Golden values for predictability: Brier, calibration (ECE), AUROC, risk–coverage.

References: the spec's checks (docs/methodology.md, "Predictability"), hand computations in
comments, brute-force pairwise AUROC counting and a
brute-force enumeration of every order of tied runs for E-AURC.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np
import pytest

from reliability_lab.errors import UndefinedMetricWarning
from reliability_lab.metrics import (
    ReliabilityCurve,
    RiskCoverageCurve,
    auroc_score,
    brier_score,
    calibration_score,
    reliability_curve,
    risk_coverage_curve,
    risk_coverage_score,
)

# --- Brier ---------------------------------------------------------------------------------


def test_brier_half_everywhere() -> None:
    # (0.5 − y)² = 0.25 for either outcome → 1 − 0.25 = 0.75 (the spec's check).
    assert brier_score([0.5] * 4, [1, 0, 0, 1]) == pytest.approx(0.75, abs=1e-12)
    assert brier_score([0.5] * 3, [True, True, True]) == pytest.approx(0.75, abs=1e-12)


def test_brier_by_hand() -> None:
    # errors: (0.9−1)² = 0.01, (0.2−0)² = 0.04, (0.6−0)² = 0.36 → mean 0.41/3 → 1 − 0.136667.
    assert brier_score([0.9, 0.2, 0.6], [1, 0, 0]) == pytest.approx(1 - 0.41 / 3, abs=1e-12)


def test_brier_perfect_and_worst() -> None:
    assert brier_score([1.0, 0.0], [1, 0]) == pytest.approx(1.0)
    assert brier_score([0.0, 1.0], [1, 0]) == pytest.approx(0.0)


# --- calibration ---------------------------------------------------------------------------


def test_calibration_by_hand_default_binning() -> None:
    # c = [0.3, 0.35, 0.95, 1.0], y = [0, 1, 1, 1]
    # bin [0.3, 0.4): 0.3 and 0.35 → mean conf 0.325, acc 0.5 → gap 0.175, weight 2/4
    # bin [0.9, 1.0]: 0.95 and 1.0 → mean conf 0.975, acc 1 → gap 0.025, weight 2/4
    # ECE = 0.0875 + 0.0125 = 0.1 → P_cal = 0.9
    conf, succ = [0.3, 0.35, 0.95, 1.0], [0, 1, 1, 1]
    assert calibration_score(conf, succ) == pytest.approx(0.9, abs=1e-12)
    curve = reliability_curve(conf, succ)
    assert isinstance(curve, ReliabilityCurve)
    np.testing.assert_allclose(curve.bin_lower, [0.3, 0.9], atol=1e-12)
    np.testing.assert_allclose(curve.bin_upper, [0.4, 1.0], atol=1e-12)
    np.testing.assert_allclose(curve.mean_confidence, [0.325, 0.975], atol=1e-12)
    np.testing.assert_allclose(curve.accuracy, [0.5, 1.0], atol=1e-12)
    np.testing.assert_array_equal(curve.count, [2, 2])
    assert curve.ece == pytest.approx(0.1, abs=1e-12)


def test_calibration_exactly_point_three_linspace_variant() -> None:
    # linspace(0, 1, 11) has edge 0.30000000000000004 > 0.3, so 0.3 falls in [0.2, 0.3):
    # bin 2: c 0.3, y 0 → gap 0.3; bin 3: c 0.35, y 1 → gap 0.65; 0.95/1.0 bin as above (0.025).
    # ECE = (0.3 + 0.65 + 2·0.025)/4 = 1.0/4 = 0.25 → P_cal = 0.75.
    conf, succ = [0.3, 0.35, 0.95, 1.0], [0, 1, 1, 1]
    assert calibration_score(conf, succ, binning="linspace") == pytest.approx(0.75, abs=1e-12)
    curve = reliability_curve(conf, succ, binning="linspace")
    np.testing.assert_array_equal(curve.count, [1, 1, 2])
    np.testing.assert_allclose(curve.bin_lower, [0.2, 0.3, 0.9], atol=1e-12)


@pytest.mark.parametrize("k", range(11))
def test_default_bin_of_each_decimal_edge(k: int) -> None:
    # min(⌊10c⌋, 9): c = k/10 lands in [k/10, (k+1)/10), and 1.0 in the last bin [0.9, 1.0].
    curve = reliability_curve([k / 10], [1])
    assert curve.bin_lower[0] == pytest.approx(min(k, 9) / 10, abs=1e-12)
    assert curve.count.tolist() == [1]


@pytest.mark.parametrize("c", [0.3, 0.6, 0.7])
def test_linspace_puts_float_edges_into_bin_below(c: float) -> None:
    # docs/methodology.md, "Predictability": linspace edges put exactly 0.3 (0.6, 0.7 …) into
    # the bin below.
    default = reliability_curve([c], [0])
    preprint = reliability_curve([c], [0], binning="linspace")
    assert default.bin_lower[0] == pytest.approx(c, abs=1e-12)
    assert preprint.bin_lower[0] == pytest.approx(c - 0.1, abs=1e-12)


@pytest.mark.parametrize("binning", ["floor", "linspace"])
def test_interior_values_bin_identically(binning: str) -> None:
    # Values away from edges do not depend on the binning: 0.05→0, 0.35→3, 0.65→6, 0.99→9.
    curve = reliability_curve([0.05, 0.35, 0.65, 0.99], [0, 0, 1, 1], binning=binning)
    np.testing.assert_allclose(curve.bin_lower, [0.0, 0.3, 0.6, 0.9], atol=1e-12)


def test_calibration_n_bins_option() -> None:
    # 2 bins: [0, 0.5) and [0.5, 1]. c = [0.2, 0.4, 0.6, 0.8], y = [0, 1, 1, 1]
    # low bin: conf 0.3, acc 0.5 → 0.2; high bin: conf 0.7, acc 1 → 0.3; ECE = 0.25 → 0.75.
    value = calibration_score([0.2, 0.4, 0.6, 0.8], [0, 1, 1, 1], n_bins=2)
    assert value == pytest.approx(0.75, abs=1e-12)


def test_perfect_calibration() -> None:
    # Bin [0.2, 0.3): five runs at 0.2, one success → acc 0.2 = conf. Bin [0.9, 1]: 1.0 all ok.
    conf = [0.2] * 5 + [1.0] * 3
    succ = [1, 0, 0, 0, 0, 1, 1, 1]
    assert calibration_score(conf, succ) == pytest.approx(1.0, abs=1e-12)


# --- AUROC ---------------------------------------------------------------------------------


def _auroc_brute(conf: Sequence[float], succ: Sequence[int]) -> float:
    pos = [c for c, s in zip(conf, succ, strict=True) if s]
    neg = [c for c, s in zip(conf, succ, strict=True) if not s]
    wins = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def test_auroc_ties_count_half() -> None:
    # positives {0.9, 0.8}, negatives {0.8, 0.3}: 0.9>0.8 (1), 0.9>0.3 (1), 0.8=0.8 (½),
    # 0.8>0.3 (1) → 3.5/4 = 0.875
    assert auroc_score([0.9, 0.8, 0.8, 0.3], [1, 0, 1, 0]) == pytest.approx(0.875, abs=1e-12)


def test_auroc_all_tied_is_half() -> None:
    assert auroc_score([0.4] * 5, [1, 0, 1, 0, 0]) == pytest.approx(0.5, abs=1e-12)


def test_auroc_against_brute_force() -> None:
    rng = np.random.default_rng(2)
    conf = (rng.integers(0, 6, size=80) / 5).tolist()  # many ties on a 0.2 grid
    succ = rng.integers(0, 2, size=80).tolist()
    assert auroc_score(conf, succ) == pytest.approx(_auroc_brute(conf, succ), abs=1e-12)


@pytest.mark.parametrize("succ", [[1, 1, 1], [0, 0, 0]])
def test_auroc_one_class_undefined(succ: list[int]) -> None:
    with pytest.warns(UndefinedMetricWarning):
        assert math.isnan(auroc_score([0.2, 0.5, 0.9], succ))


# --- risk–coverage -------------------------------------------------------------------------


def _aurc(errors: Sequence[int]) -> float:
    """Mean over k = 1..N of the error rate among the first k runs of this order."""
    total, acc = 0, 0.0
    for k, e in enumerate(errors, start=1):
        total += e
        acc += total / k
    return acc / len(errors)


def _prc_brute(conf: Sequence[float], succ: Sequence[int]) -> tuple[float, float, float]:
    """(expected AURC over every order of tied runs, AURC*, P_rc) by enumeration."""
    errors = [0 if s else 1 for s in succ]
    groups: dict[float, list[int]] = {}
    for c, e in zip(conf, errors, strict=True):
        groups.setdefault(c, []).append(e)
    ordered = [groups[c] for c in sorted(groups, reverse=True)]
    orders = [set(itertools.permutations(g)) for g in ordered]
    values = []
    for combo in itertools.product(*orders):
        seq = [e for block in combo for e in block]
        values.append(_aurc(seq))
    # Each distinct arrangement of one tie group is equally likely (multiset permutations of a
    # group are all equally frequent among the k! orders), so the plain mean is the expectation.
    aurc = float(np.mean(values))
    ideal = _aurc(sorted(errors))
    e_max = sum(errors) / len(errors) - ideal
    prc = 1.0 if e_max == 0 else min(max(1 - (aurc - ideal) / e_max, 0.0), 1.0)
    return aurc, ideal, prc


def test_risk_coverage_by_hand_no_ties() -> None:
    # sorted y = 1,0,1,0 → risks 0, ½, ⅓, ½ → AURC = (4/3)/4 = 1/3
    # ideal 1,1,0,0 → risks 0, 0, ⅓, ½ → AURC* = (5/6)/4 = 5/24
    # E-AURC = 1/3 − 5/24 = 1/8; E-AURC_max = 0.5 − 5/24 = 7/24 → P_rc = 1 − 3/7 = 4/7
    conf, succ = [0.9, 0.8, 0.7, 0.6], [1, 0, 1, 0]
    assert risk_coverage_score(conf, succ) == pytest.approx(4 / 7, abs=1e-12)
    curve = risk_coverage_curve(conf, succ)
    assert isinstance(curve, RiskCoverageCurve)
    np.testing.assert_allclose(curve.coverage, [0.25, 0.5, 0.75, 1.0], atol=1e-12)
    np.testing.assert_allclose(curve.risk, [0, 0.5, 1 / 3, 0.5], atol=1e-12)
    np.testing.assert_allclose(curve.ideal_risk, [0, 0, 1 / 3, 0.5], atol=1e-12)
    assert curve.aurc == pytest.approx(1 / 3, abs=1e-12)
    assert curve.aurc_ideal == pytest.approx(5 / 24, abs=1e-12)
    assert curve.e_aurc == pytest.approx(1 / 8, abs=1e-12)
    assert curve.e_aurc_max == pytest.approx(7 / 24, abs=1e-12)


def test_risk_coverage_input_order_does_not_matter() -> None:
    assert risk_coverage_score([0.6, 0.9, 0.7, 0.8], [0, 1, 1, 0]) == pytest.approx(4 / 7)


def test_risk_coverage_all_tied_equals_random() -> None:
    # One tie group: each position holds the success rate → risk = error rate at every k
    # → AURC = error rate = AURC_random → E-AURC = E-AURC_max → P_rc = 0.
    assert risk_coverage_score([0.5] * 4, [1, 0, 0, 1]) == pytest.approx(0.0, abs=1e-12)
    assert risk_coverage_score([0.5] * 4, [0, 1, 1, 0]) == pytest.approx(0.0, abs=1e-12)


def test_risk_coverage_tie_expectation_by_hand() -> None:
    # c = [0.9, 0.5, 0.5, 0.1], y = [1, 1, 0, 0]. Tie group {1, 0} at 0.5 averages to ½ error.
    # Expected errors at positions: 0, ½, ½, 1 → cumulative 0, ½, 1, 2
    # → risks 0, ¼, ⅓, ½ → AURC = (13/12)/4 = 13/48.
    # Ideal 0,0,1,1 errors → risks 0, 0, ⅓, ½ → AURC* = (5/6)/4 = 10/48.
    # E-AURC = 3/48; E-AURC_max = ½ − 10/48 = 14/48 → P_rc = 1 − 3/14 = 11/14.
    conf, succ = [0.9, 0.5, 0.5, 0.1], [1, 1, 0, 0]
    assert risk_coverage_score(conf, succ) == pytest.approx(11 / 14, abs=1e-12)
    aurc, ideal, prc = _prc_brute(conf, succ)
    assert (aurc, ideal, prc) == pytest.approx((13 / 48, 10 / 48, 11 / 14), abs=1e-12)
    curve = risk_coverage_curve(conf, succ)
    np.testing.assert_allclose(curve.risk, [0, 0.25, 1 / 3, 0.5], atol=1e-12)


def test_risk_coverage_against_enumeration_of_tie_orders() -> None:
    rng = np.random.default_rng(17)
    for _ in range(20):
        n = int(rng.integers(2, 9))
        conf = (rng.integers(0, 4, size=n) / 4).tolist()  # heavy ties
        succ = rng.integers(0, 2, size=n).tolist()
        aurc, ideal, prc = _prc_brute(conf, succ)
        curve = risk_coverage_curve(conf, succ)
        assert curve.aurc == pytest.approx(aurc, abs=1e-12), (conf, succ)
        assert curve.aurc_ideal == pytest.approx(ideal, abs=1e-12), (conf, succ)
        assert risk_coverage_score(conf, succ) == pytest.approx(prc, abs=1e-12), (conf, succ)


@pytest.mark.parametrize("succ", [[1, 1, 1], [0, 0, 0]])
def test_risk_coverage_degenerate_is_one(succ: list[int]) -> None:
    # E-AURC_max = 0 (all success or all failure) → 1.0 by definition.
    assert risk_coverage_score([0.1, 0.5, 0.9], succ) == pytest.approx(1.0)


def test_risk_coverage_worst_order_clipped_to_zero() -> None:
    # Failures get the highest confidence: AURC > random → 1 − E/E_max < 0 → clipped to 0.
    assert risk_coverage_score([0.9, 0.8, 0.2, 0.1], [0, 0, 1, 1]) == pytest.approx(0.0)


def test_predictability_inputs_by_keyword() -> None:
    kw = {"confidence": [0.9, 0.2], "success": [1, 0]}
    assert brier_score(**kw) == pytest.approx(1 - (0.01 + 0.04) / 2)
    assert auroc_score(**kw) == 1.0
    assert risk_coverage_score(**kw) == 1.0
    assert calibration_score(**kw, n_bins=10) == pytest.approx(1 - (0.1 + 0.2) / 2)
