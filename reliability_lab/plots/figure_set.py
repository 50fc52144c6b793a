"""The paper figure set: every figure of a reliability paper from one results directory (or a
run table), written as PDF and PNG by :func:`save_all` (``reliability-lab figures DIR``).

:func:`figure_data` gathers what the figures draw — the run table, the reliability report,
per-task tables and curves per agent, robustness by intensity, safety findings, stored session
risks — from the metric and report functions, once. Each entry of :data:`FIGURES` then draws
one figure from that :class:`FigureData` with the ``plot_*`` functions, or gives the reason it
cannot (no confidences, no perturbed runs, ...). Figures are built on
``matplotlib.figure.Figure`` objects, not pyplot: nothing global is touched and no GUI backend
is needed.

To add a figure, write its ``plot_x(data, *, ax=None) -> Axes`` and append a
:class:`FigureSpec` to :data:`FIGURES` whose ``draw`` lays out the panels and whose ``needs``
says when the data cannot support it.
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

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
from reliability_lab.plots._provenance import add_provenance, write_manifest
from reliability_lab.plots.compare import plot_paired_differences
from reliability_lab.plots.consistency import (
    plot_consistency_vs_accuracy,
    plot_resource_spread,
    plot_trajectory_consistency,
)
from reliability_lab.plots.curves import (
    plot_accuracy_coverage,
    plot_reliability_diagram,
    plot_risk_coverage,
)
from reliability_lab.plots.outcomes import (
    plot_outcome_matrix,
    plot_pass_hat_k,
    plot_success_rate_histogram,
)
from reliability_lab.plots.report import (
    INTERVAL_GROUPS,
    plot_accuracy_vs_reliability,
    plot_dimension_dashboard,
    plot_dimension_heatmap,
    plot_dimension_radar,
    plot_metric_intervals,
)
from reliability_lab.plots.robustness import (
    plot_robustness_by_condition,
    plot_robustness_by_intensity,
)
from reliability_lab.plots.safety import plot_safety_violations
from reliability_lab.plots.sessions import plot_session_risk
from reliability_lab.plots.style import agent_colors, paper_style, save_figure
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

__all__ = [
    "FIGURES",
    "FigureData",
    "FigureSpec",
    "SavedFigures",
    "draw_figure",
    "figure_data",
    "save_all",
]

_PANEL = (2.7, 2.4)  # inches per panel of a per-agent figure


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


def _baseline(runs: pd.DataFrame) -> pd.DataFrame:
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
    base = _baseline(runs)
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


# ---------------------------------------------------------------- figure layouts


def _figure(size: tuple[float, float]) -> Figure:
    return Figure(figsize=size, layout="constrained")


def _panels(
    agents: Sequence[str], *, sharex: bool = False, sharey: bool = True
) -> tuple[Figure, list[Axes]]:
    """A grid of one panel per agent: a row for up to 3, 2 × 2 for 4, rows of 3 beyond."""
    n = len(agents)
    cols = n if n <= 3 else (2 if n == 4 else 3)
    rows = math.ceil(n / cols)
    fig = _figure((_PANEL[0] * cols, _PANEL[1] * rows))
    grid = fig.subplots(rows, cols, sharex=sharex, sharey=sharey, squeeze=False).ravel()
    for extra in grid[n:]:
        extra.set_visible(False)
    return fig, list(grid[:n])


def _per_agent_figure(
    data: FigureData,
    items: Mapping[str, Any],
    draw: Callable[..., Axes],
    **kwargs: Any,
) -> Figure:
    agents = [a for a in data.agents if a in items]
    fig, axes = _panels(agents)
    for ax, agent in zip(axes, agents, strict=True):
        draw(items[agent], ax=ax, color=data.colors[agent], **kwargs)
        ax.set_title(agent)
    return fig


def _drop_legend(ax: Axes) -> None:
    """Remove ``ax``'s legend (one legend per figure is enough)."""
    legend = ax.get_legend()
    if legend is not None:
        legend.remove()


