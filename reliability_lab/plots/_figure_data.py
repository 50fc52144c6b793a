"""What the figure set draws, gathered once: :class:`FigureData` and :func:`figure_data`.

The run table, the reliability report, per-task tables and curves per agent, robustness by
intensity with intervals, safety findings, stored session risks and paired comparisons come
from the metric and report functions; the figures (:mod:`reliability_lab.plots.figure_set`)
only draw them.
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from reliability_lab.errors import RunTableError, UndefinedMetricWarning
from reliability_lab.metrics import (
    PassHatKCurve,
    ReliabilityCurve,
    RiskCoverageCurve,
    pass_hat_k_curve,
    per_task_consistency,
    reliability_curve,
    risk_coverage_curve,
)
from reliability_lab.plots.style import agent_colors
from reliability_lab.report import (
    MetricProfile,
    get_profile,
    reliability_report,
    robustness_intervals_by_intensity,
    violation_counts,
)
from reliability_lab.report.compare import compare_agents
from reliability_lab.runs import (
    BASELINE,
    KEY_COLUMNS,
    PERTURBATION_CONDITIONS,
    RESOURCE_COLUMNS,
    is_infrastructure_error,
    validate_run_table,
)
from reliability_lab.sessions.scoring import SessionScores

__all__ = ["FigureData", "baseline_runs", "figure_data"]


@dataclass(frozen=True)
class FigureData:
    """Everything the figure set draws, computed by metric and report functions.

    Per-agent fields hold baseline runs without infrastructure errors, like the report.
    """

    source: str
    """Where the runs came from (a results directory or ``"run table"``)."""
    runs: pd.DataFrame
    """The validated run table, every condition."""
    report: pd.DataFrame
    """The reliability report (one row per agent, with intervals)."""
    profile: MetricProfile
    """The metric profile behind the report (and the per-task tables and curves)."""
    agents: tuple[str, ...]
    """Agents in report order; each keeps its colour in every figure."""
    per_task: Mapping[str, pd.DataFrame]
    """:func:`~reliability_lab.metrics.per_task_consistency` per agent."""
    pass_hat_k: Mapping[str, PassHatKCurve]
    """:func:`~reliability_lab.metrics.pass_hat_k_curve` per agent."""
    reliability: Mapping[str, ReliabilityCurve]
    """Reliability curve per agent whose runs carry confidences."""
    risk_coverage: Mapping[str, RiskCoverageCurve]
    """Risk–coverage curve per agent whose runs carry confidences."""
    robustness: pd.DataFrame
    """:func:`~reliability_lab.report.robustness_intervals_by_intensity` with the report's
    bootstrap settings, rows in agent order (empty without perturbations)."""
    violations: Mapping[str, pd.DataFrame]
    """:func:`~reliability_lab.report.violation_counts` per agent."""
    sessions: Mapping[str, SessionScores] = field(default_factory=dict)
    """Per agent, the stored session scores of its riskiest baseline run (lowest
    agent_reliability; results directories only)."""
    comparisons: Mapping[str, pd.DataFrame] = field(default_factory=dict)
    """Per agent after the first: :func:`~reliability_lab.compare_agents` of it (candidate)
    against the first agent of the report (baseline), with the report's profile, n_boot,
    confidence level and seed. Agents sharing no task with the first are left out."""

    @property
    def colors(self) -> dict[str, str]:
        """Agent → colour, the same in every figure."""
        return agent_colors(self.agents)


def baseline_runs(runs: pd.DataFrame) -> pd.DataFrame:
    """Baseline runs that did not end in an infrastructure error (what the report scores)."""
    keep = (runs["condition"] == BASELINE).to_numpy() & ~is_infrastructure_error(runs["error"])
    return runs.loc[keep]


def _resources(runs: pd.DataFrame) -> dict[str, pd.Series]:
    return {r: runs[r] for r in RESOURCE_COLUMNS if r in runs and runs[r].notna().any()}


def _per_agent(base: pd.DataFrame, profile: MetricProfile, agents: Sequence[str]) -> dict[str, Any]:
    """Per-task tables and curves of each agent's baseline runs."""
    out: dict[str, dict[str, Any]] = {
        "per_task": {},
        "pass_hat_k": {},
        "reliability": {},
        "risk_coverage": {},
    }
    for agent in agents:
        runs = base.loc[base["agent"] == agent]
        if runs.empty:
            continue
        out["per_task"][agent] = per_task_consistency(
            runs["success"],
            runs["task_id"],
            actions=runs["actions"],
            resources=_resources(runs) or None,
            outcome_variant=profile.outcome_variant,
            distribution_variant=profile.distribution_variant,
        )
        out["pass_hat_k"][agent] = pass_hat_k_curve(runs["success"], runs["task_id"])
        rated = runs.loc[runs["confidence"].notna()]
        if not rated.empty:
            conf, ok = rated["confidence"], rated["success"]
            out["reliability"][agent] = reliability_curve(
                conf, ok, n_bins=profile.n_bins, binning=profile.binning
            )
            out["risk_coverage"][agent] = risk_coverage_curve(conf, ok)
    return out


