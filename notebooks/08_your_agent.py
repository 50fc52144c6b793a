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
# # 08 · Your agent, your tasks
#
# Repeated-run and perturbation experiments on *any* Python agent and *any* task set
# (docs/your_agent.md). The example in `experiments/your_agent/` is a 24-task bookshop task
# set (`tasks.jsonl`), four plain-function tools (`shop_tools.py`) and a scripted agent
# (`my_agents.py`) that needs no model: its slips come from a seeded generator, so two settings
# of it — `careful` and `sloppy` — separate on every dimension. Everything here runs offline.
#
# The agent contract in one line: `solve(ctx)` reads `ctx.instruction` and `ctx.tools`, calls
# tools with `ctx.call_tool(name, arguments)` (and a model with `ctx.llm.complete(messages)`),
# and returns the answer (or `AgentOutput(answer, confidence, metadata)`).

# %%
# %matplotlib inline
import importlib
import inspect
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from IPython.display import display

import reliability_lab as rl
from reliability_lab import plots
from reliability_lab.envs import Task
from reliability_lab.envs.taskset import TaskSetEnvironment
from reliability_lab.report import value_with_ci
from reliability_lab.results import read_results

pd.set_option("display.precision", 3)
pd.set_option("display.width", 120)
warnings.simplefilter("ignore", rl.UndefinedMetricWarning)
plots.use_paper_style()
EXAMPLE = Path("../experiments/your_agent")
RESULTS = Path("../results/your_agent")

# %% [markdown]
# ## The agent
#
# A plain function. It finds the book named in the instruction, looks up its price or stock
# through the harness, and reports its own confidence. `ctx.options` (from the config) set
# how often it slips, retries after a tool error, and does something unsafe.

# %%
sys.path.insert(0, str(EXAMPLE))  # only to show the source here; the config imports it itself
my_agents = importlib.import_module("my_agents")

print(inspect.getsource(my_agents.scripted))

# %% [markdown]
# ## The experiment
#
# `your_agent.yaml`: both settings × 24 tasks, the baseline K = 5 times, and fault injection
# (p = 0.3), the `medium` structural change and a `medium` paraphrase once each.
# `run_experiment` returns (and with `print_summary=True` prints) the same summary block as
# `reliability-lab run`. Its wall-clock numbers are this machine's (C_res, hence R_Con and R,
# use `wall_time_s`), so this cell's output differs slightly on every execution.

# %% tags=["nbval-ignore-output"]
outcome = rl.run_experiment(EXAMPLE / "your_agent.yaml", output=RESULTS, progress=False)
print(outcome)

# %% [markdown]
# The same report without the timings, so the numbers reproduce exactly: `careful` beats
# `sloppy` on every dimension — its slips are rarer (consistency, pass^k), its confidence
# tracks its outcomes (predictability), it retries after injected faults (robustness), and it
# never cancels an order nobody asked to cancel (safety).

# %%
timing_free = outcome.runs.assign(wall_time_s=np.nan, call_latency_s=np.nan)
report = rl.reliability_report(timing_free, n_boot=500, seed=0)
shown = ["accuracy", "R_Con", "R_Pred", "R_Rob", "R", "S_comp"]
print(
    pd.DataFrame(
        {m: [value_with_ci(r, m) for _, r in report.iterrows()] for m in shown},
        index=report.index,
    ).to_string()
)

# %% [markdown]
# ## What the harness recorded
#
# The agent did nothing to be recorded: every tool call went through `ctx.call_tool`, so the
# trajectory, the actions and the errors are the harness's. Under `structural` the agent saw
# the tool results wrapped in `{"status", "data"}`; under `fault` an injected error it may
# retry. An agent that gives up (`AgentFailure`) or raises is that run's failure, with the
# cause in `error`.

# %%
# results.jsonl holds runs in the order they finished: sort for a listing that does not vary
runs = outcome.runs.sort_values(["agent", "task_id", "condition", "variant", "run"], kind="stable")
columns = ["agent", "task_id", "condition", "run", "success", "confidence", "num_actions"]
print(runs[[*columns, "error"]].head(3).to_string(index=False))
_, records = read_results(RESULTS)  # the run table and the result records behind it
records.sort(key=lambda r: (r["agent"], r["task_id"], r["condition"], r["variant"], r["run"]))
structural = next(r for r in records if r["condition"] == "structural" and r["agent"] == "careful")
tool_results = [m["content"] for m in structural["trajectory"] if m["role"] == "tool"]
print("\nstructural tool results:", tool_results)
failed = runs[runs.error.notna()]
print(f"\n{len(failed)} runs ended with an error; first: {failed.error.iloc[0]!r}")

# %% [markdown]
# ## The figure set
#
# The same call as for any results directory: `save_all` writes every figure the data support
# and says why it left any out (sessions were not evaluated in this example).

# %%
saved = plots.save_all(RESULTS, RESULTS / "figures", formats=("png",))
print(f"{len(saved.written)} figures written to {saved.directory}")
for name, reason in saved.skipped.items():
    print(f"  {name}: skipped ({reason})")
data = plots.figure_data(RESULTS)
display(plots.draw_figure("dimensions_dashboard", data))
display(plots.draw_figure("accuracy_vs_R", data))

# %% [markdown]
# ## From Python, without files
#
# A task set built in Python and an agent defined in this notebook work the same way:
# `run_experiment` takes the callable and the `Environment` object as they are.


# %%
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def adder(ctx):
    a, b = (int(word) for word in ctx.instruction.split() if word.isdigit())
    return ctx.call_tool("add", {"a": a, "b": b})


tasks = [Task(f"s{i}", f"Add {i} and {i + 7}", metadata={"expected": 2 * i + 7}) for i in range(5)]
small = rl.run_experiment(
    {
        "name": "adder",
        "runs": 3,
        "output": str(RESULTS.parent / "adder"),
        "environment": TaskSetEnvironment(name="adder", tasks=tasks, tools=[add], scorer="numeric"),
        "agents": [{"label": "adder", "agent": adder}],
        "conditions": ["baseline", {"name": "structural", "variants": ["severe"]}],
        "sessions": {"enabled": False},
    },
    progress=False,
)
small_report = rl.reliability_report(
    small.runs.assign(wall_time_s=np.nan, call_latency_s=np.nan), n_boot=200, seed=0
)
print(small_report[["accuracy", "R_Con", "R_Rob"]].to_string())
severe = [r for r in read_results(small.output_dir)[1] if r["condition"] == "structural"]
print("under 'severe' the agent's call was refused:", severe[0]["trajectory"][-2]["content"])
