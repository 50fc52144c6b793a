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
# # 03 · Perturbations and safety: robustness, then the constraints an agent breaks
#
# Does the agent still succeed when a tool times out, when the API it calls is reshaped, or
# when the user words the request differently? And does it stay within its safety constraints?
# This notebook reads the perturbed runs of the notebooks' shared experiment
# (`experiments/notebooks.yaml`): **fault** injection at three rates (a sweep), the `mild` and
# `severe` **structural** presets and `mild` and `strong` **prompt** paraphrases — one run per
# task each, paired with the baseline run of the same seed — and the safety findings of every
# baseline run. How each condition works: `docs/perturbations.md`; safety: `docs/safety.md`.
#
# **The agents are the built-in SIMULATED model** (`docs/simulated_model.md`): `brittle` rarely
# recovers from errors and is sensitive to any change; `overconfident` is the unsafe profile.
# The safety judge is the offline simulated judge.

# %%
# %matplotlib inline
import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from IPython.display import display
from matplotlib import pyplot as plt

import reliability_lab as rl
from reliability_lab import plots
from reliability_lab.report import robustness_by_intensity, value_with_ci, violation_counts
from reliability_lab.results import read_summary

SEED = 0
pd.set_option("display.precision", 3)
pd.set_option("display.width", 120)
warnings.simplefilter("ignore", rl.UndefinedMetricWarning)
plots.use_paper_style()
RESULTS = Path("../results/notebooks")

# %% [markdown]
# ## The runs
#
# `run_experiment` resumes the shared results directory (or runs the experiment if no
# notebook has yet). Accuracy per condition and agent:

# %%
outcome = rl.run_experiment("../experiments/notebooks.yaml", output=RESULTS, progress=False)
runs = outcome.runs.sort_values(["agent", "task_id", "condition", "variant", "run"])
print(
    runs.groupby(["condition", "agent"])["success"]
    .agg(runs="size", accuracy="mean")
    .unstack("agent")
    .round(3)
    .to_string()
)

# %% [markdown]
# ## What the perturbations did
#
# Every perturbed run records what was done to it. Faults are events — type, tool, step, and
# whether the agent recovered (called the tool again and succeeded); `summary.json` counts them
# per agent. Paraphrases are generated once per experiment, checked to keep every ID, amount,
# name and date, stored in `paraphrases.json` and given to every agent.

# %%
summary = read_summary(RESULTS)  # summary.json, read through its model
faults = pd.DataFrame(summary.robustness["faults"]).T
print(faults[["runs_with_faults", "faults", "recovered"]].to_string())
task = json.loads((RESULTS / "paraphrases.json").read_text())["tasks"]["cs_02"]
print("original:", task["original"])
for pid, paraphrase in task["paraphrases"].items():
    print(f"{pid:>9}:", paraphrase["text"])

# %% [markdown]
# ## Accuracy against intensity
#
# `robustness_by_intensity` pools the runs of each intensity (the paraphrases of one
# strength, say) and compares them with the baseline: R = min(Acc_perturbed / Acc_baseline, 1).
# The fault sweep puts accuracy against the fault rate (0 = baseline).

# %%
table = robustness_by_intensity(runs)
print(
    table.pivot_table(
        index=["condition", "intensity"], columns="agent", values="accuracy", sort=False
    )
    .round(3)
    .to_string()
)
display(plots.draw_figure("robustness_by_intensity", plots.figure_data(RESULTS)));
# %% [markdown]
# ## Robustness per perturbation kind, with intervals
#
# R_fault, R_struct and R_prompt pool all runs of their condition; R_Rob is their mean. Their
# intervals come from the same bootstrap over tasks as every other metric (timing columns are
# left out, as in notebook 02, so the numbers reproduce exactly).

# %%
report = rl.reliability_report(
    runs.assign(wall_time_s=np.nan, call_latency_s=np.nan), n_boot=1000, seed=SEED
)
robust = ["R_fault", "R_struct", "R_prompt", "R_Rob"]
print(
    pd.DataFrame(
        {m: [value_with_ci(r, m) for _, r in report.iterrows()] for m in robust}, index=report.index
    ).to_string()
)
plots.plot_robustness_by_condition(report)
plt.show();
# %% [markdown]
# ## Safety findings by constraint and severity
#
# Rule detectors check every run against the environment's constraints; the LLM safety judge
# (here the simulated one) audits each baseline run, and findings record their source.
# `violation_counts` tallies the findings of the baseline runs the safety metrics use.

# %%
counts = {agent: violation_counts(group) for agent, group in runs.groupby("agent")}
print(
    pd.concat({a: c.sum(axis=1) for a, c in counts.items()}, axis=1)
    .fillna(0)
    .astype(int)
    .to_string()
)
print("findings by source:", summary.safety["findings_by_source"])
plots.plot_safety_violations(counts["overconfident"]).set_title("overconfident")
plt.show();
# %% [markdown]
# ## Safety scores
#
# S_comp is the share of runs without a violation, S_harm 1 − the mean severity weight of the
# violating runs, R_saf = 1 − (1 − S_comp)(1 − S_harm): reported beside R, never averaged
# into it.

# %%
safety = ["S_comp", "S_harm", "R_saf"]
print(
    pd.DataFrame(
        {m: [value_with_ci(r, m) for _, r in report.iterrows()] for m in safety}, index=report.index
    ).to_string()
)
plots.plot_metric_intervals(report, plots.INTERVAL_GROUPS["safety"])
plt.show();
# %% [markdown]
# ## All four dimensions
#
# With baseline, confidences and perturbations, R is defined: the mean of R_Con, R_Pred and
# R_Rob. The dashboard puts the four dimensions side by side, safety beside the three that
# make R; the heatmap adds accuracy and R.

# %%
print(
    pd.DataFrame(
        {m: [value_with_ci(r, m) for _, r in report.iterrows()] for m in ("accuracy", "R")},
        index=report.index,
    ).to_string()
)
fig, axes = plt.subplots(1, 2, figsize=(10, 3.1), width_ratios=[1.1, 1])
plots.plot_dimension_dashboard(report, ax=axes[0])
plots.plot_dimension_heatmap(report, ax=axes[1])
fig.tight_layout()
plt.show();
