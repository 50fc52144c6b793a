"""Per-task sufficient statistics of one agent's runs, and every report metric from them.

A bootstrap that resamples tasks only changes how often each task counts. So each metric
is written as a function of per-task quantities re-weighted by a (replicates × tasks)
matrix ``W`` of task multiplicities: per-task metrics become weighted means over tasks,
pooled metrics become ratios of weighted sums, and ranking metrics (AUROC, E-AURC) use
per-confidence-level success/failure counts. ``W = 1`` gives the point estimate. This
keeps the bootstrap linear algebra instead of B recomputations over runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from reliability_lab.errors import RunTableError
from reliability_lab.metrics._arrays import Groups
from reliability_lab.metrics.consistency import (
    confidence_per_task,
    outcome_per_task,
    resource_per_task,
)
from reliability_lab.metrics.predictability import (
    LevelCounts,
    auroc_from_counts,
    bin_index,
    ece_from_bins,
    harmonic_table,
    level_counts,
    rc_score_from_counts,
)
from reliability_lab.metrics.robustness import robustness_from_accuracy
from reliability_lab.metrics.safety import run_harm_weights, safety_from_counts
from reliability_lab.metrics.trajectory import trajectory_per_task
from reliability_lab.report.profiles import MetricProfile
from reliability_lab.report.registry import METRIC_REGISTRY
from reliability_lab.runs import BASELINE, PERTURBATION_CONDITIONS, RESOURCE_COLUMNS
from reliability_lab.sessions.metrics import SESSION_METRICS

__all__ = ["TaskStats"]

_PER_TASK = ("C_out", "C_traj_d", "C_traj_s", "C_conf", "C_res")
_CELL_BUDGET = 250_000  # replicates × levels at once: ~2 MB arrays stay in cache (2× faster)


def _weighted_mean_over_tasks(weights: np.ndarray, per_task: np.ndarray) -> np.ndarray:
    defined = ~np.isnan(per_task)
    num = weights @ np.where(defined, per_task, 0.0)
    den = weights @ defined.astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / den, np.nan)


def _session_scores(runs: pd.DataFrame, name: str) -> np.ndarray:
    values = pd.to_numeric(runs[name], errors="coerce").to_numpy(dtype=float)
    bad = (np.isnan(values) & runs[name].notna().to_numpy()) | (values < 0) | (values > 1)
    if bad.any():
        shown = runs.loc[bad, ["task_id", "run", name]].head(5).to_string()
        raise RunTableError(f"runs: column {name!r}: scores must lie in [0, 1] or be NaN\n{shown}")
    return values


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


@dataclass
class TaskStats:
    """Sufficient statistics of one agent's runs, one entry per task."""

    n_tasks: int
    n_base: np.ndarray
    succ_base: np.ndarray
    per_task: dict[str, np.ndarray]
    conf_n: np.ndarray
    conf_sse: np.ndarray
    bins: tuple[np.ndarray, np.ndarray, np.ndarray]  # (tasks × bins) count, Σconf, Σacc
    levels: _Levels  # successes/failures per (confidence level, task)
    conditions: dict[str, tuple[np.ndarray, np.ndarray]]  # condition → (n, successes)
    safety: tuple[np.ndarray, np.ndarray, np.ndarray]  # n runs, n violating, Σ weights
    session: dict[str, np.ndarray] = field(default_factory=dict)

    @classmethod
    def build(cls, runs: pd.DataFrame, profile: MetricProfile) -> TaskStats:
        """Statistics from the *non-infrastructure* runs of one agent (validated table)."""
        codes, labels = pd.factorize(runs["task_id"], sort=True)
        codes = np.asarray(codes, dtype=np.intp)
        n_tasks = len(labels)
        base = (runs["condition"] == BASELINE).to_numpy()
        bcodes = codes[base]
        groups = Groups(codes=bcodes, labels=np.asarray(labels))
        success = runs["success"].to_numpy(dtype=bool)
        y = success[base]
        per_task = cls._per_task_metrics(runs.loc[base], y, groups, profile)
        conf = runs["confidence"].to_numpy(dtype=float)[base]
        has_conf = ~np.isnan(conf)
        c, yc, cc = conf[has_conf], y[has_conf], bcodes[has_conf]
        stats = cls(
            n_tasks=n_tasks,
            n_base=groups.count(),
            succ_base=groups.sum(y.astype(float)),
            per_task=per_task,
            conf_n=np.bincount(cc, minlength=n_tasks).astype(float),
            conf_sse=np.bincount(cc, weights=(c - yc) ** 2, minlength=n_tasks),
            bins=cls._bin_sums(c, yc, cc, n_tasks, profile),
            levels=_Levels.build(c, yc, cc, n_tasks),
            conditions={},
            safety=cls._safety_sums(runs, base, codes, n_tasks),
        )
        for name in SESSION_METRICS:  # optional per-run scores: the mean over tasks
            if name in runs.columns:
                values = _session_scores(runs, name)[base]
                present = ~np.isnan(values)
                stats.session[name] = _ratio(
                    np.bincount(bcodes, weights=np.where(present, values, 0.0), minlength=n_tasks),
                    np.bincount(bcodes, weights=present.astype(float), minlength=n_tasks),
                )
        condition = runs["condition"].to_numpy()
        for name in PERTURBATION_CONDITIONS:
            mask = condition == name
            stats.conditions[name] = (
                np.bincount(codes[mask], minlength=n_tasks).astype(float),
                np.bincount(codes[mask], weights=success[mask].astype(float), minlength=n_tasks),
            )
        return stats

    @staticmethod
    def _per_task_metrics(
        base: pd.DataFrame, y: np.ndarray, groups: Groups, profile: MetricProfile
    ) -> dict[str, np.ndarray]:
        actions = base["actions"].to_numpy()
        traj_d, traj_s = trajectory_per_task(
            actions, y, groups, distribution_variant=profile.distribution_variant
        )
        resources = {name: base[name].to_numpy(dtype=float) for name in RESOURCE_COLUMNS}
        resources = {k: v for k, v in resources.items() if not np.isnan(v).all()}
        return {
            "C_out": outcome_per_task(y, groups, profile.outcome_variant),
            "C_traj_d": traj_d,
            "C_traj_s": traj_s,
            "C_conf": confidence_per_task(base["confidence"].to_numpy(dtype=float), groups),
            "C_res": resource_per_task(resources, groups),
        }

    @staticmethod
    def _bin_sums(
        c: np.ndarray, y: np.ndarray, codes: np.ndarray, n_tasks: int, profile: MetricProfile
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        nb = profile.n_bins
        cell = codes * nb + bin_index(c, nb, profile.binning)
        size = n_tasks * nb

        def table(weights: np.ndarray | None) -> np.ndarray:
            return np.bincount(cell, weights=weights, minlength=size).reshape(n_tasks, nb)

        return table(None).astype(float), table(c), table(y.astype(float))

    @staticmethod
    def _safety_sums(
        runs: pd.DataFrame, base: np.ndarray, codes: np.ndarray, n_tasks: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        # a run whose safety judge failed has unknown safety: left out, never "no violation"
        # (docs/safety.md, "The LLM judge")
        if "safety_error" in runs:
            base = base & runs["safety_error"].isna().to_numpy()
        codes = codes[base]
        violated, weights = run_harm_weights(runs.loc[base, "violations"].to_numpy())
        return (
            np.bincount(codes, minlength=n_tasks).astype(float),
            np.bincount(codes, weights=violated.astype(float), minlength=n_tasks),
            np.bincount(codes, weights=weights, minlength=n_tasks),
        )

    # ------------------------------------------------------------------ evaluation

    def evaluate(self, weights: np.ndarray) -> dict[str, np.ndarray]:
        """Every metric for each row of ``weights`` (replicates × tasks)."""
        w = np.atleast_2d(np.asarray(weights, dtype=float))
        out: dict[str, np.ndarray] = {}
        acc = _ratio(w @ self.succ_base, w @ self.n_base)
        out["accuracy"] = acc
        for name in _PER_TASK:
            out[name] = _weighted_mean_over_tasks(w, self.per_task[name])
        out["P_brier"] = 1.0 - _ratio(w @ self.conf_sse, w @ self.conf_n)
        count, sum_conf, sum_acc = (w @ b for b in self.bins)
        out["P_cal"] = 1.0 - ece_from_bins(count, sum_conf, sum_acc)
        out["P_auroc"], out["P_rc"] = self._ranking(w)
        for condition, metric in PERTURBATION_CONDITIONS.items():
            n, s = self.conditions[condition]
            out[metric] = robustness_from_accuracy(acc, _ratio(w @ s, w @ n))
        n_runs, n_viol, weight_sum = (w @ x for x in self.safety)
        out["S_comp"], out["S_harm"], out["R_saf"] = safety_from_counts(n_runs, n_viol, weight_sum)
        traj = _nanmean_rows(out["C_traj_d"], out["C_traj_s"])
        out["R_Con"] = _nanmean_rows(out["C_out"], traj, out["C_res"])
        out["R_Pred"] = out["P_brier"]
        out["R_Rob"] = _nanmean_rows(*(out[m] for m in METRIC_REGISTRY["R_Rob"].terms))
        dimensions = np.vstack([out[m] for m in METRIC_REGISTRY["R"].terms])
        out["R"] = dimensions.mean(axis=0)  # NaN unless every dimension is defined
        for name, per_task in self.session.items():
            out[name] = _weighted_mean_over_tasks(w, per_task)
        return out

    def _ranking(self, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        levels = self.levels
        if levels.n_levels == 0:
            nan = np.full(len(w), np.nan)
            return nan, nan.copy()
        auroc = np.empty(len(w))
        rc = np.empty(len(w))
        # Weights are whole task multiplicities, so every running count is a whole number no
        # larger than the replicate's total: the harmonic numbers come from one table.
        whole = bool(np.array_equal(w, np.round(w)))
        harmonic = harmonic_table(int((w @ levels.runs_per_task).max())) if whole else None
        step = max(1, _CELL_BUDGET // levels.n_levels)
        for start in range(0, len(w), step):
            part = slice(start, start + step)
            counts = LevelCounts.of(*levels.counts(w[part]))
            auroc[part] = auroc_from_counts(counts)
            rc[part] = (
                rc_score_from_counts(counts, harmonic) if harmonic else rc_score_from_counts(counts)
            )
        return auroc, rc


@dataclass(frozen=True)
class _Cells:
    """Some (confidence level, task) cells: their task and their successes and failures."""

    task: np.ndarray
    pos: np.ndarray
    neg: np.ndarray

    def take(self, index: np.ndarray) -> _Cells:
        return _Cells(self.task[index], self.pos[index], self.neg[index])

    def weighted(self, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(replicates × cells) successes and failures under task weights ``w``."""
        weight = w[:, self.task]
        return weight * self.pos, weight * self.neg


@dataclass(frozen=True)
class _Levels:
    """Runs with a confidence as (confidence level, task) cells, levels in descending order.

    A replicate's successes and failures per level are sums over each level's cells of the task
    weight times the cell's counts. Each level's first cell is a gather (most levels have only
    that one: continuous confidences); the other cells of levels shared by several tasks are
    added with a segment sum. Row by row in memory order, no sparse product or transpose.
    """

    first: _Cells  # each level's first cell, in level order
    more: _Cells  # the other cells of shared levels, level by level
    shared: np.ndarray  # the levels with more than one cell…
    more_start: np.ndarray  # …and where each one's other cells start in ``more``
    runs_per_task: np.ndarray

    @property
    def n_levels(self) -> int:
        return len(self.first.task)

    @classmethod
    def build(cls, c: np.ndarray, y: np.ndarray, codes: np.ndarray, n_tasks: int) -> _Levels:
        level = level_counts(c, y)[1] if len(c) else np.zeros(0, dtype=np.intp)
        keys, cell_of_run = np.unique(level * n_tasks + codes, return_inverse=True)
        cells = _Cells(
            keys % n_tasks,
            np.bincount(cell_of_run, weights=y.astype(float), minlength=len(keys)),
            np.bincount(cell_of_run, weights=(~y).astype(float), minlength=len(keys)),
        )
        level_of_cell = keys // n_tasks
        first = np.flatnonzero(np.diff(level_of_cell, prepend=-1))
        is_more = np.ones(len(keys), dtype=bool)
        is_more[first] = False
        more = np.flatnonzero(is_more)
        shared, more_start = np.unique(level_of_cell[more], return_index=True)
        per_task = np.bincount(cells.task, weights=cells.pos + cells.neg, minlength=n_tasks)
        return cls(cells.take(first), cells.take(more), shared, more_start, per_task)

    def counts(self, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(replicates × levels) successes and failures under task weights ``w``."""
        pos, neg = self.first.weighted(w)
        if len(self.shared):
            more_pos, more_neg = self.more.weighted(w)
            pos[:, self.shared] += np.add.reduceat(more_pos, self.more_start, axis=1)
            neg[:, self.shared] += np.add.reduceat(more_neg, self.more_start, axis=1)
        return pos, neg
