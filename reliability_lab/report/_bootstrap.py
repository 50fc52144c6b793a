"""The one bootstrap of the report: task resamples, replicates, percentile intervals.

Every interval and every paired difference of :mod:`reliability_lab.report` (the report, the
agent comparison, the run planner, the adaptive allocator) draws its resamples here: tasks with
replacement as multiplicity counts (runs stay together), optionally runs within each drawn task
(:class:`~reliability_lab.report._within.RunResampler`), from a generator seeded per agent so an
agent's numbers do not depend on which other agents are in the table (docs/statistics.md).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from reliability_lab.report._taskstats import TaskStats
    from reliability_lab.report._within import RunResampler

__all__ = [
    "agent_rng",
    "bootstrap_replicates",
    "paired_replicates",
    "percentile_interval",
    "point_estimates",
    "task_counts",
    "undefined_share",
]

#: Most multiplicities drawn at once (replicates × tasks), to bound memory.
_CHUNK_CELLS = 2_000_000


def agent_rng(seed: int, *labels: str) -> np.random.Generator:
    """A generator per agent (or per pair of agents) that does not depend on the other agents.

    >>> float(agent_rng(0, "a").random()) == float(agent_rng(0, "a").random())
    True
    """
    return np.random.default_rng([seed, *(zlib.crc32(label.encode("utf-8")) for label in labels)])


def point_estimates(stats: TaskStats) -> dict[str, float]:
    """Every metric of the tasks as they are (each task once)."""
    return {name: float(v[0]) for name, v in stats.evaluate(np.ones((1, stats.n_tasks))).items()}


def task_counts(n_tasks: int, n_boot: int, rng: np.random.Generator) -> Iterator[np.ndarray]:
    """``n_boot`` resamples of ``n_tasks`` tasks with replacement, as multiplicity rows, in
    chunks (the same stream of draws whatever the chunk size).

    Each resample draws ``n_tasks`` task indices uniformly and counts them (one ``bincount``
    over the indices offset by their row); the counts have the multinomial law of
    ``rng.multinomial`` at a fraction of its cost (docs/statistics.md, "Intervals").

    >>> rows = np.concatenate(list(task_counts(4, 3, np.random.default_rng(0))))
    >>> rows.shape, rows.sum(axis=1).tolist()
    ((3, 4), [4, 4, 4])
    """
    step = max(1, _CHUNK_CELLS // max(n_tasks, 1))
    for start in range(0, n_boot, step):
        size = min(step, n_boot - start)
        drawn = rng.integers(0, n_tasks, size=(size, n_tasks))
        drawn += np.arange(size, dtype=drawn.dtype)[:, None] * n_tasks
        counts = np.bincount(drawn.ravel(), minlength=size * n_tasks)
        yield counts.reshape(size, n_tasks)


def paired_replicates(
    stats: Sequence[TaskStats], n_boot: int, rng: np.random.Generator
) -> list[dict[str, np.ndarray]]:
    """``n_boot`` replicates of every metric of each of ``stats``, all on the *same* task
    resamples (the stats must describe the same tasks in the same order)."""
    n_tasks = stats[0].n_tasks
    # every chunk's matrix products first, one after the other, then the rest chunk by chunk
    # (TaskStats.sums says why); the counts are kept meanwhile in the smallest integer type
    chunks = [_compact(counts) for counts in task_counts(n_tasks, n_boot, rng)]
    sums = [[one.sums(counts) for one in stats] for counts in chunks]
    draws: list[dict[str, list[np.ndarray]]] = [{} for _ in stats]
    for counts, chunk_sums in zip(chunks, sums, strict=True):
        for side, one, one_sums in zip(draws, stats, chunk_sums, strict=True):
            for name, value in one.evaluate(counts, one_sums).items():
                side.setdefault(name, []).append(value)
    return [{name: np.concatenate(chunks) for name, chunks in side.items()} for side in draws]


def _compact(counts: np.ndarray) -> np.ndarray:
    """Multiplicities in the smallest unsigned type that holds them (1 byte each, nearly
    always: a task drawn 256 times in one resample needs thousands of tasks to be likely)."""
    return counts.astype(np.min_scalar_type(int(counts.max())) if counts.size else np.uint8)


def bootstrap_replicates(
    stats: TaskStats,
    n_boot: int,
    rng: np.random.Generator,
    resampler: RunResampler | None = None,
) -> dict[str, np.ndarray]:
    """``n_boot`` replicates of every metric: tasks drawn with replacement (runs stay
    together), and with a ``resampler`` the runs of each drawn task too (two-level)."""
    if resampler is None:
        return paired_replicates([stats], n_boot, rng)[0]
    draws: dict[str, list[np.ndarray]] = {}
    for counts in task_counts(stats.n_tasks, n_boot, rng):
        for name, value in resampler.evaluate(counts, rng).items():
            draws.setdefault(name, []).append(value)
    return {name: np.concatenate(chunks) for name, chunks in draws.items()}


def undefined_share(values: np.ndarray) -> float:
    """The share of replicates in which a metric is undefined (NaN).

    >>> undefined_share(np.array([1.0, np.nan, 0.5, np.nan]))
    0.5
    """
    return float(1.0 - np.count_nonzero(~np.isnan(values)) / values.size) if values.size else 0.0


def percentile_interval(values: np.ndarray, alpha: float) -> tuple[float, float]:
    """The percentile interval ``(alpha/2, 1 - alpha/2)`` of the defined replicates (NaN, NaN
    when none is defined).

    >>> percentile_interval(np.array([0.0, 1.0, 2.0, 3.0, 4.0, np.nan]), 0.5)
    (1.0, 3.0)
    """
    defined = values[~np.isnan(values)]
    if defined.size == 0:
        return (np.nan, np.nan)
    lo, hi = np.quantile(defined, [alpha / 2, 1 - alpha / 2])
    return (float(lo), float(hi))
