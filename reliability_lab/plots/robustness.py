"""Robustness against perturbation intensity: accuracy or R per fault rate, preset, strength."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from reliability_lab.plots.style import PALETTE, new_axes

__all__ = ["plot_robustness_by_intensity"]


def plot_robustness_by_intensity(
    table: pd.DataFrame,
    condition: str,
    *,
    metric: str = "accuracy",
    ax: Axes | None = None,
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
    for i, (agent, group) in enumerate(rows.groupby("agent", sort=False)):
        by = group.set_index("intensity")
        names = [n for n in intensities if n in by.index]
        y = by.loc[names, metric].to_numpy(dtype=float)
        x: Any = by.loc[names, "fault_rate"].to_numpy(dtype=float) if numeric else names
        if metric == "accuracy":
            base = float(group["baseline_accuracy"].iloc[0])
            x = np.concatenate([[0.0], x]) if numeric else ["baseline", *names]
            y = np.concatenate([[base], y])
        color = PALETTE[i % len(PALETTE)]
        ax.plot(x, y, marker="o", ms=4, color=color, label=str(agent), **kwargs)
    ax.set(
        ylim=(0, 1.05),
        xlabel="fault rate" if numeric else f"{condition} intensity",
        ylabel=metric,
        title=condition,
    )
    ax.legend(frameon=False, fontsize="small")
    return ax
