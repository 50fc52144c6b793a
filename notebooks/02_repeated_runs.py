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
# # 02 · Repeated runs: consistency and predictability
#
# An agent that succeeds 90 % of the time may fail on the same tasks every time, or on random
# ones; it may know when it is about to fail, or not. Telling these apart takes **repeated
# runs**: every task K times. This notebook runs the notebooks' shared experiment
# (`experiments/notebooks.yaml`, the demo's smaller sibling) offline, reads its run table and
# reliability report, and draws the consistency and predictability figures.
#
# **The agents are the built-in SIMULATED model** (`sim/calibrated`, `sim/inconsistent`,
# `sim/overconfident`, `sim/brittle`; `docs/simulated_model.md`): scripted stand-ins with known
# reliability profiles, not real LLMs, so everything runs offline and reproduces exactly from
# the seed. This notebook looks at the **baseline** runs; notebook 03 at the perturbed ones.

# %%
# %matplotlib inline
import os
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from IPython.display import display
from matplotlib import pyplot as plt

import reliability_lab as rl
from reliability_lab import plots
from reliability_lab.report import explain_undefined, value_with_ci

SEED = 0  # the experiment's master seed (in the config); the report's bootstrap seed
pd.set_option("display.precision", 3)
pd.set_option("display.width", 120)
warnings.simplefilter("ignore", rl.UndefinedMetricWarning)
plots.use_paper_style()
CONFIG = Path("../experiments/notebooks.yaml")
RESULTS = Path("../results/notebooks")

# %% [markdown]
# ## The experiment
#
# Four simulated agents × 12 customer-service tasks × K = 4 baseline runs, plus the perturbed
# runs notebook 03 uses. `run_experiment` resumes an existing results directory, so whichever
# notebook runs first executes the experiment (about half a minute) and the others read it.

# %%
outcome = rl.run_experiment(CONFIG, output=RESULTS, progress=False)
runs = outcome.runs.sort_values(["agent", "task_id", "condition", "variant", "run"])
baseline = runs[runs["condition"] == "baseline"].reset_index(drop=True)
print(f"{len(runs)} runs, {len(baseline)} at baseline; simulated: {bool(runs['simulated'].all())}")
print(baseline.groupby("agent")["success"].agg(runs="size", accuracy="mean").round(3).to_string())

# %% [markdown]
# ## The run table
#
# One row per run — the data every metric reads (`docs/run_table.md`): outcome, the agent's
# self-reported confidence (asked after the run), the actions it took and its resources.

# %%
baseline[["agent", "task_id", "run", "success", "confidence", "actions", "cost_usd"]].head(6)

# %% [markdown]
# ## The report, with 95 % intervals
#
# `reliability_report` computes every metric per agent with a bootstrap that resamples
# **tasks**. Wall-clock resources (`wall_time_s`, `call_latency_s`) are this machine's timings
# and differ on every execution, so for numbers that reproduce exactly they are marked *not
# recorded* here and C_res uses cost, calls, actions and errors. With baseline runs only, R is
# undefined — it needs robustness too — and the report says so.

# %%
timing_free = baseline.assign(wall_time_s=np.nan, call_latency_s=np.nan)
report = rl.reliability_report(timing_free, n_boot=1000, seed=SEED)
shown = ["accuracy", "C_out", "C_traj_d", "C_traj_s", "C_res", "R_Con", "P_brier", "P_auroc"]
print(
    pd.DataFrame(
        {m: [value_with_ci(r, m) for _, r in report.iterrows()] for m in shown[:4]},
        index=report.index,
    ).to_string()
)
print(
    pd.DataFrame(
        {m: [value_with_ci(r, m) for _, r in report.iterrows()] for m in shown[4:]},
        index=report.index,
    ).to_string()
)
print(explain_undefined("R", report.loc["calibrated"]))

# %% [markdown]
# ### Consistency with intervals
#
# Each marker is a report cell, each bar its bootstrap interval; R_Con (right of the dotted
# rule) combines the others. The `inconsistent` profile varies its trajectory run to run.

# %%
plots.plot_metric_intervals(report, plots.INTERVAL_GROUPS["consistency"]).figure.set_size_inches(
    7, 2.8
)
plt.show();
# %% [markdown]
# ## Per task: how often does each task succeed?
#
# `metrics.per_task_consistency` gives each task's success rate and consistency terms (the
# figure set below gathers them with `plots.figure_data`). Tasks at 0 or 1 are decided the
# same way on every run; the tasks in between are where repeated runs disagree.

# %%
data = plots.figure_data(RESULTS)
for agent, tasks in data.per_task.items():
    decided = int(tasks["success_rate"].isin([0.0, 1.0]).sum())
    print(f"{agent:13} tasks decided the same way on all 4 runs: {decided} of {len(tasks)}")
plots.plot_success_rate_histogram(pd.concat([t.assign(agent=a) for a, t in data.per_task.items()]))
plt.show();
# %% [markdown]
# Every run's outcome, task by task (columns in the same task order for every agent):

# %%
display(plots.draw_figure("outcome_grid", data));
# %% [markdown]
# ## pass^k: does it succeed *every* time?
#
# pass^k is the chance that k runs of a task all succeed (τ-bench); pass^1 is accuracy. The
# dotted lines, (pass^1)^k, are what accuracy alone predicts if every task were equally hard:
# pass^k falls more slowly because failures concentrate on some tasks.

# %%
table = pd.DataFrame(
    {a: c.pass_hat_k for a, c in data.pass_hat_k.items()}, index=[f"pass^{k}" for k in range(1, 5)]
).T
print(table.round(3).to_string())
display(plots.draw_figure("pass_hat_k", data));
# %% [markdown]
# ## Outcome consistency per task
#
# C_out,t = (2p̂_t − 1)² puts every task on the parabola (grey); marker area and label give how
# many tasks share a point. C_out is the mean over tasks.

# %%
display(plots.draw_figure("outcome_consistency", data));
# %% [markdown]
# ## Trajectory consistency
#
# Among successful runs of a task: the same *mix* of tools (distribution) against the same
# *order* (sequence). Points below the diagonal reorder the same tools.

# %%
display(plots.draw_figure("trajectory_consistency", data));
# %% [markdown]
# ## Predictability: does the agent know when it will fail?
#
# After each run the agent is asked for its confidence (0–100). A calibrated agent's bars
# follow the diagonal (numbers at the foot: runs per bin); `overconfident` always says 90–100.

# %%
print(report[["P_brier", "P_cal", "P_auroc", "P_rc"]].round(3).to_string())
display(plots.draw_figure("reliability_diagrams", data));
# %% [markdown]
# ### Selective prediction
#
# Keep only the runs the agent is most confident about: a predictable agent's accuracy rises
# toward the oracle order (dotted) as coverage falls; a random order stays flat (dashed).

# %%
display(plots.draw_figure("accuracy_coverage", data));
# %% [markdown]
# ## The same experiment with a real model
#
# `experiments/openai_example.yaml` runs `openai/gpt-4o-mini` beside the simulated agent; it
# needs `OPENAI_API_KEY` and costs money, so without a key this cell only says so. (Its output
# is not compared by the notebook tests.)

# %%
# NBVAL_IGNORE_OUTPUT
if os.environ.get("OPENAI_API_KEY"):
    real = rl.run_experiment(
        "../experiments/openai_example.yaml", output="../results/openai", progress=False
    )
    print(real.report[["accuracy", "C_out", "R_Con", "P_brier"]].round(3).to_string())
else:
    print("OPENAI_API_KEY is not set: skipped the real-model experiment.")
