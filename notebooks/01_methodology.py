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
# # 01 · Methodology: every metric on worked examples
#
# *Towards a Science of AI Agent Reliability* (Rabanser et al., 2026) measures how **reliably**
# an agent succeeds along four dimensions: consistency, predictability, robustness and safety.
# This notebook computes every metric of `reliability_lab` on inputs small enough to check by
# hand, next to its formula. Where the paper's text, its code and its published numbers
# disagree we had to decide; each decision is stated in `docs/methodology.md` (section named in
# each step) and the named **profiles** at the end put them side by side.
#
# Every number below is returned by a `reliability_lab` function; the inputs are made up.

# %%
import warnings

import numpy as np
import pandas as pd

import reliability_lab as rl
from reliability_lab import metrics
from reliability_lab.report import METRIC_REGISTRY, PROFILES

rng = np.random.default_rng(0)  # the only source of randomness in this notebook
pd.set_option("display.precision", 3)
pd.set_option("display.width", 120)
warnings.simplefilter("ignore", rl.UndefinedMetricWarning)

# %% [markdown]
# ## Outcome consistency C_out (`docs/methodology.md`, "Consistency")
#
# Per task, with success rate p̂ over K runs: **C_out,t = (2p̂ − 1)²** — 1 when every run
# agrees, 0 at 50/50; C_out is the mean over tasks. The formula printed on the methodology page,
# 1 − s²/(p̂(1 − p̂)), is degenerate for 0/1 outcomes (every non-unanimous task scores 0); it
# stays available as the `literal` variant because the preprint's numbers used it.

# %%
for outcomes in ([1, 1, 1, 1, 0], [1, 1, 1], [1, 0]):
    task = ["t"] * len(outcomes)
    scores = {
        v: metrics.outcome_consistency(outcomes, task, variant=v) for v in ("corrected", "literal")
    }
    print(f"{outcomes!s:16} corrected {scores['corrected']:.2f}   literal {scores['literal']:.2f}")

# %% [markdown]
# ## Trajectory consistency C_traj_d and C_traj_s
#
# Over pairs of *successful* runs of a task: do they use the same **mix** of actions
# (1 − Jensen–Shannon distance, base 2, between action-frequency distributions) and the same
# **order** (1 − Levenshtein distance / longer length)? `[a, b, c]` against `[a, b, d]`: one
# substitution in three → 2/3. Disjoint action sets score 0 with the default base-2 distance,
# 0.1674 with the natural-log distance of the preprint's code.

# %%
actions = [["a", "b", "c"], ["a", "b", "d"]]
args = (actions, ["t1", "t1"], [1, 1])
print(f"C_traj_s of [a,b,c] vs [a,b,d] = {metrics.trajectory_sequence_consistency(*args):.4f}")
for variant in metrics.DISTRIBUTION_VARIANTS:
    same_mix = metrics.trajectory_distribution_consistency(*args, variant=variant)
    disjoint = metrics.trajectory_distribution_consistency(
        [["x"], ["y"]], ["t2", "t2"], [1, 1], variant=variant
    )
    print(f"C_traj_d ({variant:16}): [a,b,c] vs [a,b,d] {same_mix:.4f}, [x] vs [y] {disjoint:.4f}")

# %% [markdown]
# ## Resource and confidence consistency C_res, C_conf
#
# Per task over **all** runs: C_res,t = exp(−mean coefficient of variation of the recorded
# resources) — cost [0.01, 10, 0.01, 10] alone gives exp(−1.1523) = 0.31588. C_conf,t =
# exp(−std/mean) of the self-reported confidences (reported, not part of R).

# %%
task = ["t"] * 4
print(f"C_res  = {metrics.resource_consistency({'cost_usd': [0.01, 10, 0.01, 10]}, task):.5f}")
print(f"C_conf = {metrics.confidence_consistency([0.8, 0.9, 0.7, 0.8], task):.4f}")

# %% [markdown]
# ## Predictability (`docs/methodology.md`, "Predictability")
#
# Pooled over runs with a confidence c and outcome y: **P_brier** = 1 − mean (c − y)² (0.75
# for c = 0.5 everywhere); **P_cal** = 1 − ECE over 10 equal-width bins — a confidence of exactly
# 0.3 belongs to [0.3, 0.4) (`floor` binning), while the authors' code, with `numpy.linspace`
# edges, puts it in the bin below (`linspace` binning) — here with the 0.25 run, which changes
# the score; **P_auroc** ranks successes above
# failures (ties count ½); **P_rc** = 1 − E-AURC / E-AURC_max compares the risk–coverage curve
# with the oracle order.

# %%
conf = np.array([0.25, 0.3, 0.3, 0.7, 0.9, 0.9])
ok = np.array([0, 1, 1, 0, 1, 1])
print(f"P_brier (c = 0.5 everywhere) = {metrics.brier_score(np.full(6, 0.5), ok):.2f}")
for binning in metrics.BINNINGS:
    print(f"P_cal ({binning:8}) = {metrics.calibration_score(conf, ok, binning=binning):.4f}")
auroc, p_rc = metrics.auroc_score(conf, ok), metrics.risk_coverage_score(conf, ok)
print(f"P_auroc = {auroc:.4f}   P_rc = {p_rc:.4f}")

# %% [markdown]
# The bins behind those two calibration scores: the same six runs, binned differently at the
# exact edges 0.3, 0.7 and 0.9.

