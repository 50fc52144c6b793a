"""Paired comparison of two agents on the tasks both ran (docs/statistics.md, "Comparing agents").

Both agents' metrics are computed from per-task sufficient statistics restricted to their
common tasks; one (replicates × tasks) matrix of task multiplicities re-weights both, so every
replicate resamples the same tasks for both agents (a paired bootstrap interval) and the
difference inherits the positive correlation of the two agents' per-task values.

The test of "no difference" is the same for every metric: the task-level sign-flip
(randomisation) test of :mod:`._swap`, which swaps the two agents' data on random sets of
tasks and recomputes the metric — exact at every number of tasks T, for per-task means and
pooled metrics alike. Its smallest attainable p-value is 2^(1 − T) (``p_min``): below
``min_tasks_to_reject`` tasks no metric can be significant, and the comparison warns.

Across the metrics compared (the *family*: by default the metrics defined for both agents,
not constant and not an exact duplicate of an earlier one — R_Pred is P_brier), p-values are
adjusted by Holm's step-down procedure, which controls the family-wise error rate under any
dependence between the metrics (and they are dependent: R_Con contains C_out).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from reliability_lab.errors import RunTableError, UndefinedMetricWarning
from reliability_lab.metrics.profiles import MetricProfile, get_profile
from reliability_lab.metrics.registry import METRIC_REGISTRY, REPORT_METRICS
from reliability_lab.report._bootstrap import (
    agent_rng,
    paired_replicates,
    percentile_interval,
    point_estimates,
    undefined_share,
)
from reliability_lab.report._report import _check_options
from reliability_lab.report._swap import SwapTest, min_tasks_to_reject
from reliability_lab.report._taskstats import TaskStats
from reliability_lab.runs import is_infrastructure_error, validate_run_table

__all__ = ["ADJUSTMENT", "compare_agents", "holm"]

#: The multiple-comparison adjustment of ``p_adjusted``.
ADJUSTMENT = "holm"
COLUMNS = (
    "baseline",
    "candidate",
    "difference",
    "difference_lo",
    "difference_hi",
    "difference_undef",
    "p_value",
    "p_adjusted",
    "test",
    "n_tasks",
    "p_min",
)
#: The test of every row of :func:`compare_agents`.
TEST = "sign-flip"


def holm(p_values: Sequence[float] | np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values (NaN entries stay NaN and do not count).

    The i-th smallest of m p-values becomes max over j ≤ i of min(1, (m − j + 1)·p_(j)).

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03, float("nan")]).round(4).tolist()
    [0.03, 0.06, 0.06, nan]
    """
    p = np.asarray(p_values, dtype=float)
    out = np.full(len(p), np.nan)
    defined = np.flatnonzero(~np.isnan(p))
    order = defined[np.argsort(p[defined], kind="stable")]
    m = len(order)
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    out[order] = np.maximum.accumulate(scaled) if m else scaled
    return out


def _common_runs(
    runs: pd.DataFrame, baseline: str, candidate: str
) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, int]]:
    """Each agent's non-infrastructure runs on the tasks both have; counts of dropped tasks."""
    table = validate_run_table(runs, source="runs")
    agents = sorted(table["agent"].unique())
    for name, agent in (("baseline", baseline), ("candidate", candidate)):
        if agent not in agents:
            raise RunTableError(
                f"runs: {name}={agent!r} is not an agent of the run table: {agents}"
            )
    if baseline == candidate:
        raise ValueError(f"baseline and candidate are the same agent {baseline!r}")
    ok = table.loc[~is_infrastructure_error(table["error"])]
    base = ok[ok["agent"] == baseline]
    cand = ok[ok["agent"] == candidate]
    base_tasks, cand_tasks = set(base["task_id"]), set(cand["task_id"])
    common = base_tasks & cand_tasks
    if not common:
        raise RunTableError(
            f"runs: agents {baseline!r} and {candidate!r} share no task with a "
            "non-infrastructure run; a paired comparison needs common tasks"
        )
    dropped = {
        "n_tasks_only_baseline": len(base_tasks - common),
        "n_tasks_only_candidate": len(cand_tasks - common),
    }
    return base[base["task_id"].isin(common)], cand[cand["task_id"].isin(common)], dropped


