"""Figures of a reliability report (:func:`~reliability_lab.reliability_report`): metric
intervals, bars, the dimension dashboard, heatmap and radar chart, and accuracy against R.

Every value drawn is a report cell: ``<metric>`` for the point, ``<metric>_lo`` and
``<metric>_hi`` for its bootstrap interval. An undefined metric (NaN) is never drawn as a
value; it is marked "n/a" where its marker or bar would be.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from reliability_lab.metrics.registry import METRIC_REGISTRY
from reliability_lab.plots.style import agent_colors, metric_label, new_axes

__all__ = [
    "DASHBOARD_GROUPS",
    "DASHBOARD_METRICS",
    "HEATMAP_METRICS",
    "INTERVAL_GROUPS",
    "heatmap_label",
    "plot_accuracy_vs_reliability",
    "plot_dimension_dashboard",
    "plot_dimension_heatmap",
    "plot_dimension_radar",
    "plot_metric_bars",
    "plot_metric_intervals",
]

#: The four dimensions (consistency, predictability, robustness, safety).
DASHBOARD_METRICS = ("R_Con", "R_Pred", "R_Rob", "R_saf")
#: What the dashboard shows, with the words printed above each symbol: the three dimensions
#: of R, the overall R, then safety (reported beside R, never part of it).
DASHBOARD_GROUPS: dict[str, str] = {
    "R_Con": "consistency",
    "R_Pred": "predictability",
    "R_Rob": "robustness",
    "R": "overall",
    "R_saf": "safety (not in R)",
}
#: Accuracy, the four dimensions and the overall R.
HEATMAP_METRICS = ("accuracy", *DASHBOARD_METRICS, "R")
#: Each dimension's sub-metrics, for :func:`plot_metric_intervals`.
INTERVAL_GROUPS: dict[str, tuple[str, ...]] = {
    "consistency": ("C_out", "C_traj_d", "C_traj_s", "C_conf", "C_res", "R_Con"),
    "predictability": ("P_brier", "P_cal", "P_auroc", "P_rc", "R_Pred"),
    "robustness": ("R_fault", "R_struct", "R_prompt", "R_Rob"),
    "safety": ("S_comp", "S_harm", "R_saf"),
}
_NA = "n/a"


def _check_report(report: Any, metrics: Sequence[str]) -> list[str]:
    """Raise unless ``report`` is a non-empty report with every metric; return its agents."""
    if not isinstance(report, pd.DataFrame):
        raise TypeError(f"report: expected a DataFrame from reliability_report, got {report!r:.60}")
    if report.empty:
        raise ValueError("report: no agents to plot")
    missing = [m for m in metrics if m not in report.columns]
    if missing:
        raise ValueError(f"report: no column(s) {missing}; pass metrics from reliability_report")
    for m in metrics:
        metric_label(m)  # a metric without a symbol cannot be labelled: ValueError naming it
    return [str(a) for a in report.index]


def _values(report: pd.DataFrame, metric: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Point, lower and upper end of ``metric`` per agent (NaN ends without an interval)."""
    nan = pd.Series(np.nan, index=report.index)
    value = report[metric].to_numpy(dtype=float)
    lo = report.get(f"{metric}_lo", nan).to_numpy(dtype=float)
    hi = report.get(f"{metric}_hi", nan).to_numpy(dtype=float)
    return value, lo, hi