def _riskiest_sessions(
    records: Sequence[Mapping[str, Any]], base: pd.DataFrame
) -> dict[str, SessionScores]:
    """Per agent, the stored scores of the baseline run with the lowest agent_reliability that
    kept its per-trace risks (ties: the first in run-key order)."""
    keys = set(base[list(KEY_COLUMNS)].itertuples(index=False, name=None))
    best: dict[str, tuple[float, tuple[Any, ...], SessionScores]] = {}
    for rec in records:
        key = tuple(rec.get(k) for k in KEY_COLUMNS)
        if key not in keys or not isinstance(rec.get("session"), Mapping):
            continue
        scores = SessionScores.model_validate(rec["session"])
        if not scores.trace_risks or math.isnan(scores.agent_reliability):
            continue
        rank = (scores.agent_reliability, tuple(map(str, key)))
        agent = str(key[0])
        if agent not in best or rank < best[agent][:2]:
            best[agent] = (*rank, scores)
    return {agent: entry[2] for agent, entry in best.items()}


def _comparisons(
    runs: pd.DataFrame, report: pd.DataFrame, profile: MetricProfile, agents: Sequence[str]
) -> dict[str, pd.DataFrame]:
    """Each agent after the first against the first, on their common tasks."""
    attrs = report.attrs
    n_boot = max(int(attrs.get("n_boot", 1000)), 1)
    level = float(attrs.get("confidence_level", 0.95))
    seed = int(attrs.get("seed", 0))
    out: dict[str, pd.DataFrame] = {}
    for candidate in agents[1:]:
        try:
            out[candidate] = compare_agents(
                runs,
                agents[0],
                candidate,
                profile=profile,
                n_boot=n_boot,
                confidence_level=level,
                seed=seed,
            )
        except RunTableError:  # no task in common (or no runs left): nothing to pair
            continue
    return out


def _check_report_matches(report: pd.DataFrame, runs: pd.DataFrame, where: str) -> None:
    counted = (report["n_runs"] + report["n_infra_errors"]).astype(int)
    actual = runs.groupby("agent").size().reindex(counted.index, fill_value=0)
    if set(report.index) != set(runs["agent"].astype(str)) or (counted != actual).any():
        raise RunTableError(
            f"{where}: summary.json does not describe the runs in results.jsonl (an interrupted "
            f"or resumed experiment?); run `reliability-lab report {where} --write-summary` "
            "to recompute it"
        )


def figure_data(
    source: pd.DataFrame | str | os.PathLike[str],
    *,
    report: pd.DataFrame | None = None,
    profile: str | MetricProfile = "default",
    n_boot: int = 1000,
    seed: int = 0,
) -> FigureData:
    """Gather what the figure set draws from a results directory or a run table.

    Parameters
    ----------
    source : path-like or DataFrame
        A results directory (its ``results.jsonl``, and the report of record in
        ``summary.json``), or a run table (docs/run_table.md).
    report : DataFrame, optional
        For a run table: its :func:`~reliability_lab.reliability_report`; computed with
        ``profile``, ``n_boot`` and ``seed`` when omitted (undefined metrics are NaN and drawn
        as "n/a"; their warnings are not repeated here).
    profile, n_boot, seed
        Report settings for a run table without ``report``; a results directory uses its own.

    Raises
    ------
    RunTableError
        Unreadable results, a missing or stale ``summary.json``, or an invalid run table.
    """
    records: list[dict[str, Any]] = []
    if isinstance(source, pd.DataFrame):
        runs = validate_run_table(source, source="runs")
        where = "run table"
        if report is None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UndefinedMetricWarning)
                report = reliability_report(runs, profile=profile, n_boot=n_boot, seed=seed)
    else:
        from reliability_lab.results.order import in_config_order
        from reliability_lab.results.read import load_report, read_results

        where = str(source)
        runs, records = read_results(source)
        if runs.empty:
            raise RunTableError(f"{where}: no finished runs; nothing to draw")
        report = in_config_order(load_report(source) if report is None else report, source)
        _check_report_matches(report, runs, where)
    prof = get_profile(
        MetricProfile(**report.attrs["profile"]) if "profile" in report.attrs else profile
    )
    agents = tuple(str(a) for a in report.index)
    base = baseline_runs(runs)
    perturbed = runs["condition"].isin(list(PERTURBATION_CONDITIONS)).any()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        tables = _per_agent(base, prof, agents)
        robustness = _robustness_table(runs, report, prof) if perturbed else pd.DataFrame()
        comparisons = _comparisons(runs, report, prof, agents)
    return FigureData(
        source=where,
        runs=runs,
        report=report,
        profile=prof,
        agents=agents,
        robustness=robustness,
        violations={a: violation_counts(runs.loc[runs["agent"] == a]) for a in agents},
        sessions=_riskiest_sessions(records, base),
        comparisons=comparisons,
        **tables,
    )


def _robustness_table(
    runs: pd.DataFrame, report: pd.DataFrame, profile: MetricProfile
) -> pd.DataFrame:
    attrs = report.attrs
    table = robustness_intervals_by_intensity(
        runs,
        profile=profile,
        n_boot=max(int(attrs.get("n_boot") or 1000), 1),
        confidence_level=float(attrs.get("confidence_level") or 0.95),
        seed=int(attrs.get("seed") or 0),
    )
    order = {str(a): i for i, a in enumerate(report.index)}
    rank = table["agent"].astype(str).map(order).fillna(len(order))
    return table.loc[rank.sort_values(kind="mergesort").index].reset_index(drop=True)
