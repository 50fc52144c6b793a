"""Predictability: does self-reported confidence predict success?

Conventions: docs/methodology.md, "Predictability".

Brier, calibration (1 − ECE), discrimination (AUROC) and the risk–coverage score, pooled
over runs. The kernels work on *sufficient statistics* with a leading batch axis — bin
sums for ECE, per-confidence-level success/failure counts for AUROC and E-AURC — so the
report's bootstrap evaluates all replicates at once from re-weighted task statistics.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from reliability_lab.metrics._arrays import (
    as_confidence,
    as_success,
    check_option,
    check_same_length,
    undefined,
)

__all__ = [
    "BINNINGS",
    "RC_VARIANTS",
    "ReliabilityCurve",
    "RiskCoverageCurve",
    "auroc_score",
    "brier_score",
    "calibration_score",
    "reliability_curve",
    "risk_coverage_curve",
    "risk_coverage_score",
]

#: ``floor``: bin = min(⌊n·c⌋, n − 1) against exact edges k/n, so 0.3 is in [0.3, 0.4).
#: ``linspace``: edges from ``numpy.linspace(0, 1, n + 1)`` as in the authors' code, which
#: puts 0.3, 0.6 and 0.7 into the bin below (their float edges are slightly larger).
BINNINGS = ("floor", "linspace")

#: P_rc variants. ``exact``: E-AURC from the risk at every coverage n/N (ties at their
#: expected risk). ``grid``: HAL's ``reliability_eval`` — the risk at 100 coverages
#: ``linspace(0, 1, 100)`` (first ``max(1, int(c·N))`` runs), integrated by the trapezoid rule,
#: score ``1 − E-AURC/(E-AURC_max + 1e-8)`` (1.0 when E-AURC_max ≤ 1e-8), clipped to [0, 1].
RC_VARIANTS = ("exact", "grid")
_GRID = np.linspace(0.0, 1.0, 100)
_GRID_EPSILON = 1e-8  # HAL's EPSILON


def _inputs(confidence: Any, success: Any) -> tuple[np.ndarray, np.ndarray]:
    c = as_confidence(confidence)
    y = as_success(success)
    check_same_length(confidence=c, success=y)
    return c, y


# ----------------------------------------------------------------------------- Brier


def brier_score(confidence: Any, success: Any) -> float:
    """Brier score P_brier = 1 − mean((c − y)²), higher is better.

    A proper scoring rule capturing calibration and discrimination together; it is the
    predictability dimension R_Pred. Range [0, 1]; 0.75 for a constant 0.5.

    Examples
    --------
    >>> brier_score([0.5, 0.5, 0.5], [1, 0, 1])
    0.75
    >>> brier_score([1.0, 0.0], [True, False])
    1.0
    """
    c, y = _inputs(confidence, success)
    return float(1.0 - np.mean((c - y) ** 2))


# ----------------------------------------------------------------------- calibration


def _edges(n_bins: int, binning: str) -> np.ndarray:
    if binning == "linspace":
        return np.linspace(0.0, 1.0, n_bins + 1)
    return np.arange(n_bins + 1) / n_bins


def bin_index(confidence: np.ndarray, n_bins: int, binning: str) -> np.ndarray:
    """Bin of each confidence under ``binning`` (see :data:`BINNINGS`)."""
    edges = _edges(n_bins, binning)
    if binning == "linspace":
        return np.clip(np.searchsorted(edges, confidence, side="right") - 1, 0, n_bins - 1)
    b = np.clip(np.floor(confidence * n_bins).astype(np.int64), 0, n_bins - 1)
    b = np.where(confidence < edges[b], b - 1, b)  # float product rounded up past an edge
    upper = edges[np.minimum(b + 1, n_bins)]
    b = np.where((b + 1 < n_bins) & (confidence >= upper), b + 1, b)  # rounded down
    return np.clip(b, 0, n_bins - 1)


def ece_from_bins(count: np.ndarray, sum_conf: np.ndarray, sum_acc: np.ndarray) -> np.ndarray:
    """ECE = Σ_b |Σacc_b − Σconf_b| / N over the last axis (bins); batch axes kept."""
    total = count.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.abs(sum_acc - sum_conf).sum(axis=-1) / total


def _check_bins(n_bins: int, binning: str) -> None:
    check_option(binning, "binning", BINNINGS)
    if not isinstance(n_bins, int | np.integer) or n_bins < 1:
        raise ValueError(f"n_bins must be a positive integer, got {n_bins!r}")


@dataclass(frozen=True)
class ReliabilityCurve:
    """Reliability diagram data over the non-empty bins (from :func:`reliability_curve`)."""

    bin_lower: np.ndarray
    bin_upper: np.ndarray
    mean_confidence: np.ndarray
    accuracy: np.ndarray
    count: np.ndarray
    ece: float


def reliability_curve(
    confidence: Any, success: Any, *, n_bins: int = 10, binning: str = "floor"
) -> ReliabilityCurve:
    """Per-bin mean confidence and accuracy for a reliability diagram, plus the ECE.

    Equal-width bins; empty bins are omitted. See :func:`calibration_score`.

    Examples
    --------
    >>> curve = reliability_curve([0.1, 0.15, 0.9, 0.95], [0, 0, 1, 0])
    >>> curve.bin_lower.tolist(), curve.accuracy.tolist(), curve.count.tolist()
    ([0.1, 0.9], [0.0, 0.5], [2, 2])
    """
    _check_bins(n_bins, binning)
    c, y = _inputs(confidence, success)
    b = bin_index(c, n_bins, binning)
    count = np.bincount(b, minlength=n_bins)
    sum_conf = np.bincount(b, weights=c, minlength=n_bins)
    sum_acc = np.bincount(b, weights=y.astype(float), minlength=n_bins)
    used = count > 0
    edges = _edges(n_bins, binning)
    return ReliabilityCurve(
        bin_lower=edges[:-1][used],
        bin_upper=edges[1:][used],
        mean_confidence=sum_conf[used] / count[used],
        accuracy=sum_acc[used] / count[used],
        count=count[used],
        ece=float(ece_from_bins(count, sum_conf, sum_acc)),
    )


def calibration_score(
    confidence: Any, success: Any, *, n_bins: int = 10, binning: str = "floor"
) -> float:
    """Calibration score P_cal = 1 − ECE with ``n_bins`` equal-width bins.

    ECE = Σ_b (|B_b|/N)·|acc_b − conf_b| over non-empty bins. ``binning="floor"`` (default)
    puts c in bin min(⌊10c⌋, 9) against exact edges (0.3 ∈ [0.3, 0.4));
    ``binning="linspace"`` reproduces the authors' ``numpy.linspace`` edges, which put 0.3,
    0.6 and 0.7 in the bin below (used by the ``preprint`` profile). Range [0, 1].

    Examples
    --------
    >>> calibration_score([0.8, 0.8, 0.8, 0.8, 0.8], [1, 1, 1, 1, 0])
    1.0
    >>> calibration_score([0.3, 0.3], [1, 1])  # one bin: |1.0 - 0.3|
    0.3
    """
    return 1.0 - reliability_curve(confidence, success, n_bins=n_bins, binning=binning).ece


# ------------------------------------------------------------- ranking-based metrics


def level_counts(
    confidence: np.ndarray, success: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Distinct confidence levels (descending), each run's level, successes/failures per level."""
    levels, inverse = np.unique(-confidence, return_inverse=True)
    pos = np.bincount(inverse, weights=success.astype(float), minlength=len(levels))
    neg = np.bincount(inverse, weights=(~success).astype(float), minlength=len(levels))
    return -levels, inverse, pos, neg