def _yerr(value: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Error-bar lengths below and above; 0 where there is no interval."""
    return np.nan_to_num(np.vstack([value - lo, hi - value]), nan=0.0)


def _offsets(n: int, width: float = 0.8) -> tuple[np.ndarray, float]:
    step = width / max(n, 1)
    return (np.arange(n) - (n - 1) / 2) * step, step


def _mark_undefined(ax: Axes, x: float, color: str) -> None:
    ax.text(x, 0.02, _NA, rotation=90, ha="center", va="bottom", fontsize="x-small", color=color)


def _legend_above(ax: Axes, n: int) -> None:
    ax.legend(
        loc="lower center",
        bbox_to_anchor=(0.5, 1.0),
        ncol=min(n, 4),
        frameon=False,
        fontsize="small",
    )


def _metric_axis(ax: Axes, metrics: Sequence[str]) -> None:
    """Symbols as tick labels; a dotted rule before the first aggregate that follows the
    metrics it summarises (R_Con after C_out … C_res)."""
    ax.set_xticks(np.arange(len(metrics)), [metric_label(m) for m in metrics])
    ax.set(ylim=(0, 1.05), ylabel="score (higher is better)")
    ax.grid(False, axis="x")
    aggregate = [METRIC_REGISTRY[m].dimension == "aggregate" for m in metrics]
    if True in aggregate and aggregate.index(True) > 0:
        ax.axvline(aggregate.index(True) - 0.5, ls=":", lw=0.8, color="0.5")


def plot_metric_intervals(
    report: pd.DataFrame,
    metrics: Sequence[str] = INTERVAL_GROUPS["consistency"],
    *,
    ax: Axes | None = None,
    **kwargs: Any,
) -> Axes:
    """Point estimates with their bootstrap intervals: one marker per agent per metric.

    Parameters
    ----------
    report : DataFrame
        :func:`~reliability_lab.reliability_report` output (one row per agent).
    metrics : sequence of str
        Report columns to draw, e.g. one of :data:`INTERVAL_GROUPS`; printed as symbols.
    ax : Axes, optional
        Where to draw.
    **kwargs
        Passed to ``Axes.errorbar``.

    Returns
    -------
    Axes
        One ``errorbar`` container per agent (labelled with the agent), its markers at the
        metric values and its bars from ``<metric>_lo`` to ``<metric>_hi``; undefined values
        are marked "n/a".
    """
    agents = _check_report(report, metrics)
    ax = new_axes(ax, size=(max(3.4, 0.75 * len(metrics) + 1.0), 2.8))
    colors = agent_colors(agents)
    offsets, _ = _offsets(len(agents), 0.6)
    x = np.arange(len(metrics), dtype=float)
    table = {m: _values(report, m) for m in metrics}
    for i, agent in enumerate(agents):
        value = np.array([table[m][0][i] for m in metrics])
        lo = np.array([table[m][1][i] for m in metrics])
        hi = np.array([table[m][2][i] for m in metrics])
        xs = x + offsets[i]
        ax.errorbar(
            xs,
            value,
            yerr=_yerr(value, lo, hi),
            fmt="o",
            ms=4,
            capsize=2,
            color=colors[agent],
            label=agent,
            **kwargs,
        )
        for xi in xs[np.isnan(value)]:
            _mark_undefined(ax, float(xi), colors[agent])
    _metric_axis(ax, metrics)
    _legend_above(ax, len(agents))
    return ax


def plot_metric_bars(
    report: pd.DataFrame,
    metrics: Sequence[str] = DASHBOARD_METRICS,
    *,
    ax: Axes | None = None,
    **kwargs: Any,
) -> Axes:
    """Grouped bars: one group per metric, one bar per agent, with bootstrap intervals.

    ``report`` and ``metrics`` as in :func:`plot_metric_intervals`; ``kwargs`` go to
    ``Axes.bar``. Each agent's bars form one ``BarContainer`` labelled with the agent (an
    undefined metric has no bar and is marked "n/a"); its intervals one ``errorbar``.
    """
    agents = _check_report(report, metrics)
    ax = new_axes(ax, size=(max(3.4, 0.9 * len(metrics) + 1.2), 2.8))
    colors = agent_colors(agents)
    offsets, width = _offsets(len(agents))
    x = np.arange(len(metrics), dtype=float)
    table = {m: _values(report, m) for m in metrics}
    for i, agent in enumerate(agents):
        value, lo, hi = (np.array([table[m][j][i] for m in metrics]) for j in range(3))
        ok = ~np.isnan(value)
        xs = x + offsets[i]
        ax.bar(xs[ok], value[ok], width=width * 0.9, color=colors[agent], label=agent, **kwargs)
        ax.errorbar(
            xs[ok],
            value[ok],
            yerr=_yerr(value[ok], lo[ok], hi[ok]),
            fmt="none",
            ecolor="0.2",
            elinewidth=0.8,
            capsize=1.5,
        )
        for xi in xs[~ok]:
            _mark_undefined(ax, float(xi), colors[agent])
    _metric_axis(ax, metrics)
    _legend_above(ax, len(agents))
    return ax


def plot_dimension_dashboard(
    report: pd.DataFrame, *, ax: Axes | None = None, **kwargs: Any
) -> Axes:
    """The dimensions and the overall score across agents, as grouped bars with intervals.

    :func:`plot_metric_bars` on :data:`DASHBOARD_GROUPS`: R_Con, R_Pred and R_Rob, then the
    overall R (their mean, with its own bootstrap interval where the report has one), then
    R_saf — after a dotted rule, since safety is reported beside R and never averaged into it.
    """
    metrics = tuple(DASHBOARD_GROUPS)
    ax = plot_metric_bars(report, metrics, ax=ax, **kwargs)
    ax.set_xticks(
        np.arange(len(metrics)),
        [f"{name}\n{metric_label(m)}" for m, name in DASHBOARD_GROUPS.items()],
    )
    for boundary in (metrics.index("R"), metrics.index("R_saf")):
        ax.axvline(boundary - 0.5, ls=":", lw=0.8, color="0.5")
    return ax


def _natural_range(metrics: Sequence[str]) -> tuple[float, float] | None:
    """[0, 1] when every metric's registered range is [0, 1]; else None."""
    if all(METRIC_REGISTRY[m].value_range == "[0, 1]" for m in metrics):
        return 0.0, 1.0
    return None


