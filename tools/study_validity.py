"""Sections of the simulation study for the promises of issue 24 (see tools/simulation_study.py).

- :func:`spread_bias_table`: bias of the plug-in and jackknife exp(−CV) per task under
  log-normal and gamma values, by within-task CV and K;
- :func:`spread_region_table`: per K, the largest CV up to which the jackknife is within 0.01
  under both families (``reliability_lab.report._spread.REGION``, the report's warning);
- :func:`level_table`: rejection rate of :func:`~reliability_lab.compare_agents` under the
  null (two agents with the same task difficulties and run distribution) per metric and the
  Holm family-wise rate, at T = 5, 10, 20, 50;
- :func:`planning_assurance_table`: the share of experiments run as :func:`plan_runs`
  planned from independent pilots that meet the target half-width.

True values are closed forms (exp(−CV)) or the null itself (no difference); the project's
functions are only the thing measured. Every draw is seeded.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd

from reliability_lab import compare_agents, plan_runs, reliability_report
from reliability_lab.metrics._arrays import Groups
from reliability_lab.metrics.consistency import resource_per_task
from reliability_lab.simulate import SimulatedAgent, Simulation, simulate_runs

CVS = (0.25, 0.5, 1.0, 1.5)
KS = (3, 5, 10, 20)


def _draw(family: str, cv: float, shape: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    """Values of mean 1 and coefficient of variation ``cv``."""
    if family == "log-normal":
        sigma = math.sqrt(math.log1p(cv**2))
        return np.exp(sigma * rng.standard_normal(shape) - sigma**2 / 2)
    k = 1 / cv**2  # gamma: CV = 1/√shape
    return rng.gamma(k, 1 / k, shape)


def spread_bias_table(n_tasks: int) -> pd.DataFrame:
    """Mean per-task exp(−CV) estimate − exp(−CV) (± SE), ``n_tasks`` tasks per cell."""
    rng = np.random.default_rng(24)
    rows = []
    for family in ("log-normal", "gamma"):
        for cv in CVS:
            for variant in ("plug_in", "jackknife"):
                row: dict[str, object] = {"values": family, "CV": cv, "estimator": variant}
                for k in KS:
                    x = _draw(family, cv, (n_tasks, k), rng).ravel()
                    groups = Groups(
                        codes=np.repeat(np.arange(n_tasks), k), labels=np.arange(n_tasks)
                    )
                    err = resource_per_task({"cost_usd": x}, groups, variant) - math.exp(-cv)
                    err = err[~np.isnan(err)]
                    se = err.std(ddof=1) / math.sqrt(err.size)
                    row[f"K={k}"] = f"{err.mean():+.3f} ± {se:.3f}"
                rows.append(row)
    return pd.DataFrame(rows)


def _null_runs(t: int, seed: int) -> pd.DataFrame:
    """Two agents with identical parameters and shared task difficulties: the null."""
    agents = [
        SimulatedAgent(name=name, trajectory_noise=0.2, overconfidence=0.2, resource_cv=0.4)
        for name in ("A", "B")
    ]
    tables = [
        Simulation(a, t, 5, seed=seed, task_seed=seed, stream=i).runs(5)
        for i, a in enumerate(agents)
    ]
    return pd.concat(tables, ignore_index=True)


def level_table(reps: int, n_boot: int, sizes: tuple[int, ...] = (5, 10, 20, 50)) -> pd.DataFrame:
    """Share of null comparisons rejected at 5 % per metric (default family) and Holm FWER."""
    rows = []
    for t in sizes:
        rejected: dict[str, list[bool]] = {}
        family_wise, p_min = [], math.nan
        for rep in range(reps):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                table = compare_agents(_null_runs(t, 7000 + rep), "A", "B", n_boot=n_boot, seed=rep)
            for metric, p in table["p_value"].items():
                rejected.setdefault(str(metric), []).append(bool(p < 0.05))
            family_wise.append(bool((table["p_adjusted"] < 0.05).any()))
            p_min = float(table["p_min"].min())
        worst = max(rejected, key=lambda m: np.mean(rejected[m]))
        se = math.sqrt(0.05 * 0.95 / reps)
        rows.append(
            {
                "T": t,
                "smallest p": f"{p_min:.3g}",
                "metrics": len(rejected),
                "mean level": f"{np.mean([np.mean(v) for v in rejected.values()]):.1%}",
                "highest level (metric)": f"{np.mean(rejected[worst]):.1%} ({worst})",
                "Holm family-wise": f"{np.mean(family_wise):.1%}",
                "bound 5 % + 2 MC SE": f"{0.05 + 2 * se:.1%}",
            }
        )
    return pd.DataFrame(rows)


def _achieved(metric: str, profile: str, t: int, k: int, seed: int) -> float:
    runs = Simulation(SimulatedAgent(trajectory_noise=None), t, k, seed=seed).runs(k)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        row = reliability_report(runs, n_boot=400, profile=profile, seed=seed).iloc[0]
    return float((row[f"{metric}_hi"] - row[f"{metric}_lo"]) / 2)


def planning_assurance_table(pilots: int, fresh: int) -> pd.DataFrame:
    """Per independent 40 × 4 pilot: the plan, and the share of ``fresh`` experiments run as
    planned whose interval half-width meets the target (assurance 80 %)."""
    rows = []
    for metric, halfwidth, profile in (("accuracy", 0.05, "default"), ("C_out", 0.08, "unbiased")):
        met, designs = [], []
        for pilot_seed in range(pilots):
            pilot = simulate_runs(
                SimulatedAgent(trajectory_noise=None), n_tasks=40, runs=4, seed=300 + pilot_seed
            )
            plan = plan_runs(
                pilot, metric=metric, halfwidth=halfwidth, profile=profile, n_boot=400
            ).table.loc[("agent", metric)]
            t, k = int(plan["tasks"]), int(plan["runs_per_task"])
            designs.append(t * k)
            met += [
                _achieved(metric, profile, t, k, 5000 + 100 * pilot_seed + rep) <= halfwidth
                for rep in range(fresh)
            ]
        rows.append(
            {
                "metric": metric,
                "profile": profile,
                "target": f"±{halfwidth}",
                "pilots": pilots,
                "planned runs (min–max)": f"{min(designs)}–{max(designs)}",
                "experiments meeting the target": f"{np.mean(met):.0%} of {len(met)}",
            }
        )
    return pd.DataFrame(rows)


REGION_KS = (3, 4, 5, 6, 8, 10, 20)
REGION_GRID = tuple(round(0.05 * i, 2) for i in range(1, 31))  # CV 0.05 … 1.5
TOLERANCE = 0.01


def _jackknife_cell(family: str, cv: float, k: int, n_tasks: int, seed: int) -> tuple[float, float]:
    """(mean jackknife exp(−CV) − exp(−CV), median plug-in CV) of ``n_tasks`` tasks."""
    x = _draw(family, cv, (n_tasks, k), np.random.default_rng(seed))
    groups = Groups(codes=np.repeat(np.arange(n_tasks), k), labels=np.arange(n_tasks))
    values = resource_per_task({"v": x.ravel()}, groups, "jackknife")
    bias = float(np.nanmean(values)) - math.exp(-cv)
    return bias, float(np.median(x.std(axis=1, ddof=1) / x.mean(axis=1)))


def spread_region_table(n_tasks: int) -> pd.DataFrame:
    """Per K, the largest within-task CV up to which the jackknife exp(−CV) is within
    ``TOLERANCE`` at every grid CV, under log-normal and gamma values, and the median plug-in
    CV of such tasks at that boundary (what the report's warning compares the data with)."""
    rows = []
    for k in REGION_KS:
        row: dict[str, object] = {"K": k}
        bounds = []
        for family in ("log-normal", "gamma"):
            best, first_out = 0.0, "none up to 1.5"
            for i, cv in enumerate(REGION_GRID):
                bias, _ = _jackknife_cell(family, cv, k, n_tasks, 1000 * k + i)
                if abs(bias) > TOLERANCE:
                    first_out = f"{cv} ({bias:+.3f})"
                    break
                best = cv
            bounds.append(best)
            row[f"{family}: largest CV"] = best
            row[f"{family}: first CV outside (bias)"] = first_out
        region = min(bounds)
        row["region: CV ≤"] = region
        # the warning's threshold: the median plug-in CV at the region's edge, lower family
        edge = [_jackknife_cell(f, region, k, n_tasks, 7)[1] for f in ("log-normal", "gamma")]
        row["median plug-in CV at the edge (lower family)"] = f"{min(edge):.2f}" if region else "–"
        rows.append(row)
    return pd.DataFrame(rows)


TWO_LEVEL_METRICS = ("accuracy", "P_brier", "C_out", "R_Con")


def two_level_coverage_table(
    reps: int, n_boot: int, sizes: tuple[int, ...] = (20, 50), truth_tasks: int = 20_000
) -> pd.DataFrame:
    """Coverage of 95 % intervals, tasks vs two-level bootstrap, of pooled metrics, C_out and
    R_Con (default profile, K = 5). True values: the report on ``truth_tasks`` tasks of the agent
    (each metric is a mean over tasks or runs, so its K = 5 value is what a huge T gives)."""
    agent = SimulatedAgent(trajectory_noise=0.2, overconfidence=0.2, resource_cv=0.4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        big = reliability_report(Simulation(agent, truth_tasks, 5, seed=1).runs(5), n_boot=0)
    truth = {m: float(big.iloc[0][m]) for m in TWO_LEVEL_METRICS}
    rows = []
    for t in sizes:
        hits: dict[tuple[str, str], list[bool]] = {}
        for rep in range(reps):
            runs = Simulation(agent, t, 5, seed=20_000 + rep).runs(5)
            for boot in ("tasks", "two-level"):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    row = reliability_report(runs, n_boot=n_boot, bootstrap=boot, seed=rep)
                out = row.iloc[0]
                for m in TWO_LEVEL_METRICS:
                    lo, hi = float(out[f"{m}_lo"]), float(out[f"{m}_hi"])
                    hits.setdefault((boot, m), []).append(lo <= truth[m] <= hi)
        for boot in ("tasks", "two-level"):
            rows.append(
                {"T": t, "bootstrap": boot}
                | {m: f"{np.mean(hits[(boot, m)]):.1%}" for m in TWO_LEVEL_METRICS}
            )
    return pd.DataFrame(rows)
