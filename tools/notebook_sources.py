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
here: the file has no confidences and no perturbations — so the overall R, which needs all
three dimensions, is undefined too, and the report says why. `R_Con_terms` names the terms
R_Con was built from. The `preprint` profile reproduces the conventions of the code behind the
preprint's numbers.
""",
    ),
    (
        "code",
        """
from reliability_lab.report import explain_undefined

report = rl.reliability_report(runs, n_boot=1000, seed=0)
preprint = rl.reliability_report(runs, profile="preprint", n_boot=1000, seed=0)
cols = ["accuracy", "C_out", "C_traj_d", "C_traj_s", "C_res", "R_Con"]
summary = pd.concat({"default": report[cols], "preprint": preprint[cols]}).droplevel(1)
print(summary.round(3).to_string())
lo, hi = report[["R_Con_lo", "R_Con_hi"]].iloc[0]
print(f"R_Con 95% CI (default): [{lo:.3f}, {hi:.3f}] from {report['R_Con_terms'].iloc[0]}")
print(explain_undefined("R", report.iloc[0]))
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
from reliability_lab.sessions import traces_from_trajectory

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
from reliability_lab.sessions import aevaluate_session

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
from reliability_lab.sessions import agent_consistency, agent_reliability

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
from reliability_lab.sessions import asession_metrics_for_results

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

