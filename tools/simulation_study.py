"""The simulation study of docs/statistics.md: prints its tables as Markdown.

    .venv/bin/python tools/simulation_study.py            # the full study (≈ 36 min, 2 cores)
    .venv/bin/python tools/simulation_study.py --quick    # a smoke run with few replications
    .venv/bin/python tools/simulation_study.py --sections level spread --write docs/statistics.md

Agents come from :mod:`reliability_lab.simulate`; true values from closed forms (C_out, C_res,
C_conf) or, for trajectory similarity, from the pairwise mean over 60 runs per task (a
U-statistic, unbiased at every K). Every random draw is seeded: the same command prints the
same tables. A fast subset with loose tolerances runs in the test suite
(tests/report/test_simulation_study.py).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from reliability_lab import compare_agents, plan_runs, reliability_report
from reliability_lab.metrics.profiles import get_profile
from reliability_lab.report._report import agent_rng, bootstrap_replicates
from reliability_lab.report._taskstats import TaskStats
from reliability_lab.report._within import RunResampler
from reliability_lab.runs import validate_run_table
from reliability_lab.simulate import SimulatedAgent, Simulation, simulate_runs

sys.path.insert(0, str(Path(__file__).resolve().parent))
import study_adaptive  # this directory's sibling modules
import study_spread
import study_validity

A = 0.6
THETA = 1 / (2 * A + 1)  # E[(2p − 1)²] under Beta(0.6, 0.6)
AGENT = SimulatedAgent(success_a=A, success_b=A, trajectory_noise=0.2)
FAST_AGENT = SimulatedAgent(success_a=A, success_b=A, trajectory_noise=None)
METRICS = ("C_out", "C_res", "C_conf", "C_traj_s")
#: The markers of docs/statistics.md between which ``--write`` puts the tables.
BEGIN, END = "<!-- study:begin -->", "<!-- study:end -->"


def _report(runs: pd.DataFrame, **options: object) -> pd.Series:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return reliability_report(runs, **options).iloc[0]  # type: ignore[arg-type]


def _markdown(table: pd.DataFrame) -> str:
    head = "| " + " | ".join(str(c) for c in table.columns) + " |"
    rule = "|" + "---|" * len(table.columns)
    rows = ["| " + " | ".join(str(v) for v in row) + " |" for row in table.itertuples(index=False)]
    return "\n".join([head, rule, *rows])


def _truth(sim: Simulation, big: Simulation | None) -> dict[str, float]:
    kappa = sim.agent.confidence_concentration
    truth = {
        "C_out": float(np.mean((2 * sim.p - 1) ** 2)),
        "C_res": float(np.mean(np.exp(-sim.cv))),
        "C_conf": float(np.mean(np.exp(-np.sqrt((1 - sim.mu) / (sim.mu * (kappa + 1)))))),
    }
    if big is not None:  # same tasks, 60 runs each: the pairwise mean is unbiased
        truth["C_traj_s"] = float(_report(big.runs(big.max_runs), n_boot=0)["C_traj_s"])
    return truth


def bias_table(reps: int, n_tasks: int) -> pd.DataFrame:
    """Mean estimate − true value, over ``reps`` task samples, per metric, profile and K."""
    ks = (2, 3, 5, 10, 20)
    errors: dict[tuple[str, str, int], list[float]] = {}
    for rep in range(reps):
        sim = Simulation(AGENT, n_tasks, max(ks), seed=rep)
        truth = _truth(sim, Simulation(AGENT, n_tasks, 60, seed=rep))
        for k in ks:
            runs = sim.runs(k)
            for profile in ("default", "unbiased"):
                row = _report(runs, n_boot=0, profile=profile)
                for m in METRICS:
                    errors.setdefault((m, profile, k), []).append(row[m] - truth[m])
    out = []
    for m in METRICS:
        for profile in ("default", "unbiased"):
            cells = {}
            for k in ks:
                e = np.asarray(errors[(m, profile, k)], dtype=float)
                e = e[~np.isnan(e)]
                cells[f"K={k}"] = (
                    "n/a"
                    if e.size == 0
                    else f"{e.mean():+.4f} ± {e.std(ddof=1) / math.sqrt(e.size):.4f}"
                )
            out.append({"metric": m, "profile": profile, **cells})
    return pd.DataFrame(out)


def issue_check(seeds: int) -> pd.DataFrame:
    """The issue's setting: Beta(0.6, 0.6), 1,000 tasks; default C_out at K = 2, 5, 10."""
    rows = []
    for seed in range(seeds):
        sim = Simulation(FAST_AGENT, 1000, 10, seed=seed)
        theta = float(np.mean((2 * sim.p - 1) ** 2))
        row = {"seed": seed, "true (these tasks)": f"{theta:.3f}"}
        for k in (2, 5, 10):
            value = _report(sim.runs(k), n_boot=0)["C_out"]
            row[f"K={k}"] = f"{value:.3f}"
            row[f"θ+(1−θ)/{k}"] = f"{theta + (1 - theta) / k:.3f}"
        rows.append(row)
    rows.append(
        {"seed": "issue", "true (these tasks)": "0.430", "K=2": "0.724", "θ+(1−θ)/2": "0.715",
         "K=5": "0.529", "θ+(1−θ)/5": "0.544", "K=10": "0.483", "θ+(1−θ)/10": "0.487"}
    )  # fmt: skip
    return pd.DataFrame(rows)


