"""Successes and failures per confidence block, for the ranking metrics' bootstrap.

A unit is a task (tasks bootstrap) or a (task, run) pair (two-level bootstrap); a replicate
gives every unit a multiplicity, and the ranking metrics (AUROC, E-AURC) need the weighted
successes and failures at every confidence level, and their running sums.

AUROC and the risk–coverage curve depend only on how successes and failures are ordered, so
consecutive levels that hold only successes (or only failures) — in every replicate, since a
replicate only re-weights runs — are merged into one block and treated as one tied level:
inside such a block no success–failure pair is tied or ordered, and a tied group of runs with
one outcome adds exactly what the same runs in distinct levels add (error rate 0 or 1 at
every position). Continuous confidences leave about 40 % as many blocks as levels.

Two ways to a replicate's counts, both exact (whole numbers, integers when the weights are):

* few blocks (a coarse confidence grid): a dense (replicates × units) @ (units × blocks)
  product per outcome, made with the report's other weighted sums (one matrix product);
* many blocks: the unit weight of every success (and every failure) in confidence order,
  one running sum over them, read at each block's end — the running sums the metrics need
  anyway, with no (replicates × cells) intermediate and no segment sums.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reliability_lab.metrics.predictability import LevelCounts, level_counts

__all__ = ["DENSE_SUMS", "Levels"]

#: Largest units × blocks held as two dense float matrices (2 × 16 MB); above it, running sums.
_DENSE_CELLS = 2_000_000


def _block_of_level(pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
    """Block of each level (descending order): runs of one-outcome levels merged."""
    kind = np.where(neg == 0, 0, np.where(pos == 0, 1, 2))  # successes / failures / both
    starts = np.ones(len(kind), dtype=bool)
    starts[1:] = (kind[1:] != kind[:-1]) | (kind[1:] == 2)
    return np.cumsum(starts) - 1


def _running(w: np.ndarray, unit: np.ndarray) -> np.ndarray:
    """(replicates × (runs + 1)) running sums of the runs' unit weights, from 0."""
    out = np.empty((len(w), len(unit) + 1), dtype=w.dtype)
    out[:, 0] = 0
    np.take(w, unit, axis=1, out=out[:, 1:])
    np.cumsum(out[:, 1:], axis=1, out=out[:, 1:])
    return out


def _through(values: np.ndarray) -> np.ndarray:
    """Per-level amounts from their running sums (last axis)."""
    out = np.empty_like(values)
    out[:, 0] = values[:, 0]
    np.subtract(values[:, 1:], values[:, :-1], out=out[:, 1:])
    return out


#: The names of the dense kernel's per-unit tables among the report's weighted sums.
DENSE_SUMS = ("level_pos", "level_neg")


@dataclass(frozen=True)
class _Dense:
    pos: np.ndarray  # units × blocks
    neg: np.ndarray

    def tables(self) -> dict[str, np.ndarray]:
        return dict(zip(DENSE_SUMS, (self.pos, self.neg), strict=True))

    def counts(self, w: np.ndarray, sums: dict[str, np.ndarray]) -> LevelCounts:
        pos, neg = (sums[name] for name in DENSE_SUMS)  # w @ pos, w @ neg
        if w.dtype.kind in "iu":  # whole numbers, exactly (far below 2^53)
            pos, neg = pos.astype(np.int64), neg.astype(np.int64)
        return LevelCounts.of(pos, neg)