def _metrics(
    requested: Sequence[str] | None,
    point: tuple[dict[str, float], dict[str, float]],
    agents: tuple[str, str],
) -> tuple[list[str], dict[str, str]]:
    """The metrics to compare, and the report metrics left out (with why) by default."""
    available = [m for m in REPORT_METRICS if m in point[0]]
    if requested is None:
        left_out = {}
        for m in available:
            sides = [repr(a) for a, p in zip(agents, point, strict=True) if math.isnan(p[m])]
            if sides:
                left_out[m] = f"undefined for {' and '.join(sides)}"
        return [m for m in available if m not in left_out], left_out
    names = [requested] if isinstance(requested, str) else list(requested)
    for name in names:
        if name not in available:
            raise ValueError(f"metrics: unknown metric {name!r}; valid: {', '.join(available)}")
    return names, {}


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=0, atol=1e-12, equal_nan=True))


def _family(
    names: list[str], point: tuple[dict[str, float], dict[str, float]], boot: list[dict]
) -> tuple[list[str], dict[str, str]]:
    """The default Holm family: drop metrics constant for both agents (e.g. safety scores of
    1 without safety data) and exact duplicates of an earlier metric (R_Pred ≡ P_brier)."""
    kept: list[str] = []
    left_out: dict[str, str] = {}

    def values(m: str) -> np.ndarray:
        return np.concatenate([[point[0][m], point[1][m]], boot[0][m], boot[1][m]])

    for m in names:
        v = values(m)
        defined = v[~np.isnan(v)]
        if defined.size and np.all(np.abs(defined - defined[0]) < 1e-12):
            left_out[m] = f"constant {defined[0]:.3g} for both agents (nothing to compare)"
            continue
        twin = next((k for k in kept if _same(values(k), v)), None)
        if twin is not None:
            left_out[m] = f"identical to {twin} on these runs"
            continue
        kept.append(m)
    return kept, left_out


def _interval(delta: np.ndarray, alpha: float, n_tasks: int) -> tuple[float, float]:
    if n_tasks < 2:  # one task: resampling it says nothing
        return math.nan, math.nan
    return percentile_interval(delta, alpha)


def _tasks_entering(name: str, stats: tuple[TaskStats, TaskStats], n_tasks: int) -> int:
    """Tasks whose swap can change the metric: where either agent defines a per-task value."""
    if not METRIC_REGISTRY[name].per_task:
        return n_tasks
    defined = ~np.isnan(stats[0].per_task[name]) | ~np.isnan(stats[1].per_task[name])
    return int(defined.sum())


def _warn_small(n_tasks: int, family: list[str], p_min: float, alpha: float) -> str | None:
    """The warning text when no metric (or none after Holm) can reach ``alpha``."""
    need = min_tasks_to_reject(alpha)
    if n_tasks < need:
        return (
            f"only {n_tasks} common task(s): the smallest attainable p-value is {p_min:.3g}, so "
            f"no test can reject 'no difference' at {alpha:.0%} (at least {need} tasks needed)"
        )
    if family and len(family) * p_min >= alpha:
        return (
            f"{n_tasks} common tasks: the smallest attainable Holm-adjusted p-value over the "
            f"{len(family)} metrics compared is {len(family) * p_min:.3g} ≥ {alpha:.0%}; "
            "compare fewer metrics or add tasks"
        )
    return None