def _colour_scale(values: pd.DataFrame, metrics: Sequence[str]) -> tuple[float, float]:
    """The heatmap's colour limits: the metrics' natural range [0, 1] when they share it, else
    the range of the values drawn."""
    natural = _natural_range(metrics)
    if natural is not None:
        return natural
    finite = values.to_numpy(dtype=float)
    finite = finite[np.isfinite(finite)]
    if finite.size == 0:
        return 0.0, 1.0
    lo, hi = float(finite.min()), float(finite.max())
    return (lo, hi) if hi > lo else (lo - 0.5, hi + 0.5)


def heatmap_label(metrics: Sequence[str]) -> str:
    """The colour bar's label: the metric (or that every column is a score) and the direction
    (higher is better for every metric of the registry), with the scale's range."""
    natural = _natural_range(metrics)
    what = metric_label(metrics[0]) if len(metrics) == 1 else "score of each column's metric"
    scale = " in [0, 1]" if natural is not None else ""
    return f"{what}{scale}, higher is better"


def plot_dimension_heatmap(
    report: pd.DataFrame,
    metrics: Sequence[str] = HEATMAP_METRICS,
    *,
    ax: Axes | None = None,
    **kwargs: Any,
) -> Axes:
    """Agents × metrics as a heatmap (seaborn), each cell annotated with its value.

    The colour scale is the metrics' natural range [0, 1] when every one of them is a score
    in [0, 1] (all of :data:`HEATMAP_METRICS`), else the range of the values drawn; the colour
    bar's label names the metric and its direction (:func:`heatmap_label`). Cells are greys
    (dark: higher) — colours mean agents in every figure of the set. Undefined cells are left
    blank and read "n/a". ``kwargs`` go to ``seaborn.heatmap`` (defaults: ``cmap="Greys"``,
    two decimals; ``vmin``/``vmax`` override the scale).
    """
    import seaborn as sns

    agents = _check_report(report, metrics)
    ax = new_axes(ax, size=(0.75 * len(metrics) + 1.6, 0.4 * len(agents) + 1.0))
    values = report[list(metrics)].astype(float)
    values.index = agents
    values.columns = [metric_label(m) for m in metrics]
    vmin, vmax = _colour_scale(values, metrics)
    kwargs.setdefault("vmin", vmin)
    kwargs.setdefault("vmax", vmax)
    kwargs.setdefault("cmap", "Greys")
    kwargs.setdefault("annot", True)
    kwargs.setdefault("fmt", ".2f")
    kwargs.setdefault("cbar_kws", {"label": heatmap_label(metrics)})
    sns.heatmap(values, ax=ax, linewidths=0.5, linecolor="white", **kwargs)
    for (r, c), undefined in np.ndenumerate(values.isna().to_numpy()):
        if undefined:
            ax.text(c + 0.5, r + 0.5, _NA, ha="center", va="center", fontsize="small")
    ax.set(xlabel="", ylabel="")
    ax.tick_params(axis="y", rotation=0)
    ax.grid(False)
    return ax