def _uncentred_interval(
    runs: pd.DataFrame, profile: str, n_boot: int, seed: int
) -> tuple[float, float]:
    prof = get_profile(profile)
    runs = validate_run_table(runs)
    stats = TaskStats.build(runs, prof)
    resampler = RunResampler.build(runs, stats, prof)
    draws = bootstrap_replicates(stats, n_boot, agent_rng(seed, "agent"), resampler)["C_out"]
    lo, hi = np.nanquantile(draws, [0.025, 0.975])
    return float(lo), float(hi)


def coverage_table(reps: int, n_boot: int, k: int = 5) -> pd.DataFrame:
    """Coverage of the K-specific and the K → ∞ C_out by 95 % intervals, and mean width."""
    k_value = THETA + (1 - THETA) / k  # E[default C_out at K] over the task population
    rows = []
    for t in (20, 50, 200):
        hits: dict[tuple[str, str, str], list[bool]] = {}
        widths: dict[tuple[str, str], list[float]] = {}
        for rep in range(reps):
            runs = Simulation(FAST_AGENT, t, k, seed=10_000 + rep).runs(k)
            for profile in ("default", "unbiased"):
                target_k = k_value if profile == "default" else THETA
                intervals = {}
                for boot in ("tasks", "two-level"):
                    row = _report(runs, n_boot=n_boot, profile=profile, bootstrap=boot, seed=rep)
                    intervals[boot] = (row["C_out_lo"], row["C_out_hi"])
                if t <= 50:
                    intervals["two-level, uncentred"] = _uncentred_interval(
                        runs, profile, n_boot, rep
                    )
                for boot, (lo, hi) in intervals.items():
                    hits.setdefault((profile, boot, "K"), []).append(lo <= target_k <= hi)
                    hits.setdefault((profile, boot, "inf"), []).append(lo <= THETA <= hi)
                    widths.setdefault((profile, boot), []).append(hi - lo)
        for (profile, boot), w in widths.items():
            rows.append(
                {
                    "T": t,
                    "profile": profile,
                    "bootstrap": boot,
                    "covers the K=5 value": f"{np.mean(hits[(profile, boot, 'K')]):.1%}",
                    "covers the K → ∞ value": f"{np.mean(hits[(profile, boot, 'inf')]):.1%}",
                    "mean width": f"{np.mean(w):.3f}",
                }
            )
    return pd.DataFrame(rows)


