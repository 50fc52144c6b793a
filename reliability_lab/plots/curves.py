"""Reliability diagrams and risk–coverage curves."""

from __future__ import annotations

from typing import Any

from matplotlib.axes import Axes

from reliability_lab.metrics import ReliabilityCurve, RiskCoverageCurve
from reliability_lab.plots.style import PALETTE, new_axes

__all__ = ["plot_reliability_diagram", "plot_risk_coverage"]


def plot_reliability_diagram(
    curve: ReliabilityCurve, *, ax: Axes | None = None, label: str | None = None, **kwargs: Any
) -> Axes:
    """Accuracy against mean confidence per bin (marker area ∝ runs), with the diagonal."""
    ax = new_axes(ax)
    ax.plot([0, 1], [0, 1], ls="--", lw=0.8, color="0.5", label="perfect calibration")
    sizes = 15 + 150 * curve.count / max(int(curve.count.max()), 1)
    text = f"{label + ' ' if label else ''}(ECE {curve.ece:.3f})"
    kwargs.setdefault("color", PALETTE[0])
    ax.plot(curve.mean_confidence, curve.accuracy, lw=1.0, **kwargs)
    ax.scatter(curve.mean_confidence, curve.accuracy, s=sizes, label=text, zorder=3, **kwargs)
    ax.set(xlim=(0, 1), ylim=(0, 1), xlabel="confidence", ylabel="accuracy")
    ax.legend(loc="upper left", frameon=False)
    return ax


def plot_risk_coverage(
    curve: RiskCoverageCurve, *, ax: Axes | None = None, label: str | None = None, **kwargs: Any
) -> Axes:
    """Risk among the most confident runs against coverage, beside the oracle and random."""
    ax = new_axes(ax)
    kwargs.setdefault("color", PALETTE[0])
    ax.plot(curve.coverage, curve.risk, label=label or f"agent (AURC {curve.aurc:.3f})", **kwargs)
    ax.plot(curve.coverage, curve.ideal_risk, ls=":", color="0.3", label="oracle order")
    error_rate = float(curve.risk[-1])
    ax.axhline(error_rate, ls="--", lw=0.8, color="0.6", label="random order")
    ax.set(xlim=(0, 1), ylim=(0, 1), xlabel="coverage", ylabel="risk (error rate)")
    ax.legend(frameon=False)
    return ax
