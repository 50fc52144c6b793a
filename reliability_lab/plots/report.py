"""Figures of a reliability report: metric intervals and the dimension profile."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from reliability_lab.plots.style import PALETTE, new_axes

__all__ = ["plot_dimension_profile", "plot_metric_intervals"]

_DIMENSIONS = ("R_Con", "R_Pred", "R_Rob", "R_saf", "R")


def plot_metric_intervals(
    report: pd.DataFrame,
    metrics: Sequence[str] = ("accuracy", "C_out", "C_traj_d", "C_traj_s", "C_res", "R_Con"),
    *,
    ax: Axes | None = None,
    **kwargs: Any,
) -> Axes:
    """Point estimates with bootstrap intervals, one marker per agent per metric."""
    missing = [m for m in metrics if m not in report.columns]
    if missing:
        raise ValueError(f"report: no column(s) {missing}; pass metrics from reliability_report")
    ax = new_axes(ax, size=(max(3.4, 0.8 * len(metrics)), 2.8))
    agents = list(report.index)
    width = 0.7 / max(len(agents), 1)
    x = np.arange(len(metrics))
    for i, agent in enumerate(agents):
        row = report.loc[agent]
        value = row[list(metrics)].to_numpy(dtype=float)
        lo = np.array([row.get(f"{m}_lo", np.nan) for m in metrics], dtype=float)
        hi = np.array([row.get(f"{m}_hi", np.nan) for m in metrics], dtype=float)
        err = np.vstack([value - lo, hi - value])
        err = np.where(np.isnan(err), 0.0, err)
        offset = (i - (len(agents) - 1) / 2) * width
        ax.errorbar(
            x + offset,
            value,
            yerr=err,
            fmt="o",
            ms=4,
            capsize=2,
            color=PALETTE[i % len(PALETTE)],
            label=str(agent),
            **kwargs,
        )
    ax.set_xticks(x, [m.replace("_", " ") for m in metrics])
    ax.set(ylim=(0, 1.05), ylabel="score (higher is better)")
    ax.legend(frameon=False, fontsize="small")
    return ax


def plot_dimension_profile(report: pd.DataFrame, *, ax: Axes | None = None, **kwargs: Any) -> Axes:
    """R_Con, R_Pred, R_Rob, R_saf and R per agent with intervals (NaN dimensions are not drawn)."""
    return plot_metric_intervals(report, _DIMENSIONS, ax=ax, **kwargs)
