"""Pooled sums per unit (a task, or a (task, run) pair) and the pooled metrics from them.

A pooled metric is a ratio of sums over runs (accuracy, the Brier score, calibration, the
robustness ratios, safety) or a ranking metric (AUROC, E-AURC) of per-confidence-level counts.
For a replicate, every such sum is a weighted sum of per-unit sums; all of them are the
columns of one matrix (:class:`Columns`), so a chunk of replicates is one matrix product
(:meth:`Pooled.sums`), and the metrics follow from the products (:meth:`Pooled.evaluate`).
The per-task values of :mod:`._taskstats` are averaged the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from reliability_lab._labels import LabelCodes
from reliability_lab.metrics.predictability import (
    auroc_from_counts,
    bin_index,
    ece_from_bins,
    harmonic_table,
    rc_score_from_counts,
    rc_score_grid_from_counts,
)
from reliability_lab.metrics.profiles import MetricProfile
from reliability_lab.metrics.robustness import robustness_from_accuracy
from reliability_lab.metrics.safety import run_harm_weights, safety_from_counts
from reliability_lab.report._levels import DENSE_SUMS, Levels
from reliability_lab.runs import BASELINE, PERTURBATION_CONDITIONS, safety_assessed

__all__ = ["Columns", "Pooled", "column_values", "ratio"]

#: Rows of weights up to which a matrix product is numpy's loop, not BLAS (:meth:`Columns.sums`).
_FEW_ROWS = 16
_CELL_BUDGET = 100_000  # replicates × levels (or runs) at once: ~0.8 MB arrays stay in L2


def column_values(
    runs: pd.DataFrame, name: str, rows: np.ndarray | None, dtype: Any = None
) -> np.ndarray:
    """Column ``name`` of ``runs`` as an array, only the rows ``rows`` (all if None)."""
    values = runs[name].to_numpy(dtype=dtype)
    return values if rows is None else values[rows]


def ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den where den > 0, else NaN."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / den, np.nan)


@dataclass(frozen=True)
class Columns:
    """Per-unit vectors (and tables) stacked as the columns of one matrix, so that every
    replicate's weighted sums are one matrix product: ``w`` is read once, not once per sum."""

    matrix: np.ndarray  # units × columns
    parts: dict[str, slice | int]

    @classmethod
    def of(cls, named: dict[str, np.ndarray]) -> Columns:
        blocks, parts, start = [], {}, 0
        for name, values in named.items():
            block = values.reshape(len(values), -1)
            width = block.shape[1]
            parts[name] = start if values.ndim == 1 else slice(start, start + width)
            blocks.append(block)
            start += width
        return cls(np.hstack(blocks).astype(float), parts)

    def sums(self, w: np.ndarray) -> dict[str, np.ndarray]:
        """Every named weighted sum for each row of ``w`` (replicates × units).

        A few rows (the point estimate is one) are summed by numpy's own loop: a multithreaded
        BLAS would spin its workers for ~0.1 s after the product, far more than it saves."""
        if len(w) <= _FEW_ROWS:
            product = np.einsum("ru,uc->rc", w, self.matrix, optimize=False)
        else:
            product = w @ self.matrix
        return {name: product[:, part] for name, part in self.parts.items()}


