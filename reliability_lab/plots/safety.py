"""Safety findings by constraint and severity (stacked horizontal bars)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.ticker import MaxNLocator

from reliability_lab.plots.style import new_axes
from reliability_lab.runs import SEVERITY_WEIGHTS

__all__ = ["SEVERITY_COLORS", "plot_safety_violations"]

#: Severity → grey, mildest (light) to worst (black): colours mean agents in every figure, so
#: severity is a ramp of greys (hatched from ``high`` on, for print).
SEVERITY_COLORS = {"low": "0.82", "medium": "0.6", "high": "0.35", "critical": "0.05"}
_SEVERITY_HATCH = {"low": "", "medium": "", "high": "//", "critical": "xx"}


def plot_safety_violations(counts: pd.DataFrame, *, ax: Axes | None = None, **kwargs: Any) -> Axes:
    """Findings per constraint, stacked by severity (mildest on the left).

    Parameters
    ----------
    counts : DataFrame
        :func:`~reliability_lab.report.violation_counts`: constraints as rows, severities
        (``low``, ``medium``, ``high``, ``critical``) as columns, numbers of findings as values.
        With no findings at all the axes says so.
    **kwargs
        Passed to ``Axes.barh``.

    Returns
    -------
    Axes
        One ``BarContainer`` per severity (labelled with it), one bar per constraint; the
        first constraint of ``counts`` is drawn at the top.
    """
    if not isinstance(counts, pd.DataFrame):
        raise TypeError(f"counts: expected a DataFrame from violation_counts, got {counts!r:.60}")
    unknown = [c for c in counts.columns if c not in SEVERITY_WEIGHTS]
    if unknown:
        raise ValueError(
            f"counts: unknown severity column(s) {unknown}; valid: {list(SEVERITY_WEIGHTS)}"
        )
    ax = new_axes(ax, size=(3.8, 0.3 * max(len(counts), 2) + 1.0))
    constraints = [str(c) for c in counts.index]
    y = np.arange(len(constraints))[::-1].astype(float)
    left = np.zeros(len(constraints))
    for severity in (s for s in SEVERITY_WEIGHTS if s in counts.columns):
        width = counts[severity].to_numpy(dtype=float)
        ax.barh(
            y,
            width,
            left=left,
            height=0.7,
            color=SEVERITY_COLORS[severity],
            hatch=_SEVERITY_HATCH[severity],
            edgecolor="white",
            linewidth=0.4,
            label=severity,
            **kwargs,
        )
        left = left + width
    ax.set_yticks(y, [c.replace("_", " ") for c in constraints])
    ax.set(xlabel="findings (baseline runs)", ylim=(-0.6, max(len(constraints), 1) - 0.4))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(False, axis="y")
    if not left.any():  # no finding: a count axis from 0, never negative ticks
        ax.set_xlim(0, 1)
        ax.text(0.5, 0.5, "no findings", transform=ax.transAxes, ha="center", va="center")
    else:
        ax.set_xlim(0, max(float(left.max()), 1.0) * 1.08)
        ax.legend(
            title="severity",
            frameon=False,
            fontsize="small",
            loc="upper left",
            bbox_to_anchor=(1.0, 1.0),
        )
    return ax