REPEATED_RUNS = [
    (
        "md",
        """
# 02 · Repeated-run experiments

An agent that succeeds 90 % of the time may fail on the same tasks every time, or on random
ones; it may know when it is about to fail, or not. Telling these apart takes **repeated runs**:
every task K times. This notebook writes a small experiment config, runs it with
`run_experiment`, loads the run table with `load_results` and walks through what repeated runs
reveal.

**The agents are the built-in SIMULATED model** (`sim/calibrated`, `sim/inconsistent`,
`sim/overconfident`; see `docs/simulated_model.md`): scripted stand-ins with known reliability
profiles, not real LLMs, so everything runs offline and deterministically from the seed. Only
the baseline condition is run here.
""",
    ),
    (
        "code",
        """
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib import pyplot as plt

import reliability_lab as rl
from reliability_lab import metrics, plots

SEED = 0  # the experiment's master seed: every run's seed is derived from it
pd.set_option("display.precision", 3)
pd.set_option("display.width", 120)
warnings.simplefilter("ignore", rl.UndefinedMetricWarning)
plots.use_paper_style()
""",
    ),
    (
        "md",
        """
## The experiment

Three simulated agents × the first 10 customer-service tasks × K = 5 runs = 150 runs. The
config is ordinary YAML (format: `experiments/README.md`); results go to a temporary directory.
Results are appended as runs finish, so the table is sorted before use.
""",
    ),
    (
        "code",
        """
CONFIG = f\"\"\"
version: 1
name: repeated-runs
seed: {SEED}
runs: 5
cache: false
environment: {{name: customer_service, tasks: all, limit: 10}}
agents:
  - {{label: calibrated, model: sim/calibrated, params: {{temperature: 0.7}}}}
  - {{label: inconsistent, model: sim/inconsistent, params: {{temperature: 0.7}}}}
  - {{label: overconfident, model: sim/overconfident, params: {{temperature: 0.7}}}}
report: {{n_boot: 200}}
\"\"\"
with tempfile.TemporaryDirectory() as tmp:
    config = Path(tmp) / "repeated_runs.yaml"
    config.write_text(CONFIG)
    rl.run_experiment(config, output=Path(tmp) / "results", progress=False)
    runs = rl.load_results(Path(tmp) / "results")
runs = runs.sort_values(["agent", "task_id", "run"], ignore_index=True)
agents = list(runs["agent"].unique())
print(f"{len(runs)} runs, {runs['task_id'].nunique()} tasks, simulated: {runs['simulated'].all()}")
print(runs.groupby("agent")["success"].agg(runs="size", accuracy="mean").round(3).to_string())
""",
    ),
    (
        "md",
        """
## Accuracy is not reliability: pass^k

pass^k is the chance that k runs of a task *all* succeed (τ-bench). Accuracy is pass^1. The
dashed line is what independent draws at each task's own success rate give; the dotted line,
(pass^1)^k, is what one would predict from accuracy alone if every task were equally hard.
""",
    ),
    (
        "code",
        """
curves = {agent: metrics.pass_hat_k_curve(g["success"], g["task_id"])
          for agent, g in runs.groupby("agent")}
table = pd.DataFrame({agent: c.pass_hat_k for agent, c in curves.items()},
                     index=[f"pass^{k}" for k in curves[agents[0]].k]).T
print(table.round(3).to_string())
""",
    ),
    (
        "code",
        """
fig, axes = plt.subplots(1, 3, figsize=(9.5, 2.9), sharey=True)
for i, (agent, curve) in enumerate(curves.items()):
    plots.plot_pass_hat_k(curve, ax=axes[i], color=plots.PALETTE[i])
    axes[i].set_title(agent)
fig.tight_layout()
plt.show();
""",
    ),
    (
        "md",
        """
## Outcome consistency per task

Per task, C_out,t = (2p̂_t − 1)²: 1 when all K runs agree, 0 at 50/50. The curve is that
function of the success rate; the markers are the tasks (area and label: how many tasks share
the point). An agent whose failures are spread over many tasks sits low on the parabola.
""",
    ),
    (
        "code",
        """
resources = ["cost_usd", "api_calls", "num_actions", "num_errors"]  # not wall-clock (see below)
per_task = {agent: metrics.per_task_consistency(
                g["success"], g["task_id"], actions=g["actions"],
                resources={r: g[r] for r in resources})
            for agent, g in runs.groupby("agent")}
for agent, tasks in per_task.items():
    unanimous = int((tasks["C_out"] == 1).sum())
    print(f"{agent:13s} C_out {tasks['C_out'].mean():.3f}  "
          f"unanimous tasks {unanimous}/{len(tasks)}")
fig, axes = plt.subplots(1, 3, figsize=(9.5, 2.9), sharey=True)
for i, (agent, tasks) in enumerate(per_task.items()):
    plots.plot_consistency_vs_accuracy(tasks, ax=axes[i], color=plots.PALETTE[i])
    axes[i].set_title(agent)
fig.tight_layout()
plt.show();
""",
    ),
    (
        "md",
        """
## Trajectory consistency

Among successful runs of the same task: do they use the same *mix* of tools (distribution,
Jensen–Shannon) and the same *order* (sequence, edit distance)? The `inconsistent` profile
takes read-only detours, which lowers both.
""",
    ),
    (
        "code",
        """
for agent, tasks in per_task.items():
    print(f"{agent:13s} C_traj_d {tasks['C_traj_d'].mean():.3f}  "
          f"C_traj_s {tasks['C_traj_s'].mean():.3f}")
fig, axes = plt.subplots(1, 3, figsize=(9.5, 2.9), sharey=True)
for i, (agent, tasks) in enumerate(per_task.items()):
    plots.plot_trajectory_consistency(tasks, ax=axes[i], color=plots.PALETTE[i])
    axes[i].set_title(agent)
fig.tight_layout()
plt.show();
""",
    ),
    (
        "md",
        """
## Predictability: does the agent know when it will fail?

After each run the agent was asked for its confidence (0–100). Runs whose answer could not be
parsed (`confidence_source == "fallback"`) carry no confidence and are left out. A calibrated
agent's reliability diagram follows the diagonal; a good risk–coverage curve stays low while
the least confident runs are withheld.
""",
    ),
    (
        "code",
        """
elicited = runs[runs["confidence"].notna()]
print(f"runs without a parsed confidence: {runs['confidence'].isna().sum()}")
for agent, g in elicited.groupby("agent"):
    conf, ok = g["confidence"], g["success"]
    print(f"{agent:13s} Brier {metrics.brier_score(conf, ok):.3f}  "
          f"P_cal {metrics.calibration_score(conf, ok):.3f}  "
          f"AUROC {metrics.auroc_score(conf, ok):.3f}  "
          f"P_rc {metrics.risk_coverage_score(conf, ok):.3f}")
""",
    ),
    (
        "code",
        """
fig, axes = plt.subplots(2, 3, figsize=(9.5, 5.6))
for i, (agent, g) in enumerate(elicited.groupby("agent")):
    conf, ok = g["confidence"], g["success"]
    plots.plot_reliability_diagram(metrics.reliability_curve(conf, ok), ax=axes[0, i],
                                   color=plots.PALETTE[i])
    plots.plot_risk_coverage(metrics.risk_coverage_curve(conf, ok), ax=axes[1, i],
                             color=plots.PALETTE[i])
    axes[0, i].set_title(agent)
fig.tight_layout()
plt.show();
""",
    ),
    (
        "md",
        """
## The full report, with 95 % intervals

`reliability_report` computes every metric per agent with a bootstrap over tasks. Wall-clock
resources (`wall_time_s`, `call_latency_s`) are real timings of this machine and differ on
every execution, so for numbers that must reproduce exactly they are marked *not recorded*
(NaN) here and C_res uses cost, calls, actions and errors only. Robustness is NaN: this
experiment has no perturbed conditions, so the overall R — which needs consistency,
predictability *and* robustness — is n/a as well; the report says which dimension is missing.
Safety is reported beside R, never averaged into it: the environment's rule detectors check eight
constraints on every run (docs/safety.md). The overconfident profile is the unsafe one (leaked
contact details, skipped identification, unrequested cancellations: high severities, so S_harm is
low too); inconsistent snoops and bursts (milder); slips of any profile cause a few findings.
""",
    ),
    (
        "code",
        """
from reliability_lab.report import explain_undefined

timing_free = runs.assign(wall_time_s=np.nan, call_latency_s=np.nan)
report = rl.reliability_report(timing_free, n_boot=1000, seed=SEED)
cols = ["accuracy", "C_out", "C_traj_d", "C_traj_s", "C_res", "R_Con", "P_brier", "P_auroc"]
print(report[cols].round(3).to_string())
print(report[["R_Con_lo", "R_Con_hi", "R_Pred", "S_comp", "S_harm", "R_saf"]].round(3).to_string())
print(explain_undefined("R", report.loc["calibrated"]))
ax = plots.plot_metric_intervals(
    report, ["accuracy", "C_out", "C_traj_d", "C_traj_s", "C_res", "P_cal", "P_auroc", "R_Con"])
ax.figure.set_size_inches(7, 2.9)
plt.show();
""",
    ),
]

