"""Robustness per perturbation kind (R_fault, R_struct, R_prompt with intervals) and against
intensity (accuracy or R per fault rate, structural preset, paraphrase strength)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from reliability_lab.plots.report import plot_metric_bars
from reliability_lab.plots.style import agent_colors, new_axes
from reliability_lab.runs import PERTURBATION_CONDITIONS

__all__ = ["plot_robustness_by_condition", "plot_robustness_by_intensity"]


def plot_robustness_by_condition(
    report: pd.DataFrame, *, ax: Axes | None = None, **kwargs: Any
) -> Axes:
    """R_fault, R_struct and R_prompt per agent as bars with their bootstrap intervals.

    ``report`` is :func:`~reliability_lab.reliability_report` output; this is
    :func:`~reliability_lab.plots.plot_metric_bars` on the robustness metrics, so an agent
    without runs of a condition shows "n/a" there.
    """
    ax = plot_metric_bars(report, tuple(PERTURBATION_CONDITIONS.values()), ax=ax, **kwargs)
    ax.set_ylabel("accuracy kept (perturbed / baseline)")
    return ax


def plot_robustness_by_intensity(
    table: pd.DataFrame,
    condition: str,
    *,
    metric: str = "accuracy",
    ax: Axes | None = None,
    legend: bool = True,
    **kwargs: Any,
) -> Axes:
    """One line per agent: ``metric`` at each intensity of ``condition``.

    Parameters
    ----------
    table : DataFrame
        :func:`reliability_lab.report.robustness_by_intensity` output.
    condition : str
        The condition to draw (``fault``, ``structural``, ``prompt``, ...).
    metric : {"accuracy", "robustness"}
        The y value. With ``accuracy`` each agent's baseline accuracy is drawn at the left
        (intensity "baseline", fault rate 0).
    ax : Axes, optional
        Where to draw.
        With ``robustness`` and the ``robustness_lo``/``robustness_hi`` columns of
        :func:`~reliability_lab.report.robustness_intervals_by_intensity`, each point gets its
        interval.
    legend : bool
        Draw the legend of agents (off for all but one panel of a row).

    Returns
    -------
    Axes
        Fault rates are placed on a numeric x axis; named intensities in the table's order
        (``robustness_by_intensity`` sorts them naturally: mild, medium, strong, severe,
        naturalistic).
    """
    if metric not in ("accuracy", "robustness"):
        raise ValueError(f"metric must be 'accuracy' or 'robustness', got {metric!r}")
    rows = table.loc[table["condition"] == condition]
    if rows.empty:
        known = sorted(set(table["condition"]))
        raise ValueError(f"table: no rows for condition {condition!r}; present: {known}")
    ax = new_axes(ax, size=(3.6, 2.8))
    intensities = list(dict.fromkeys(rows["intensity"]))
    numeric = not rows["fault_rate"].isna().any()
    colors = agent_colors(dict.fromkeys(table["agent"].astype(str)))
    for agent, group in rows.groupby("agent", sort=False):
        by = group.set_index("intensity")
        names = [n for n in intensities if n in by.index]
        y = by.loc[names, metric].to_numpy(dtype=float)
        x: Any = by.loc[names, "fault_rate"].to_numpy(dtype=float) if numeric else names
        if metric == "accuracy":
            base = float(group["baseline_accuracy"].iloc[0])
            x = np.concatenate([[0.0], x]) if numeric else ["baseline", *names]
            y = np.concatenate([[base], y])
        line = ax.plot(x, y, marker="o", ms=4, color=colors[str(agent)], label=str(agent), **kwargs)
        if metric == "robustness" and f"{metric}_lo" in by.columns:
            lo = by.loc[names, f"{metric}_lo"].to_numpy(dtype=float)
            hi = by.loc[names, f"{metric}_hi"].to_numpy(dtype=float)
            ax.errorbar(
                x,
                y,
                yerr=[y - lo, hi - y],
                fmt="none",
                ecolor=line[0].get_color(),
                elinewidth=0.8,
                capsize=2,
                alpha=0.8,
            )
    ax.set(
        ylim=(0, 1.05),
        xlabel="fault rate" if numeric else f"{condition} intensity",
        ylabel=metric,
        title=condition,
    )
    if legend:
        ax.legend(frameon=False, fontsize="small")
    return ax