def power_table(reps: int, n_boot: int) -> pd.DataFrame:
    """Rejection rate of compare_agents (C_out, unbiased, α = 5 %) by true difference and T."""
    rows = []
    for delta in (0.0, 0.05, 0.1, 0.2):
        b = (1 / (THETA + delta) - 1) / 2  # Beta(b, b) with E[(2p − 1)²] = θ + Δ
        row: dict[str, object] = {
            "true ΔC_out": f"{delta:.2f}",
            "candidate": f"Beta({b:.3f}, {b:.3f})",
        }
        for t in (50, 100, 200):
            rejected = 0
            for rep in range(reps):
                runs = simulate_runs(
                    [SimulatedAgent(name="A", trajectory_noise=None),
                     SimulatedAgent(name="B", success_a=b, success_b=b, trajectory_noise=None)],
                    n_tasks=t, runs=5, seed=50_000 + rep,
                )  # fmt: skip
                table = compare_agents(
                    runs, "A", "B", metrics=["C_out"], profile="unbiased", n_boot=n_boot, seed=rep
                )
                rejected += table.loc["C_out", "p_value"] < 0.05
            row[f"T={t}"] = f"{rejected / reps:.0%}"
        rows.append(row)
    return pd.DataFrame(rows)


def planning_table(reps: int) -> pd.DataFrame:
    """plan_runs from a 40 × 4 pilot vs the half-width fresh experiments of its design reach."""
    rows = []
    for metric, halfwidth, profile in (
        ("accuracy", 0.05, "default"),
        ("C_out", 0.08, "unbiased"),
        ("R_Con", 0.03, "unbiased"),
    ):
        pilot = Simulation(AGENT, 40, 4, seed=7).runs(4)
        plan = plan_runs(
            pilot.assign(agent="a"),
            metric=metric,
            halfwidth=halfwidth,
            profile=profile,
            n_boot=500,
            max_tasks=400,
        )
        row = plan.table.loc[("a", metric)]
        t, k = int(row["tasks"]), int(row["runs_per_task"])
        widths = []
        for rep in range(reps):
            runs = Simulation(AGENT, t, k, seed=900 + rep).runs(k)
            out = _report(runs, n_boot=400, profile=profile, seed=rep)
            widths.append((out[f"{metric}_hi"] - out[f"{metric}_lo"]) / 2)
        rows.append(
            {
                "metric": metric,
                "profile": profile,
                "target": f"±{halfwidth}",
                "recommended": f"{t} tasks × {k} runs",
                "achieved (mean of fresh runs)": f"±{np.mean(widths):.4f}",
            }
        )
    return pd.DataFrame(rows)