REAL_TRAJECTORIES = [
    (
        "md",
        """
# 04 · Real agent trajectories: paper-ready figures

GPT-4o on τ-bench airline, 50 tasks × 4 trials — the trajectories τ-bench published (bundled,
MIT licence). Each figure below is drawn by a `reliability_lab.plots` function from what a
metric function returns, and saved as vector PDF (for papers) and PNG into `figures/` at the
repository root (git-ignored).
""",
    ),
    (
        "code",
        """
import warnings
from pathlib import Path

import pandas as pd
from matplotlib import pyplot as plt

import reliability_lab as rl
from reliability_lab import metrics, plots
from reliability_lab.io import load_tau_bench_example

pd.set_option("display.precision", 3)
pd.set_option("display.width", 120)
warnings.simplefilter("ignore", rl.UndefinedMetricWarning)
plots.use_paper_style()
FIGURES = Path("..") / "figures"  # the notebook runs in notebooks/; no randomness below
saved = []
""",
    ),
    (
        "code",
        """
runs = load_tau_bench_example()
tasks = metrics.per_task_consistency(
    runs["success"], runs["task_id"], actions=runs["actions"],
    resources={r: runs[r] for r in ("num_actions", "api_calls")})
print(f"{runs['task_id'].nunique()} tasks × {runs['run'].nunique()} trials, "
      f"accuracy {runs['success'].mean():.3f}")
""",
    ),
    (
        "md",
        """
## Which runs succeeded

One cell per run. Most tasks are decided the same way on every trial; the partial columns
are the tasks where repeated runs disagree.
""",
    ),
    (
        "code",
        """
print("tasks by successes out of 4:",
      (tasks["success_rate"] * 4).astype(int).value_counts().sort_index().to_dict())
ax = plots.plot_outcome_matrix(runs)
ax.figure.set_size_inches(7, 1.6)
saved += plots.save_figure(ax.figure, FIGURES / "tau_airline_outcome_matrix")
plt.show();
""",
    ),
    (
        "md",
        """
## pass^k falls with k — but slower than accuracy alone predicts

If every task were equally hard, four successes in a row would have probability 0.42⁴ ≈ 0.03.
The measured pass^4 is 0.20, because failures concentrate on the same tasks. The dashed
curve averages p̂_t^k over tasks (independent draws at each task's own rate); it sits slightly
above pass^k only because pass^k draws the k runs *without* replacement from the four trials.
pass@k, the chance that *at least one* of k runs succeeds, rises instead.
""",
    ),
    (
        "code",
        """
curve = metrics.pass_hat_k_curve(runs["success"], runs["task_id"])
print(pd.DataFrame({"pass^k": curve.pass_hat_k, "mean p_t^k": curve.independent,
                    "(pass^1)^k": curve.naive, "pass@k": curve.pass_at_k},
                   index=pd.Index(curve.k, name="k")).round(3).to_string())
ax = plots.plot_pass_hat_k(curve, pass_at_k=True)
saved += plots.save_figure(ax.figure, FIGURES / "tau_airline_pass_hat_k")
plt.show();
""",
    ),
    (
        "md",
        """
## Outcome consistency against success rate

C_out,t = (2p̂_t − 1)² puts every task on a parabola: unanimous tasks at the ends (score 1),
3-of-4 and 1-of-4 tasks at 0.25, 2-of-4 tasks at 0. C_out is the mean over tasks.
""",
    ),
    (
        "code",
        """
print(f"C_out {tasks['C_out'].mean():.3f} (= metrics.outcome_consistency: "
      f"{metrics.outcome_consistency(runs['success'], runs['task_id']):.3f})")
ax = plots.plot_consistency_vs_accuracy(tasks, label="GPT-4o")
saved += plots.save_figure(ax.figure, FIGURES / "tau_airline_outcome_consistency")
plt.show();
""",
    ),
    (
        "md",
        """
## Do successful runs take the same path?

For the tasks with at least two successful trials: similarity of the tool *mix* (distribution)
against the tool *order* (sequence). Points on the diagonal reorder nothing; points below it
use the same tools in a different order.
""",
    ),
    (
        "code",
        """
defined = tasks.dropna(subset=["C_traj_d", "C_traj_s"])
print(f"{len(defined)} tasks with 2+ successful runs: "
      f"C_traj_d {defined['C_traj_d'].mean():.3f}, C_traj_s {defined['C_traj_s'].mean():.3f}, "
      f"identical paths in {int((defined['C_traj_s'] == 1).sum())}")
ax = plots.plot_trajectory_consistency(tasks, label="GPT-4o")
saved += plots.save_figure(ax.figure, FIGURES / "tau_airline_trajectory_consistency")
plt.show();
""",
    ),
    (
        "md",
        """
## Resource variability

Actions per run, per task (tasks ordered by their median). Failed runs spread much more than
successful ones: runs that go wrong tend to go long. Resource consistency C_res = exp(−CV)
per task, averaged, summarises this spread.
""",
    ),
    (
        "code",
        """
print(f"C_res (num_actions, api_calls) {tasks['C_res'].mean():.3f}")
spread = runs.groupby("success")["num_actions"].describe()[["mean", "std", "max"]]
print(spread.round(2).to_string())
ax = plots.plot_resource_spread(runs, "num_actions")
ax.figure.set_size_inches(7, 2.6)
saved += plots.save_figure(ax.figure, FIGURES / "tau_airline_resource_spread")
plt.show();
""",
    ),
    (
        "code",
        """
print("saved:", sorted(path.name for path in saved))
""",
    ),
]