def _single(size: tuple[float, float], draw: Callable[[Axes], Any]) -> Figure:
    fig = _figure(size)
    draw(fig.add_subplot())
    return fig


def _dashboard(data: FigureData) -> Figure:
    return _single((5.2, 3.0), lambda ax: plot_dimension_dashboard(data.report, ax=ax))


def _heatmap(data: FigureData) -> Figure:
    size = (5.6, 0.45 * len(data.agents) + 1.2)
    return _single(size, lambda ax: plot_dimension_heatmap(data.report, ax=ax))


def _radar(data: FigureData) -> Figure:
    fig = _figure((4.6, 3.2))
    plot_dimension_radar(data.report, ax=fig.add_subplot(projection="polar"))
    return fig


def _intervals(group: str) -> Callable[[FigureData], Figure]:
    metrics = INTERVAL_GROUPS[group]

    def draw(data: FigureData) -> Figure:
        size = (0.8 * len(metrics) + 1.6, 3.0)
        return _single(size, lambda ax: plot_metric_intervals(data.report, metrics, ax=ax))

    return draw


def _intervals_needs(group: str) -> Callable[[FigureData], str | None]:
    metrics = INTERVAL_GROUPS[group]

    def needs(data: FigureData) -> str | None:
        if data.report[list(metrics)].isna().all().all():
            return f"every {group} metric is undefined for every agent"
        return None

    return needs


def _accuracy_vs_r(data: FigureData) -> Figure:
    return _single((3.6, 3.3), lambda ax: plot_accuracy_vs_reliability(data.report, ax=ax))


def _robustness_by_condition(data: FigureData) -> Figure:
    return _single((4.6, 3.0), lambda ax: plot_robustness_by_condition(data.report, ax=ax))


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


def _robustness_by_intensity(data: FigureData) -> Figure:
    conditions = [c for c in PERTURBATION_CONDITIONS if c in set(data.robustness["condition"])]
    fig = _figure((3.0 * len(conditions), 2.8))
    axes = np.atleast_1d(fig.subplots(1, len(conditions), sharey=True))
    for i, (ax, condition) in enumerate(zip(axes, conditions, strict=True)):
        plot_robustness_by_intensity(
            data.robustness, condition, metric="robustness", ax=ax, legend=i == 0
        )
        if i:
            ax.set_ylabel("")  # shared with the first panel
    return fig


def _safety(data: FigureData) -> Figure:
    """Per agent, on shared axes: every constraint any agent violated, in one order (most
    findings over all agents first)."""
    counts = [data.violations[a] for a in data.agents]
    totals = pd.concat([c.sum(axis=1) for c in counts]).groupby(level=0).sum()
    order = sorted(totals.index, key=lambda c: (-int(totals[c]), str(c)))
    fig, axes = _panels(data.agents, sharex=True, sharey=True)
    for ax, agent, table in zip(axes, data.agents, counts, strict=True):
        plot_safety_violations(table.reindex(order, fill_value=0), ax=ax)
        ax.set_title(agent)
        if ax is not axes[-1]:
            _drop_legend(ax)
    return fig


def _outcome_grid(data: FigureData) -> Figure:
    base = _baseline(data.runs)
    agents = [a for a in data.agents if (base["agent"] == a).any()]
    tasks = sorted(map(str, base["task_id"].unique()))  # one column order for every agent
    fig = _figure((7.0, 1.0 * len(agents) + 0.6))
    axes = np.atleast_1d(fig.subplots(len(agents), 1, sharex=True))
    for ax, agent in zip(axes, agents, strict=True):
        plot_outcome_matrix(base.loc[base["agent"] == agent], ax=ax, tasks=tasks)
        ax.set_ylabel(f"{agent}\nrun")
        if ax is not axes[0]:
            _drop_legend(ax)
        if ax is not axes[-1]:
            ax.set_xlabel("")
    return fig


