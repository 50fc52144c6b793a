"""The task-level sign-flip test of :func:`~reliability_lab.compare_agents`, for every metric.

Null hypothesis: on every common task, the two agents' data (all runs of the task, every
condition) are exchangeable — swapping which agent is called baseline on any set of tasks
leaves the joint distribution unchanged. A sign pattern s ∈ {0, 1}ᵀ swaps the agents on the
tasks with s_t = 1; the statistic is |M(candidate*) − M(baseline*)| for the metric M computed
on the swapped data. For a mean of per-task values the swap flips the sign of the task's
paired difference (the classical sign-flip test); for a pooled metric (accuracy, P_brier,
AUROC, R_Con, …) it re-pools the swapped runs, so the test is exact for every metric and every
number of tasks (docs/statistics.md, "Comparing agents").

Both agents' sufficient statistics are built once over 2T units (the baseline's tasks, then
the candidate's); pattern s is the unit weights [1 − s, s] for the swapped baseline and
[s, 1 − s] for the swapped candidate, so every pattern is one row of a weight matrix.

The p-value is the share of the 2ᵀ patterns (all of them when T ≤ ``EXACT_MAX_TASKS``; else
random patterns, counted with the observed one as (1 + hits)/(1 + n)) whose statistic reaches
the observed one, among the patterns where the metric is defined. A pattern and its complement
give the same statistic, so the smallest attainable p-value is 2/2ᵀ = 2^(1 − T): at T ≤ 5 no
test at 5 % can reject (:func:`smallest_p_value`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from reliability_lab.metrics.profiles import MetricProfile
from reliability_lab.report._taskstats import TaskStats

__all__ = ["EXACT_MAX_TASKS", "SwapTest", "min_tasks_to_reject", "smallest_p_value"]

#: Up to 2**12 sign patterns are enumerated; beyond, random patterns.
EXACT_MAX_TASKS = 12
_CHUNK = 1024  # patterns evaluated at once


def smallest_p_value(n_tasks: int, n_patterns: int | None = None) -> float:
    """The smallest p-value the test can return with ``n_tasks`` swappable tasks.

    Exact enumeration: 2^(1 − T) (a pattern and its complement tie). Random patterns
    (``n_patterns`` of them): also at least 1/(1 + n_patterns).

    Examples
    --------
    >>> smallest_p_value(5), smallest_p_value(6)
    (0.0625, 0.03125)
    >>> round(smallest_p_value(40, 1999), 6)
    0.0005
    """
    if n_tasks < 1:
        return math.nan
    exact = 2.0 ** (1 - n_tasks)
    return exact if n_patterns is None else max(exact, 1.0 / (1 + n_patterns))


def min_tasks_to_reject(alpha: float) -> int:
    """The fewest tasks with which the exact test can reject at level ``alpha``.

    Examples
    --------
    >>> min_tasks_to_reject(0.05), min_tasks_to_reject(0.01)
    (6, 8)
    """
    return 1 + math.ceil(math.log2(1 / alpha))


def _pair_table(base: pd.DataFrame, cand: pd.DataFrame) -> pd.DataFrame:
    """One table of 2T tasks: the baseline's (``0|task``) before the candidate's (``1|task``)."""
    return pd.concat(
        [
            base.assign(task_id="0|" + base["task_id"].astype(str)),
            cand.assign(task_id="1|" + cand["task_id"].astype(str)),
        ],
        ignore_index=True,
    ).assign(agent="pair")


@dataclass
class SwapTest:
    """Sign patterns of the common tasks and the metrics' swapped differences under them."""

    stats: TaskStats
    n_tasks: int
    exact: bool
    differences: dict[str, np.ndarray]  # metric → Δ* per pattern

    @classmethod
    def run(
        cls,
        base: pd.DataFrame,
        cand: pd.DataFrame,
        profile: MetricProfile,
        n_patterns: int,
        rng: np.random.Generator,
    ) -> SwapTest:
        """Δ* of every metric under each pattern (both tables: the same T common tasks)."""
        stats = TaskStats.build(_pair_table(base, cand), profile)
        t = stats.n_tasks // 2
        exact = t <= EXACT_MAX_TASKS
        if exact:
            patterns = ((np.arange(2**t)[:, None] >> np.arange(t)) & 1).astype(float)
        else:
            patterns = rng.integers(0, 2, size=(n_patterns, t)).astype(float)
        chunks: dict[str, list[np.ndarray]] = {}
        for start in range(0, len(patterns), _CHUNK):
            s = patterns[start : start + _CHUNK]
            swapped_base = stats.evaluate(np.hstack([1 - s, s]))
            swapped_cand = stats.evaluate(np.hstack([s, 1 - s]))
            for name, values in swapped_cand.items():
                chunks.setdefault(name, []).append(values - swapped_base[name])
        differences = {name: np.concatenate(parts) for name, parts in chunks.items()}
        return cls(stats=stats, n_tasks=t, exact=exact, differences=differences)

    def p_value(self, name: str, observed: float) -> float:
        """Two-sided p-value of the observed difference ``observed`` of metric ``name``."""
        if math.isnan(observed):
            return math.nan
        draws = self.differences[name]
        draws = np.abs(draws[~np.isnan(draws)])
        reach = np.sum(draws >= abs(observed) - 1e-12 * max(1.0, abs(observed)))
        if self.exact:
            return float(reach / draws.size) if draws.size else math.nan
        return float((1 + reach) / (1 + draws.size))

    def smallest_p(self, n_tasks: int) -> float:
        """The smallest attainable p-value with ``n_tasks`` tasks that matter for a metric."""
        n_random = None if self.exact else len(next(iter(self.differences.values())))
        return smallest_p_value(n_tasks, n_random)
