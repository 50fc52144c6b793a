"""Cell sources of the notebooks (see build_notebooks.py): ("md" | "code", source) pairs.

nbval executes cells without storing history, so IPython's trailing ";" does not hide a
cell's last value there: plot cells end with ``plt.show();`` (which returns None).
"""

from __future__ import annotations

SETUP = """
import warnings

import numpy as np
import pandas as pd
from matplotlib import pyplot as plt

import reliability_lab as rl
from reliability_lab import metrics, plots

rng = np.random.default_rng(0)  # the only source of randomness in this notebook
pd.set_option("display.precision", 3)
pd.set_option("display.width", 120)
warnings.simplefilter("ignore", rl.UndefinedMetricWarning)
plots.use_paper_style()
"""

METRICS_WALKTHROUGH = [
    (
        "md",
        """
# 01 · The reliability metrics on real agent runs

Accuracy says how often an agent succeeds. This notebook measures how *reliably* it does,
following *Towards a Science of AI Agent Reliability* (Rabanser et al., 2026), on real
published trajectories: GPT-4o on τ-bench airline, 50 tasks × 4 trials (bundled, MIT licence).

Every metric reads the **run table** — one row per run — and every number below comes from a
function in `reliability_lab`; this notebook only calls them.
""",
    ),
    ("code", SETUP),
    (
        "md",
        """
## The run table

The τ-bench importer turns each trajectory into one row: `success` is reward = 1, `actions` are
the tool-call names in order, and resources the file records (actions, model calls). There are
no confidences and no perturbed runs in this file.
""",
    ),
    (
        "code",
        """
from reliability_lab.io import load_tau_bench_example

runs = load_tau_bench_example()
print(f"{runs['task_id'].nunique()} tasks, {len(runs)} runs, accuracy {runs['success'].mean():.3f}")
runs[["task_id", "run", "success", "num_actions", "api_calls", "actions"]].head(4)
""",
    ),
    (
        "md",
        """
## pass^k: does it succeed *every* time?

τ-bench's pass^k is the chance that k independent attempts all succeed. Ours matches the
published figures for this file (0.420, 0.273, 0.220, 0.200).
""",
    ),
    (
        "code",
        """
for k in range(1, 5):
    print(f"pass^{k} = {metrics.pass_hat_k(runs['success'], runs['task_id'], k):.3f}   "
          f"pass@{k} = {metrics.pass_at_k(runs['success'], runs['task_id'], k):.3f}")
""",
    ),
    (
        "md",
        """
## Consistency

**Outcome consistency** asks whether repeated runs of a task agree. The corrected form
(2p̂ − 1)² gives partial credit to a 3-of-4 task (0.25); the literal formula printed on the
methodology page collapses to "share of unanimous tasks" for 0/1 outcomes
(see `docs/methodology.md`).
""",
    ),
    (
        "code",
        """
successes_per_task = runs.groupby("task_id")["success"].sum().value_counts().sort_index()
print("tasks by number of successful trials (of 4):", successes_per_task.to_dict())
for variant in metrics.OUTCOME_VARIANTS:
    c_out = metrics.outcome_consistency(runs["success"], runs["task_id"], variant=variant)
    print(f"C_out ({variant:9s}) = {c_out:.3f}")
""",
    ),
    (
        "md",
        """
**Trajectory consistency** compares successful runs of the same task: the *mix* of tools used
(Jensen–Shannon distance between action-frequency distributions) and their *order* (normalised
edit distance). **Resource consistency** asks whether effort is stable across all runs.
""",
    ),
    (
        "code",
        """
args = (runs["actions"], runs["task_id"], runs["success"])
for variant in metrics.DISTRIBUTION_VARIANTS:
    c_traj_d = metrics.trajectory_distribution_consistency(*args, variant=variant)
    print(f"C_traj_d ({variant:16s}) = {c_traj_d:.3f}")
print(f"C_traj_s                    = {metrics.trajectory_sequence_consistency(*args):.3f}")
resources = {name: runs[name] for name in ("num_actions", "api_calls")}
c_res = metrics.resource_consistency(resources, runs["task_id"])
print(f"C_res                       = {c_res:.3f}")
""",
    ),
    (
        "md",
        """
## The full report, with confidence intervals

`reliability_report` computes every metric per agent with a bootstrap that resamples *tasks*
(the unit sampled from the space of possible tasks). Predictability and robustness are NaN
here: the file has no confidences and no perturbations. The `preprint` profile reproduces the
conventions of the code behind the preprint's numbers.
""",
    ),
    (
        "code",
        """
report = rl.reliability_report(runs, n_boot=1000, seed=0)
preprint = rl.reliability_report(runs, profile="preprint", n_boot=1000, seed=0)
cols = ["accuracy", "C_out", "C_traj_d", "C_traj_s", "C_res", "R_Con", "R"]
summary = pd.concat({"default": report[cols], "preprint": preprint[cols]}).droplevel(1)
print(summary.round(3).to_string())
lo, hi = report[["R_Con_lo", "R_Con_hi"]].iloc[0]
print(f"R_Con 95% CI (default): [{lo:.3f}, {hi:.3f}]")
""",
    ),
    (
        "code",
        """
ax = plots.plot_metric_intervals(report, ["accuracy", "C_out", "C_traj_d", "C_traj_s", "R_Con"])
ax.set_title("GPT-4o, τ-bench airline: consistency with 95% CIs")
plt.show();
""",
    ),
    (
        "md",
        """
## Predictability, illustrated

τ-bench records no confidences, so here is a small *synthetic* illustration (not real agent
data): an overconfident agent that says 0.9 for everything versus one whose confidence tracks
its chance of success. Brier and calibration reward the second; the risk–coverage score asks
whether ranking runs by confidence puts failures last (ties count as a random order).
""",
    ),
    (
        "code",
        """
p_success = rng.uniform(0.1, 0.9, 400)
outcome = rng.random(400) < p_success
agents = {"overconfident (0.9 always)": np.full(400, 0.9),
          "tracks its chances": np.round(p_success, 2)}
for name, conf in agents.items():
    print(f"{name:27s} Brier {metrics.brier_score(conf, outcome):.3f}  "
          f"P_cal {metrics.calibration_score(conf, outcome):.3f}  "
          f"AUROC {metrics.auroc_score(conf, outcome):.3f}  "
          f"P_rc {metrics.risk_coverage_score(conf, outcome):.3f}")
""",
    ),
    (
        "code",
        """
fig, axes = plt.subplots(1, 2, figsize=(7, 2.9))
for i, (name, conf) in enumerate(agents.items()):
    plots.plot_reliability_diagram(metrics.reliability_curve(conf, outcome), ax=axes[0],
                                   label=name.split(" (")[0], color=plots.PALETTE[i])
    plots.plot_risk_coverage(metrics.risk_coverage_curve(conf, outcome), ax=axes[1],
                             label=name.split(" (")[0], color=plots.PALETTE[i])
fig.tight_layout()
plt.show();
""",
    ),
]

