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
# # 07 · Paper figures: the whole figure set from a results directory
#
# One call regenerates every figure of a reliability paper from a results directory, as
# vector PDF (for the paper) and PNG: `reliability_lab.plots.save_all(RESULTS_DIR, OUT_DIR)`,
# or from a terminal `reliability-lab figures RESULTS_DIR --output OUT_DIR`. Each figure is
# drawn by a `plot_*` function from values a metric or report function returns — the report
# of record in `summary.json`, the run table in `results.jsonl`, the per-trace session risks
# stored with each run — so the figures and the printed report always agree.
#
# The results directory here is the notebooks' shared experiment (SIMULATED agents;
# `experiments/notebooks.yaml`). Point the same call at any results directory — your own
# experiment, or one written by `reliability-lab report LOGS --output DIR` from another
# harness's logs.

# %%
# %matplotlib inline
import warnings
from pathlib import Path

import pandas as pd
from IPython.display import display

import reliability_lab as rl
from reliability_lab import plots
from reliability_lab.io import load_tau_bench_example

pd.set_option("display.precision", 3)
pd.set_option("display.width", 120)
warnings.simplefilter("ignore", rl.UndefinedMetricWarning)
plots.use_paper_style()  # nothing below is random: the report's bootstrap seed is in the config
RESULTS = Path("../results/notebooks")
OUT = RESULTS / "figures"

# %% [markdown]
# ## The results directory
#
# `run_experiment` resumes it (or runs the experiment if no notebook has yet).

# %%
outcome = rl.run_experiment("../experiments/notebooks.yaml", output=RESULTS, progress=False)
print(
    f"{len(outcome.runs)} runs of {outcome.runs['agent'].nunique()} agents; "
    f"report settings: {outcome.summary.content['reliability']['n_boot']} bootstrap replicates"
)

# %% [markdown]
# ## Every figure, as PDF and PNG
#
# `plots.FIGURES` lists the set; `save_all` writes each one it can and says why it left any
# out (none here: this experiment has confidences, perturbations, safety findings and
# sessions).

# %%
saved = plots.save_all(RESULTS, OUT)
print(
    pd.DataFrame(
        [
            {
                "figure": spec.name,
                "files": ", ".join(f.suffix for f in saved.written.get(spec.name, [])),
                "what it shows": spec.what,
            }
            for spec in plots.FIGURES
        ]
    ).to_string(index=False)
)
print("skipped:", saved.skipped or "none")

# %% [markdown]
# ## A few of them
#
# `draw_figure` draws one figure of the set for display; these are the files just written.
# The four dimensions across agents:

# %%
data = plots.figure_data(RESULTS)
display(plots.draw_figure("dimensions_dashboard", data));
# %% [markdown]
# The same report as a radar chart, and accuracy against R with both intervals: the agent with
# the highest accuracy is not the most reliable one.

# %%
display(plots.draw_figure("dimensions_radar", data))
display(plots.draw_figure("accuracy_vs_R", data));
# %% [markdown]
# Risk–coverage per agent, with the oracle and random orders, and each agent against the first
# (`brittle`): the paired differences of `compare_agents`, filled where the paired interval
# excludes 0, Holm-adjusted p-values (bold below 0.05) beside them:

# %%
display(plots.draw_figure("risk_coverage", data))
display(plots.draw_figure("paired_differences", data));
# %% [markdown]
# ## From a run table instead
#
# `save_all` also takes a run table, computing its report first. With the τ-bench runs (no
# confidences, no perturbations, no sessions, no safety findings) it draws what the data
# support and names the reason for each figure it leaves out.

# %%
tau = plots.save_all(load_tau_bench_example(), OUT / "tau_bench", formats=("png",), n_boot=500)
print(f"{len(tau.written)} figures written")
for name, reason in tau.skipped.items():
    print(f"  {name}: {reason}")
