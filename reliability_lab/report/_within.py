"""Resampling the runs within tasks: the two-level bootstrap and the within-task bootstrap.

A replicate first draws tasks (a row of task multiplicities), then, independently for every
drawn copy of a task, draws that task's K_t runs with replacement (Davison & Hinkley 1997,
§3.8, "two-stage sampling"). The unit of the run draw is a (task, run index) pair, so the
baseline run and the perturbed runs that share its seed stay together (paired).

Nothing is recomputed over runs: a replicate's pooled metrics are the per-(task, run)
:class:`~reliability_lab.report._pooled.Pooled` sums weighted by how often each unit was
drawn, and each copy's per-task values come from the point estimate's own kernels
(:meth:`~reliability_lab.report._taskstats.BaselineRuns.per_group`) with the drawn
multiplicities, trajectory similarities from the pairs computed once. Replicates are processed
in chunks whose arrays stay around ten megabytes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from reliability_lab.metrics._arrays import Groups
from reliability_lab.metrics.profiles import MetricProfile
from reliability_lab.metrics.trajectory import pair_means
from reliability_lab.report._pooled import Pooled
from reliability_lab.report._taskstats import TaskStats

__all__ = ["RunResampler"]

_ELEMENT_BUDGET = 1_000_000  # (units + rows + pairs) × replicates per chunk


def _ragged_arange(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """``concat(range(s, s + n) for s, n in zip(starts, lengths))`` without a Python loop."""
    offsets = np.cumsum(lengths) - lengths
    return np.repeat(starts - offsets, lengths) + np.arange(int(lengths.sum()))


@dataclass(frozen=True)
class _Copies:
    """The drawn copies of tasks in a chunk of replicates and their run multiplicities."""

    replicate: np.ndarray  # per copy
    task: np.ndarray  # per copy
    slot_start: np.ndarray  # per copy: where its (copy, unit) slots start in ``mult``
    mult: np.ndarray  # per (copy, unit) slot: how often that unit was drawn for that copy
    slot_copy: np.ndarray  # per slot: its copy

    @property
    def n(self) -> int:
        return len(self.task)


@dataclass(frozen=True)
class RunResampler:
    """Run-level replicates of one agent's metrics (see the module docstring)."""

    stats: TaskStats
    pooled: Pooled  # per (task, run) unit; units sorted by task, then run
    units_per_task: np.ndarray  # K_t: distinct run indices of each task
    unit_start: np.ndarray  # first unit of each task
    row_unit: np.ndarray  # per baseline row: its unit within its task (0 … K_t − 1)
    row_start: np.ndarray  # first baseline row of each task
    rows_per_task: np.ndarray
    pair_start: np.ndarray  # first trajectory pair of each task
    pairs_per_task: np.ndarray

    @classmethod
    def build(cls, runs: pd.DataFrame, stats: TaskStats, profile: MetricProfile) -> RunResampler:
        """From the table ``stats`` was built from (its rows ``stats.rows``: the
        non-infrastructure runs)."""
        t = stats.n_tasks
        run = runs["run"].to_numpy(dtype=np.int64)
        run = run if stats.rows is None else run[stats.rows]
        key = stats.codes.astype(np.int64) * (int(run.max()) + 1) + run
        unit_codes, unit_keys = pd.factorize(key, sort=True)
        unit_keys = np.asarray(unit_keys, dtype=np.int64)
        unit_task = unit_keys // (int(run.max()) + 1)
        units_per_task = np.bincount(unit_task, minlength=t)
        unit_start = np.cumsum(units_per_task) - units_per_task
        base = stats.baseline
        row_key = base.task.astype(np.int64) * (int(run.max()) + 1) + base.run
        row_unit = np.searchsorted(unit_keys, row_key) - unit_start[base.task]
        rows_per_task = np.bincount(base.task, minlength=t)
        pairs_per_task = np.bincount(base.pairs.group, minlength=t)
        return cls(
            stats=stats,
            pooled=Pooled.build(
                runs,
                np.asarray(unit_codes, dtype=np.intp),
                len(unit_keys),
                profile,
                stats.rows,
                stats.condition,
            ),
            units_per_task=units_per_task,
            unit_start=unit_start,
            row_unit=row_unit,
            row_start=np.cumsum(rows_per_task) - rows_per_task,
            rows_per_task=rows_per_task,
            pair_start=np.cumsum(pairs_per_task) - pairs_per_task,
            pairs_per_task=pairs_per_task,
        )

    @property
    def n_units(self) -> int:
        return int(self.units_per_task.sum())

    def evaluate(self, task_weights: np.ndarray, rng: np.random.Generator) -> dict[str, np.ndarray]:
        """Every metric for each row of ``task_weights`` (replicates × tasks, whole numbers),
        the runs of every drawn copy of a task drawn anew with replacement.

        Rows of ones give the within-task bootstrap (tasks fixed, runs resampled).
        """
        tw = np.atleast_2d(np.asarray(task_weights)).astype(np.int64)
        per_replicate = (
            self.n_units + len(self.stats.baseline.task) + len(self.stats.baseline.pairs.first)
        )
        step = max(1, _ELEMENT_BUDGET // max(per_replicate, 1))
        parts = [self._chunk(tw[s : s + step], rng) for s in range(0, len(tw), step)]
        return {name: np.concatenate([p[name] for p in parts]) for name in parts[0]}

    def _draw(self, tw: np.ndarray, rng: np.random.Generator) -> _Copies:
        b, t = tw.shape
        counts = tw.ravel()
        task = np.repeat(np.tile(np.arange(t), b), counts)
        replicate = np.repeat(np.repeat(np.arange(b), t), counts)
        k = self.units_per_task[task]
        slot_start = np.cumsum(k) - k
        slot_copy = np.repeat(np.arange(len(task)), k)
        draw = (rng.random(len(slot_copy)) * k[slot_copy]).astype(np.int64)
        mult = np.bincount(slot_start[slot_copy] + draw, minlength=len(slot_copy)).astype(float)
        return _Copies(replicate, task, slot_start, mult, slot_copy)

    def _chunk(self, tw: np.ndarray, rng: np.random.Generator) -> dict[str, np.ndarray]:
        b = len(tw)
        copies = self._draw(tw, rng)
        # pooled: multiplicity of every (task, run) unit in each replicate
        slot_unit = (
            self.unit_start[copies.task[copies.slot_copy]]
            + np.arange(len(copies.mult))
            - copies.slot_start[copies.slot_copy]
        )
        flat = copies.replicate[copies.slot_copy] * self.n_units + slot_unit
        w = np.bincount(flat, weights=copies.mult, minlength=b * self.n_units)
        pooled = self.pooled.evaluate(w.reshape(b, self.n_units))
        # per-task values of every copy, then their mean over the copies of each replicate
        values = self._copy_values(copies)
        means = {}
        for name, per_copy in values.items():
            defined = ~np.isnan(per_copy)
            num = np.bincount(copies.replicate, np.where(defined, per_copy, 0.0), minlength=b)
            den = np.bincount(copies.replicate, defined.astype(float), minlength=b)
            with np.errstate(invalid="ignore", divide="ignore"):
                means[name] = np.where(den > 0, num / den, np.nan)
        return self.stats.combine(pooled, means)

    def _copy_values(self, copies: _Copies) -> dict[str, np.ndarray]:
        base = self.stats.baseline
        n_rows = self.rows_per_task[copies.task]
        entry_copy = np.repeat(np.arange(copies.n), n_rows)
        entry_row = _ragged_arange(self.row_start[copies.task], n_rows)
        mult = copies.mult[copies.slot_start[entry_copy] + self.row_unit[entry_row]]
        drawn = mult > 0
        groups = Groups(entry_copy[drawn], np.arange(copies.n), mult[drawn])
        values = base.per_group(entry_row[drawn], groups)
        # trajectory terms from the task's pairs, each weighted by its two runs' multiplicities
        # (a drawn run is never paired with its own copy: see ``pair_means``)
        pairs = base.pairs
        n_pairs = self.pairs_per_task[copies.task]
        pair_copy = np.repeat(np.arange(copies.n), n_pairs)
        pair = _ragged_arange(self.pair_start[copies.task], n_pairs)
        slot = copies.slot_start[pair_copy]
        weight = (
            copies.mult[slot + self.row_unit[pairs.first[pair]]]
            * copies.mult[slot + self.row_unit[pairs.second[pair]]]
        )
        values["C_traj_d"] = pair_means(pairs.distribution[pair], pair_copy, weight, copies.n)
        values["C_traj_s"] = pair_means(pairs.sequence[pair], pair_copy, weight, copies.n)
        return values
