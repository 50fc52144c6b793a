"""Predictability curves: reliability diagrams with bin counts, and accuracy–coverage and
risk–coverage curves beside the oracle and random orders."""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.axes import Axes

from reliability_lab.metrics import ReliabilityCurve, RiskCoverageCurve
from reliability_lab.plots.style import PALETTE, new_axes

__all__ = ["plot_accuracy_coverage", "plot_reliability_diagram", "plot_risk_coverage"]


def _check_curve(curve: Any, kind: type) -> None:
    if not isinstance(curve, kind):
        raise TypeError(f"curve: expected a {kind.__name__}, got {type(curve).__name__}")
    if len(getattr(curve, "coverage", getattr(curve, "count", ()))) == 0:
        raise ValueError("curve: no points to plot")


def plot_reliability_diagram(
    curve: ReliabilityCurve,
    *,
    ax: Axes | None = None,
    label: str | None = None,
    counts: bool = True,
    **kwargs: Any,
) -> Axes:
    """Accuracy per confidence bin as bars over the bin, beside the diagonal of perfect
    calibration; a marker at each bin's mean confidence and, at the foot of each bar, its run
    count.

    Parameters
    ----------
    curve : ReliabilityCurve
        From :func:`~reliability_lab.metrics.reliability_curve` (non-empty bins only).
    label : str, optional
        Legend text before the ECE.
    counts : bool
        Write each bin's number of runs at the foot of its bar.
    **kwargs
        Passed to ``Axes.bar`` and the marker line (e.g. ``color``).

    Returns
    -------
    Axes
        One ``BarContainer`` (heights: ``curve.accuracy``), a marker line (no connecting
        segments: bins without runs lie between) at (``mean_confidence``, ``accuracy``) and,
        with ``counts``, one text per bin giving ``curve.count``.
    """
    _check_curve(curve, ReliabilityCurve)
    ax = new_axes(ax)
    kwargs.setdefault("color", PALETTE[0])
    ax.plot([0, 1], [0, 1], ls="--", lw=0.8, color="0.5", label="perfect calibration")
    width = curve.bin_upper - curve.bin_lower
    text = f"{label + ' ' if label else ''}(ECE {curve.ece:.3f})"
    ax.bar(
        curve.bin_lower,
        curve.accuracy,
        width=width,
        align="edge",
        alpha=0.35,
        edgecolor=kwargs["color"],
        linewidth=0.6,
        label=text,
        **kwargs,
    )
    ax.plot(curve.mean_confidence, curve.accuracy, ls="", marker="o", ms=3, **kwargs)
    if counts:  # along the bottom of each bin, clear of the markers
        for x, n in zip(curve.bin_lower + width / 2, curve.count, strict=True):
            ax.text(x, 0.015, str(int(n)), ha="center", va="bottom", fontsize="xx-small")
    xlabel = "confidence (numbers: runs per bin)" if counts else "confidence"
    ax.set(xlim=(0, 1), ylim=(0, 1.05), xlabel=xlabel, ylabel="accuracy")
    ax.legend(loc="upper left", frameon=False, fontsize="small")
    return ax


def _coverage_plot(
    ax: Axes,
    curve: RiskCoverageCurve,
    values: np.ndarray,
    oracle: np.ndarray,
    random: float,
    ylabel: str,
    label: str,
    kwargs: dict[str, Any],
) -> Axes:
    kwargs.setdefault("color", PALETTE[0])
    ax.plot(curve.coverage, values, label=label, **kwargs)
    ax.plot(curve.coverage, oracle, ls=":", color="0.3", label="oracle order")
    ax.axhline(random, ls="--", lw=0.8, color="0.6", label="random order")
    ax.set(xlim=(0, 1), ylim=(0, 1.02), xlabel="coverage", ylabel=ylabel)
    ax.legend(frameon=False, fontsize="small")
    return ax


def plot_risk_coverage(
    curve: RiskCoverageCurve, *, ax: Axes | None = None, label: str | None = None, **kwargs: Any
) -> Axes:
    """Risk (error rate) among the most confident runs against coverage.

    Three lines, in order: the agent's ``curve.risk``, the oracle order's
    ``curve.ideal_risk`` (dotted) and a random order's expected risk ``curve.error_rate``
    (dashed, flat). ``curve`` is a :func:`~reliability_lab.metrics.risk_coverage_curve`.
    """
    _check_curve(curve, RiskCoverageCurve)
    text = label or f"agent (AURC {curve.aurc:.3f})"
    return _coverage_plot(
        new_axes(ax),
        curve,
        curve.risk,
        curve.ideal_risk,
        curve.error_rate,
        "risk (error rate)",
        text,
        kwargs,
    )


def plot_accuracy_coverage(
    curve: RiskCoverageCurve, *, ax: Axes | None = None, label: str | None = None, **kwargs: Any
) -> Axes:
    """Selective accuracy among the most confident runs against coverage.

    The accuracy view of :func:`plot_risk_coverage`: ``curve.accuracy``, the oracle's
    ``curve.ideal_accuracy`` (dotted) and a random order's ``1 − curve.error_rate`` (dashed).
    """
    _check_curve(curve, RiskCoverageCurve)
    return _coverage_plot(
        new_axes(ax),
        curve,
        curve.accuracy,
        curve.ideal_accuracy,
        1.0 - curve.error_rate,
        "accuracy of the runs kept",
        label or "agent",
        kwargs,
    )