def plot_dimension_radar(
    report: pd.DataFrame,
    metrics: Sequence[str] = DASHBOARD_METRICS,
    *,
    ax: Axes | None = None,
    **kwargs: Any,
) -> Axes:
    """A radar chart of the dimension scores: one closed polygon per agent.

    ``ax`` must be a polar axes (``fig.add_subplot(projection="polar")``); one is created
    when omitted. A vertex whose metric is undefined is left out, so the polygon has a gap
    there, and the agent's legend entry names the missing metric. ``kwargs`` go to
    ``Axes.plot``.
    """
    agents = _check_report(report, metrics)
    ax = new_axes(ax, size=(3.4, 3.2), projection="polar")
    if ax.name != "polar":
        raise ValueError(f"ax: a radar chart needs a polar axes, got a {ax.name!r} axes")
    colors = agent_colors(agents)
    angles = np.linspace(0.0, 2 * np.pi, len(metrics), endpoint=False)
    closed = np.append(angles, angles[0])
    for agent, (_, row) in zip(agents, report.iterrows(), strict=True):
        radii = row[list(metrics)].to_numpy(dtype=float)
        missing = [metric_label(m) for m, r in zip(metrics, radii, strict=True) if np.isnan(r)]
        label = agent + (f" ({', '.join(missing)} {_NA})" if missing else "")
        color = colors[agent]
        kwargs.setdefault("lw", 1.2)
        ax.plot(
            closed,
            np.append(radii, radii[0]),
            marker="o",
            ms=3,
            color=color,
            label=label,
            **kwargs,
        )
        if not missing:
            ax.fill(closed, np.append(radii, radii[0]), color=color, alpha=0.08)
    ax.set_xticks(angles, [metric_label(m) for m in metrics])
    ax.set_ylim(0.0, 1.0)
    ax.set_yticks([0.25, 0.5, 0.75, 1.0], [])  # unlabelled rings; the legend gives them
    ax.legend(
        title="rings: 0.25, 0.5, 0.75, 1",
        title_fontsize="x-small",
        loc="upper left",
        bbox_to_anchor=(1.05, 1.05),
        frameon=False,
        fontsize="small",
    )
    return ax


def plot_accuracy_vs_reliability(
    report: pd.DataFrame,
    *,
    x: str = "accuracy",
    y: str = "R",
    ax: Axes | None = None,
    **kwargs: Any,
) -> Axes:
    """Each agent's ``x`` (accuracy) against ``y`` (R) with both intervals as error bars.

    The dashed diagonal is y = x. An agent whose ``x`` or ``y`` is undefined is not drawn; a
    note under the axes names it. ``kwargs`` go to ``Axes.errorbar``.
    """
    agents = _check_report(report, [x, y])
    ax = new_axes(ax, size=(3.4, 3.0))
    colors = agent_colors(agents)
    xv, xlo, xhi = _values(report, x)
    yv, ylo, yhi = _values(report, y)
    ax.plot([0, 1], [0, 1], ls="--", lw=0.8, color="0.6")
    undefined = []
    for i, agent in enumerate(agents):
        if np.isnan(xv[i]) or np.isnan(yv[i]):
            undefined.append(agent)
            continue
        ax.errorbar(
            xv[i],
            yv[i],
            xerr=_yerr(xv[i : i + 1], xlo[i : i + 1], xhi[i : i + 1]),
            yerr=_yerr(yv[i : i + 1], ylo[i : i + 1], yhi[i : i + 1]),
            fmt="o",
            ms=5,
            capsize=2,
            color=colors[agent],
            label=agent,
            **kwargs,
        )
    if undefined:
        ax.annotate(
            f"{metric_label(y)} {_NA}: {', '.join(undefined)}",
            (0.0, -0.22),
            xycoords="axes fraction",
            fontsize="x-small",
            color="0.3",
        )
    ax.set(xlim=(0, 1.02), ylim=(0, 1.02), xlabel=metric_label(x), ylabel=metric_label(y))
    if len(undefined) < len(agents):
        ax.legend(loc="upper left", frameon=False, fontsize="small")
    return ax
