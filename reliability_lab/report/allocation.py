"""Adaptive repetitions: which tasks get the next runs (docs/statistics.md, "Adaptive runs").

After every task has its initial K runs, an experiment can keep adding runs until the target
metric's interval is narrow enough. Each round, :class:`AdaptiveAllocator` computes the
report's interval of the target metric from the runs so far; if it is wider than the target
and the budget allows, ``batch`` tasks get one more run each, chosen by the ``rule``
(:data:`ALLOCATION_RULES`):

- ``uniform`` (default): the tasks with the fewest runs, ties in task-label order — K grows
  evenly and which task gets a run never depends on that task's outcomes, so every task's
  runs stay a fixed-size sample and the ``unbiased`` estimators stay unbiased; only the
  stopping time depends on the data (its effect is measured in docs/statistics.md, table
  "Adaptive runs: bias and coverage" in "Simulation study").
- ``uncertainty``: the tasks where one more run most shrinks the posterior variance of the
  task's success probability (:func:`uncertainty_scores`), under a Beta prior fitted to all
  the agent's tasks (:func:`beta_prior`, empirical Bayes) — Neyman allocation. The runs are
  decided from the outcomes they are then pooled with, so the estimates are **biased**
  (optional stopping; :data:`~reliability_lab.results.adaptive_block.ADAPTIVE_BIAS`). No
  unbiased estimator can use such runs to beat uniform K (docs/statistics.md, "Adaptive
  runs"); the rule shows where the noise is.

The allocator is a pure function of the runs, so replaying it on recorded results gives the
same decisions (what makes an adaptive experiment resumable).

Adaptive runs make K differ between tasks. The per-task metrics it can target are means over
tasks (each task counts once however many runs it has); pooled metrics (accuracy, Brier,
calibration, AUROC, robustness) weight tasks by their runs, so an adaptive experiment tilts
them towards the split tasks: compare those on the initial runs.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from reliability_lab.metrics.registry import METRIC_REGISTRY
from reliability_lab.report._report import reliability_report
from reliability_lab.runs import BASELINE, is_infrastructure_error

__all__ = ["ADAPTIVE_METRICS", "ALLOCATION_RULES", "AdaptiveAllocator", "AdaptiveStep"]

#: How an adaptive round picks its tasks (see the module docstring); the first is the default.
ALLOCATION_RULES = ("uniform", "uncertainty")
#: The rule whose estimates are biased by optional stopping.
BIASED_RULES = ("uncertainty",)

#: Metrics an adaptive experiment can target: means over tasks of per-task values, and R_Con,
#: which is built only from such means.
ADAPTIVE_METRICS: tuple[str, ...] = (
    *(m.symbol for m in METRIC_REGISTRY.values() if m.per_task and m.dimension != "session"),
    "R_Con",
)


@dataclass(frozen=True)
class AdaptiveStep:
    """One round's decision for one agent."""

    halfwidth: float
    """Half-width of the target metric's interval from the runs so far (NaN if undefined)."""
    tasks: tuple[str, ...]
    """Tasks that get one more run each (empty: stop)."""
    reason: str
    """``continue``, ``target reached``, ``budget spent``, ``every task at max_runs`` or
    ``metric undefined``."""


