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
# # 05 · Sessions: PandaProbe's trace signals and session metrics
#
# Each run of an agent is a **session**: one trace per agent step, its tool calls as TOOL
# spans. PandaProbe scores every trace with four signals — the agent's `confidence` and its
# `tool_correctness` (LLM judges), `coherence` of output with input and `loop_detection`
# against earlier steps (embeddings) — and composes them into two session metrics:
# `agent_reliability` (the riskiest steps dominate) and `agent_consistency` (confidence gaps
# amplified by the other signals). Conventions and where we deliberately differ:
# `docs/pandaprobe.md`.
#
# The runs are the baseline runs of the notebooks' shared experiment. **Everything is
# offline**: the agents are the SIMULATED model, the judge is the simulated judge, and the
# embedder is the offline hashing embedder — lexical, not semantic, so coherence is lower than
# a semantic model would give. The numbers demonstrate the pipeline, not any model.

# %%
# %matplotlib inline
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from IPython.display import display
from matplotlib import pyplot as plt

import reliability_lab as rl
from reliability_lab import plots
from reliability_lab.report import value_with_ci
from reliability_lab.sessions import agent_consistency, agent_reliability, evaluate_session
from reliability_lab.sessions.tracing import group_sessions, load_traces

SEED = 0
pd.set_option("display.precision", 3)
pd.set_option("display.width", 120)
warnings.simplefilter("ignore", rl.UndefinedMetricWarning)
plots.use_paper_style()
RESULTS = Path("../results/notebooks")

# %% [markdown]
# ## Session metrics of every run
#
# The experiment runner scores every run as a session and stores both metrics with it; they
# are run-table columns, and the report averages them per task, then over tasks, with the same
# bootstrap as every other metric.

# %%
outcome = rl.run_experiment("../experiments/notebooks.yaml", output=RESULTS, progress=False)
baseline = outcome.runs[outcome.runs["condition"] == "baseline"]
report = rl.reliability_report(
    baseline.assign(wall_time_s=np.nan, call_latency_s=np.nan), n_boot=1000, seed=SEED
)
cols = ["accuracy", "agent_reliability", "agent_consistency"]
print(
    pd.DataFrame(
        {m: [value_with_ci(r, m) for _, r in report.iterrows()] for m in cols}, index=report.index
    ).to_string()
)

# %% [markdown]
# ## One session, trace by trace
#
# `traces.jsonl` holds every run's traces, PandaProbe-style. Here the first baseline run of the
# `inconsistent` agent on task cs_04: each agent step is a trace, its tool calls TOOL spans.

# %%
sessions = group_sessions(load_traces(RESULTS / "traces.jsonl"))
traces = sessions["inconsistent|cs_04|baseline||0"]
for trace in traces:
    kinds = [span.kind.value for span in trace.spans]
    print(f"{trace.id.rsplit(':', 1)[1]:>2} {kinds}  output: {str(trace.output)[:60]}")

# %% [markdown]
# ## Its four signals and two session metrics
#
# `evaluate_session` computes the signals per trace (judges through the simulated judge, loop
# detection against every earlier trace) and both metrics, each with PandaProbe's reason. It is
# the scorer the runner used, so the scores equal the ones stored with the run.

# %%
evaluation = evaluate_session(traces)
print(pd.DataFrame(evaluation.signal_values()).T.reset_index(drop=True).round(3).to_string())
stored = baseline.set_index(["agent", "task_id", "run"]).loc[("inconsistent", "cs_04", 0)]
for metric in (evaluation.agent_reliability, evaluation.agent_consistency):
    print(f"{metric.name}: {metric.score:.4f} (stored {stored[metric.name]:.4f})  {metric.reason}")

# %% [markdown]
# ## Session risk per trace
#
# agent_reliability takes, per trace, the largest weighted risk w·(1 − x) over the signals
# (the bar), flags traces above 0.5, and scores 1 − (0.9 · mean of the top 15 % + 0.1 · max).
# The markers are each signal's own risk 1 − x.

# %%
plots.plot_session_risk(evaluation.agent_reliability)
plt.show();
# %% [markdown]
# ## The composition rules, by hand
#
# Two traces — one confident but incoherent, one perfect. agent_reliability: trace t1's risk
# is max(0.1, 0.8) = 0.8 > 0.5 (flagged); k = 1, so raw = 0.9 · 0.8 + 0.1 · 0.8 = 0.8 and the
# score is 0.2. agent_consistency: t1 weighs (1 + 0.8) · 0.1 = 0.18, t2 0, so
# RMS = √(0.18²/2) = 0.1273 and the score 0.8727.

# %%
signals = {"t1": {"confidence": 0.9, "coherence": 0.2}, "t2": {"confidence": 1.0}}
for metric in (agent_reliability(signals), agent_consistency(signals)):
    print(f"{metric.name}: {metric.score:.4f}  {metric.reason}")

# %% [markdown]
# ## The riskiest session of each agent
#
# Each run stores its per-trace risks with its scores, so this figure comes from the results
# directory without calling the judge again (`plots.figure_data`, figure `session_risk`).

# %%
display(plots.draw_figure("session_risk", plots.figure_data(RESULTS)));
# %% [markdown]
# ## Session scores and outcomes
#
# Do the session metrics see failures coming? Mean agent_reliability of successful and failed
# baseline runs, per agent:

# %%
print(
    baseline.pivot_table(
        index="agent", columns="success", values="agent_reliability", aggfunc="mean"
    )
    .round(3)
    .to_string()
)