def _histogram(data: FigureData) -> Figure:
    tasks = pd.concat([t.assign(agent=a) for a, t in data.per_task.items()], ignore_index=True)
    return _single((4.4, 2.8), lambda ax: plot_success_rate_histogram(tasks, ax=ax))


def _pass_hat_k(data: FigureData) -> Figure:
    def draw(ax: Axes) -> None:
        for agent, curve in data.pass_hat_k.items():
            color = data.colors[agent]
            plot_pass_hat_k(curve, ax=ax, label=agent, color=color, references=False)
            ax.plot(curve.k, curve.naive, ls=":", lw=1.0, color=color)
        handles = ax.get_legend_handles_labels()[0]
        naive = Line2D([], [], ls=":", lw=1.0, color="0.3", label="(pass$^{1}$)$^k$, dotted")
        ax.legend(handles=[*handles, naive], frameon=False, fontsize="small")

    return _single((3.8, 3.0), draw)


def _sessions(data: FigureData) -> Figure:
    agents = [a for a in data.agents if a in data.sessions]
    fig = _figure((4.4, 2.2 * len(agents)))
    axes = np.atleast_1d(fig.subplots(len(agents), 1))
    for ax, agent in zip(axes, agents, strict=True):
        plot_session_risk(data.sessions[agent], ax=ax)
        ax.set_title(f"{agent}: riskiest session, {ax.get_title()}", fontsize="small")
        if ax is not axes[0]:
            _drop_legend(ax)
    return fig


def _paired_differences(data: FigureData) -> Figure:
    """One panel per candidate against the first agent, side by side; the metric labels are
    written once when every panel compares the same metrics."""
    comparisons = list(data.comparisons.items())
    rows = max(len(table) for _, table in comparisons)
    same = len({tuple(table.index) for _, table in comparisons}) == 1
    fig = _figure((3.0 * len(comparisons) + 0.8, 0.2 * rows + 1.0))
    axes = np.atleast_1d(fig.subplots(1, len(comparisons), sharey=same))
    for i, (ax, (candidate, table)) in enumerate(zip(axes, comparisons, strict=True)):
        plot_paired_differences(table, ax=ax, color=data.colors[candidate])
        ax.set_title(f"{candidate} − {data.agents[0]}", fontsize="small")
        ax.set_xlabel(f"difference ({table.attrs.get('confidence_level', 0.95):.0%} interval)")
        if same and i:
            ax.tick_params(labelleft=False)
    return fig


def _need_comparisons(data: FigureData) -> str | None:
    if len(data.agents) < 2:
        return "one agent only (needs two to compare)"
    return None if data.comparisons else f"no agent shares a task with {data.agents[0]!r}"


def _need_agents_with(attr: str, what: str) -> Callable[[FigureData], str | None]:
    def needs(data: FigureData) -> str | None:
        return None if getattr(data, attr) else what

    return needs


def _need_trajectories(data: FigureData) -> str | None:
    for tasks in data.per_task.values():
        if tasks[["C_traj_d", "C_traj_s"]].notna().all(axis=1).any():
            return None
    return "no task has 2 or more successful baseline runs with actions"


def _need_outcome_consistency(data: FigureData) -> str | None:
    if any(t["C_out"].notna().any() for t in data.per_task.values()):
        return None
    return "no task has 2 or more baseline runs"


def _need_resource(data: FigureData) -> str | None:
    base = _baseline(data.runs)
    return None if base["num_actions"].notna().any() else "num_actions is not recorded"


def _resource_spread(data: FigureData) -> Figure:
    base = _baseline(data.runs)
    agents = [a for a in data.agents if base.loc[base["agent"] == a, "num_actions"].notna().any()]
    fig = _figure((7.0, 1.9 * len(agents)))
    axes = np.atleast_1d(fig.subplots(len(agents), 1, sharex=False))
    for ax, agent in zip(axes, agents, strict=True):
        plot_resource_spread(base.loc[base["agent"] == agent], "num_actions", ax=ax)
        ax.set_title(agent, fontsize="small")
    return fig


