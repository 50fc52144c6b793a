"""How many tasks and runs per task: variance components from a pilot (docs/statistics.md).

Model. A metric estimated from T tasks with K runs each varies, over new tasks and new runs,
as Var ≈ σ_b²/T + σ_w²/(T·K): σ_b² is the between-task variance of the tasks' K → ∞ values and
σ_w² the within-task variance that one run adds. Both are read off two bootstraps of the
pilot, computed by the report's own replicate machinery for every metric alike:

- the **tasks** bootstrap (tasks redrawn, runs kept) estimates Var_T ≈ σ_b²/T₀ + σ_w²/(T₀K₀);
- the **within-task** bootstrap (tasks kept, each task's runs redrawn) estimates
  Var_W ≈ (K₀ − 1)/K₀ · σ_w²/(T₀K₀) (redrawing K₀ runs has variance (K₀ − 1)/K₀ of a new
  sample's);

so σ_w² = Var_W·T₀K₀²/(K₀ − 1) and σ_b² = T₀·Var_T − σ_w²/K₀ (0 if negative). For C_out
(corrected and unbiased) the per-task variance at each K is instead exact, from the pilot's
binomial moments (:mod:`._planvar`). A target half-width h at level 1 − α then needs
T = ⌈z²·V(K)·c/h²⌉ tasks at K runs, z the normal quantile and c ≥ 1 the allowance for the
pilot's and the new experiment's own noise (an F quantile, so that a share ``assurance`` of
experiments run as planned meet the target). Total runs T·K grow with K, so the fewest runs
come from the smallest K the metric allows, unless the number of available tasks caps T. K₀
is the harmonic mean of the pilot's runs per task (the mean of 1/K is what enters the
variance). A pilot whose metric sits at 0 or 1 on every task has no variance to scale; the
plan is then the tasks a task-level Clopper–Pearson interval needs (the report's interval
there).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from reliability_lab.errors import RunTableError
from reliability_lab.metrics.profiles import MetricProfile, get_profile
from reliability_lab.metrics.registry import REPORT_METRICS
from reliability_lab.report._bootstrap import agent_rng, bootstrap_replicates, point_estimates
from reliability_lab.report._planvar import allowance_tasks, boundary_tasks, outcome_variance_at
from reliability_lab.report._taskstats import TaskStats
from reliability_lab.report._within import RunResampler
from reliability_lab.runs import BASELINE, is_infrastructure_error, validate_run_table

__all__ = ["RunPlan", "plan_runs"]

_K_GRID = (2, 3, 5, 10, 20, 50)
_OPTION_COLUMNS = ("agent", "metric", "runs_per_task", "tasks", "total_runs")


@dataclass(frozen=True)
class RunPlan:
    """What :func:`plan_runs` found, and why.

    Attributes
    ----------
    table : DataFrame
        One row per (agent, metric): the pilot's ``T0`` tasks and ``K0`` runs per task, its
        estimate and ``halfwidth_now``, the variance components ``sigma2_between`` and
        ``sigma2_within``, and the recommendation ``tasks`` × ``runs_per_task`` =
        ``total_runs`` (NaN when no K reaches the target within ``max_tasks``).
    options : DataFrame
        Per (agent, metric, runs_per_task): the tasks needed and the total runs.
    explanation : str
        The reasoning, in words and numbers, metric by metric.
    """

    table: pd.DataFrame
    options: pd.DataFrame
    explanation: str

    def __str__(self) -> str:
        return self.explanation


def _check(halfwidth: float, confidence_level: float, n_boot: int, max_tasks: int | None) -> None:
    if not isinstance(halfwidth, float | int) or not halfwidth > 0:
        raise ValueError(f"halfwidth must be a number > 0, got {halfwidth!r}")
    if not isinstance(confidence_level, float | int) or not 0 < confidence_level < 1:
        raise ValueError(
            f"confidence_level must lie strictly between 0 and 1, got {confidence_level!r}"
        )
    if isinstance(n_boot, bool) or not isinstance(n_boot, int) or n_boot < 50:
        raise ValueError(
            f"n_boot must be an integer >= 50 (variances need replicates), got {n_boot!r}"
        )
    if max_tasks is not None and (not isinstance(max_tasks, int) or max_tasks < 1):
        raise ValueError(f"max_tasks must be a positive integer or None, got {max_tasks!r}")


def _normal_quantile(confidence_level: float) -> float:
    from scipy.stats import norm  # loaded on first use

    return float(norm.ppf(0.5 + confidence_level / 2))


@dataclass(frozen=True)
class _Components:
    t0: int
    k0: float
    estimate: float
    var_tasks: float
    var_within: float
    exact: dict[int, float | None] | None = None  # K → exact per-task variance (C_out)

    @property
    def sigma2_within(self) -> float:
        if self.k0 <= 1:
            return math.nan
        return self.var_within * self.t0 * self.k0**2 / (self.k0 - 1)

    @property
    def sigma2_between(self) -> float:
        return max(0.0, self.t0 * self.var_tasks - self.sigma2_within / self.k0)

    def variance_at(self, k: int) -> tuple[float, str]:
        """Per-task variance of the estimate at K runs, and which model gave it."""
        exact = (self.exact or {}).get(k)
        if exact is not None:
            return exact, "exact"
        return self.sigma2_between + self.sigma2_within / k, "σ_b²+σ_w²/K"

    def tasks_needed(self, k: int, z: float, halfwidth: float, assurance: float) -> int:
        return allowance_tasks(self.variance_at(k)[0], self.t0, z, halfwidth, assurance)[0]


def _exact_outcome(
    base: pd.DataFrame, prof: MetricProfile, grid: list[int]
) -> dict[int, float | None]:
    by_task = base.groupby("task_id")["success"]
    successes = by_task.sum().to_numpy(dtype=float)
    runs = by_task.count().to_numpy(dtype=float)
    return {k: outcome_variance_at(prof.outcome_variant, k, successes, runs) for k in grid}


def _components(
    runs: pd.DataFrame,
    prof: MetricProfile,
    n_boot: int,
    seed: int,
    agent: str,
    k_range: tuple[int, int | None],
) -> tuple[dict[str, _Components], TaskStats]:
    stats = TaskStats.build(runs, prof)
    base = runs[runs["condition"] == BASELINE]
    k_per_task = base.groupby("task_id")["run"].count().to_numpy(dtype=float)
    k0 = float(len(k_per_task) / np.sum(1.0 / k_per_task)) if len(k_per_task) else math.nan
    grid = _k_grid(k0, *k_range)
    rng = agent_rng(seed, agent)
    tasks = bootstrap_replicates(stats, n_boot, rng)
    within = RunResampler.build(runs, stats, prof).evaluate(np.ones((n_boot, stats.n_tasks)), rng)
    point = point_estimates(stats)
    out = {}
    for name in point:
        var_t, var_w = (
            float(np.nanvar(r[name], ddof=1)) if np.isfinite(r[name]).sum() > 1 else math.nan
            for r in (tasks, within)
        )
        exact = _exact_outcome(base, prof, grid) if name == "C_out" else None
        out[name] = _Components(stats.n_tasks, k0, point[name], var_t, var_w, exact)
    return out, stats


def _k_grid(k0: float, min_runs: int, max_runs: int | None) -> list[int]:
    """The K values compared: a fixed grid, the pilot's own K and ``min_runs``."""
    grid = {*_K_GRID, min_runs} | ({round(k0)} if math.isfinite(k0) else set())
    return sorted(k for k in grid if k >= min_runs and (max_runs is None or k <= max_runs))