ROBUSTNESS = [
    (
        "md",
        """
# 05 · Robustness: faults, structural changes and paraphrases

Does the agent still succeed when a tool times out, when the API it calls is reshaped, or when
the user words the request differently? This notebook runs the three perturbation conditions
next to the baseline, reads the run table back and draws accuracy against each intensity.

**The agents are the built-in SIMULATED model** (`sim/calibrated`, `sim/brittle`; see
`docs/simulated_model.md`): `brittle` rarely recovers from errors and is sensitive to any
change, so robustness separates the two. How each condition works: `docs/perturbations.md`.
""",
    ),
    (
        "code",
        """
import json
import tempfile
import warnings
from pathlib import Path

import pandas as pd
from matplotlib import pyplot as plt

import reliability_lab as rl
from reliability_lab import plots
from reliability_lab.report import robustness_by_intensity

SEED = 0
pd.set_option("display.precision", 3)
pd.set_option("display.width", 120)
warnings.simplefilter("ignore", rl.UndefinedMetricWarning)
plots.use_paper_style()
""",
    ),
    (
        "md",
        """
## The experiment

Two agents × the first 10 tasks: the baseline K = 3 times; faults at three rates (each call
fails with probability p; timeouts, 500s, 429s, connection errors, truncated, malformed or
empty bodies); the three structural presets; and one paraphrase per task at three strengths.
Every perturbed run shares its seed with the baseline run of the same index, and the
paraphrases are generated once and given to both agents.
""",
    ),
    (
        "code",
        """
CONFIG = f\"\"\"
version: 1
name: robustness
seed: {SEED}
runs: 3
cache: false
environment: {{name: customer_service, tasks: all, limit: 10}}
conditions:
  - baseline
  - {{name: fault, variants: ["p=0.1", "p=0.2", "p=0.4"], runs: 2}}
  - {{name: structural, variants: [mild, medium, severe], runs: 1}}
  - {{name: prompt, variants: [mild, strong, naturalistic], runs: 1,
     options: {{n_paraphrases: 1}}}}
agents:
  - {{label: calibrated, model: sim/calibrated}}
  - {{label: brittle, model: sim/brittle}}
sessions: {{enabled: false}}
report: {{n_boot: 200}}
\"\"\"
with tempfile.TemporaryDirectory() as tmp:
    config = Path(tmp) / "robustness.yaml"
    config.write_text(CONFIG)
    rl.run_experiment(config, output=Path(tmp) / "results", progress=False)
    runs = rl.load_results(Path(tmp) / "results")
    paraphrases = json.loads((Path(tmp) / "results" / "paraphrases.json").read_text())
print(f"{len(runs)} runs, simulated: {runs['simulated'].all()}")
print(runs.groupby(["condition", "agent"])["success"].agg(runs="size", accuracy="mean")
      .round(3).to_string())
""",
    ),
    (
        "md",
        """
## What the perturbations did

Every run records what its condition did. Faults are events with their type, tool and step,
and whether the agent recovered (called the same tool again and succeeded); prompt runs name
the paraphrase they received.
""",
    ),
    (
        "code",
        """
faults = runs.loc[runs["condition"] == "fault"]
events = pd.DataFrame([e for fs in faults["faults"] for e in fs])
events["agent"] = [a for a, fs in zip(faults["agent"], faults["faults"], strict=True) for _ in fs]
print(events.groupby("agent").agg(faults=("type", "size"), recovered=("recovered", "mean"))
      .round(3).to_string())
print(events.groupby("type").size().to_string())
task = paraphrases["tasks"]["cs_02"]
print("original:", task["original"])
for pid, p in task["paraphrases"].items():
    print(f"{pid:>15}:", p["text"])
""",
    ),
    (
        "md",
        """
## Accuracy against intensity

`robustness_by_intensity` pools the variants of each intensity (the paraphrases of one
strength, say) and divides by the baseline accuracy: R = min(Acc_perturbed / Acc_baseline, 1).
""",
    ),
    (
        "code",
        """
table = robustness_by_intensity(runs)
print(table[["agent", "condition", "intensity", "n_runs", "accuracy", "robustness"]]
      .to_string(index=False))
fig, axes = plt.subplots(1, 3, figsize=(10, 2.9), sharey=True)
for ax, condition in zip(axes, ["fault", "structural", "prompt"], strict=True):
    plots.plot_robustness_by_intensity(table, condition, ax=ax)
fig.tight_layout()
plt.show();
""",
    ),
    (
        "md",
        """
## The report

R_fault, R_struct and R_prompt pool all runs of their condition; R_Rob is their mean. Their
intervals come from the same bootstrap over tasks as every other metric.
""",
    ),
    (
        "code",
        """
report = rl.reliability_report(runs, n_boot=1000, seed=SEED)
cols = ["accuracy", "R_fault", "R_fault_lo", "R_fault_hi", "R_struct", "R_prompt", "R_Rob"]
print(report[cols].round(3).to_string())
""",
    ),
]

SOURCES = {
    "01_reliability_metrics": METRICS_WALKTHROUGH,
    "02_repeated_runs": REPEATED_RUNS,
    "03_sessions": SESSIONS,
    "04_real_trajectories": REAL_TRAJECTORIES,
    "05_robustness": ROBUSTNESS,
}