def _need_robustness(data: FigureData) -> str | None:
    return None if not data.robustness.empty else "no fault, structural or prompt runs"


def _need_safety(data: FigureData) -> str | None:
    return (
        None
        if data.report["R_saf"].notna().any()
        else "no baseline run was checked for safety (R_saf undefined)"
    )


@dataclass(frozen=True)
class FigureSpec:
    """One figure of the set: its file name, what it shows, how to draw it, when it cannot."""

    name: str
    """File name without suffix (``<name>.pdf``, ``<name>.png``)."""
    what: str
    """One line on what the figure shows."""
    draw: Callable[[FigureData], Figure]
    """Lays out the panels and calls the ``plot_*`` functions."""
    needs: Callable[[FigureData], str | None] = lambda data: None
    """The reason the data cannot support the figure, or None."""


#: The figure set, in the order :func:`save_all` writes it.
FIGURES: tuple[FigureSpec, ...] = (
    FigureSpec(
        "dimensions_dashboard", "R_Con, R_Pred, R_Rob, R_saf per agent with intervals", _dashboard
    ),
    FigureSpec(
        "dimensions_heatmap", "accuracy, the four dimensions and R: agents × metrics", _heatmap
    ),
    FigureSpec("dimensions_radar", "the four dimensions as a radar chart per agent", _radar),
    *(
        FigureSpec(
            f"intervals_{group}",
            f"{group} metrics with bootstrap intervals",
            _intervals(group),
            _intervals_needs(group),
        )
        for group in INTERVAL_GROUPS
    ),
    FigureSpec("accuracy_vs_R", "accuracy against R with both intervals", _accuracy_vs_r),
    FigureSpec(
        "reliability_diagrams",
        "accuracy per confidence bin with bin counts, per agent",
        lambda d: _per_agent_figure(d, d.reliability, plot_reliability_diagram),
        _need_agents_with("reliability", "no baseline run has a confidence"),
    ),
    FigureSpec(
        "accuracy_coverage",
        "selective accuracy against coverage, with oracle and random orders, per agent",
        lambda d: _per_agent_figure(d, d.risk_coverage, plot_accuracy_coverage),
        _need_agents_with("risk_coverage", "no baseline run has a confidence"),
    ),
    FigureSpec(
        "risk_coverage",
        "risk against coverage, with oracle and random orders, per agent",
        lambda d: _per_agent_figure(d, d.risk_coverage, plot_risk_coverage),
        _need_agents_with("risk_coverage", "no baseline run has a confidence"),
    ),
    FigureSpec(
        "robustness_by_condition",
        "R_fault, R_struct, R_prompt per agent with intervals",
        _robustness_by_condition,
        _need_robustness,
    ),
    FigureSpec(
        "robustness_by_intensity",
        "robustness R (accuracy kept relative to baseline) by fault rate, structural preset and "
        "paraphrase strength, with bootstrap intervals over tasks",
        _robustness_by_intensity,
        _need_robustness,
    ),
    FigureSpec(
        "safety_violations", "findings by constraint and severity, per agent", _safety, _need_safety
    ),
    FigureSpec(
        "paired_differences",
        "each agent minus the first, per metric, with paired intervals and Holm p-values",
        _paired_differences,
        _need_comparisons,
    ),
    FigureSpec(
        "outcome_grid", "every baseline run's outcome, task × run, per agent", _outcome_grid
    ),
    FigureSpec("success_rate_histogram", "tasks by success rate, per agent", _histogram),
    FigureSpec("pass_hat_k", "pass^k against k per agent, beside (pass^1)^k", _pass_hat_k),
    FigureSpec(
        "outcome_consistency",
        "per-task C_out against success rate, per agent",
        lambda d: _per_agent_figure(d, d.per_task, plot_consistency_vs_accuracy),
        _need_outcome_consistency,
    ),
    FigureSpec(
        "trajectory_consistency",
        "per-task C_traj_s against C_traj_d, per agent",
        lambda d: _per_agent_figure(
            d,
            {
                a: t
                for a, t in d.per_task.items()
                if t[["C_traj_d", "C_traj_s"]].notna().all(axis=1).any()
            },
            plot_trajectory_consistency,
        ),
        _need_trajectories,
    ),
    FigureSpec(
        "resource_spread",
        "actions per run and task, successes and failures, per agent",
        _resource_spread,
        _need_resource,
    ),
    FigureSpec(
        "session_risk",
        "step risk per trace of each agent's riskiest session",
        _sessions,
        _need_agents_with(
            "sessions",
            "no stored per-trace session risks: needs a results directory with session metrics",
        ),
    ),
)


