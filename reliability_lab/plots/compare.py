"""Paired differences between two agents: :func:`~reliability_lab.compare_agents` drawn as a
forest plot (docs/statistics.md, "Comparing agents")."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from reliability_lab.plots._checks import require_columns
from reliability_lab.plots.style import PALETTE, metric_label, new_axes

__all__ = ["plot_paired_differences"]

_COLUMNS = ("difference", "difference_lo", "difference_hi", "p_adjusted")


def _family_text(attrs: Mapping[Any, Any]) -> str:
    family = attrs.get("family")
    if not family:
        return "Holm family not recorded"
    return textwrap.fill(f"Holm over {len(family)} metrics: {', '.join(map(str, family))}", 60)


def plot_paired_differences(
    comparison: pd.DataFrame,
    *,
    ax: Axes | None = None,
    metrics: Sequence[str] | None = None,
    alpha: float = 0.05,
    annotate: bool = True,
    **kwargs: Any,
) -> Axes:
    """Candidate − baseline per metric, with its paired bootstrap interval.

    One row per metric (top to bottom in the table's order): a marker at ``difference``, a
    horizontal bar from ``difference_lo`` to ``difference_hi`` and a dotted line at 0 (no
    difference). A filled marker means the drawn interval excludes 0, an open one that it
    contains 0, so a marker always agrees with its bar. With ``annotate`` the Holm-adjusted
    p-value is written at the right of each row, in bold when it is below ``alpha``, and the
    title names the family Holm was applied to (``attrs["family"]``). An undefined
    difference is marked "n/a".

    Parameters
    ----------
    comparison : DataFrame
        :func:`~reliability_lab.compare_agents` output (indexed by metric); the agents in its
        ``attrs`` name the x axis.
    ax : Axes, optional
        Where to draw.
    metrics : sequence of str, optional
        Rows to draw, in this order; default every row of ``comparison``.
    alpha : float
        Level at which a Holm-adjusted p-value counts as significant (bold).
    annotate : bool
        Write ``p_adjusted`` beside each row and the Holm family above the plot.
    **kwargs
        Passed to ``Axes.errorbar`` (the interval bars).

    Returns
    -------
    Axes
        One ``errorbar`` container (bars only, y = 0, 1, … from the top row down) and one
        scatter collection of the markers at the differences (face colour white where the
        interval contains 0); y tick labels are the metric symbols.
    """
    require_columns(comparison, _COLUMNS, name="comparison")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    rows = list(comparison.index) if metrics is None else list(metrics)
    unknown = [m for m in rows if m not in comparison.index]
    if unknown:
        raise ValueError(
            f"metrics: {unknown} not compared; the comparison has {list(comparison.index)}"
        )
    if not rows:
        raise ValueError("metrics: no metric to draw")
    table = comparison.loc[rows]
    diff, lo, hi = (table[c].to_numpy(dtype=float) for c in _COLUMNS[:3])
    p_adj = table["p_adjusted"].to_numpy(dtype=float)
    y = np.arange(len(rows), dtype=float)
    ax = new_axes(ax, size=(3.8, 0.24 * len(rows) + 1.0))
    color = kwargs.pop("color", PALETTE[0])
    ok = ~np.isnan(diff)
    xerr = np.nan_to_num(np.vstack([diff - lo, hi - diff]), nan=0.0)[:, ok]
    ax.errorbar(diff[ok], y[ok], xerr=xerr, fmt="none", ecolor=color, capsize=2, **kwargs)
    excludes_zero = (lo[ok] > 0) | (hi[ok] < 0)
    faces = np.where(excludes_zero, color, "white")
    ax.scatter(diff[ok], y[ok], s=22, facecolors=faces, edgecolors=color, zorder=3)
    ax.axvline(0.0, ls=":", lw=0.9, color="0.4")
    for yi in y[~ok]:
        ax.text(0.0, yi, "n/a", ha="center", va="center", fontsize="x-small", color=color)
    ax.set_yticks(y, [metric_label(str(m)) for m in rows])
    ax.set_ylim(len(rows) - 0.5, -0.5)  # the first metric on top
    ax.grid(False, axis="y")
    if annotate:
        transform = ax.get_yaxis_transform()
        for yi, p in zip(y, p_adj, strict=True):
            text = "" if np.isnan(p) else f"{p:.3f}" if p >= 0.001 else "<0.001"
            weight = "bold" if p < alpha else "normal"
            ax.text(
                1.02, yi, text, transform=transform, va="center", fontsize="x-small",
                fontweight=weight,
            )  # fmt: skip
        ax.text(1.02, 1.0, "$p_{\\mathrm{Holm}}$", transform=ax.transAxes, fontsize="x-small")
        ax.set_title(_family_text(comparison.attrs), fontsize="x-small", loc="left")
    attrs = comparison.attrs
    who = (
        f"{attrs['candidate']} − {attrs['baseline']}"
        if "candidate" in attrs and "baseline" in attrs
        else "candidate − baseline"
    )
    level = attrs.get("confidence_level", 0.95)
    ax.set_xlabel(f"difference {who} ({level:.0%} paired interval)")
    return ax
