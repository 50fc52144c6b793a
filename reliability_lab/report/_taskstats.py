"""Per-task sufficient statistics of one agent's runs, and every report metric from them.

A bootstrap that resamples tasks only changes how often each task counts. So each metric
is written as a function of per-task quantities re-weighted by a (replicates × tasks)
matrix ``W`` of task multiplicities: per-task metrics become weighted means over tasks,
pooled metrics become ratios of weighted sums, and ranking metrics (AUROC, E-AURC) use
per-confidence-level success/failure counts. ``W = 1`` gives the point estimate. This
keeps the bootstrap linear algebra instead of B recomputations over runs.

The two-level bootstrap (:mod:`._within`) also resamples the runs of each drawn task. Its
pooled sums are the same :class:`Pooled` statistics kept per (task, run) unit, and its
per-task values come from the same kernels as the point estimate
(:meth:`BaselineRuns.per_group`), given run multiplicities; :meth:`TaskStats.combine` builds
the aggregates of both from the same code.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from reliability_lab._labels import LabelCodes
from reliability_lab.errors import RunTableError
from reliability_lab.metrics._arrays import Groups
from reliability_lab.metrics.consistency import (
    confidence_per_task,
    outcome_per_task,
    resource_per_task,
)
from reliability_lab.metrics.predictability import (
    auroc_from_counts,
    bin_index,
    ece_from_bins,
    harmonic_table,
    rc_score_from_counts,
    rc_score_grid_from_counts,
)
from reliability_lab.metrics.profiles import MetricProfile
from reliability_lab.metrics.registry import METRIC_REGISTRY
from reliability_lab.metrics.robustness import robustness_from_accuracy
from reliability_lab.metrics.safety import run_harm_weights, safety_from_counts
from reliability_lab.metrics.session import SESSION_METRICS
from reliability_lab.metrics.trajectory import TrajectoryPairs, trajectory_pairs
from reliability_lab.report._levels import DENSE_SUMS, Levels
from reliability_lab.runs import (
    BASELINE,
    PERTURBATION_CONDITIONS,
    RESOURCE_COLUMNS,
    safety_assessed,
)

__all__ = ["PER_TASK_METRICS", "BaselineRuns", "Pooled", "TaskStats", "TaskSums"]

#: Report metrics that are a mean over tasks of a per-task value (sessions added when present).
PER_TASK_METRICS = tuple(
    m.symbol for m in METRIC_REGISTRY.values() if m.per_task and m.dimension != "session"
)
#: Rows of weights up to which a matrix product is numpy's loop, not BLAS (``_Columns.sums``).
_FEW_ROWS = 16
_CELL_BUDGET = 100_000  # replicates × levels (or runs) at once: ~0.8 MB arrays stay in L2


def _session_scores(runs: pd.DataFrame, name: str) -> np.ndarray:
    values = pd.to_numeric(runs[name], errors="coerce").to_numpy(dtype=float)
    bad = (np.isnan(values) & runs[name].notna().to_numpy()) | (values < 0) | (values > 1)
    if bad.any():
        shown = runs.loc[bad, ["task_id", "run", name]].head(5).to_string()
        raise RunTableError(f"runs: column {name!r}: scores must lie in [0, 1] or be NaN\n{shown}")
    return values


def _values(
    runs: pd.DataFrame, name: str, rows: np.ndarray | None, dtype: Any = None
) -> np.ndarray:
    """Column ``name`` of ``runs`` as an array, only the rows ``rows`` (all if None)."""
    values = runs[name].to_numpy(dtype=dtype)
    return values if rows is None else values[rows]


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / den, np.nan)


def _nanmean_rows(*columns: np.ndarray, weights: tuple[float, ...] | None = None) -> np.ndarray:
    """Mean over the available (non-NaN) columns, re-weighted; NaN if none is available."""
    stack = np.vstack(columns)
    w = np.ones(len(columns)) if weights is None else np.asarray(weights)
    avail = ~np.isnan(stack)
    num = (np.where(avail, stack, 0.0) * w[:, None]).sum(axis=0)
    den = (avail * w[:, None]).sum(axis=0)
    return _ratio(num, den)


@dataclass(frozen=True)
class _Columns:
    """Per-unit vectors (and tables) stacked as the columns of one matrix, so that every
    replicate's weighted sums are one matrix product: ``w`` is read once, not once per sum."""

    matrix: np.ndarray  # units × columns
    parts: dict[str, slice | int]

    @classmethod
    def of(cls, named: dict[str, np.ndarray]) -> _Columns:
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
        success = _values(runs, "success", rows, bool)
        y = success[base]
        conf = _values(runs, "confidence", rows, float)[base]
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
    def _columns(self) -> _Columns:
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
        return _Columns.of(named)

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
        acc = _ratio(sums["succ_base"], sums["n_base"])
        out["accuracy"] = acc
        out["P_brier"] = 1.0 - _ratio(sums["conf_sse"], sums["conf_n"])
        out["P_cal"] = 1.0 - ece_from_bins(sums["bin_count"], sums["bin_conf"], sums["bin_acc"])
        out["P_auroc"], out["P_rc"] = self._ranking(w, sums)
        for condition, metric in PERTURBATION_CONDITIONS.items():
            ratio = _ratio(sums[f"{condition}_s"], sums[f"{condition}_n"])
            out[metric] = robustness_from_accuracy(acc, ratio)
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