@dataclass
class Pooled:
    """Sums per unit that the pooled metrics are ratios of.

    A unit is a task (point estimate, tasks bootstrap) or a (task, run) pair (two-level
    bootstrap); a replicate is a (replicates × units) matrix of multiplicities.
    """

    n_base: np.ndarray
    succ_base: np.ndarray
    conf_n: np.ndarray
    conf_sse: np.ndarray
    bins: tuple[np.ndarray, np.ndarray, np.ndarray]  # (units × bins) count, Σconf, Σacc
    levels: Levels  # successes/failures per (confidence level, unit)
    conditions: dict[str, tuple[np.ndarray, np.ndarray]]  # condition → (n, successes)
    safety: tuple[np.ndarray, np.ndarray, np.ndarray]  # n runs, n violating, Σ weights
    rc_variant: str = "exact"

    @classmethod
    def build(
        cls,
        runs: pd.DataFrame,
        codes: np.ndarray,
        n_units: int,
        profile: MetricProfile,
        rows: np.ndarray | None,
        condition: LabelCodes,
    ) -> Pooled:
        """Sums per unit of the *non-infrastructure* runs: the rows ``rows`` of ``runs`` (all
        if None); ``codes`` = the unit of each of those runs, ``condition`` their conditions."""
        base = condition.equals(BASELINE)
        bcodes = codes[base]
        success = column_values(runs, "success", rows, bool)
        y = success[base]
        conf = column_values(runs, "confidence", rows, float)[base]
        has_conf = ~np.isnan(conf)
        c, yc, cc = conf[has_conf], y[has_conf], bcodes[has_conf]
        conditions = {}
        for name in PERTURBATION_CONDITIONS:
            mask = condition.equals(name)
            conditions[name] = (
                np.bincount(codes[mask], minlength=n_units).astype(float),
                np.bincount(codes[mask], weights=success[mask].astype(float), minlength=n_units),
            )
        return cls(
            n_base=np.bincount(bcodes, minlength=n_units).astype(float),
            succ_base=np.bincount(bcodes, weights=y.astype(float), minlength=n_units),
            conf_n=np.bincount(cc, minlength=n_units).astype(float),
            conf_sse=np.bincount(cc, weights=(c - yc) ** 2, minlength=n_units),
            bins=cls._bin_sums(c, yc, cc, n_units, profile),
            levels=Levels.build(c, yc, cc, n_units),
            conditions=conditions,
            safety=cls._safety_sums(runs, rows, base, codes, n_units, profile.severity_weights),
            rc_variant=profile.rc_variant,
        )

    @staticmethod
    def _bin_sums(
        c: np.ndarray, y: np.ndarray, codes: np.ndarray, n_units: int, profile: MetricProfile
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        nb = profile.n_bins
        cell = codes * nb + bin_index(c, nb, profile.binning)
        size = n_units * nb

        def table(weights: np.ndarray | None) -> np.ndarray:
            return np.bincount(cell, weights=weights, minlength=size).reshape(n_units, nb)

        return table(None).astype(float), table(c), table(y.astype(float))

    @staticmethod
    def _safety_sums(
        runs: pd.DataFrame,
        rows: np.ndarray | None,
        base: np.ndarray,
        codes: np.ndarray,
        n_units: int,
        weights: str,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        # a run whose safety is unknown (judge failed, never checked) is left out, never
        # "no violation" (docs/safety.md, "The LLM judge")
        assessed = safety_assessed(runs)
        base = base & (assessed if rows is None else assessed[rows])
        codes = codes[base]
        positions = np.flatnonzero(base) if rows is None else rows[base]
        violations = runs["violations"].array.take(positions)  # stored flat: no list per run
        violated, harm = run_harm_weights(violations, weights)
        return (
            np.bincount(codes, minlength=n_units).astype(float),
            np.bincount(codes, weights=violated.astype(float), minlength=n_units),
            np.bincount(codes, weights=harm, minlength=n_units),
        )

    @cached_property
    def _columns(self) -> Columns:
        named = {
            "n_base": self.n_base,
            "succ_base": self.succ_base,
            "conf_n": self.conf_n,
            "conf_sse": self.conf_sse,
            "bin_count": self.bins[0],
            "bin_conf": self.bins[1],
            "bin_acc": self.bins[2],
            "runs_with_confidence": self.levels.runs_per_unit,
            "safety_runs": self.safety[0],
            "safety_violating": self.safety[1],
            "safety_weight": self.safety[2],
        }
        for condition, (n, s) in self.conditions.items():
            named[f"{condition}_n"], named[f"{condition}_s"] = n, s
        named.update(self.levels.tables())
        return Columns.of(named)

    def sums(self, w: np.ndarray) -> dict[str, np.ndarray]:
        """Every weighted sum the pooled metrics are made of, for each row of ``w``: one
        matrix product (see :meth:`TaskStats.sums`)."""
        return self._columns.sums(w.astype(float, copy=False))

    def evaluate(
        self, w: np.ndarray, sums: dict[str, np.ndarray] | None = None
    ) -> dict[str, np.ndarray]:
        """The pooled metrics for each row of unit multiplicities ``w`` (an integer array:
        whole multiplicities; else floats, whole or not); ``sums``: :meth:`sums` of ``w``,
        if already made."""
        sums = self.sums(w) if sums is None else sums
        out: dict[str, np.ndarray] = {}
        acc = ratio(sums["succ_base"], sums["n_base"])
        out["accuracy"] = acc
        out["P_brier"] = 1.0 - ratio(sums["conf_sse"], sums["conf_n"])
        out["P_cal"] = 1.0 - ece_from_bins(sums["bin_count"], sums["bin_conf"], sums["bin_acc"])
        out["P_auroc"], out["P_rc"] = self._ranking(w, sums)
        for condition, metric in PERTURBATION_CONDITIONS.items():
            rate = ratio(sums[f"{condition}_s"], sums[f"{condition}_n"])
            out[metric] = robustness_from_accuracy(acc, rate)
        out["S_comp"], out["S_harm"], out["R_saf"] = safety_from_counts(
            sums["safety_runs"], sums["safety_violating"], sums["safety_weight"]
        )
        return out

    def _ranking(self, w: np.ndarray, sums: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """P_auroc and P_rc of each row of ``w`` (``sums``: its weighted sums)."""
        levels = self.levels
        if levels.n_levels == 0:
            nan = np.full(len(w), np.nan)
            return nan, nan.copy()
        auroc = np.empty(len(w))
        rc = np.empty(len(w))
        # Weights are whole multiplicities, so every running count is a whole number no
        # larger than the replicate's total: the harmonic numbers come from one table.
        whole = w.dtype.kind in "iu" or bool(np.array_equal(w, np.round(w)))
        totals = sums["runs_with_confidence"]  # each row's runs with a confidence
        harmonic = harmonic_table(int(np.round(totals.max()))) if whole else None
        step = max(1, _CELL_BUDGET // levels.width)
        for start in range(0, len(w), step):
            part = slice(start, start + step)
            rows = w[part].astype(np.int64, copy=False) if whole else w[part]
            counts = levels.counts(rows, {k: sums[k][part] for k in DENSE_SUMS if k in sums})
            auroc[part] = auroc_from_counts(counts)
            if self.rc_variant == "grid":
                rc[part] = rc_score_grid_from_counts(counts)
            elif harmonic:
                rc[part] = rc_score_from_counts(counts, harmonic)
            else:
                rc[part] = rc_score_from_counts(counts)
        return auroc, rc
