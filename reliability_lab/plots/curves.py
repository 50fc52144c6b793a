"""Predictability curves: reliability diagrams with bin counts, and accuracy–coverage and
risk–coverage curves beside the oracle and random orders."""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.axes import Axes

from reliability_lab.metrics import ReliabilityCurve, RiskCoverageCurve
from reliability_lab.plots.style import PALETTE, new_axes

__all__ = [
    "COUNT_FONT_SIZE",
    "plot_accuracy_coverage",
    "plot_reliability_diagram",
    "plot_risk_coverage",
]


def _check_curve(curve: Any, kind: type) -> None:
    if not isinstance(curve, kind):
        raise TypeError(f"curve: expected a {kind.__name__}, got {type(curve).__name__}")
    if len(getattr(curve, "coverage", getattr(curve, "count", ()))) == 0:
        raise ValueError("curve: no points to plot")


#: Font size (points) of the bin counts: legible when printed at a panel's size.
COUNT_FONT_SIZE = 7.0
#: Height of each row of the bin counts' strip (points), which starts at accuracy
#: :data:`_COUNT_Y` (above the largest accuracy, 1, and its marker).
_COUNT_ROW, _COUNT_Y = COUNT_FONT_SIZE + 2.5, 1.03
#: Width of a digit as a fraction of the font size (DejaVu Sans digits: 0.636 em), and the
#: share of the axes' current width assumed left after a constrained layout shrinks it.
_DIGIT_EM, _LAYOUT_SHARE = 0.64, 0.8


def _size_in(ax: Axes) -> tuple[float, float]:
    """The axes' width and height in inches once a layout has made room for its labels
    (:data:`_LAYOUT_SHARE` of its current size, at least half an inch)."""
    box = ax.get_window_extent()
    dpi = ax.figure.dpi
    return (
        max(box.width / dpi * _LAYOUT_SHARE, 0.5),
        max(box.height / dpi * _LAYOUT_SHARE, 0.5),
    )


def _count_rows(ax: Axes, centres: np.ndarray, labels: list[str]) -> list[int]:
    """Row of each bin count: the lowest row in which it clears the count before it (widths
    estimated from the font size and the axes' width), so counts never overlap however
    narrow the bins."""
    width_in = _size_in(ax)[0]
    digit = COUNT_FONT_SIZE * _DIGIT_EM / 72 / width_in  # axes fraction per digit
    ends: list[float] = []  # right end of the last count of each row
    rows = []
    for centre, label in zip(centres, labels, strict=True):
        half = (len(label) + 0.8) * digit / 2  # with a gap of 0.8 digit
        row = next((r for r, end in enumerate(ends) if centre - half > end), len(ends))
        if row == len(ends):
            ends.append(0.0)
        ends[row] = centre + half
        rows.append(row)
    return rows


def _write_counts(ax: Axes, curve: ReliabilityCurve, centres: np.ndarray) -> float:
    """Each bin's number of runs over its bin, in a strip above accuracy 1 (clear of bars
    and markers), rows stacked in points; returns the top of the y axis that holds them."""
    labels = [str(int(n)) for n in curve.count]
    rows = _count_rows(ax, centres, labels)
    for x, text, row in zip(centres, labels, rows, strict=True):
        ax.annotate(
            text,
            (x, _COUNT_Y),
            xytext=(0.0, _COUNT_ROW * row),
            textcoords="offset points",
            ha="center",
            va="bottom",
            fontsize=COUNT_FONT_SIZE,
            color="0.15",
            label="_bin-count",
        )
    # the strip's height in points, as a share of the axes' height: top solves
    # top = _COUNT_Y + share * top
    share = (_COUNT_ROW * (max(rows, default=0) + 1) + 2.0) / (_size_in(ax)[1] * 72)
    return _COUNT_Y / max(1.0 - share, 0.3)


def plot_reliability_diagram(
    curve: ReliabilityCurve,
    *,
    ax: Axes | None = None,
    label: str | None = None,
    counts: bool = True,
    **kwargs: Any,
) -> Axes:
    """Accuracy per confidence bin as bars over the bin, beside the diagonal of perfect
    calibration; a marker at each bin's mean confidence and, over each bin above accuracy 1,
    its run count.

    Parameters
    ----------
    curve : ReliabilityCurve
        From :func:`~reliability_lab.metrics.reliability_curve` (non-empty bins only).
    label : str, optional
        Written before the ECE in the legend's title.
    counts : bool
        Write each bin's number of runs over its bin, in a strip above accuracy 1 (font size
        :data:`COUNT_FONT_SIZE`; a count that would touch its neighbour moves up a row).
    **kwargs
        Passed to ``Axes.bar`` and the marker line (e.g. ``color``).

    Returns
    -------
    Axes
        One ``BarContainer`` (heights: ``curve.accuracy``), a marker line (no connecting
        segments: bins without runs lie between) at (``mean_confidence``, ``accuracy``) and,
        with ``counts``, one text per bin giving ``curve.count`` (labelled ``"_bin-count"``).
        The legend says what each mark is; its title gives the ECE.
    """
    _check_curve(curve, ReliabilityCurve)
    ax = new_axes(ax)
    kwargs.setdefault("color", PALETTE[0])
    ax.plot([0, 1], [0, 1], ls="--", lw=0.8, color="0.5", label="perfect calibration")
    width = curve.bin_upper - curve.bin_lower
    ax.bar(
        curve.bin_lower,
        curve.accuracy,
        width=width,
        align="edge",
        alpha=0.35,
        edgecolor=kwargs["color"],
        linewidth=0.6,
        label="bar: accuracy of the bin's runs",
        **kwargs,
    )
    ax.plot(
        curve.mean_confidence,
        curve.accuracy,
        ls="",
        marker="o",
        ms=3,
        label="dot: at the bin's mean confidence",
        **kwargs,
    )
    top = 1.05
    if counts:
        top = _write_counts(ax, curve, curve.bin_lower + width / 2)
        ax.plot([], [], ls="", marker="$n$", ms=5, color="0.15", label="n: runs in the bin")
    ax.set(xlim=(0, 1), ylim=(0, top), xlabel="confidence", ylabel="accuracy")
    ax.set_yticks(np.linspace(0.0, 1.0, 6))
    title = f"{label + ': ' if label else ''}ECE {curve.ece:.3f}"
    below_counts = (0.0, 1.0 / top)  # the legend's top left corner at accuracy 1
    ax.legend(
        loc="upper left",
        bbox_to_anchor=below_counts,
        frameon=False,
        fontsize="x-small",
        title=title,
    )
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
    title: str | None = None,
) -> Axes:
    kwargs.setdefault("color", PALETTE[0])
    ax.plot(curve.coverage, values, label=label, **kwargs)
    ax.plot(curve.coverage, oracle, ls=":", color="0.3", label="oracle order")
    ax.axhline(random, ls="--", lw=0.8, color="0.6", label="random order")
    ax.set(xlim=(0, 1), ylim=(0, 1.02), xlabel="coverage", ylabel=ylabel)
    ax.legend(frameon=False, fontsize="small", title=title, title_fontsize="small")
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
    return _coverage_plot(
        new_axes(ax),
        curve,
        curve.risk,
        curve.ideal_risk,
        curve.error_rate,
        "risk (error rate)",
        label or "agent's confidence order",
        kwargs,
        title=f"AURC {curve.aurc:.3f}",
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
        label or "agent's confidence order",
        kwargs,
    )
