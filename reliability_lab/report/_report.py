"""The reliability report: every metric per agent with task-bootstrap confidence intervals."""

from __future__ import annotations

import math
import warnings
import zlib
from typing import Any

import numpy as np
import pandas as pd

from reliability_lab.errors import UndefinedMetricWarning
from reliability_lab.report._taskstats import METRICS, TaskStats
from reliability_lab.report.profiles import MetricProfile, get_profile
from reliability_lab.report.robustness import robustness_table
from reliability_lab.runs import BASELINE, is_infrastructure_error, validate_run_table
from reliability_lab.sessions.metrics import SESSION_METRICS

__all__ = ["METRICS", "reliability_report", "robustness_by_variant"]

_WHY_UNDEFINED = {
    "accuracy": "no baseline runs",
    "C_out": "no task has 2+ baseline runs",
    "C_traj_d": "no task has 2+ successful baseline runs with actions",
    "C_traj_s": "no task has 2+ successful baseline runs with actions",
    "C_conf": "no task has 2+ confidences",
    "C_res": "no resource recorded twice for a task",
    "P_brier": "no baseline run has a confidence",
    "P_cal": "no baseline run has a confidence",
    "P_auroc": "confidences missing or only one outcome class",
    "R_fault": "no 'fault' runs or zero baseline accuracy",
    "R_struct": "no 'structural' runs or zero baseline accuracy",
    "R_prompt": "no 'prompt' runs or zero baseline accuracy",
    "agent_reliability": "no baseline run has a session score",
    "agent_consistency": "no baseline run has a session score",
}


def _check_options(n_boot: Any, confidence_level: Any) -> None:
    if isinstance(n_boot, bool) or not isinstance(n_boot, int | np.integer) or n_boot < 0:
        raise ValueError(f"n_boot must be an integer >= 0, got {n_boot!r}")
    if not isinstance(confidence_level, float | int) or not 0 < confidence_level < 1:
        raise ValueError(
            f"confidence_level must lie strictly between 0 and 1, got {confidence_level!r}"
        )


def _agent_rng(seed: int, agent: str) -> np.random.Generator:
    """A generator per agent that does not depend on which other agents are in the table."""
    return np.random.default_rng([seed, zlib.crc32(agent.encode("utf-8"))])


