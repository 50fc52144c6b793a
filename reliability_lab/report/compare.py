"""Paired comparison of two agents on the tasks both ran (docs/statistics.md, "Comparing agents").

Both agents' metrics are computed from per-task sufficient statistics restricted to their
common tasks; one (replicates × tasks) matrix of task multiplicities re-weights both, so every
replicate resamples the same tasks for both agents (a paired bootstrap) and the difference
inherits the positive correlation of the two agents' per-task values.

Tests of "no difference", per metric:

- **sign-flip** (metrics that are a mean of per-task values: C_out, C_traj_d, C_traj_s, C_conf,
  C_res, the session means): the per-task differences d_t over the tasks where both agents
  define the metric; under the null that the two agents' runs of a task are exchangeable,
  each d_t is as likely to carry either sign. The p-value is the share of the 2ⁿ sign patterns
  (all of them for n ≤ 12 tasks, else ``n_boot`` random ones, +1 for the observed) whose
  |mean| reaches the observed one;
- **bootstrap** (pooled and aggregate metrics: accuracy, P_*, R_*, S_*, R): the two-sided
  percentile test p = 2·min(P*(Δ* ≤ 0), P*(Δ* ≥ 0)) from the paired replicates, the
  smallest level at which the paired percentile interval excludes 0.

Across the metrics compared, p-values are adjusted by Holm's step-down procedure, which
controls the family-wise error rate under any dependence between the metrics (and they are
dependent: R_Con contains C_out).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from reliability_lab.errors import RunTableError
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
from reliability_lab.report._taskstats import TaskStats
from reliability_lab.runs import is_infrastructure_error, validate_run_table

__all__ = ["ADJUSTMENT", "compare_agents", "holm"]

#: The multiple-comparison adjustment of ``p_adjusted``.
ADJUSTMENT = "holm"
_EXACT_MAX_TASKS = 12  # up to 2**12 sign patterns are enumerated
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
)


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


def _sign_flip_p(differences: np.ndarray, n_perm: int, rng: np.random.Generator) -> float:
    """Two-sided sign-flip p-value of mean(differences) = 0 (see the module docstring)."""
    n = len(differences)
    if n == 0:
        return math.nan
    observed = abs(differences.mean())
    tolerance = 1e-12 * max(1.0, observed)
    if n <= _EXACT_MAX_TASKS:
        patterns = 1 - 2 * ((np.arange(2**n)[:, None] >> np.arange(n)) & 1)
        stats = np.abs(patterns @ differences) / n
        return float(np.mean(stats >= observed - tolerance))
    signs = rng.choice(np.array([-1.0, 1.0]), size=(n_perm, n))
    stats = np.abs(signs @ differences) / n
    return float((1 + np.sum(stats >= observed - tolerance)) / (1 + n_perm))


def _bootstrap_p(replicates: np.ndarray) -> float:
    defined = replicates[~np.isnan(replicates)]
    if defined.size == 0:
        return math.nan
    below = (1 + np.sum(defined <= 0)) / (1 + defined.size)
    above = (1 + np.sum(defined >= 0)) / (1 + defined.size)
    return float(min(1.0, 2 * min(below, above)))


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
    percentile interval, a p-value for "no difference" (``test`` says which: ``sign-flip``
    over task-level differences for a mean of per-task values, ``bootstrap`` otherwise) and
    that p-value Holm-adjusted across the compared metrics (docs/statistics.md, "Comparing
    agents").

    Parameters
    ----------
    runs : DataFrame
        A run table holding both agents (validated).
    baseline, candidate : str
        Agent labels; the difference is candidate − baseline.
    metrics : sequence of str, optional
        Report metrics to compare; default every metric defined for both agents.
    profile : str or MetricProfile
        Metric conventions (``unbiased`` for K-invariant consistency values).
    n_boot : int
        Paired bootstrap replicates, also the random sign patterns of the sign-flip test
        beyond 12 tasks. Must be ≥ 1.
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
        and ``n_tasks`` (the tasks entering the test). ``attrs``: the agents, profile,
        n_boot, confidence_level, seed, ``adjustment``, ``n_common_tasks``, the counts of
        tasks only one agent ran (``n_tasks_only_baseline``, ``n_tasks_only_candidate``) and,
        by default, ``left_out``: the metrics not compared and why (undefined for one side).

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
    alpha = 1 - confidence_level
    rows: list[dict[str, Any]] = []
    for name in names:
        delta = boot[1][name] - boot[0][name]
        lo, hi = percentile_interval(delta, alpha)
        row: dict[str, Any] = {
            "metric": name,
            "baseline": point[0][name],
            "candidate": point[1][name],
            "difference": point[1][name] - point[0][name],
            "difference_lo": float(lo),
            "difference_hi": float(hi),
            "difference_undef": undefined_share(delta),
        }
        if METRIC_REGISTRY[name].per_task:
            d = stats[1].per_task[name] - stats[0].per_task[name]
            d = d[~np.isnan(d)]
            row.update(p_value=_sign_flip_p(d, n_boot, rng), test="sign-flip", n_tasks=len(d))
        else:
            row.update(p_value=_bootstrap_p(delta), test="bootstrap", n_tasks=n_tasks)
        if math.isnan(row["difference"]):
            row["p_value"] = math.nan
        rows.append(row)
    table = pd.DataFrame(rows, columns=["metric", *COLUMNS]).set_index("metric")
    table["p_adjusted"] = holm(table["p_value"].to_numpy(dtype=float))
    table.attrs.update(
        baseline=baseline,
        candidate=candidate,
        profile=prof.to_dict(),
        n_boot=int(n_boot),
        confidence_level=float(confidence_level),
        seed=int(seed),
        adjustment=ADJUSTMENT,
        n_common_tasks=n_tasks,
        left_out=left_out,
        **dropped,
    )
    return table
