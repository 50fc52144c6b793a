"""How each figure of the set lays out its panels from :class:`FigureData` (the ``draw`` of
each :class:`~reliability_lab.plots.figure_set.FigureSpec`). Every value drawn comes from a
``plot_*`` function; these only arrange panels, share legends and labels, and pass each agent
its colour (``FigureData.colors``)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from reliability_lab.plots._figure_data import FigureData, baseline_runs
from reliability_lab.plots._panels import (
    agent_grid,
    figure,
    per_agent,
    share_labels,
    share_legend,
    single,
)
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
from reliability_lab.plots.style import NEUTRAL
from reliability_lab.runs import PERTURBATION_CONDITIONS

__all__ = [
    "accuracy_coverage",
    "accuracy_vs_r",
    "dashboard",
    "heatmap",
    "histogram",
    "intervals",
    "outcome_consistency",
    "outcome_grid",
    "paired_differences",
    "pass_hat_k",
    "radar",
    "reliability_diagrams",
    "resource_spread",
    "risk_coverage",
    "robustness_by_condition",
    "robustness_by_intensity",
    "safety",
    "sessions",
    "trajectory_consistency",
    "with_trajectories",
]


def dashboard(data: FigureData) -> Figure:
    return single((6.0, 3.0), lambda ax: plot_dimension_dashboard(data.report, ax=ax))


def heatmap(data: FigureData) -> Figure:
    size = (6.0, 0.45 * len(data.agents) + 1.2)
    return single(size, lambda ax: plot_dimension_heatmap(data.report, ax=ax))


def radar(data: FigureData) -> Figure:
    fig = figure((4.6, 3.2))
    plot_dimension_radar(data.report, ax=fig.add_subplot(projection="polar"))
    return fig


def intervals(group: str) -> Callable[[FigureData], Figure]:
    """The interval figure of one :data:`INTERVAL_GROUPS` group."""
    metrics = INTERVAL_GROUPS[group]

    def draw(data: FigureData) -> Figure:
        size = (0.8 * len(metrics) + 1.6, 3.0)
        return single(size, lambda ax: plot_metric_intervals(data.report, metrics, ax=ax))

    return draw


def accuracy_vs_r(data: FigureData) -> Figure:
    return single((3.6, 3.3), lambda ax: plot_accuracy_vs_reliability(data.report, ax=ax))


def reliability_diagrams(data: FigureData) -> Figure:
    return per_agent(
        data.agents,
        data.reliability,
        plot_reliability_diagram,
        data.colors,
        title=lambda agent, curve: f"{agent} (ECE {curve.ece:.3f})",
    )


def accuracy_coverage(data: FigureData) -> Figure:
    return per_agent(data.agents, data.risk_coverage, plot_accuracy_coverage, data.colors)


def risk_coverage(data: FigureData) -> Figure:
    return per_agent(
        data.agents,
        data.risk_coverage,
        plot_risk_coverage,
        data.colors,
        title=lambda agent, curve: f"{agent} (AURC {curve.aurc:.3f})",
    )


def outcome_consistency(data: FigureData) -> Figure:
    return per_agent(data.agents, data.per_task, plot_consistency_vs_accuracy, data.colors)


def with_trajectories(data: FigureData) -> dict[str, pd.DataFrame]:
    """Per-task tables of the agents with a task whose C_traj_d and C_traj_s are defined."""
    return {
        a: t
        for a, t in data.per_task.items()
        if t[["C_traj_d", "C_traj_s"]].notna().all(axis=1).any()
    }


def trajectory_consistency(data: FigureData) -> Figure:
    tables = with_trajectories(data)
    return per_agent(data.agents, tables, plot_trajectory_consistency, data.colors)


def robustness_by_condition(data: FigureData) -> Figure:
    return single((4.6, 3.0), lambda ax: plot_robustness_by_condition(data.report, ax=ax))


def robustness_by_intensity(data: FigureData) -> Figure:
    """One panel per perturbation kind, as wide as its number of intensities; each agent's
    points dodged side by side so that the intervals do not hide each other."""
    table = data.robustness
    conditions = [c for c in PERTURBATION_CONDITIONS if c in set(table["condition"])]
    widths = [
        max(table.loc[table["condition"] == c, "intensity"].nunique(), 1) + 1.0 for c in conditions
    ]
    fig = figure((1.1 * sum(widths) + 0.8, 3.0))
    axes = np.atleast_1d(fig.subplots(1, len(conditions), sharey=True, width_ratios=widths))
    for ax, condition in zip(axes, conditions, strict=True):
        plot_robustness_by_intensity(
            table, condition, metric="robustness", ax=ax, colors=data.colors, dodge=True
        )
    share_legend(fig, list(axes), neutral=False, ncol=len(data.agents))
    share_labels(fig, list(axes), x=False)
    return fig


def safety(data: FigureData) -> Figure:
    """Per agent, on shared axes: every constraint any agent violated, in one order (most
    findings over all agents first), one x scale, one legend of severities."""
    counts = [data.violations[a] for a in data.agents]
    totals = pd.concat([c.sum(axis=1) for c in counts]).groupby(level=0).sum()
    order = sorted(totals.index, key=lambda c: (-int(totals[c]), str(c)))
    most = max(float(c.sum(axis=1).max()) if not c.empty else 0.0 for c in counts)
    fig, axes = agent_grid(data.agents, sharex=True, sharey=True)
    for ax, agent, table in zip(axes, data.agents, counts, strict=True):
        plot_safety_violations(table.reindex(order, fill_value=0), ax=ax)
        ax.set_title(agent)
    for ax in axes:  # after every panel is drawn: the shared scale fits the largest count
        ax.set_xlim(0, max(most, 1.0) * 1.08)
    share_legend(fig, axes, neutral=False, title="severity")
    share_labels(fig, axes, y=False)
    return fig


def outcome_grid(data: FigureData) -> Figure:
    base = baseline_runs(data.runs)
    agents = [a for a in data.agents if (base["agent"] == a).any()]
    tasks = sorted(map(str, base["task_id"].unique()))  # one column order for every agent
    fig = figure((7.0, 1.0 * len(agents) + 0.9))
    axes = list(np.atleast_1d(fig.subplots(len(agents), 1, sharex=True)))
    for ax, agent in zip(axes, agents, strict=True):
        plot_outcome_matrix(base.loc[base["agent"] == agent], ax=ax, tasks=tasks)
        ax.set_ylabel(f"{agent}\nrun")
        if ax is not axes[-1]:
            ax.set_xlabel("")
    share_legend(fig, axes, neutral=False)
    return fig


def histogram(data: FigureData) -> Figure:
    tasks = pd.concat([t.assign(agent=a) for a, t in data.per_task.items()], ignore_index=True)
    return single((4.4, 2.8), lambda ax: plot_success_rate_histogram(tasks, ax=ax))


def pass_hat_k(data: FigureData) -> Figure:
    def draw(ax: Axes) -> None:
        for agent, curve in data.pass_hat_k.items():
            color = data.colors[agent]
            plot_pass_hat_k(curve, ax=ax, label=agent, color=color, references=False)
            ax.plot(curve.k, curve.naive, ls=":", lw=1.0, color=color)
        agents = [
            Line2D([], [], marker="o", ms=4, color=data.colors[agent], label=agent)
            for agent in data.pass_hat_k
        ]
        styles = [  # what the line styles mean, for every agent: in grey
            Line2D([], [], marker="o", ms=4, color=NEUTRAL, label="pass$^{k}$, solid"),
            Line2D([], [], ls=":", lw=1.0, color=NEUTRAL, label="(pass$^{1}$)$^k$, dotted"),
        ]
        ax.legend(handles=[*agents, *styles], frameon=False, fontsize="small")

    return single((3.8, 3.0), draw)


def sessions(data: FigureData) -> Figure:
    agents = [a for a in data.agents if a in data.sessions]
    fig = figure((4.4, 2.2 * len(agents) + 0.4))
    axes = list(np.atleast_1d(fig.subplots(len(agents), 1)))
    for ax, agent in zip(axes, agents, strict=True):
        plot_session_risk(data.sessions[agent], ax=ax)
        ax.set_title(f"{agent}: riskiest session, {ax.get_title()}", fontsize="small")
    share_legend(fig, axes, neutral=False)
    share_labels(fig, axes)
    return fig


def paired_differences(data: FigureData) -> Figure:
    """One panel per candidate against the first agent, side by side; the metric labels are
    written once when every panel compares the same metrics."""
    comparisons = list(data.comparisons.items())
    rows = max(len(table) for _, table in comparisons)
    same = len({tuple(table.index) for _, table in comparisons}) == 1
    fig = figure((3.0 * len(comparisons) + 0.8, 0.2 * rows + 1.0))
    axes = np.atleast_1d(fig.subplots(1, len(comparisons), sharey=same))
    families = []
    for i, (ax, (candidate, table)) in enumerate(zip(axes, comparisons, strict=True)):
        plot_paired_differences(table, ax=ax, color=data.colors[candidate])
        families.append(ax.get_title(loc="left"))  # the Holm family, written once below
        ax.set_title("", loc="left")
        ax.set_title(f"{candidate} − {data.agents[0]}", fontsize="small")
        ax.set_xlabel(f"difference ({table.attrs.get('confidence_level', 0.95):.0%} interval)")
        if same and i:
            ax.tick_params(labelleft=False)
    if len(set(families)) == 1:
        fig.suptitle(families[0], fontsize="x-small")
    else:
        for ax, family in zip(axes, families, strict=True):
            ax.set_title(f"{ax.get_title()}\n{family}", fontsize="x-small")
    if len(axes) > 1:
        share_labels(fig, list(axes), y=False)
    return fig


def resource_spread(data: FigureData) -> Figure:
    base = baseline_runs(data.runs)
    agents = [a for a in data.agents if base.loc[base["agent"] == a, "num_actions"].notna().any()]
    fig = figure((7.0, 1.9 * len(agents) + 0.4))
    axes = list(np.atleast_1d(fig.subplots(len(agents), 1, sharex=False)))
    for ax, agent in zip(axes, agents, strict=True):
        runs = base.loc[base["agent"] == agent]
        plot_resource_spread(runs, "num_actions", ax=ax, color=data.colors[agent])
        ax.set_title(agent, fontsize="small")
    share_legend(fig, axes)
    share_labels(fig, axes, x=False)
    return fig