def _sections(q: bool) -> dict[str, tuple[str, Callable[[], pd.DataFrame]]]:
    """Every section: key → (title, table maker); ``q`` = quick mode."""
    return {
        "bias": (
            "Finite-K bias (mean estimate − true value ± SE; 500 tasks, 20 task samples)",
            lambda: bias_table(3 if q else 20, 100 if q else 500),
        ),
        "issue": (
            "The issue's numbers (Beta(0.6, 0.6), 1,000 tasks, default C_out)",
            lambda: issue_check(2 if q else 5),
        ),
        "coverage": (
            "Coverage of 95 % C_out intervals, K = 5 (200 replications, B = 400)",
            lambda: coverage_table(10 if q else 200, 100 if q else 400),
        ),
        "power": (
            "Power of compare_agents (C_out, unbiased, α = 5 %, K = 5, 200 replications)",
            lambda: power_table(5 if q else 200, 200 if q else 500),
        ),
        "adaptive": (
            "Adaptive vs uniform allocation (C_out half-width, unbiased, T = 100, "
            "mean of 10 task samples)",
            lambda: study_adaptive.adaptive_table(2 if q else 10, 100 if q else 300),
        ),
        "planning": (
            "plan_runs: recommended design vs achieved half-width (20 fresh experiments)",
            lambda: planning_table(3 if q else 20),
        ),
        "spread": (
            "Resource and confidence consistency under the unbiased profile: per-task bias of "
            "exp(−CV) estimators (20,000 tasks per cell)",
            lambda: study_validity.spread_bias_table(2000 if q else 20_000),
        ),
        "spread_region": (
            "Where the jackknife C_res and C_conf are within 0.01 of exp(−CV) (CV grid step "
            "0.05, 20,000 tasks per cell; the report's warning uses the last column)",
            lambda: study_validity.spread_region_table(2000 if q else 20_000),
        ),
        "spread_alternatives": (
            "Estimators of exp(−CV) tried for the unbiased C_res: per-task bias (SD) under "
            "log-normal, gamma and Weibull values (20,000 tasks per cell)",
            lambda: study_spread.spread_alternatives_table(2000 if q else 20_000),
        ),
        "two_level": (
            "Coverage of 95 % intervals by bootstrap (default profile, K = 5, 200 "
            "replications, B = 200; true values from 20,000 tasks)",
            lambda: study_validity.two_level_coverage_table(
                4 if q else 200, 100 if q else 200, truth_tasks=2000 if q else 20_000
            ),
        ),
        "level": (
            "Level of compare_agents under the null (α = 5 %, K = 5, 300 replications, "
            "B = 100 random sign patterns beyond 12 tasks, default family)",
            lambda: study_validity.level_table(10 if q else 300, 100),
        ),
        "assurance": (
            "plan_runs with the allowance for noise: experiments meeting the target "
            "(8 pilots of 40 × 4, 10 experiments each)",
            lambda: study_validity.planning_assurance_table(2 if q else 8, 3 if q else 10),
        ),
        "adaptive_bias": (
            "Adaptive runs: bias and coverage of the unbiased C_out by allocation rule "
            "(T = 100, initial K = 3, budget 600 runs, batch 20, B = 200, 150 experiments per row)",
            lambda: study_adaptive.adaptive_bias_table(2 if q else 150, 100 if q else 200),
        ),
        "adaptive_design": (
            "Adaptive runs: the least within-task variance of any unbiased C_out,t, by design "
            "(exact, p ~ Beta(0.6, 0.6))",
            study_adaptive.unbiased_design_table,
        ),
    }


def _write(path: str, blocks: dict[str, str]) -> None:
    """Put each section's table in the study block of ``path`` (between ``BEGIN`` and
    ``END``), replacing that section's earlier table (``<!-- study:KEY -->`` up to the next
    marker) and keeping the sections not re-run."""
    with open(path, encoding="utf-8") as handle:
        doc = handle.read()
    start, end = doc.index(BEGIN) + len(BEGIN), doc.index(END)
    kept: dict[str, str] = {}
    for part in doc[start:end].split("<!-- study:")[1:]:
        key, _, body = part.partition(" -->")
        kept[key] = body.strip("\n")
    kept.update({k: v.strip("\n") for k, v in blocks.items()})
    text = "".join(f"\n<!-- study:{k} -->\n{v}\n" for k, v in kept.items())
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(doc[:start] + text + "\n" + doc[end:])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few replications (smoke run)")
    parser.add_argument("--sections", nargs="+", help="only these sections (keys of _sections)")
    parser.add_argument("--write", metavar="FILE", help=f"put the tables between {BEGIN} … {END}")
    args = parser.parse_args(argv)
    sections = _sections(args.quick)
    chosen = args.sections or list(sections)
    unknown = sorted(set(chosen) - set(sections))
    if unknown:
        parser.error(f"unknown sections {unknown}; choose from {list(sections)}")
    out = {}
    for key in chosen:
        title, make = sections[key]
        start = time.perf_counter()
        table = make()
        block = f"### {title}\n\n{_markdown(table)}\n\n_{time.perf_counter() - start:.0f} s_\n"
        print(block, flush=True)
        out[key] = block
    if args.write:
        _write(args.write, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