def compare_agents(
    runs: pd.DataFrame,
    baseline: str,
    candidate: str,
    *,
    metrics: Sequence[str] | None = None,
    profile: str | MetricProfile = "default",
    n_boot: int = 2000,
    confidence_level: float = 0.95,
    seed: int = 0,
) -> pd.DataFrame:
    """Is ``candidate`` more reliable than ``baseline``? Paired differences per metric.

    Only the tasks both agents ran are compared (the others are counted in ``attrs``);
    infrastructure errors are left out as in the report. Per metric: both values on the
    common tasks, the difference ``candidate − baseline``, its paired task-bootstrap
    percentile interval (NaN with one common task), the p-value of the exact task-level
    sign-flip test of "no difference" (every metric; smallest attainable value ``p_min`` =
    2^(1 − T)) and that p-value Holm-adjusted across the family of compared metrics
    (docs/statistics.md, "Comparing agents"). With fewer tasks than any test needs to reject
    at 1 − ``confidence_level`` (6 at 5 %), or a family too large for Holm to reach it, an
    :class:`~reliability_lab.UndefinedMetricWarning` says so.

    Parameters
    ----------
    runs : DataFrame
        A run table holding both agents (validated).
    baseline, candidate : str
        Agent labels; the difference is candidate − baseline.
    metrics : sequence of str, optional
        Report metrics to compare (the Holm family). Default: every metric defined for
        both agents, leaving out metrics constant for both (safety scores without safety
        data) and exact duplicates of an earlier metric (R_Pred ≡ P_brier).
    profile : str or MetricProfile
        Metric conventions (``unbiased`` for K-invariant consistency values).
    n_boot : int
        Paired bootstrap replicates, also the random sign patterns of the sign-flip test
        beyond 12 tasks (up to 12 every pattern is enumerated). Must be ≥ 1.
    confidence_level : float
        Coverage of ``difference_lo`` / ``difference_hi``.
    seed : int
        Seed of the bootstrap and the sign patterns.

    Returns
    -------
    DataFrame
        Indexed by ``metric``; columns ``baseline``, ``candidate``, ``difference``,
        ``difference_lo``, ``difference_hi``, ``difference_undef`` (share of replicates
        where the difference was undefined), ``p_value``, ``p_adjusted`` (Holm), ``test``
        (``sign-flip``), ``n_tasks`` (the tasks whose swap can change the metric) and
        ``p_min`` (the smallest p-value the test could give). ``attrs``: the agents, profile,
        n_boot, confidence_level, seed, ``adjustment``, ``family`` (the metrics Holm was
        applied to), ``exact_test`` (every sign pattern enumerated), ``warning`` (the
        small-sample warning, or ""), ``n_common_tasks``, the counts of tasks only one agent
        ran (``n_tasks_only_baseline``, ``n_tasks_only_candidate``) and ``left_out``: the
        metrics not compared and why (undefined, constant or a duplicate).

    Raises
    ------
    RunTableError
        Invalid runs, an unknown agent, or no common task.

    Examples
    --------
    >>> from reliability_lab.simulate import SimulatedAgent, simulate_runs
    >>> runs = simulate_runs([SimulatedAgent(name="old", success_a=0.6, success_b=0.6),
    ...                       SimulatedAgent(name="new", success_a=0.3, success_b=0.3)],
    ...                      n_tasks=60, runs=5, seed=1)
    >>> table = compare_agents(runs, "old", "new", metrics=["C_out", "accuracy"], seed=0)
    >>> table.loc["C_out", "test"], bool(table.loc["C_out", "difference"] > 0)
    ('sign-flip', True)
    """
    _check_options(n_boot, confidence_level, "tasks")
    if n_boot < 1:
        raise ValueError(f"n_boot must be >= 1 for a comparison, got {n_boot!r}")
    prof = get_profile(profile)
    base_runs, cand_runs, dropped = _common_runs(runs, baseline, candidate)
    stats = (TaskStats.build(base_runs, prof), TaskStats.build(cand_runs, prof))
    n_tasks = stats[0].n_tasks
    point = (point_estimates(stats[0]), point_estimates(stats[1]))
    names, left_out = _metrics(metrics, point, (baseline, candidate))
    rng = agent_rng(seed, baseline, candidate)
    boot = paired_replicates(stats, n_boot, rng)
    if metrics is None:
        names, dropped_family = _family(names, point, boot)
        left_out.update(dropped_family)
    swaps = SwapTest.run(base_runs, cand_runs, prof, n_boot, rng)
    alpha = 1 - confidence_level
    rows: list[dict[str, Any]] = []
    for name in names:
        delta = boot[1][name] - boot[0][name]
        difference = point[1][name] - point[0][name]
        lo, hi = _interval(delta, alpha, n_tasks)
        entering = _tasks_entering(name, stats, n_tasks)
        rows.append(
            {
                "metric": name,
                "baseline": point[0][name],
                "candidate": point[1][name],
                "difference": difference,
                "difference_lo": lo,
                "difference_hi": hi,
                "difference_undef": undefined_share(delta),
                "p_value": swaps.p_value(name, difference),
                "test": TEST,
                "n_tasks": entering,
                "p_min": swaps.smallest_p(entering),
            }
        )
    table = pd.DataFrame(rows, columns=["metric", *COLUMNS]).set_index("metric")
    table["p_adjusted"] = holm(table["p_value"].to_numpy(dtype=float))
    warning = _warn_small(n_tasks, names, swaps.smallest_p(n_tasks), alpha)
    if warning is not None:
        warnings.warn(warning, UndefinedMetricWarning, stacklevel=2)
    table.attrs.update(
        baseline=baseline,
        candidate=candidate,
        profile=prof.to_dict(),
        n_boot=int(n_boot),
        confidence_level=float(confidence_level),
        seed=int(seed),
        adjustment=ADJUSTMENT,
        family=list(names),
        exact_test=swaps.exact,
        warning=warning or "",
        n_common_tasks=n_tasks,
        left_out=left_out,
        **dropped,
    )
    return table