def plan_runs(
    pilot_runs: pd.DataFrame,
    *,
    metric: str | Sequence[str] = "C_out",
    halfwidth: float = 0.05,
    confidence_level: float = 0.95,
    max_tasks: int | None = None,
    min_runs: int | None = None,
    max_runs: int | None = None,
    profile: str | MetricProfile = "default",
    n_boot: int = 1000,
    seed: int = 0,
    assurance: float = 0.8,
) -> RunPlan:
    """How many tasks and runs per task reach an interval half-width, from a pilot.

    For every agent of the pilot and every metric, estimates the between-task variance σ_b²
    and the within-task (per-run) variance σ_w² (see the module docstring), then the tasks T
    needed at each K for z·√(V(K)/T) ≤ ``halfwidth`` — V(K) = σ_b² + σ_w²/K, or for C_out the
    exact variance at K — enlarged so that a share ``assurance`` of experiments run as planned
    meet the target despite the pilot's and their own noise, and recommends the (T, K) with
    the fewest total runs, T capped by ``max_tasks``. The reasoning is in
    ``explanation`` (also ``str(plan)``).

    Parameters
    ----------
    pilot_runs : DataFrame
        Run table of a pilot experiment (validated; infrastructure errors left out).
    metric : str or sequence of str
        Report metric(s) to plan for.
    halfwidth : float
        Target half-width of the confidence interval.
    confidence_level : float
        Level of that interval.
    max_tasks : int, optional
        Tasks available (e.g. the benchmark's size); default unlimited.
    min_runs, max_runs : int, optional
        Smallest and largest K considered; default ``min_runs`` 2 (3 for a jackknife
        profile: C_conf and C_res then need 3 runs), ``max_runs`` unlimited.
    profile : str or MetricProfile
        Metric conventions. With ``default``, C_out's value itself changes with K (its
        expectation is (2p − 1)² + 4p(1 − p)/K): plan with ``unbiased`` to hold the target
        fixed while K changes.
    n_boot : int
        Replicates of each of the two bootstraps (≥ 50).
    seed : int
        Seed of the bootstraps.
    assurance : float
        Share of experiments run as planned whose interval should meet the target (0.5 =
        plan on the pilot's variance as it is; the study: docs/statistics.md, "How many runs").

    Returns
    -------
    RunPlan

    Examples
    --------
    >>> from reliability_lab.simulate import SimulatedAgent, simulate_runs
    >>> pilot = simulate_runs(SimulatedAgent(name="a"), n_tasks=40, runs=4, seed=2)
    >>> plan = plan_runs(pilot, metric="accuracy", halfwidth=0.05, n_boot=200)
    >>> int(plan.table.loc[("a", "accuracy"), "runs_per_task"])
    2
    """
    _check(halfwidth, confidence_level, n_boot, max_tasks)
    if not isinstance(assurance, float | int) or not 0.5 <= assurance < 1:
        raise ValueError(f"assurance must lie in [0.5, 1), got {assurance!r}")
    names = [metric] if isinstance(metric, str) else list(metric)
    for name in names:
        if name not in REPORT_METRICS:
            raise ValueError(f"metric: unknown metric {name!r}; valid: {', '.join(REPORT_METRICS)}")
    prof = get_profile(profile)
    if min_runs is None:
        min_runs = 3 if "jackknife" in (prof.confidence_variant, prof.resource_variant) else 2
    table = validate_run_table(pilot_runs, source="pilot_runs")
    table = table.loc[~is_infrastructure_error(table["error"])]
    if table.empty:
        raise RunTableError("pilot_runs: no run without an infrastructure error")
    z = _normal_quantile(float(confidence_level))
    rows, options, text = [], [], [_preamble(halfwidth, confidence_level, z, max_tasks)]
    for agent, group in table.groupby("agent", sort=True):
        components, _ = _components(group, prof, n_boot, seed, str(agent), (min_runs, max_runs))
        for name in names:
            c = components.get(name)
            if c is None:
                raise ValueError(f"metric: {name!r} is not computed for these runs (no scores?)")
            row, opts, lines = _plan_one(
                str(agent),
                name,
                c,
                z,
                float(halfwidth),
                max_tasks,
                _k_grid(c.k0, min_runs, max_runs),
                (float(confidence_level), float(assurance)),
            )
            rows.append(row)
            options += opts
            text += lines
    index = ["agent", "metric"]
    return RunPlan(
        table=pd.DataFrame(rows).set_index(index),
        options=pd.DataFrame(options, columns=[*_OPTION_COLUMNS]).set_index(
            [*index, "runs_per_task"]
        ),
        explanation="\n".join(text),
    )