@dataclass(frozen=True)
class AdaptiveAllocator:
    """Decides, from one agent's runs so far, which tasks get one more run (see module)."""

    metric: str
    halfwidth: float
    max_runs: int
    budget: int
    """Most baseline runs of the agent in total, the initial ones included."""
    batch: int
    profile: str = "default"
    n_boot: int = 1000
    confidence_level: float = 0.95
    seed: int = 0
    bootstrap: str = "tasks"
    rule: str = ALLOCATION_RULES[0]
    """Which tasks get the runs: one of :data:`ALLOCATION_RULES`."""

    def __post_init__(self) -> None:
        if self.rule not in ALLOCATION_RULES:
            raise ValueError(f"rule={self.rule!r}: choose one of {list(ALLOCATION_RULES)}")
        if self.metric not in ADAPTIVE_METRICS:
            raise ValueError(
                f"metric={self.metric!r} cannot be targeted adaptively; choose one of "
                f"{list(ADAPTIVE_METRICS)} (means over tasks)"
            )
        for name in ("max_runs", "budget", "batch", "n_boot"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if not self.halfwidth > 0:
            raise ValueError(f"halfwidth must be > 0, got {self.halfwidth!r}")

    def current_halfwidth(self, runs: pd.DataFrame) -> float:
        """Half of the report interval's width for ``metric`` (one agent's runs)."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            row = reliability_report(
                runs,
                profile=self.profile,
                n_boot=self.n_boot,
                confidence_level=self.confidence_level,
                seed=self.seed,
                bootstrap=self.bootstrap,
            ).iloc[0]
        lo, hi = float(row[f"{self.metric}_lo"]), float(row[f"{self.metric}_hi"])
        return (hi - lo) / 2

    def step(self, runs: pd.DataFrame) -> AdaptiveStep:
        """The decision for one agent given all its runs so far (a validated run table).

        Runs with an infrastructure error count for nothing, as in the report.
        """
        width = self.current_halfwidth(runs)
        if math.isnan(width):
            return AdaptiveStep(width, (), "metric undefined")
        if width <= self.halfwidth:
            return AdaptiveStep(width, (), "target reached")
        ok = ~is_infrastructure_error(runs["error"]) if "error" in runs else True
        base = runs[(runs["condition"] == BASELINE) & ok]
        counts = base.groupby("task_id", sort=True)["success"].agg(["sum", "count"])
        room = self.budget - int(counts["count"].sum())
        if room <= 0:
            return AdaptiveStep(width, (), "budget spent")
        open_tasks = counts[counts["count"] < self.max_runs]
        if open_tasks.empty:
            return AdaptiveStep(width, (), "every task at max_runs")
        n = min(self.batch, room)
        if self.rule == "uniform":
            return AdaptiveStep(width, tuple(fewest_runs(open_tasks["count"], n)), "continue")
        prior = beta_prior(
            counts["sum"].to_numpy(dtype=float), counts["count"].to_numpy(dtype=float)
        )
        chosen = most_uncertain(open_tasks["sum"], open_tasks["count"], n, prior)
        return AdaptiveStep(width, tuple(chosen), "continue")


def fewest_runs(runs: pd.Series, n: int) -> list[str]:
    """The ``n`` tasks (index labels) with the fewest runs; ties go to the earlier label.

    Examples
    --------
    >>> fewest_runs(pd.Series([4, 3, 3, 4], index=["d", "c", "a", "b"]), 3)
    ['a', 'c', 'b']
    """
    labels = np.array([str(label) for label in runs.index])
    order = np.lexsort((labels, runs.to_numpy()))
    return [str(labels[i]) for i in order[:n]]


def beta_prior(successes: np.ndarray, runs: np.ndarray) -> tuple[float, float]:
    """Empirical-Bayes Beta(α, β) prior of the tasks' success probabilities (moments).

    The spread of the observed rates p̂_t overstates the spread of the true p_t by the
    binomial noise, estimated without bias by mean(p̂_t(1 − p̂_t)/(K_t − 1)); the rest,
    v = var(p̂) − that noise, and the mean m give α + β = m(1 − m)/v − 1. Clipped to
    [0.05, 1000] for α + β (no detectable spread: a strong prior at m).

    Examples
    --------
    >>> a, b = beta_prior(np.array([0, 0, 5, 5, 0, 5]), np.array([5] * 6))  # all unanimous
    >>> round(a, 3), round(b, 3)  # mass at the ends: α, β small
    (0.025, 0.025)
    """
    k = np.maximum(runs.astype(float), 2.0)
    rate = successes / runs
    m = float(np.clip(rate.mean(), 0.01, 0.99))
    noise = float(np.mean(rate * (1 - rate) / (k - 1)))
    v = float(rate.var()) - noise if len(rate) > 1 else 0.0
    total = float(np.clip(m * (1 - m) / v - 1, 0.05, 1000.0)) if v > 0 else 1000.0
    return m * total, (1 - m) * total


def uncertainty_scores(
    successes: np.ndarray, runs: np.ndarray, prior: tuple[float, float]
) -> np.ndarray:
    """How much one more run of each task shrinks the posterior variance of its p.

    With prior Beta(α, β), s successes in n runs: p̃ = (s + α)/(n + c), c = α + β, posterior
    variance p̃(1 − p̃)/(n + c + 1), and one more run removes about
    p̃(1 − p̃)/((n + c + 1)(n + c + 2)).
    """
    a, b = prior
    c = a + b
    p = (successes + a) / (runs + c)
    return p * (1 - p) / ((runs + c + 1) * (runs + c + 2))


def most_uncertain(
    successes: pd.Series, runs: pd.Series, n: int, prior: tuple[float, float] = (1.0, 1.0)
) -> list[str]:
    """The ``n`` tasks (index labels) with the highest :func:`uncertainty_scores`; ties go
    to the earlier label.

    Examples
    --------
    >>> s = pd.Series([5, 2, 0], index=["a", "b", "c"])
    >>> k = pd.Series([5, 4, 3], index=["a", "b", "c"])
    >>> most_uncertain(s, k, 2)  # b is split; c (0/3) is less sure than a (5/5)
    ['b', 'c']
    """
    score = uncertainty_scores(successes.to_numpy(dtype=float), runs.to_numpy(dtype=float), prior)
    order = np.lexsort((np.arange(len(score)), -score))
    return [str(successes.index[i]) for i in order[:n]]