@dataclass
class BaselineRuns:
    """One agent's baseline runs, sorted by task: what the per-task kernels read.

    :meth:`per_group` scores any grouping of these rows with multiplicities — the tasks
    themselves for the point estimate, resampled copies of tasks in the two-level bootstrap.
    """

    task: np.ndarray  # task code of each row (ascending)
    run: np.ndarray  # the row's repetition index
    y: np.ndarray
    confidence: np.ndarray
    resources: dict[str, np.ndarray]
    session: dict[str, np.ndarray]
    pairs: TrajectoryPairs  # pairs of eligible rows, grouped by task in ascending order
    profile: MetricProfile

    @classmethod
    def build(
        cls,
        runs: pd.DataFrame,
        codes: np.ndarray,
        n_tasks: int,
        profile: MetricProfile,
        rows: np.ndarray | None,
        condition: LabelCodes,
    ) -> BaselineRuns:
        """From the non-infrastructure runs — the rows ``rows`` of ``runs`` (all if None) —
        their task codes (``0 … n_tasks − 1``) and their conditions."""
        base = np.flatnonzero(condition.equals(BASELINE))
        order = base[np.argsort(codes[base], kind="stable")]
        task = codes[order]
        rows = order if rows is None else rows[order]
        names = RESOURCE_COLUMNS if profile.resources is None else profile.resources
        needed = ("task_id", "run", "success", "confidence", "actions", *names, *SESSION_METRICS)
        # only the columns read here are gathered (runs.iloc[rows] would copy every column)
        columns = runs.columns.get_indexer(
            pd.Index([c for c in dict.fromkeys(needed) if c in runs])
        )
        table = runs.iloc[rows, columns]
        y = table["success"].to_numpy(dtype=bool)
        resources = {name: table[name].to_numpy(dtype=float) for name in names}
        groups = Groups(codes=task, labels=np.arange(n_tasks))
        pairs = trajectory_pairs(
            table["actions"].array,
            y,
            groups,
            distribution_variant=profile.distribution_variant,
        )
        return cls(
            task=task,
            run=table["run"].to_numpy(dtype=np.int64),
            y=y,
            confidence=table["confidence"].to_numpy(dtype=float),
            resources={k: v for k, v in resources.items() if not np.isnan(v).all()},
            session={n: _session_scores(table, n) for n in SESSION_METRICS if n in runs.columns},
            pairs=pairs,
            profile=profile,
        )

    def per_group(self, rows: np.ndarray | None, groups: Groups) -> dict[str, np.ndarray]:
        """C_out, C_conf, C_res and the session means per group of ``rows`` (all if None),
        each row counted ``groups.weight`` times. Trajectory terms: :meth:`trajectory`."""
        pick = slice(None) if rows is None else rows
        profile = self.profile
        out = {
            "C_out": outcome_per_task(self.y[pick], groups, profile.outcome_variant),
            "C_conf": confidence_per_task(
                self.confidence[pick], groups, profile.confidence_variant
            ),
            "C_res": resource_per_task(
                {k: v[pick] for k, v in self.resources.items()}, groups, profile.resource_variant
            ),
        }
        for name, values in self.session.items():
            present = ~np.isnan(values[pick])
            out[name] = _ratio(
                groups.sum(np.where(present, values[pick], 0.0)), groups.count(present)
            )
        return out


class TaskSums(NamedTuple):
    """The weighted sums of :meth:`TaskStats.sums` for rows of task multiplicities."""

    pooled: dict[str, np.ndarray]
    per_task: dict[str, np.ndarray]


