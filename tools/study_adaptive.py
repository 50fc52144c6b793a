"""Sections of the simulation study for adaptive runs (issue 24, item 6; see
tools/simulation_study.py).

- :func:`adaptive_table`: the C_out half-width after each number of runs, uniform K against
  the ``uncertainty`` rule;
- :func:`adaptive_bias_table`: bias and interval coverage of the ``unbiased`` C_out after an
  adaptive experiment, per allocation rule, at T = 100 tasks and a budget of 600 runs;
- :func:`unbiased_design_table`: for two-stage designs that give a task extra runs according
  to its first-stage outcomes, the smallest within-task variance any estimator unbiased for
  (2p − 1)² at every p can have (computed exactly), against uniform K at the same runs.

True values are closed forms; the project's functions are only the thing measured.
"""

from __future__ import annotations

import math
import warnings
from math import comb

import numpy as np
import pandas as pd

from reliability_lab import reliability_report
from reliability_lab.report.allocation import AdaptiveAllocator
from reliability_lab.simulate import SimulatedAgent, Simulation

T, INITIAL_K, BUDGET = 100, 3, 600
POPULATIONS = {
    "Beta(0.6, 0.6)": SimulatedAgent(trajectory_noise=None),
    "half all-or-nothing": SimulatedAgent(trajectory_noise=None, deterministic_share=0.5),
}


class _BudgetOnly(AdaptiveAllocator):
    """An allocator whose target is never reached: runs to the budget without computing the
    interval each round (the rules never read it to pick tasks)."""

    def current_halfwidth(self, runs: pd.DataFrame) -> float:
        return math.inf


def _one_experiment(
    agent: SimulatedAgent, rule: str, halfwidth: float | None, seed: int, n_boot: int
) -> tuple[float, float, float, int]:
    """(estimate, lo, hi, runs used) of the unbiased C_out after one adaptive experiment
    (``halfwidth`` None: run to the budget)."""
    max_runs = BUDGET // T * 4
    sim = Simulation(agent, T, max_runs, seed=seed)
    kind = AdaptiveAllocator if halfwidth is not None else _BudgetOnly
    allocator = kind(
        "C_out", halfwidth or 1.0, max_runs=max_runs, budget=BUDGET, batch=T // 5,
        profile="unbiased", n_boot=n_boot, seed=seed, rule=rule,
    )  # fmt: skip
    counts = np.full(T, INITIAL_K)
    ids = {name: i for i, name in enumerate(sim.task_ids())}
    while True:
        step = allocator.step(sim.runs(counts))
        if not step.tasks:
            break
        for task in step.tasks:
            counts[ids[task]] += 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        row = reliability_report(sim.runs(counts), profile="unbiased", n_boot=n_boot, seed=seed)
    out = row.iloc[0]
    return float(out["C_out"]), float(out["C_out_lo"]), float(out["C_out_hi"]), int(counts.sum())


#: (rule, target half-width or None = run to the budget) of each row.
ARMS = (("uniform", None), ("uniform", 0.095), ("uncertainty", None))


def adaptive_bias_table(reps: int, n_boot: int) -> pd.DataFrame:
    """Mean estimate − population C_out (± SE), coverage of the population value, runs used."""
    rows = []
    for name, agent in POPULATIONS.items():
        truth = agent.population_values()["C_out"]
        for rule, halfwidth in ARMS:
            results = np.array(
                [_one_experiment(agent, rule, halfwidth, 8000 + r, n_boot) for r in range(reps)]
            )
            err = results[:, 0] - truth
            se = err.std(ddof=1) / math.sqrt(reps) if reps > 1 else math.nan
            covered = (results[:, 1] <= truth) & (truth <= results[:, 2])
            rows.append(
                {
                    "tasks": name,
                    "rule": rule,
                    "stop": "budget" if halfwidth is None else f"±{halfwidth} or budget",
                    "runs used (mean)": f"{results[:, 3].mean():.0f}",
                    "bias ± SE": f"{err.mean():+.4f} ± {se:.4f}",
                    "coverage": f"{covered.mean():.1%}",
                    "mean half-width": f"{np.mean((results[:, 2] - results[:, 1]) / 2):.4f}",
                }
            )
    return pd.DataFrame(rows)


def _outcomes(k0: int, extra: tuple[int, int]) -> dict[tuple[int, int], int]:
    """(successes, runs) → number of run sequences reaching it, when a task unanimous in its
    first ``k0`` runs gets ``extra[0]`` more runs and a split task ``extra[1]``."""
    out: dict[tuple[int, int], int] = {}
    for a in range(k0 + 1):
        m = extra[0] if a in (0, k0) else extra[1]
        for b in range(m + 1):
            key = (a + b, k0 + m)
            out[key] = out.get(key, 0) + comb(k0, a) * comb(m, b)
    return out