SESSIONS = [
    (
        "md",
        """
# 03 · Sessions: PandaProbe's trace and session metrics

A run of an agent is a *session*: one trace per agent turn, with its tool calls as TOOL spans.
PandaProbe scores each trace with four signals — the agent's `confidence` and its
`tool_correctness` (LLM judges), `coherence` of output with input and `loop_detection` against
earlier turns (embeddings) — and composes them into two session metrics: `agent_reliability`
(the riskiest turns dominate) and `agent_consistency` (confidence gaps amplified by the other
signals). Conventions are in `docs/pandaprobe.md`.

Everything here runs offline: the agent and the judge are the built-in **simulated model**
(results are a simulation, not a real LLM), and embeddings come from the offline hashing
embedder, which is lexical, not semantic — so coherence is lower than a semantic model gives.
""",
    ),
    (
        "code",
        """
import asyncio
import warnings

import pandas as pd

import reliability_lab as rl

pd.set_option("display.precision", 3)
pd.set_option("display.width", 120)
warnings.simplefilter("ignore", rl.UndefinedMetricWarning)
""",
    ),
    (
        "md",
        """
## One run, one session

Run the simulated `calibrated` agent once on a task of the built-in customer-service
environment, then split its conversation into traces.
""",
    ),
    (
        "code",
        """
from reliability_lab.agents import RunSpec, execute_run
from reliability_lab.llm import LLMClient
from reliability_lab.tracing import traces_from_trajectory

llm = LLMClient()
spec = RunSpec(agent="calibrated", model="sim/calibrated", params={},
               environment="customer_service", task_id="cs_04", run=0, seed=42)
result = await execute_run(spec, llm)
print(f"actions {result.actions}, score {result.score}, confidence {result.confidence}")
traces = traces_from_trajectory(result.trajectory, session_id="cs_04/run0")
for trace in traces:
    kinds = [span.kind.value for span in trace.spans]
    print(f"{trace.id:12s} spans {kinds}  output: {str(trace.output)[:50]}")
""",
    ),
    (
        "md",
        """
## Signals and session metrics

`evaluate_session` computes the four signals per trace (loop detection against all earlier
traces) and both session metrics. Each result carries PandaProbe's reason and metadata. In a
notebook we `await` the async forms (`aevaluate_session`, …) so every LLM call stays on the
notebook's event loop.
""",
    ),
    (
        "code",
        """
from reliability_lab.session import aevaluate_session

evaluation = await aevaluate_session(traces, judge_model="sim/judge", llm=llm)
print(pd.DataFrame(evaluation.signal_values()).T.round(3).to_string())
for metric in (evaluation.agent_reliability, evaluation.agent_consistency):
    print(f"{metric.score:.4f}  {metric.reason}")
""",
    ),
    (
        "md",
        """
## The composition rules, by hand

The session metrics are plain functions of the signals. With two traces — one confident but
incoherent, one perfect — `agent_reliability` takes the riskiest trace (risk 0.8 > 0.5, so it
is flagged) and `agent_consistency` the RMS of confidence gaps amplified by the other risks:
trace 1 weighs (1 + 0.8)·0.1 = 0.18, so RMS = √(0.18²/2) = 0.1273.
""",
    ),
    (
        "code",
        """
from reliability_lab.session import agent_consistency, agent_reliability

signals = {"t1": {"confidence": 0.9, "coherence": 0.2}, "t2": {"confidence": 1.0}}
for metric in (agent_reliability(signals), agent_consistency(signals)):
    print(f"{metric.score:.4f}  {metric.reason}  flagged={metric.metadata.get('flagged_traces')}")
""",
    ),
    (
        "md",
        """
## Across repeated runs

Each of K repeated runs is a session. `session_metrics_for_results` scores them all; the
reliability report then averages them per task and over tasks, with bootstrap intervals.
""",
    ),
    (
        "code",
        """
from reliability_lab.session import asession_metrics_for_results

specs = [RunSpec(agent=profile, model=f"sim/{profile}", params={}, environment="customer_service",
                 task_id=task, run=k, seed=1000 * k + i)
         for profile in ("calibrated", "inconsistent")
         for i, task in enumerate(["cs_01", "cs_04", "cs_07", "cs_10"]) for k in range(3)]
results = await asyncio.gather(*(execute_run(spec, llm) for spec in specs))
sessions = await asession_metrics_for_results([r.model_dump() for r in results], llm=llm)
runs = pd.DataFrame([r.to_row() for r in results]).merge(
    sessions[["agent", "task_id", "condition", "variant", "run",
              "agent_reliability", "agent_consistency"]])
report = rl.reliability_report(runs, n_boot=500, seed=0)
print(report[["accuracy", "agent_reliability", "agent_reliability_lo", "agent_reliability_hi",
              "agent_consistency"]].round(3).to_string())
""",
    ),
]

SOURCES = {"01_reliability_metrics": METRICS_WALKTHROUGH, "03_sessions": SESSIONS}
