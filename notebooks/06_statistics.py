# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     notebook_metadata_filter: -jupytext.text_representation
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 06 · Statistics: bias vs K, interval coverage, comparing agents, how many runs
#
# A reliability report raises four questions this notebook answers with simulations whose
# true values are known (`reliability_lab.simulate`, docs/statistics.md):
#
# 1. Does a number depend on how many runs per task (K) I made? (bias vs K)
# 2. Does a 95 % interval contain the true value 95 % of the time? (coverage)
# 3. Is agent B really more reliable than agent A? (paired comparison)
# 4. How many tasks and runs do I need for a given precision? (planning)
#
# **Every run table here is SIMULATED** by `reliability_lab.simulate`: per-task success
# probabilities p_t drawn from a Beta(a, b), outcomes drawn from them. Nothing calls a model.
# That is the point: the true (K → ∞) values are known in closed form, so estimates can be
# checked against them.

# %%
import warnings

import numpy as np
import pandas as pd
from matplotlib import pyplot as plt

import reliability_lab as rl
from reliability_lab import metrics, plots
from reliability_lab.simulate import SimulatedAgent, Simulation, simulate_runs

warnings.simplefilter("ignore", rl.UndefinedMetricWarning)
pd.set_option("display.precision", 3)
pd.set_option("display.width", 120)
plots.use_paper_style()

# %% [markdown]
# ## 1 · Bias vs K
#
# The agent's tasks have p_t ~ Beta(0.6, 0.6). The K → ∞ outcome consistency is
# E[(2p − 1)²] = 1/(2·0.6 + 1) ≈ 0.455 (`population_values`). The **default** C_out,
# (2p̂ − 1)² per task, is larger on average by 4p(1 − p)/K: with few runs a task *looks* more
# consistent than it is. The **unbiased** variant (1 − 4s², s² the ddof-1 variance of the
# task's outcomes) has expectation (2p − 1)² at every K ≥ 2. Below: the mean of each over
# 20 simulated benchmarks of 200 tasks, at K = 2, 3, 5, 10.

# %%
agent = SimulatedAgent(name="agent", success_a=0.6, success_b=0.6)
truth = agent.population_values()["C_out"]
rows = []
for K in (2, 3, 5, 10):
    for seed in range(20):
        runs = Simulation(agent, n_tasks=200, max_runs=K, seed=seed).runs(K)
        for variant in ("corrected", "unbiased"):
            tasks = metrics.per_task_consistency(
                runs["success"], runs["task_id"], outcome_variant=variant
            )
            rows.append({"K": K, "variant": variant, "seed": seed, "C_out": tasks["C_out"].mean()})
bias = pd.DataFrame(rows).groupby(["K", "variant"])["C_out"].mean().unstack()
bias["default − truth"] = bias["corrected"] - truth
bias["unbiased − truth"] = bias["unbiased"] - truth
bias["theory (1 − θ)/K"] = (1 - truth) / bias.index
print(f"true K → ∞ value: {truth:.3f}")
print(bias.round(3).to_string())

# %% [markdown]
# The default profile's excess matches the theory (1 − θ)/K; the unbiased variant stays at
# the truth. Same numbers as a figure:

# %%
fig, ax = plt.subplots(figsize=(3.6, 2.6))
ax.plot(bias.index, bias["corrected"], marker="o", label="default (corrected)")
ax.plot(bias.index, bias["unbiased"], marker="s", label="unbiased")
ax.axhline(truth, ls=":", color="0.4", label="true K → ∞ value")
ax.set(xlabel="runs per task K", ylabel="mean $C_{\\mathrm{out}}$", xticks=bias.index)
ax.legend(frameon=False, fontsize="small")
plt.show();
# %% [markdown]
# ## 2 · Interval coverage
#
# The report's 95 % interval resamples tasks. Does it contain the K → ∞ value? Repeat a small
# experiment (30 tasks × K = 3) 40 times and count. A task bootstrap is blind to the default
# C_out's bias, so its interval sits around the *K = 3* value and misses the truth far more
# often than 5 %; with the unbiased profile coverage is near the nominal 95 % (40 replications
# give it to about ±4 points; docs/statistics.md has the full study).

# %%
covered = {"default": [], "unbiased": []}
for seed in range(40):
    runs = Simulation(agent, n_tasks=30, max_runs=3, seed=100 + seed).runs(3)
    for profile in covered:
        report = rl.reliability_report(runs, profile=profile, n_boot=200, seed=seed)
        lo, hi = report.loc["agent", ["C_out_lo", "C_out_hi"]]
        covered[profile].append(lo <= truth <= hi)
coverage = pd.Series({p: np.mean(c) for p, c in covered.items()}, name="coverage of 0.455")
print(coverage.round(3).to_string())

# %% [markdown]
# ## 3 · Comparing two agents
#
# Two simulated agents on the same 40 tasks (hard tasks are hard for both), K = 4, with a
# fault condition: `new` succeeds more often (Beta(1.2, 0.6)) but is over-confident.
# `compare_agents` resamples the **same** tasks for both (a paired bootstrap interval) and
# reports candidate − baseline per metric with its interval, the p-value of an exact
# task-level sign-flip test (smallest attainable: 2^(1 − T)) and that p-value adjusted for
# testing the family of metrics at once (Holm; constant and duplicate metrics left out).

# %%
pair = simulate_runs(
    [
        SimulatedAgent(name="old", success_a=0.6, success_b=0.6, sensitivity={"fault": 0.8}),
        SimulatedAgent(
            name="new",
            success_a=1.2,
            success_b=0.6,
            overconfidence=0.15,
            sensitivity={"fault": 0.9},
        ),
    ],
    n_tasks=40,
    runs=4,
    conditions=["fault"],
    seed=1,
)
comparison = rl.compare_agents(pair, "old", "new", n_boot=1000, seed=0)
shown = ["baseline", "candidate", "difference", "difference_lo", "difference_hi", "p_adjusted"]
print(comparison[shown].round(3).to_string())
print("Holm family:", comparison.attrs["family"])
print("left out:", comparison.attrs["left_out"])

# %% [markdown]
# The paired differences as a figure: a marker per metric at new − old, its 95 % paired
# interval, filled where that interval excludes 0; the Holm-adjusted p-value is printed at
# the right (bold below 0.05) and the family above.

# %%
plots.plot_paired_differences(comparison)
plt.show();
# %% [markdown]
# ## 4 · How many runs?
#
# From a pilot (20 tasks × K = 3 of the Beta(0.6, 0.6) agent) `plan_runs` estimates the
# between-task variance σ_b² and the variance one run adds σ_w², then the tasks T needed at
# each K for a ±0.05 interval: half-width ≈ z·√((σ_b² + σ_w²/K)/T) (for C_out the exact
# variance at K), enlarged so that 80 % of experiments run as planned meet the target. It
# recommends the (T, K) with the fewest total runs, here with at most 300 tasks available.
# Planned with the unbiased profile, so C_out's target does not move with K.

# %%
pilot = Simulation(agent, n_tasks=20, max_runs=3, seed=7).runs(3)
plan = rl.plan_runs(
    pilot, metric=["C_out", "accuracy"], halfwidth=0.05, max_tasks=300, profile="unbiased"
)
print(plan)
columns = ["estimate", "halfwidth_now", "sigma2_between", "sigma2_within", "tasks"]
print(plan.table[[*columns, "runs_per_task", "total_runs"]].round(3).to_string())