@dataclass(frozen=True)
class _Running:
    pos_unit: np.ndarray  # unit of every success, in block order
    neg_unit: np.ndarray  # unit of every failure, in block order
    pos_end: np.ndarray  # per block: successes in it and the blocks above
    neg_end: np.ndarray
    rate: np.ndarray  # per block: its error rate where every replicate has the same; else 0
    variable: np.ndarray  # blocks whose error rate depends on the weights

    def tables(self) -> dict[str, np.ndarray]:
        return {}

    def counts(self, w: np.ndarray, sums: dict[str, np.ndarray]) -> LevelCounts:
        pos_through = np.take(_running(w, self.pos_unit), self.pos_end, axis=1)
        neg_through = np.take(_running(w, self.neg_unit), self.neg_end, axis=1)
        through = pos_through + neg_through
        n, neg = _through(through), _through(neg_through)
        rate_through = through * self.rate
        if len(self.variable):
            v_n, v_neg = n[:, self.variable], neg[:, self.variable]
            v_rate = np.divide(v_neg, v_n, out=np.zeros(v_n.shape), where=v_n > 0)
            rate_through[:, self.variable] = v_rate * through[:, self.variable]
        total, n_neg = through[:, -1], neg_through[:, -1]
        pos = n - neg
        return LevelCounts(
            pos, neg, n, through, neg_through, total - n_neg, n_neg, total, rate_through
        )

    @classmethod
    def build(cls, block: np.ndarray, y: np.ndarray, codes: np.ndarray, n_blocks: int) -> _Running:
        order = np.argsort(block, kind="stable")
        block, y, codes = block[order], y[order], codes[order]
        pos = np.bincount(block, weights=y.astype(float), minlength=n_blocks)
        n = np.bincount(block, minlength=n_blocks).astype(float)
        first_unit = np.full(n_blocks, -1)
        first_unit[block[::-1]] = codes[::-1]
        one_unit = np.bincount(block, weights=codes != first_unit[block], minlength=n_blocks) == 0
        mixed = (pos > 0) & (pos < n)
        rate = np.where(mixed & ~one_unit, np.nan, (n - pos) / n)
        return cls(
            pos_unit=codes[y],
            neg_unit=codes[~y],
            pos_end=np.cumsum(pos).astype(np.intp),
            neg_end=np.cumsum(n - pos).astype(np.intp),
            rate=np.nan_to_num(rate),
            variable=np.flatnonzero(np.isnan(rate)),
        )


@dataclass(frozen=True)
class Levels:
    """Runs with a confidence as confidence blocks (descending) of weighted units."""

    kernel: _Dense | _Running
    n_levels: int  # blocks
    runs_per_unit: np.ndarray

    @property
    def width(self) -> int:
        """Elements per replicate of the largest intermediate array."""
        if isinstance(self.kernel, _Dense):
            return self.n_levels
        return len(self.kernel.pos_unit) + len(self.kernel.neg_unit) + 1

    @classmethod
    def build(cls, c: np.ndarray, y: np.ndarray, codes: np.ndarray, n_units: int) -> Levels:
        """From the confidences ``c``, outcomes ``y`` and unit ``codes`` of the runs."""
        per_unit = np.bincount(codes, minlength=n_units).astype(float)
        if not len(c):
            return cls(_Dense(np.zeros((n_units, 0)), np.zeros((n_units, 0))), 0, per_unit)
        _, level, level_pos, level_neg = level_counts(c, y)
        block = _block_of_level(level_pos, level_neg)[level]
        n_blocks = int(block.max()) + 1
        if n_units * n_blocks > _DENSE_CELLS:
            return cls(_Running.build(block, y, codes, n_blocks), n_blocks, per_unit)
        tables = []
        for weights in (y, ~y):
            cell = np.bincount(
                codes * n_blocks + block,
                weights=weights.astype(float),
                minlength=n_units * n_blocks,
            )
            tables.append(cell.reshape(n_units, n_blocks))
        return cls(_Dense(*tables), n_blocks, per_unit)

    def tables(self) -> dict[str, np.ndarray]:
        """Per-unit tables whose weighted sums (``w @ table``) :meth:`counts` reads: the
        dense product's (:data:`DENSE_SUMS`), computed with the report's other sums."""
        return self.kernel.tables()

    def counts(self, w: np.ndarray, sums: dict[str, np.ndarray]) -> LevelCounts:
        """Counts and running sums per block for each row of unit weights ``w``; ``sums``:
        the weighted sums of :meth:`tables` for those rows.

        Integer weights give integer counts (exact, and cheaper running sums).
        """
        return self.kernel.counts(w, sums)
