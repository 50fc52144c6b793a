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
# # 04 · Real data: τ-bench GPT-4o runs, and a report from another harness's log
#
# Two sources of runs that reliability_lab did not produce:
#
# 1. **τ-bench's published trajectories** of GPT-4o on the airline domain, 50 tasks × 4 trials
#    (bundled, MIT licence: `reliability_lab/data/tau_bench/`). We first reproduce τ-bench's
#    published pass^k row, then measure the consistency of this real agent.
# 2. **An inspect_ai log** (`data/inspect_calculator.eval`): a real inspect_ai evaluation run
#    offline with inspect's scripted `mockllm` model by `data/make_inspect_log.py`, imported
#    into the same report. Its outcomes are scripted, not any model's.
#
# Importers turn each format into the run table (`docs/importers.md`); nothing else changes.

# %%
import warnings

import pandas as pd
from matplotlib import pyplot as plt

import reliability_lab as rl
from reliability_lab import metrics, plots
from reliability_lab.io import load_inspect_log, load_tau_bench_example
from reliability_lab.report import value_with_ci
from reliability_lab.results import format_summary

SEED = 0  # the bootstrap seed; nothing else here is random
pd.set_option("display.precision", 3)
pd.set_option("display.width", 120)
warnings.simplefilter("ignore", rl.UndefinedMetricWarning)
plots.use_paper_style()

# %% [markdown]
# ## τ-bench: the run table
#
# Each trajectory becomes one row: `success` is reward = 1, `actions` the tool calls in order,
# resources what the file records. There are no confidences and no perturbed runs in it.

# %%
runs = load_tau_bench_example()
print(f"{runs['task_id'].nunique()} tasks × {runs['run'].nunique()} trials = {len(runs)} runs")
runs[["task_id", "run", "success", "num_actions", "api_calls", "actions"]].head(4)

# %% [markdown]
# ## Reproducing the published pass^k
#
# τ-bench's README reports pass^1..4 = 0.420, 0.273, 0.220, 0.200 for this file. pass^k is the
# mean over tasks of C(c, k)/C(n, k) (`docs/methodology.md`, "pass^k and pass@k").

# %%
published = [0.420, 0.273, 0.220, 0.200]
ours = [metrics.pass_hat_k(runs["success"], runs["task_id"], k) for k in range(1, 5)]
print(
    pd.DataFrame(
        {"published": published, "reliability_lab": ours}, index=[f"pass^{k}" for k in range(1, 5)]
    )
    .round(3)
    .to_string()
)
print("identical to 3 decimals:", [round(x, 3) for x in ours] == published)

# %% [markdown]
# pass^k falls with k, but far more slowly than (pass^1)^k would: failures concentrate on the
# same tasks. pass@k, the chance that at least one of k runs succeeds, rises instead.

# %%
curve = metrics.pass_hat_k_curve(runs["success"], runs["task_id"])
plots.plot_pass_hat_k(curve, pass_at_k=True)
plt.show();
# %% [markdown]
# ## Consistency of a real agent
#
# The report with task-bootstrap intervals, in the default conventions and in the preprint's
# (literal C_out, natural-log JS distance). Predictability and robustness are undefined — no
# confidences, no perturbations — so R is too, and the report says why.

# %%
report = rl.reliability_report(runs, n_boot=1000, seed=SEED)
preprint = rl.reliability_report(runs, profile="preprint", n_boot=1000, seed=SEED)
shown = ["accuracy", "C_out", "C_traj_d", "C_traj_s", "C_res", "R_Con"]
print(
    pd.DataFrame(
        {
            p: [value_with_ci(r.iloc[0], m) for m in shown]
            for p, r in (("default", report), ("preprint", preprint))
        },
        index=shown,
    ).to_string()
)
print(report["why_undefined"].iloc[0])

# %% [markdown]
# Every run's outcome (tasks with the most successes first): most tasks are decided the same
# way on every trial; the partial columns are where repeated runs disagree.

# %%
tasks = metrics.per_task_consistency(
    runs["success"],
    runs["task_id"],
    actions=runs["actions"],
    resources={r: runs[r] for r in ("num_actions", "api_calls")},
)
print(
    "tasks by successes out of 4:",
    (tasks["success_rate"] * 4).astype(int).value_counts().sort_index().to_dict(),
)
plots.plot_outcome_matrix(runs).figure.set_size_inches(7, 1.6)
plt.show();
# %% [markdown]
# Outcome consistency per task: unanimous tasks score 1, 3-of-4 and 1-of-4 tasks 0.25, 2-of-4
# tasks 0; C_out is their mean. Successful runs of the same task mostly take the same path.

# %%
fig, axes = plt.subplots(1, 2, figsize=(7.2, 2.9))
plots.plot_consistency_vs_accuracy(tasks, ax=axes[0], label="GPT-4o")
plots.plot_trajectory_consistency(tasks, ax=axes[1], label="GPT-4o")
fig.tight_layout()
plt.show();
# %% [markdown]
# Resources: actions per run, per task. Failed runs spread much more than successful ones —
# runs that go wrong tend to go long — which is what C_res penalises.

# %%
print(
    runs.groupby("success")["num_actions"].describe()[["mean", "std", "max"]].round(2).to_string()
)
plots.plot_resource_spread(runs, "num_actions").figure.set_size_inches(7, 2.4)
plt.show();
# %% [markdown]
# ## Another harness: an inspect_ai log
#
# `load_inspect_log` reads inspect_ai's own log format with inspect_ai's reader (the
# `[inspect]` extra): one row per sample and epoch, the scorer's verdict as `success`, the
# tool calls as `actions`.

# %%
inspect_runs = load_inspect_log("data/inspect_calculator.eval")
inspect_runs[["agent", "task_id", "run", "success", "actions", "api_calls", "score_value"]].head(4)

# %% [markdown]
# The same report and gates the experiment runner prints, as a function (`rl.summarize_logs`;
# on the command line `reliability-lab report data/inspect_calculator.eval --gate "C_out >= 0.5"`):

# %%
summary = rl.summarize_logs("data/inspect_calculator.eval", gates=["C_out >= 0.5"], n_boot=500)
print(format_summary(summary))
print("gates passed:", summary.passed)

# %% [markdown]
# And its figures, from the same figure set as any results directory: pass^k against k and the
# tasks' success rates.

# %%
data = plots.figure_data(inspect_runs, n_boot=500, seed=SEED)
fig, axes = plt.subplots(1, 2, figsize=(7.2, 2.8))
plots.plot_pass_hat_k(data.pass_hat_k["mockllm/model"], ax=axes[0])
plots.plot_success_rate_histogram(data.per_task["mockllm/model"], ax=axes[1])
fig.tight_layout()
plt.show();