def _bootstrap(
    stats: TaskStats, n_boot: int, alpha: float, rng: np.random.Generator
) -> dict[str, tuple[float, float]]:
    """Percentile intervals from resampling tasks with replacement (runs stay together)."""
    t = stats.n_tasks
    draws: dict[str, list[np.ndarray]] = {}
    step = max(1, 2_000_000 // max(t, 1))
    for start in range(0, n_boot, step):
        size = min(step, n_boot - start)
        weights = rng.multinomial(t, np.full(t, 1.0 / t), size=size).astype(float)
        for name, values in stats.evaluate(weights).items():
            draws.setdefault(name, []).append(values)
    bounds = {}
    for name, chunks in draws.items():
        if not chunks:
            continue
        values = np.concatenate(chunks)
        values = values[~np.isnan(values)]
        if values.size == 0:
            bounds[name] = (math.nan, math.nan)
        else:
            lo, hi = np.quantile(values, [alpha / 2, 1 - alpha / 2])
            bounds[name] = (float(lo), float(hi))
    return bounds


def _agent_row(
    agent: str,
    runs: pd.DataFrame,
    profile: MetricProfile,
    n_boot: int,
    confidence_level: float,
    seed: int,
) -> dict[str, Any]:
    infra = is_infrastructure_error(runs["error"])
    ok = runs.loc[~infra]
    row: dict[str, Any] = {
        "agent": agent,
        "n_tasks": int(ok["task_id"].nunique()),
        "n_runs": len(ok),
        "n_baseline_runs": int((ok["condition"] == BASELINE).sum()),
        "n_infra_errors": int(infra.sum()),
    }
    if ok.empty:
        warnings.warn(
            f"agent {agent!r}: every run is an infrastructure error; all metrics are NaN",
            UndefinedMetricWarning,
            stacklevel=3,
        )
        return row | {m: math.nan for m in METRICS}
    stats = TaskStats.build(ok, profile)
    point = {name: float(v[0]) for name, v in stats.evaluate(np.ones((1, stats.n_tasks))).items()}
    row.update(point)
    undefined = [m for m in _WHY_UNDEFINED if m in point and math.isnan(point[m])]
    if undefined:
        reasons = "; ".join(f"{m} ({_WHY_UNDEFINED[m]})" for m in undefined)
        warnings.warn(
            f"agent {agent!r}: undefined metrics are NaN: {reasons}",
            UndefinedMetricWarning,
            stacklevel=3,
        )
    if n_boot > 0:
        bounds = _bootstrap(stats, n_boot, 1 - confidence_level, _agent_rng(seed, agent))
        for name in point:
            lo, hi = bounds[name] if not math.isnan(point[name]) else (math.nan, math.nan)
            row[f"{name}_lo"], row[f"{name}_hi"] = lo, hi
    return row


def reliability_report(
    runs: pd.DataFrame,
    *,
    profile: str | MetricProfile = "default",
    n_boot: int = 1000,
    confidence_level: float = 0.95,
    seed: int = 0,
) -> pd.DataFrame:
    """Every reliability metric per agent, with bootstrap confidence intervals.

    Consistency, predictability and accuracy use each agent's ``baseline`` runs;
    R_fault/R_struct/R_prompt compare the ``fault``/``structural``/``prompt`` conditions to
    baseline accuracy; safety uses the baseline runs. Runs whose ``error`` starts with
    ``infrastructure:`` are excluded from every metric and counted in ``n_infra_errors``.

    Aggregates (SPEC §2): R_Con = ⅓ C_out + ⅓ mean(C_traj_d, C_traj_s) + ⅓ C_res,
    re-weighted over available terms; R_Pred = P_brier; R_Rob = mean of available
    robustness terms; R = mean of available R_Con, R_Pred, R_Rob. Safety (S_comp, S_harm,
    R_saf) is reported separately, never averaged into R.

    Parameters
    ----------
    runs : DataFrame
        A run table (SPEC §1); validated with :func:`~reliability_lab.validate_run_table`.
    profile : {"default", "preprint"} or MetricProfile
        Metric conventions; ``preprint`` = literal C_out, natural-log JS distance and
        ``linspace`` ECE edges (the conventions behind the preprint's numbers).
    n_boot : int
        Bootstrap replicates; each resamples the agent's tasks with replacement (all runs
        of a task stay together, across conditions). 0 disables the bootstrap.
    confidence_level : float
        Coverage of the percentile intervals ``<metric>_lo`` / ``<metric>_hi``.
    seed : int
        Seed of the bootstrap; the same seed gives identical intervals.

    Returns
    -------
    DataFrame
        Indexed by ``agent``; columns ``n_tasks, n_runs, n_baseline_runs,
        n_infra_errors``, the metrics of :data:`METRICS`, then ``<metric>_lo`` and
        ``<metric>_hi`` for each (NaN when ``n_boot=0`` or the metric is undefined).
        ``attrs`` records the profile, n_boot, confidence_level and seed. Undefined
        metrics are NaN with an :class:`~reliability_lab.UndefinedMetricWarning`.

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({"agent": "a", "task_id": ["t1"] * 4 + ["t2"] * 4,
    ...                      "run": [0, 1, 2, 3] * 2, "success": [1, 1, 1, 0, 0, 0, 0, 0]})
    >>> report = reliability_report(runs, n_boot=200)
    >>> float(report.loc["a", "C_out"])  # ((2·0.75 − 1)² + 1) / 2
    0.625
    >>> float(report.loc["a", "accuracy"]), float(report.loc["a", "R_Con"])
    (0.375, 0.625)
    """
    prof = get_profile(profile)
    _check_options(n_boot, confidence_level)
    table = validate_run_table(runs, source="runs")
    rows = [
        _agent_row(str(agent), group, prof, int(n_boot), float(confidence_level), int(seed))
        for agent, group in table.groupby("agent", sort=True)
    ]
    report = pd.DataFrame(rows).set_index("agent")
    metrics = [*METRICS, *(m for m in SESSION_METRICS if m in report.columns)]
    bounds = [f"{m}_{side}" for m in metrics for side in ("lo", "hi")]
    columns = ["n_tasks", "n_runs", "n_baseline_runs", "n_infra_errors", *metrics, *bounds]
    report = report.reindex(columns=columns)
    report.attrs.update(
        profile=prof.to_dict(),
        n_boot=int(n_boot),
        confidence_level=float(confidence_level),
        seed=int(seed),
    )
    return report


def robustness_by_variant(runs: pd.DataFrame) -> pd.DataFrame:
    """Accuracy and robustness ratio per (agent, condition, variant) against baseline.

    Accuracies are pooled over all non-infrastructure runs of the agent under that
    condition and variant; ``robustness = min(acc / acc_baseline, 1)``, NaN when the
    baseline accuracy is 0 (docs/methodology.md, "Robustness": also per variant). The
    ``intensity`` column names the variant's intensity (``medium/3`` → ``medium``); pooled
    per intensity: :func:`~reliability_lab.report.robustness.robustness_by_intensity`.

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({"agent": "a", "task_id": "t", "run": [0, 1, 0, 1, 0, 1],
    ...     "condition": ["baseline"] * 2 + ["prompt"] * 4,
    ...     "variant": ["", "", "p1", "p1", "p2", "p2"],
    ...     "success": [1, 1, 1, 0, 0, 0]})
    >>> robustness_by_variant(runs)[["condition", "variant", "accuracy", "robustness"]]
      condition variant  accuracy  robustness
    0    prompt      p1       0.5         0.5
    1    prompt      p2       0.0         0.0
    """
    return robustness_table(runs, ["variant", "intensity"])
