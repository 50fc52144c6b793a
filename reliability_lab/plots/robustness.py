"""Robustness per perturbation kind (R_fault, R_struct, R_prompt with intervals) and against
intensity (accuracy or R per fault rate, structural preset, paraphrase strength)."""

from __future__ import annotations

from collections.abc import Mapping
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


#: Horizontal distance between neighbouring agents' points when dodged: a fraction of the
#: step between two named intensities, or of the fault-rate axis' span.
_DODGE = 0.08


def _dodge_offsets(agents: list[str], span: float) -> dict[str, float]:
    """Each agent's horizontal offset, centred on the true position."""
    n = len(agents)
    return {a: (i - (n - 1) / 2) * _DODGE * span / max(n - 1, 1) for i, a in enumerate(agents)}


def plot_robustness_by_intensity(
    table: pd.DataFrame,
    condition: str,
    *,
    metric: str = "accuracy",
    ax: Axes | None = None,
    legend: bool = True,
    colors: Mapping[str, str] | None = None,
    dodge: bool = False,
    **kwargs: Any,
) -> Axes:
    """One line per agent: ``metric`` at each intensity of ``condition``, with intervals.

    Parameters
    ----------
    table : DataFrame
        :func:`reliability_lab.report.robustness_by_intensity` output, or
        :func:`~reliability_lab.report.robustness_intervals_by_intensity` output whose
        ``robustness_lo``/``robustness_hi`` columns give each point its interval (drawn with
        ``metric="robustness"``).
    condition : str
        The condition to draw (``fault``, ``structural``, ``prompt``, ...).
    metric : {"accuracy", "robustness"}
        The y value. With ``accuracy`` each agent's baseline accuracy is drawn at the left
        (intensity "baseline", fault rate 0).
    ax : Axes, optional
        Where to draw.
    legend : bool
        Draw the legend of agents (off for all but one panel of a row).
    colors : mapping, optional
        Agent → colour (default: :func:`~reliability_lab.plots.agent_colors` in the table's
        order of agents).
    dodge : bool
        Shift each agent's points sideways (by at most a tenth of the spacing between
        intensities) so that overlapping intervals stay apart; the x ticks stay at the true
        intensities.

    Returns
    -------
    Axes
        Fault rates are placed on a numeric x axis; named intensities at 0, 1, … in the
        table's order (``robustness_by_intensity`` sorts them naturally: mild, medium, strong,
        severe, naturalistic), ticks labelled with their names.
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
    agents = list(dict.fromkeys(table["agent"].astype(str)))
    colors = dict(colors) if colors is not None else agent_colors(agents)
    names = (["baseline"] if metric == "accuracy" and not numeric else []) + intensities
    rates = rows["fault_rate"].to_numpy(dtype=float)
    span = (float(np.nanmax(rates)) if numeric else 1.0) if len(rates) else 1.0
    offsets = _dodge_offsets(agents, span) if dodge else dict.fromkeys(agents, 0.0)
    for agent, group in rows.groupby("agent", sort=False):
        _intensity_line(ax, group, str(agent), metric, numeric, names, colors, offsets, kwargs)
    if not numeric:
        ax.set_xticks(np.arange(len(names)), names)
        ax.set_xlim(-0.6, len(names) - 0.4)
    ylabel = "robustness (perturbed / baseline accuracy)" if metric == "robustness" else metric
    ax.set(
        ylim=(0, 1.05),
        xlabel="fault rate" if numeric else f"{condition} intensity",
        ylabel=ylabel,
        title=condition,
    )
    if legend:
        ax.legend(frameon=False, fontsize="small")
    return ax


def _intensity_line(
    ax: Axes,
    group: pd.DataFrame,
    agent: str,
    metric: str,
    numeric: bool,
    names: list[str],
    colors: Mapping[str, str],
    offsets: Mapping[str, float],
    kwargs: dict[str, Any],
) -> None:
    """One agent's points (and intervals) of one condition."""
    by = group.set_index("intensity")
    present = [n for n in names if n in by.index]
    y = by.loc[present, metric].to_numpy(dtype=float)
    if numeric:
        x = by.loc[present, "fault_rate"].to_numpy(dtype=float)
    else:
        x = np.array([names.index(n) for n in present], dtype=float)
    if metric == "accuracy":
        x = np.concatenate([[0.0], x])
        y = np.concatenate([[float(group["baseline_accuracy"].iloc[0])], y])
    x = x + offsets[agent]
    color = colors[agent]
    ax.plot(x, y, marker="o", ms=4, color=color, label=agent, **kwargs)
    if metric == "robustness" and f"{metric}_lo" in by.columns:
        lo = by.loc[present, f"{metric}_lo"].to_numpy(dtype=float)
        hi = by.loc[present, f"{metric}_hi"].to_numpy(dtype=float)
        ax.errorbar(
            x,
            y,
            yerr=np.nan_to_num(np.vstack([y - lo, hi - y]), nan=0.0),
            fmt="none",
            ecolor=color,
            elinewidth=0.9,
            capsize=2,
        )