@dataclass(frozen=True)
class LevelCounts:
    """Successes and failures per confidence level and the running sums both ranking metrics use.

    The last axis is the confidence levels in descending order; leading axes are a batch (the
    report's bootstrap replicates). Counts are whole numbers, as integers or as floats; as
    integers the running sums are cheaper and the harmonic numbers a table lookup.
    """

    pos: np.ndarray
    neg: np.ndarray
    n: np.ndarray  # runs at each level
    through: np.ndarray  # runs at this level or higher
    neg_through: np.ndarray  # failures at this level or higher
    n_pos: np.ndarray
    n_neg: np.ndarray
    total: np.ndarray
    rate_through: np.ndarray | None = None  # error rate × through (computed if not given)

    @classmethod
    def of(cls, pos: np.ndarray, neg: np.ndarray) -> LevelCounts:
        pos, neg = np.ascontiguousarray(pos), np.ascontiguousarray(neg)  # fast running sums
        n = pos + neg
        through = np.cumsum(n, axis=-1)
        neg_through = np.cumsum(neg, axis=-1)
        total, n_neg = through[..., -1], neg_through[..., -1]
        return cls(pos, neg, n, through, neg_through, total - n_neg, n_neg, total)


def _dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Σ a·b over the last axis, batch axes kept."""
    return np.einsum("...l,...l->...", a, b)


def auroc_from_counts(c: LevelCounts) -> np.ndarray:
    """Mann–Whitney AUROC (ties ½): Σ_levels pos·(failures below + ½ failures tied)/(n₊·n₋).

    Computed as (n₊n₋ − Σ pos·failures-at-or-above + ½ Σ pos·neg)/(n₊n₋): every term is a
    whole or half number, so the sums are exact and the result does not depend on their order.
    """
    pairs = c.n_pos * c.n_neg
    twice = 2 * pairs - 2 * _dot(c.pos, c.neg_through) + _dot(c.pos, c.neg)
    with np.errstate(invalid="ignore", divide="ignore"):
        return twice / (2.0 * pairs)


def _harmonic(x: np.ndarray) -> np.ndarray:
    """H(x) = Σ_{i=1..x} 1/i for (possibly non-integer-typed) non-negative counts; H(0) = 0."""
    from scipy.special import digamma  # scipy.special costs ~0.25 s to import: load on first use

    return digamma(np.asarray(x, dtype=float) + 1.0) + np.euler_gamma


Harmonic = Callable[[np.ndarray], np.ndarray]


def harmonic_table(max_count: int) -> Harmonic:
    """H(x) for whole-number counts x ≤ ``max_count`` by table lookup.

    The table holds exactly the values :func:`_harmonic` gives, so results do not change;
    a lookup is much cheaper than digamma on the report's (replicates × levels) arrays.
    """
    table = _harmonic(np.arange(max_count + 1))

    def lookup(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x)
        return np.take(table, x if x.dtype.kind in "iu" else x.astype(np.int64))

    return lookup


def aurc_from_counts(c: LevelCounts, harmonic: Harmonic = _harmonic) -> tuple[np.ndarray, ...]:
    """(AURC, AURC*, E-AURC_max) with ties resolved by the exact expectation over orders.

    Within a tie group of n runs starting after s earlier runs with E earlier errors and
    error rate r, position s + j has expected cumulative error E + j·r, so the group adds
    Σ_j (E + j r)/(s + j) = E·ΔH + r·(n − s·ΔH), ΔH = H(s + n) − H(s). Summed over the
    groups, with F = E + r·n the errors through the group and S = s + n the runs through it,
    that is n₋ + Σ ΔH·(F − r·S): one running sum of each and one harmonic number per level.
    """
    h_through = harmonic(c.through)
    dh = np.empty_like(h_through)  # H(through) − H(before); H(before) = H(through) one level up
    dh[..., 0] = h_through[..., 0] - harmonic(np.zeros_like(c.through[..., 0]))
    np.subtract(h_through[..., 1:], h_through[..., :-1], out=dh[..., 1:])
    with np.errstate(invalid="ignore", divide="ignore"):
        if c.rate_through is None:
            rate = np.divide(c.neg, c.n, out=np.zeros(c.n.shape), where=c.n > 0)
            rate *= c.through
            np.subtract(c.neg_through, rate, out=rate)
        else:
            rate = c.neg_through - c.rate_through
        aurc = (c.n_neg + _dot(dh, rate)) / c.total
        ideal = (c.n_neg - c.n_pos * (harmonic(c.total) - harmonic(c.n_pos))) / c.total
        e_max = c.n_neg / c.total - ideal
    return aurc, ideal, e_max


def rc_score_from_counts(c: LevelCounts, harmonic: Harmonic = _harmonic) -> np.ndarray:
    """P_rc = clip(1 − E-AURC/E-AURC_max, 0, 1); 1.0 where E-AURC_max = 0."""
    aurc, ideal, e_max = aurc_from_counts(c, harmonic)
    with np.errstate(invalid="ignore", divide="ignore"):
        score = np.clip(1.0 - (aurc - ideal) / e_max, 0.0, 1.0)
    return np.where(np.abs(e_max) <= 1e-12, 1.0, score)


def auroc_score(confidence: Any, success: Any) -> float:
    """Discrimination P_auroc: P(conf of a success > conf of a failure), ties counting ½.

    Mann–Whitney formulation (concordant + ½·tied)/(n₊·n₋). 0.5 is chance, 1.0 perfect
    separation. NaN with :class:`~reliability_lab.UndefinedMetricWarning` if all runs
    succeeded or all failed.

    Examples
    --------
    >>> auroc_score([0.9, 0.8, 0.3, 0.1], [1, 1, 0, 0])
    1.0
    >>> auroc_score([0.5, 0.5, 0.9], [1, 0, 0])  # pairs (s, f): tie ½ + lower 0 → 0.25
    0.25
    """
    c, y = _inputs(confidence, success)
    if y.all() or not y.any():
        return undefined("P_auroc is undefined: needs at least one success and one failure")
    _, _, pos, neg = level_counts(c, y)
    return float(auroc_from_counts(LevelCounts.of(pos, neg)))


@dataclass(frozen=True)
class RiskCoverageCurve:
    """Risk–coverage curve (confidence descending; ties at their expected risk).

    The accuracy–coverage view of the same curve is ``accuracy`` = 1 − ``risk`` (selective
    accuracy) beside ``ideal_accuracy``; a random order's expected risk at every coverage is
    ``error_rate`` (its accuracy ``1 − error_rate``).

    Examples
    --------
    >>> curve = risk_coverage_curve([0.9, 0.5, 0.2], [1, 0, 1])
    >>> curve.accuracy.tolist(), curve.ideal_accuracy.tolist(), round(curve.error_rate, 4)
    ([1.0, 0.5, 0.6666666666666667], [1.0, 1.0, 0.6666666666666667], 0.3333)
    """

    coverage: np.ndarray
    risk: np.ndarray
    ideal_risk: np.ndarray
    aurc: float
    aurc_ideal: float
    e_aurc: float
    e_aurc_max: float

    @property
    def accuracy(self) -> np.ndarray:
        """Selective accuracy among the most confident runs at each coverage (1 − risk)."""
        return 1.0 - self.risk

    @property
    def ideal_accuracy(self) -> np.ndarray:
        """Selective accuracy of the oracle order (successes first)."""
        return 1.0 - self.ideal_risk

    @property
    def error_rate(self) -> float:
        """Error rate of all runs: the risk at full coverage, and a random order's expected
        risk at every coverage."""
        return float(self.risk[-1])


def risk_coverage_curve(confidence: Any, success: Any) -> RiskCoverageCurve:
    """Selective-prediction curve: error rate among the top-k most confident runs.

    ``coverage[k-1] = k/N``, ``risk[k-1]`` = expected error rate among the k most confident
    runs (tied runs hold their tie group's error rate at every position, the exact
    expectation over their orders), ``ideal_risk`` the same for the oracle order
    (successes first). AURC = mean(risk), AURC* = mean(ideal_risk).

    Examples
    --------
    >>> curve = risk_coverage_curve([0.9, 0.2], [0, 1])
    >>> curve.risk.tolist(), curve.ideal_risk.tolist()
    ([1.0, 0.5], [0.0, 0.5])
    """
    c, y = _inputs(confidence, success)
    _, inverse, pos, neg = level_counts(c, y)
    rate = neg / (pos + neg)
    expected_error = rate[np.sort(inverse)]  # level index ascending = confidence descending
    k = np.arange(1, len(c) + 1)
    risk = np.cumsum(expected_error) / k
    ideal_err = np.concatenate([np.zeros(int(y.sum())), np.ones(int((~y).sum()))])
    ideal = np.cumsum(ideal_err) / k
    aurc, aurc_ideal = float(risk.mean()), float(ideal.mean())
    return RiskCoverageCurve(
        coverage=k / len(c),
        risk=risk,
        ideal_risk=ideal,
        aurc=aurc,
        aurc_ideal=aurc_ideal,
        e_aurc=aurc - aurc_ideal,
        e_aurc_max=float((~y).mean()) - aurc_ideal,
    )


def rc_score_grid_from_counts(c: LevelCounts) -> np.ndarray:
    """P_rc on HAL's coverage grid (:data:`RC_VARIANTS`, ``grid``) for each batch row.

    Runs are taken in descending confidence; within a tied level each run counts the level's
    success rate (HAL's own order there is whatever its unstable sort leaves).
    """
    pos, n, through = (np.atleast_2d(x) for x in (c.pos, c.n, c.through))
    total, n_pos = np.atleast_1d(c.total), np.atleast_1d(c.n_pos)
    out = np.full(len(total), np.nan)
    for b in range(len(total)):
        big_n = total[b]
        if big_n <= 0:
            continue
        covered = np.maximum(1.0, np.floor(_GRID * big_n))
        level = np.minimum(np.searchsorted(through[b], covered, side="left"), n.shape[1] - 1)
        pos_before = np.cumsum(pos[b]) - pos[b]
        start = through[b] - n[b]
        with np.errstate(invalid="ignore", divide="ignore"):
            rate = np.where(n[b] > 0, pos[b] / n[b], 0.0)
        hits = pos_before[level] + (covered - start[level]) * rate[level]
        risk = 1.0 - hits / covered
        ideal = 1.0 - np.minimum(covered, n_pos[b]) / covered
        aurc, aurc_ideal = np.trapezoid(risk, _GRID), np.trapezoid(ideal, _GRID)
        excess_max = (1.0 - n_pos[b] / big_n) - aurc_ideal
        if excess_max > _GRID_EPSILON:
            score = 1.0 - (aurc - aurc_ideal) / (excess_max + _GRID_EPSILON)
            out[b] = np.clip(score, 0.0, 1.0)
        else:
            out[b] = 1.0
    return out if np.ndim(c.total) else out[0]


def risk_coverage_score(confidence: Any, success: Any, *, variant: str = "exact") -> float:
    """Risk–coverage score P_rc = 1 − E-AURC / E-AURC_max, clipped to [0, 1].

    E-AURC = AURC − AURC* (observed minus oracle order); E-AURC_max = (1 − accuracy) − AURC*,
    the excess of a random order. Ties in confidence use the exact expectation over all
    orders of the tied runs, so input order never matters. When E-AURC_max = 0 (all runs
    succeeded or all failed) the score is 1.0 by definition (docs/methodology.md,
    "Predictability").

    Examples
    --------
    >>> risk_coverage_score([0.9, 0.8, 0.2], [1, 1, 0])
    1.0
    >>> risk_coverage_score([0.2, 0.9], [1, 0])  # worst order: AURC 0.75, AURC* 0.25, max 0.25
    0.0
    >>> risk_coverage_score([0.5, 0.5], [1, 0])  # a tie is a random order
    0.0

    ``variant="grid"`` follows HAL's ``reliability_eval`` (:data:`RC_VARIANTS`).
    """
    check_option(variant, "variant", RC_VARIANTS)
    c, y = _inputs(confidence, success)
    _, _, pos, neg = level_counts(c, y)
    counts = LevelCounts.of(pos, neg)
    if variant == "grid":
        return float(rc_score_grid_from_counts(counts))
    return float(rc_score_from_counts(counts))