def _preamble(halfwidth: float, level: float, z: float, max_tasks: int | None) -> str:
    cap = f"at most {max_tasks} tasks" if max_tasks else "no limit on tasks"
    return (
        f"Target: a {level:.0%} interval of half-width ±{halfwidth:g} (z = {z:.3f}); {cap}.\n"
        "Model: Var(metric) ≈ V(K)/T with V(K) = σ_b² + σ_w²/K (σ_b² between tasks, σ_w² added "
        "by one run; exact binomial moments for C_out); half-width ≈ z·√(V(K)/T), T enlarged "
        "by an F-quantile allowance for the pilot's noise. Fewest total runs T·K: the smallest "
        "K whose T fits."
    )


def _plan_one(
    agent: str,
    name: str,
    c: _Components,
    z: float,
    halfwidth: float,
    max_tasks: int | None,
    grid: list[int],
    levels: tuple[float, float],
) -> tuple[dict[str, object], list[dict[str, object]], list[str]]:
    """The row of ``table``, the rows of ``options`` and the explanation of one metric."""
    head = (
        f"\n{name} [{agent}]: pilot {c.t0} tasks × K₀ = {c.k0:.3g} runs, estimate {c.estimate:.4g}"
    )
    now = z * math.sqrt(c.var_tasks) if not math.isnan(c.var_tasks) else math.nan
    row: dict[str, object] = {
        "agent": agent,
        "metric": name,
        "T0": c.t0,
        "K0": c.k0,
        "estimate": c.estimate,
        "halfwidth_now": now,
        "sigma2_between": c.sigma2_between,
        "sigma2_within": c.sigma2_within,
        "tasks": math.nan,
        "runs_per_task": math.nan,
        "total_runs": math.nan,
    }
    if math.isnan(c.estimate):
        return row, [], [head, "  cannot plan: the metric is undefined in the pilot."]
    if math.isnan(c.sigma2_within) or math.isnan(c.var_tasks):
        why = "too few runs per task (K₀ ≤ 1) or defined replicates to separate the two variances"
        return row, [], [head, f"  cannot plan: {why}."]
    lines = [
        f"{head}, half-width now ±{now:.3g}.",
        f"  tasks bootstrap: Var_T = {c.var_tasks:.3g}; "
        f"runs-within-tasks bootstrap: Var_W = {c.var_within:.3g}",
        f"  → σ_w² = Var_W·T₀K₀²/(K₀−1) = {c.sigma2_within:.3g}; "
        f"σ_b² = T₀·Var_T − σ_w²/K₀ = {c.sigma2_between:.3g}",
    ]
    if c.var_tasks == 0 and c.var_within == 0 and c.estimate in (0.0, 1.0):
        t = boundary_tasks(levels[0], halfwidth)
        k = grid[0]
        row.update(tasks=t, runs_per_task=k, total_runs=t * k)
        lines.append(
            f"  every pilot task is at {c.estimate:g}: no variance to scale. The report's "
            f"interval is then task-level Clopper–Pearson, ±{halfwidth:g} wide from {t} tasks"
            f" → recommend {t} tasks × {k} runs = {t * k} runs."
        )
        opts = [{"agent": agent, "metric": name, "runs_per_task": k, "tasks": t,
                 "total_runs": t * k}]  # fmt: skip
        return row, opts, lines
    model = {k: c.variance_at(k) for k in grid}
    lines.append(
        "  per-task variance at K: "
        + ", ".join(f"K={k}: {v:.3g} ({how})" for k, (v, how) in model.items())
    )
    needed = {k: c.tasks_needed(k, z, halfwidth, levels[1]) for k in grid}
    options: list[dict[str, object]] = [
        {"agent": agent, "metric": name, "runs_per_task": k, "tasks": t, "total_runs": t * k}
        for k, t in needed.items()
    ]
    lines.append(
        f"  tasks needed (with the allowance for noise, {levels[1]:.0%} assurance): "
        + ", ".join(f"K={k}: T={t}" for k, t in needed.items())
    )
    feasible = [k for k, t in needed.items() if max_tasks is None or t <= max_tasks]
    if feasible:
        k = min(feasible, key=lambda k: (needed[k] * k, k))
        row.update(tasks=needed[k], runs_per_task=k, total_runs=needed[k] * k)
        lines.append(f"  → recommend {needed[k]} tasks × {k} runs = {needed[k] * k} runs.")
    else:
        floor = allowance_tasks(c.sigma2_between, c.t0, z, halfwidth, levels[1])[0]
        largest = f"K ≤ {grid[-1]}" if grid else "the allowed K"
        lines.append(
            f"  → not reachable with {max_tasks} tasks and {largest}: the between-task spread "
            f"alone (with the allowance) needs T ≥ {floor}."
        )
    return row, options, lines