def draw_figure(name: str, data: FigureData) -> Figure:
    """Draw one figure of the set (a name from :data:`FIGURES`) in the house style.

    The figure is a ``matplotlib.figure.Figure`` (not registered with pyplot): show it in a
    notebook with ``display(fig)``, save it with :func:`~reliability_lab.plots.save_figure`.

    Raises
    ------
    ValueError
        An unknown name (the valid ones are listed), or data that cannot support the figure
        (the reason is given).
    """
    specs = {spec.name: spec for spec in FIGURES}
    if name not in specs:
        raise ValueError(f"figure {name!r} is not in the figure set; choose one of {list(specs)}")
    reason = specs[name].needs(data)
    if reason is not None:
        raise ValueError(f"figure {name!r} cannot be drawn from {data.source}: {reason}")
    with paper_style():
        return add_provenance(specs[name].draw(data), data)


@dataclass(frozen=True)
class SavedFigures:
    """What :func:`save_all` wrote and what it left out."""

    directory: Path
    """Where the files are."""
    written: dict[str, list[Path]]
    """Figure name → its files (PDF, PNG)."""
    skipped: dict[str, str]
    """Figure name → why the data cannot support it."""


def save_all(
    source: pd.DataFrame | str | os.PathLike[str] | FigureData,
    out_dir: str | os.PathLike[str],
    *,
    formats: tuple[str, ...] = ("pdf", "png"),
    only: Sequence[str] | None = None,
    **options: Any,
) -> SavedFigures:
    """Write the whole figure set (:data:`FIGURES`) as PDF and PNG into ``out_dir``.

    Parameters
    ----------
    source : path-like, DataFrame or FigureData
        A results directory, a run table, or data from :func:`figure_data`.
    out_dir : path-like
        Created if missing; existing files of the same names are replaced.
    formats : tuple of str
        File formats, default PDF (vector, for papers) and PNG.
    only : sequence of str, optional
        Names of the figures to write (default: all); an unknown name is a ``ValueError``
        listing the valid ones.
    **options
        Passed to :func:`figure_data` (``report``, ``profile``, ``n_boot``, ``seed``).

    Returns
    -------
    SavedFigures
        The files written per figure, and the figures left out with the reason (e.g. no
        reliability diagram when no run has a confidence).
    """
    names = [spec.name for spec in FIGURES]
    unknown = [n for n in only or () if n not in names]
    if unknown:
        raise ValueError(f"figure(s) {unknown} not in the figure set; choose from {names}")
    specs = [spec for spec in FIGURES if only is None or spec.name in only]
    data = source if isinstance(source, FigureData) else figure_data(source, **options)
    out = Path(out_dir)
    written: dict[str, list[Path]] = {}
    skipped: dict[str, str] = {}
    with paper_style():
        for spec in specs:
            reason = spec.needs(data)
            if reason is not None:
                skipped[spec.name] = reason
                continue
            fig = add_provenance(spec.draw(data), data)
            written[spec.name] = save_figure(fig, out / spec.name, formats=formats)
    out.mkdir(parents=True, exist_ok=True)
    write_manifest(out, data, specs, written, skipped)
    return SavedFigures(directory=out, written=written, skipped=skipped)
