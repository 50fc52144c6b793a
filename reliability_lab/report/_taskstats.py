"""Per-task sufficient statistics of one agent's runs, and every report metric from them.

A bootstrap that resamples tasks only changes how often each task counts. So each metric
is written as a function of per-task quantities re-weighted by a (replicates × tasks)
matrix ``W`` of task multiplicities: per-task metrics become weighted means over tasks,
pooled metrics become ratios of weighted sums, and ranking metrics (AUROC, E-AURC) use
per-confidence-level success/failure counts. ``W = 1`` gives the point estimate. This
keeps the bootstrap linear algebra instead of B recomputations over runs.

The two-level bootstrap (:mod:`._within`) also resamples the runs of each drawn task. Its
pooled sums are the same :class:`~._pooled.Pooled` statistics kept per (task, run) unit, and its
per-task values come from the same kernels as the point estimate
(:meth:`BaselineRuns.per_group`), given run multiplicities; :meth:`TaskStats.combine` builds
the aggregates of both from the same code.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

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
from reliability_lab.metrics.profiles import MetricProfile
from reliability_lab.metrics.registry import METRIC_REGISTRY
from reliability_lab.metrics.session import SESSION_METRICS
from reliability_lab.metrics.trajectory import TrajectoryPairs, trajectory_pairs
from reliability_lab.report._pooled import Columns, Pooled, ratio
from reliability_lab.runs import BASELINE, RESOURCE_COLUMNS

__all__ = ["PER_TASK_METRICS", "BaselineRuns", "TaskStats", "TaskSums"]

#: Report metrics that are a mean over tasks of a per-task value (sessions added when present).
PER_TASK_METRICS = tuple(
    m.symbol for m in METRIC_REGISTRY.values() if m.per_task and m.dimension != "session"
)


def _session_scores(runs: pd.DataFrame, name: str) -> np.ndarray:
    values = pd.to_numeric(runs[name], errors="coerce").to_numpy(dtype=float)
    bad = (np.isnan(values) & runs[name].notna().to_numpy()) | (values < 0) | (values > 1)
    if bad.any():
        shown = runs.loc[bad, ["task_id", "run", name]].head(5).to_string()
        raise RunTableError(f"runs: column {name!r}: scores must lie in [0, 1] or be NaN\n{shown}")
    return values


def _nanmean_rows(*columns: np.ndarray, weights: tuple[float, ...] | None = None) -> np.ndarray:
    """Mean over the available (non-NaN) columns, re-weighted; NaN if none is available."""
    stack = np.vstack(columns)
    w = np.ones(len(columns)) if weights is None else np.asarray(weights)
    avail = ~np.isnan(stack)
    num = (np.where(avail, stack, 0.0) * w[:, None]).sum(axis=0)
    den = (avail * w[:, None]).sum(axis=0)
    return ratio(num, den)


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
            out[name] = ratio(
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
    def _per_task_columns(self) -> Columns:
        """Per defined task value: the value (0 where undefined) and 1 (0 where undefined)."""
        named = {}
        for name in (*PER_TASK_METRICS, *self.session_names):
            defined = ~np.isnan(self.per_task[name])
            named[f"{name}_sum"] = np.where(defined, self.per_task[name], 0.0)
            named[f"{name}_n"] = defined.astype(float)
        return Columns.of(named)

    def sums(self, weights: np.ndarray) -> TaskSums:
        """Every weighted sum of per-task statistics the metrics of each row of ``weights``
        (replicates × tasks) are made of — the matrix products, done apart from the rest.

        A multithreaded BLAS keeps its worker threads spinning for ~0.1 s after each product;
        between products separated by other work, that spinning costs a core. The bootstrap
        therefore makes the products of all its chunks of replicates one after the other
        (:func:`~reliability_lab.report._bootstrap.paired_replicates`), then the rest.
        """
        w = np.atleast_2d(np.asarray(weights)).astype(float, copy=False)  # once, for both
        return TaskSums(self.pooled.sums(w), self._per_task_columns.sums(w))

    def evaluate(self, weights: np.ndarray, sums: TaskSums | None = None) -> dict[str, np.ndarray]:
        """Every metric for each row of ``weights`` (replicates × tasks): task multiplicities,
        as integers (whole numbers, known without a check) or floats. ``sums``:
        :meth:`sums` of ``weights``, if already made."""
        w = np.atleast_2d(np.asarray(weights))
        sums = self.sums(w) if sums is None else sums
        means = {
            name: ratio(sums.per_task[f"{name}_sum"], sums.per_task[f"{name}_n"])
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