@dataclass
class TaskStats:
    """Sufficient statistics of one agent's runs, one entry per task."""

    n_tasks: int
    pooled: Pooled
    per_task: dict[str, np.ndarray]
    baseline: BaselineRuns
    codes: np.ndarray  # task code of every run the statistics are of (``rows`` of the table)
    condition: LabelCodes  # the condition of each of those runs
    session_names: tuple[str, ...] = field(default_factory=tuple)
    rows: np.ndarray | None = None  # the rows of the table given to build (None = all)

    @classmethod
    def build(
        cls,
        runs: pd.DataFrame,
        profile: MetricProfile,
        rows: np.ndarray | None = None,
        labels: Mapping[str, LabelCodes] | None = None,
    ) -> TaskStats:
        """Statistics from the *non-infrastructure* runs of one agent (validated table): the
        rows ``rows`` of ``runs`` (positions; all if None), so that leaving runs out never
        copies the table. ``labels``: the ``task_id`` and ``condition`` codes of every row of
        ``runs`` as validation made them (:func:`~reliability_lab.runs.coded_run_table`);
        factorized here if not given.

        Tasks are coded in sorted label order (``0 … n_tasks − 1``).
        """
        if labels is None:
            labels = {name: LabelCodes.of(runs[name]) for name in ("task_id", "condition")}
        codes, task_labels = labels["task_id"].sorted_codes(rows)
        condition = labels["condition"].take(rows)
        n_tasks = len(task_labels)
        baseline = BaselineRuns.build(runs, codes, n_tasks, profile, rows, condition)
        groups = Groups(codes=baseline.task, labels=np.arange(n_tasks))
        per_task = baseline.per_group(None, groups)
        per_task["C_traj_d"], per_task["C_traj_s"] = baseline.pairs.per_task()
        return cls(
            n_tasks=n_tasks,
            pooled=Pooled.build(runs, codes, n_tasks, profile, rows, condition),
            per_task=per_task,
            baseline=baseline,
            codes=codes,
            condition=condition,
            session_names=tuple(baseline.session),
            rows=rows,
        )

    @cached_property
    def _per_task_columns(self) -> _Columns:
        """Per defined task value: the value (0 where undefined) and 1 (0 where undefined)."""
        named = {}
        for name in (*PER_TASK_METRICS, *self.session_names):
            defined = ~np.isnan(self.per_task[name])
            named[f"{name}_sum"] = np.where(defined, self.per_task[name], 0.0)
            named[f"{name}_n"] = defined.astype(float)
        return _Columns.of(named)

    def sums(self, weights: np.ndarray) -> TaskSums:
        """Every weighted sum of per-task statistics the metrics of each row of ``weights``
        (replicates × tasks) are made of — the matrix products, done apart from the rest.

        A multithreaded BLAS keeps its worker threads spinning for ~0.1 s after each product;
        between products separated by other work, that spinning costs a core. The bootstrap
        therefore makes the products of all its chunks of replicates one after the other
        (:func:`~reliability_lab.report._bootstrap.paired_replicates`), then the rest.
        """
        w = np.atleast_2d(np.asarray(weights))
        return TaskSums(self.pooled.sums(w), self._per_task_columns.sums(w.astype(float)))

    def evaluate(self, weights: np.ndarray, sums: TaskSums | None = None) -> dict[str, np.ndarray]:
        """Every metric for each row of ``weights`` (replicates × tasks): task multiplicities,
        as integers (whole numbers, known without a check) or floats. ``sums``:
        :meth:`sums` of ``weights``, if already made."""
        w = np.atleast_2d(np.asarray(weights))
        sums = self.sums(w) if sums is None else sums
        means = {
            name: _ratio(sums.per_task[f"{name}_sum"], sums.per_task[f"{name}_n"])
            for name in (*PER_TASK_METRICS, *self.session_names)
        }
        return self.combine(self.pooled.evaluate(w, sums.pooled), means)

    def combine(
        self, pooled: dict[str, np.ndarray], means: dict[str, np.ndarray]
    ) -> dict[str, np.ndarray]:
        """Every metric from the pooled metrics and the means over tasks of per-task values."""
        out = {"accuracy": pooled["accuracy"]}
        out.update({name: means[name] for name in PER_TASK_METRICS})
        out.update({k: v for k, v in pooled.items() if k != "accuracy"})
        traj = _nanmean_rows(out["C_traj_d"], out["C_traj_s"])
        out["R_Con"] = _nanmean_rows(out["C_out"], traj, out["C_res"])
        out["R_Pred"] = out["P_brier"]
        out["R_Rob"] = _nanmean_rows(*(out[m] for m in METRIC_REGISTRY["R_Rob"].terms))
        dimensions = np.vstack([out[m] for m in METRIC_REGISTRY["R"].terms])
        out["R"] = dimensions.mean(axis=0)  # NaN unless every dimension is defined
        for name in self.session_names:
            out[name] = means[name]
        return out
