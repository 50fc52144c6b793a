"""Successes and failures per (confidence level, unit), for the ranking metrics' bootstrap.

A unit is a task (tasks bootstrap) or a (task, run) pair (two-level bootstrap); a replicate
gives every unit a multiplicity, and the ranking metrics (AUROC, E-AURC) need the weighted
successes and failures at every confidence level.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reliability_lab.metrics.predictability import level_counts

__all__ = ["Levels"]


@dataclass(frozen=True)
class _Cells:
    """Some (confidence level, unit) cells: their unit and their successes and failures."""

    unit: np.ndarray
    pos: np.ndarray
    neg: np.ndarray

    def take(self, index: np.ndarray) -> _Cells:
        return _Cells(self.unit[index], self.pos[index], self.neg[index])

    def weighted(self, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(replicates × cells) successes and failures under unit weights ``w``."""
        weight = w[:, self.unit]
        return weight * self.pos, weight * self.neg


@dataclass(frozen=True)
class Levels:
    """Runs with a confidence as (confidence level, unit) cells, levels in descending order.

    A replicate's successes and failures per level are sums over each level's cells of the unit
    weight times the cell's counts. Each level's first cell is a gather (most levels have only
    that one: continuous confidences); the other cells of levels shared by several units are
    added with a segment sum. Row by row in memory order, no sparse product or transpose.
    """

    first: _Cells  # each level's first cell, in level order
    more: _Cells  # the other cells of shared levels, level by level
    shared: np.ndarray  # the levels with more than one cell…
    more_start: np.ndarray  # …and where each one's other cells start in ``more``
    runs_per_unit: np.ndarray

    @property
    def n_levels(self) -> int:
        return len(self.first.unit)

    @classmethod
    def build(cls, c: np.ndarray, y: np.ndarray, codes: np.ndarray, n_units: int) -> Levels:
        level = level_counts(c, y)[1] if len(c) else np.zeros(0, dtype=np.intp)
        keys, cell_of_run = np.unique(level * n_units + codes, return_inverse=True)
        cells = _Cells(
            keys % n_units,
            np.bincount(cell_of_run, weights=y.astype(float), minlength=len(keys)),
            np.bincount(cell_of_run, weights=(~y).astype(float), minlength=len(keys)),
        )
        level_of_cell = keys // n_units
        first = np.flatnonzero(np.diff(level_of_cell, prepend=-1))
        is_more = np.ones(len(keys), dtype=bool)
        is_more[first] = False
        more = np.flatnonzero(is_more)
        shared, more_start = np.unique(level_of_cell[more], return_index=True)
        per_unit = np.bincount(cells.unit, weights=cells.pos + cells.neg, minlength=n_units)
        return cls(cells.take(first), cells.take(more), shared, more_start, per_unit)

    def counts(self, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(replicates × levels) successes and failures under unit weights ``w``."""
        pos, neg = self.first.weighted(w)
        if len(self.shared):
            more_pos, more_neg = self.more.weighted(w)
            pos[:, self.shared] += np.add.reduceat(more_pos, self.more_start, axis=1)
            neg[:, self.shared] += np.add.reduceat(more_neg, self.more_start, axis=1)
        return pos, neg
