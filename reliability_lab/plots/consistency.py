"""Per-task consistency: outcome consistency against success rate, trajectory similarity and
resource spread. Inputs are :func:`~reliability_lab.metrics.per_task_consistency` tables (or a
run table for the raw resource values)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from reliability_lab.metrics import per_task_consistency
from reliability_lab.plots._checks import require_columns, require_single
from reliability_lab.plots.style import NEUTRAL, PALETTE, metric_label, new_axes

__all__ = ["plot_consistency_vs_accuracy", "plot_resource_spread", "plot_trajectory_consistency"]

_REFERENCE_RUNS = 100  # runs per synthetic task of the reference curve: p = 0, 0.01, …, 1


def _outcome_reference(variant: str) -> pd.DataFrame:
    """C_out,t of tasks with success rate c/100 for c = 0..100, from the metric itself."""
    n = _REFERENCE_RUNS
    success = np.concatenate([np.arange(n) < c for c in range(n + 1)])
    task = np.repeat(np.arange(n + 1), n)
    return per_task_consistency(success, task, outcome_variant=variant)


def _point_counts(x: pd.Series, y: pd.Series) -> pd.DataFrame:
    """Distinct (x, y) points with how many tasks sit on each (identical points overlap)."""
    points = pd.DataFrame({"x": x.to_numpy(dtype=float), "y": y.to_numpy(dtype=float)})
    return points.dropna().value_counts().rename("n").reset_index()


def _scatter_counts(ax: Axes, points: pd.DataFrame, label: str | None, **kwargs: Any) -> None:
    """One marker per distinct point, area growing with the number of tasks on it."""
    kwargs.setdefault("color", PALETTE[0])
    sizes = 12 + 18 * points["n"].to_numpy()
    text = f"{label}: " if label else ""
    ax.scatter(
        points["x"],
        points["y"],
        s=sizes,
        alpha=0.8,
        label=f"{text}tasks (the number: how many)",
        **kwargs,
    )


def _tasks_legend(ax: Axes, points: pd.DataFrame, loc: Any) -> None:
    """The legend, titled with the number of tasks drawn."""
    title = f"{int(points['n'].sum())} tasks"
    ax.legend(frameon=False, fontsize="small", loc=loc, title=title, title_fontsize="small")


def plot_consistency_vs_accuracy(
    tasks: pd.DataFrame,
    *,
    ax: Axes | None = None,
    label: str | None = None,
    variant: str | None = "corrected",
    **kwargs: Any,
) -> Axes:
    """Per-task outcome consistency C_out,t against the task's success rate p̂_t.

    One marker per distinct (p̂_t, C_out,t), its area proportional to (and its annotation
    giving) the number of tasks there. With ``variant`` set, the grey curve is C_out,t of
    that variant as a function of p̂, computed by
    :func:`~reliability_lab.metrics.per_task_consistency` on synthetic 100-run tasks (for
    ``"corrected"`` the parabola (2p̂ − 1)²); ``None`` omits it.
    ``tasks`` is a :func:`~reliability_lab.metrics.per_task_consistency` table.
    """
    require_columns(tasks, ("success_rate", "C_out"), name="tasks")
    points = _point_counts(tasks["success_rate"], tasks["C_out"])
    if points.empty:
        raise ValueError("tasks: C_out is NaN for every task (each needs 2 or more runs)")
    ax = new_axes(ax)
    if variant is not None:
        ref = _outcome_reference(variant)
        reference = f"{metric_label('C_out', index='t')} ({variant})"
        ax.plot(ref["success_rate"], ref["C_out"], color="0.6", lw=1.0, label=reference)
    _scatter_counts(ax, points, label, **kwargs)
    for x, y, n in points[["x", "y", "n"]].itertuples(index=False):
        ax.annotate(str(n), (x, y), xytext=(5, 3), textcoords="offset points", fontsize="x-small")
    ax.set(xlim=(-0.04, 1.04), ylim=(-0.04, 1.1))
    ax.set(
        xlabel="task success rate $\\hat{p}_t$",
        ylabel=f"outcome consistency {metric_label('C_out', index='t')}",
    )
    _tasks_legend(ax, points, "upper center")
    return ax


def plot_trajectory_consistency(
    tasks: pd.DataFrame, *, ax: Axes | None = None, label: str | None = None, **kwargs: Any
) -> Axes:
    """Per task, C_traj_s,t (same order of actions) against C_traj_d,t (same mix of actions).

    Points below the diagonal are tasks whose successful runs use the same tools in a
    different order. Tasks where either term is undefined (fewer than two successful runs
    with actions) are left out; the legend gives the number drawn. ``tasks`` is a
    :func:`~reliability_lab.metrics.per_task_consistency` table computed with ``actions``.
    """
    try:
        require_columns(tasks, ("C_traj_d", "C_traj_s"), name="tasks")
    except ValueError as exc:
        raise ValueError(f"{exc} (pass actions= to per_task_consistency)") from None
    points = _point_counts(tasks["C_traj_d"], tasks["C_traj_s"])
    if points.empty:
        raise ValueError(
            "tasks: C_traj_d/C_traj_s are NaN for every task "
            "(each needs 2 or more successful runs with actions)"
        )
    ax = new_axes(ax)
    ax.plot([0, 1], [0, 1], ls="--", lw=0.8, color="0.6")
    _scatter_counts(ax, points, label, **kwargs)
    ax.set(xlim=(-0.04, 1.04), ylim=(-0.04, 1.06))
    ax.set(
        xlabel=f"distribution {metric_label('C_traj_d', index='t')}",
        ylabel=f"sequence {metric_label('C_traj_s', index='t')}",
    )
    _tasks_legend(ax, points, "upper left")
    return ax


def plot_resource_spread(
    runs: pd.DataFrame, resource: str = "num_actions", *, ax: Axes | None = None, **kwargs: Any
) -> Axes:
    """Every run's ``resource`` value per task: successes as dots, failures as crosses, in
    one colour (``color``: the agent's).

    Tasks are ordered by their median value; a vertical spread within a column is what
    resource consistency C_res penalises. ``runs`` is a run table of one agent and one
    condition; runs where the resource was not recorded (NaN) are left out.
    """
    require_columns(runs, ("task_id", "success", resource))
    require_single(runs, "agent")
    require_single(runs, "condition")
    values = pd.to_numeric(runs[resource], errors="coerce")
    if values.isna().all():
        raise ValueError(f"runs: column {resource!r} has no recorded (numeric) value")
    data = pd.DataFrame(
        {"task": runs["task_id"].to_numpy(), "value": values, "success": runs["success"]}
    ).dropna(subset=["value"])
    order = data.groupby("task")["value"].median().sort_values(kind="stable").index
    position = {task: i for i, task in enumerate(order)}
    x = data["task"].map(position).to_numpy(dtype=float)
    ax = new_axes(ax, size=(min(7.0, max(3.4, 0.12 * len(order) + 1.0)), 2.6))
    kwargs.setdefault("alpha", 0.7)
    colour = kwargs.pop("color", PALETTE[0])
    ok = data["success"].to_numpy(dtype=bool)
    y = data["value"].to_numpy()
    for mask, marker in ((ok, "o"), (~ok, "x")):
        ax.scatter(x[mask], y[mask], s=14, color=colour, marker=marker, **kwargs)
    ax.set_xticks([] if len(order) > 30 else np.arange(len(order)))
    if len(order) <= 30:
        ax.set_xticklabels([str(t) for t in order], rotation=90)
    ax.set(xlabel=f"task ({len(order)}, by median {resource})", ylabel=resource)
    if np.array_equal(y, np.round(y)):  # counts (actions, calls): whole-number ticks
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    handles = [  # the shape tells the outcome; the colour is the agent's
        Line2D([], [], ls="", marker="o", color=NEUTRAL, label="success"),
        Line2D([], [], ls="", marker="x", color=NEUTRAL, label="failure"),
    ]
    ax.legend(
        handles=handles, frameon=False, fontsize="small", loc="upper left", bbox_to_anchor=(1, 1)
    )
    return ax