def min_unbiased_variance(k0: int, extra: tuple[int, int], a: float) -> tuple[float, float]:
    """Smallest E_p[Var(θ̂ | p)] over estimators θ̂(successes, runs) with E[θ̂ | p] = (2p − 1)²
    for every p, p ~ Beta(a, a), and the expected runs per task. (successes, runs) is
    sufficient for p, so no estimator that also looks at the order of the runs does better.
    """
    out = _outcomes(k0, extra)
    keys = sorted(out)
    degree = max(n for _, n in keys)
    # E[θ̂ | p] = Σ c·p^s(1 − p)^(n − s)·θ̂(s, n): its coefficients in the monomials p^j
    design = np.zeros((degree + 1, len(keys)))
    for col, (s, n) in enumerate(keys):
        for j in range(n - s + 1):
            design[s + j, col] += out[(s, n)] * comb(n - s, j) * (-1) ** j
    target = np.zeros(degree + 1)
    target[:3] = (1.0, -4.0, 4.0)  # (2p − 1)² = 1 − 4p + 4p²

    def moment(i: int, j: int) -> float:  # E[p^i (1 − p)^j]
        return math.exp(_log_beta(a + i, a + j) - _log_beta(a, a))

    weight = np.array([out[(s, n)] * moment(s, n - s) for s, n in keys])
    # minimise Σ weight·θ̂² subject to design·θ̂ = target (Lagrange)
    scaled = design / weight
    multipliers = np.linalg.lstsq(scaled @ design.T, target, rcond=None)[0]
    estimate = (design.T @ multipliers) / weight
    if not np.allclose(design @ estimate, target, atol=1e-6):
        raise RuntimeError(f"no unbiased estimator found for k0={k0}, extra={extra}")
    second = moment(0, 0) - 8 * moment(1, 1) + 16 * moment(2, 2)  # E[(1 − 4p(1 − p))²]
    runs = sum(out[(s, n)] * moment(s, n - s) * n for s, n in keys)
    return float(np.sum(weight * estimate**2) - second), float(runs)


def _log_beta(x: float, y: float) -> float:
    return math.lgamma(x) + math.lgamma(y) - math.lgamma(x + y)


def unbiased_design_table(a: float = 0.6) -> pd.DataFrame:
    """Uniform K against two-stage designs that favour the split tasks (exact, Beta(a, a))."""
    designs = [(k, (0, 0)) for k in (3, 5, 6, 7)]
    designs += [(3, (0, 7)), (3, (1, 6)), (3, (2, 4)), (4, (1, 4)), (4, (0, 6))]
    rows = []
    for k0, extra in designs:
        variance, runs = min_unbiased_variance(k0, extra, a)
        label = (
            f"uniform K = {k0}"
            if extra == (0, 0)
            else f"K₀ = {k0}, then +{extra[0]} if unanimous, +{extra[1]} if split"
        )
        rows.append(
            {
                "design": label,
                "runs per task (mean)": f"{runs:.2f}",
                "least within-task variance of an unbiased C_out,t": f"{variance:.4f}",
            }
        )
    return pd.DataFrame(rows)


def _curves(
    agent: SimulatedAgent, t: int, totals: list[int], seeds: int, n_boot: int
) -> tuple[np.ndarray, np.ndarray]:
    uniform, adaptive = [], []
    for seed in range(seeds):
        sim = Simulation(agent, t, 40, seed=seed)
        allocator = AdaptiveAllocator(
            "C_out",
            1e-9,
            max_runs=40,
            budget=10**7,
            batch=max(1, t // 5),
            profile="unbiased",
            n_boot=n_boot,
            seed=seed,
            rule="uncertainty",
        )
        uniform.append([allocator.current_halfwidth(sim.runs(n // t)) for n in totals])
        counts = np.full(t, totals[0] // t)
        ids = {name: i for i, name in enumerate(sim.task_ids())}
        curve = []
        for total in totals:
            while counts.sum() < total:
                for task in allocator.step(sim.runs(counts)).tasks:
                    counts[ids[task]] += 1
            curve.append(allocator.current_halfwidth(sim.runs(counts)))
        adaptive.append(curve)
    return np.mean(uniform, axis=0), np.mean(adaptive, axis=0)


def _runs_to_reach(totals: list[int], widths: np.ndarray, target: float) -> str:
    below = np.flatnonzero(widths <= target)
    return str(totals[below[0]]) if below.size else f"> {totals[-1]}"


def adaptive_table(seeds: int, n_boot: int) -> pd.DataFrame:
    """Mean C_out (unbiased) half-width vs total runs, uniform K vs the ``uncertainty`` rule,
    T = 100."""
    t = 100
    totals = [t * k for k in (3, 4, 5, 6, 8, 10, 12)]
    rows = []
    populations: dict[str, SimulatedAgent] = {
        "Beta(0.6, 0.6)": POPULATIONS["Beta(0.6, 0.6)"],
        "Beta(0.6, 0.6), half the tasks all-or-nothing": SimulatedAgent(
            trajectory_noise=None, deterministic_share=0.5
        ),
    }
    for name, agent in populations.items():
        uniform, adaptive = _curves(agent, t, totals, seeds, n_boot)
        for label, widths in (("uniform K", uniform), ("adaptive", adaptive)):
            rows.append(
                {
                    "tasks": name,
                    "allocation": label,
                    **{f"{n} runs": f"{w:.4f}" for n, w in zip(totals, widths, strict=True)},
                }
            )
        for target in (uniform[2], uniform[4]):
            u, a = (_runs_to_reach(totals, w, target) for w in (uniform, adaptive))
            text = f"runs to reach ±{target:.4f}: uniform {u}, adaptive {a}"
            rows.append({"tasks": name, "allocation": text})
    return pd.DataFrame(rows).fillna("")