# %%
for binning in metrics.BINNINGS:
    curve = metrics.reliability_curve(conf, ok, binning=binning)
    bins = [
        f"[{lo:.1f},{hi:.1f}): n={n}"
        for lo, hi, n in zip(curve.bin_lower, curve.bin_upper, curve.count, strict=True)
    ]
    print(f"{binning:8}", "  ".join(bins))

# %% [markdown]
# ## Robustness and safety (`docs/methodology.md`, "Robustness", "Safety")
#
# **R = min(Acc_perturbed / Acc_baseline, 1)**, accuracies pooled over the runs of a
# condition. Safety counts runs: **S_comp** = share of runs without a violation; **S_harm** =
# 1 − mean severity weight (low 0.25, medium 0.5, high and critical 1) of the violating runs;
# **R_saf** = 1 − (1 − S_comp)(1 − S_harm), reported beside R, never inside it.

# %%
r_prompt = metrics.robustness_ratio([1, 1, 1, 0], [1, 0, 1, 0])
print(f"R (3 of 4 succeed at baseline, 2 of 4 perturbed) = {r_prompt:.4f}")
violations = [
    [],
    [],
    [{"constraint": "pii_exposure", "severity": "high"}],
    [{"constraint": "rate_limit", "severity": "low"}],
]
print(metrics.safety_scores(violations).by_symbol())

# %% [markdown]
# ## pass^k and pass@k (`docs/methodology.md`, "pass^k and pass@k")
#
# τ-bench's **pass^k** is the chance that k runs of a task drawn without replacement *all*
# succeed, C(c, k)/C(n, k), averaged over tasks; **pass@k** that *at least one* does. A task
# with 3 of 4 successes: pass^2 = C(3,2)/C(4,2) = 0.5, pass@2 = 1.

# %%
success, task = [1, 1, 1, 0, 1, 1, 1, 1], ["t1"] * 4 + ["t2"] * 4
for k in (1, 2, 4):
    hat, at = metrics.pass_hat_k(success, task, k), metrics.pass_at_k(success, task, k)
    print(f"k={k}: pass^k {hat:.3f}   pass@k {at:.3f}")

# %% [markdown]
# ## From metrics to a report (`docs/methodology.md`, "Aggregates and intervals")
#
# `reliability_report` takes the run table — one row per run — and computes every metric per
# agent with a bootstrap over **tasks**. R_Con = ⅓ C_out + ⅓ mean(C_traj_d, C_traj_s) + ⅓ C_res;
# R_Pred = P_brier; R_Rob = mean of R_fault, R_struct, R_prompt; **R = mean(R_Con, R_Pred,
# R_Rob), undefined unless all three are defined**. Here a synthetic agent: 8 tasks × 4
# baseline runs with confidences, plus one fault run and one paraphrased run per task.

# %%
p_task = rng.uniform(0.3, 1.0, 8)
rows = []
for t, p in enumerate(p_task):
    for condition, runs_of in (("baseline", 4), ("fault", 1), ("prompt", 1)):
        for k in range(runs_of):
            hit = bool(rng.random() < (p if condition == "baseline" else p - 0.2))
            rows.append(
                {
                    "agent": "synthetic",
                    "task_id": f"t{t}",
                    "condition": condition,
                    "variant": "" if condition == "baseline" else f"{condition}/1",
                    "run": k,
                    "success": hit,
                    "confidence": round(float(np.clip(p + rng.normal(0, 0.1), 0, 1)), 1),
                    "actions": ["lookup", "act"] if hit else ["lookup"] * (k + 1),
                    "cost_usd": 0.01 * (2 if hit else k + 1),
                }
            )
runs = pd.DataFrame(rows)
report = rl.reliability_report(runs, n_boot=500, seed=0)
row = report.loc["synthetic"]
for m in ("accuracy", "C_out", "R_Con", "R_Pred", "R_Rob", "R"):
    print(f"{m:8} {row[m]:.3f}  [{row[m + '_lo']:.3f}, {row[m + '_hi']:.3f}]")
print("R_Con from", row["R_Con_terms"], "| R_Rob from", row["R_Rob_terms"])

# %% [markdown]
# ## The profiles side by side (`docs/methodology.md`, "Profiles")
#
# A profile fixes every convention at once, and each result file records which one produced
# it: `default` (the decisions above) and `preprint` (literal C_out, natural-log JS distance,
# `linspace` ECE edges — what reproduces the preprint's numbers). The same runs, each profile:

# %%
table = pd.DataFrame(
    {
        name: rl.reliability_report(runs, profile=name, n_boot=0).loc[
            "synthetic", ["C_out", "C_traj_d", "P_cal", "R_Con", "R"]
        ]
        for name in PROFILES
    }
)
print(table.round(4).to_string())

# %% [markdown]
# ## Where every metric is defined
#
# The metric registry lists every symbol with the function that computes it and when it is
# undefined (NaN, with a warning saying why — never a silent 0 or 1). The report's columns,
# the gates, the console and the figures' labels all read it.

# %%
registry = pd.DataFrame(
    [
        {
            "symbol": m.symbol,
            "dimension": m.dimension,
            "computed by": m.function_name,
            "undefined when": m.why_undefined,
        }
        for m in METRIC_REGISTRY.values()
    ]
)
print(registry.head(16).to_string(index=False, max_colwidth=60))
