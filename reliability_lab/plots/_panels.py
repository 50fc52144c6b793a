"""Layouts of the figure set: one figure, a grid of one panel per agent, and what small
multiples share — one legend and one label per axis, written once for the whole figure.

Colours mean agents and nothing else: a legend shared by the panels of several agents shows
what the marks *are* (bars, markers, reference lines), so its entries are drawn in grey
rather than in the colour of whichever agent happens to come first.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from matplotlib.axes import Axes
from matplotlib.collections import Collection
from matplotlib.colors import to_hex
from matplotlib.container import Container
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from reliability_lab.plots.style import NEUTRAL, PALETTE

__all__ = [
    "PANEL",
    "agent_grid",
    "drop_legend",
    "figure",
    "neutral_handle",
    "per_agent",
    "share_labels",
    "share_legend",
    "single",
]

#: Inches per panel of a per-agent figure.
PANEL = (2.7, 2.4)

_AGENT_HEX = {to_hex(c) for c in PALETTE}


def figure(size: tuple[float, float]) -> Figure:
    """A ``Figure`` (not registered with pyplot) with constrained layout."""
    return Figure(figsize=size, layout="constrained")


def single(size: tuple[float, float], draw: Callable[[Axes], Any]) -> Figure:
    """A figure of one axes of ``size`` inches, drawn by ``draw``."""
    fig = figure(size)
    draw(fig.add_subplot())
    return fig


def agent_grid(
    agents: Sequence[str], *, sharex: bool = False, sharey: bool = True
) -> tuple[Figure, list[Axes]]:
    """A grid of one panel per agent: a row for up to 3, 2 × 2 for 4, rows of 3 beyond."""
    n = len(agents)
    cols = n if n <= 3 else (2 if n == 4 else 3)
    rows = math.ceil(n / cols)
    fig = figure((PANEL[0] * cols, PANEL[1] * rows))
    grid = fig.subplots(rows, cols, sharex=sharex, sharey=sharey, squeeze=False).ravel()
    for extra in grid[n:]:
        extra.set_visible(False)
    return fig, list(grid[:n])


def drop_legend(ax: Axes) -> None:
    """Remove ``ax``'s legend (one legend per figure is enough)."""
    legend = ax.get_legend()
    if legend is not None:
        legend.remove()


def _grey(color: Any) -> Any:
    """An agent's colour becomes the neutral grey; any other colour is kept."""
    try:
        return NEUTRAL if to_hex(color) in _AGENT_HEX else color
    except ValueError:  # not a single colour (e.g. an array of face colours)
        return NEUTRAL


def neutral_handle(handle: Any) -> Any:
    """A legend proxy of ``handle`` in which an agent's colour is replaced by grey."""
    if isinstance(handle, Container):  # bars, error bars: their first artist stands for them
        handle = next(iter(handle))
    if isinstance(handle, Line2D):
        return Line2D(
            [],
            [],
            ls=handle.get_linestyle(),
            lw=handle.get_linewidth(),
            marker=handle.get_marker(),
            ms=handle.get_markersize(),
            color=_grey(handle.get_color()),
            mfc=_grey(handle.get_markerfacecolor()),
            mec=_grey(handle.get_markeredgecolor()),
            alpha=handle.get_alpha(),
        )
    if isinstance(handle, Patch):
        return Patch(
            facecolor=_grey(handle.get_facecolor()[:3]),
            edgecolor=_grey(handle.get_edgecolor()[:3]),
            alpha=handle.get_alpha(),
            hatch=handle.get_hatch(),
        )
    if isinstance(handle, Collection):  # a scatter: one marker stands for its points
        return Line2D([], [], ls="", marker="o", ms=6, color=NEUTRAL, alpha=handle.get_alpha())
    return handle  # pragma: no cover - every handle the plot functions make is one of the above


def _legend_entries(ax: Axes) -> tuple[list[Any], list[str]]:
    """The entries of ``ax``'s legend (also those given as proxies), else of its labelled
    artists."""
    legend = ax.get_legend()
    if legend is None:
        handles, labels = ax.get_legend_handles_labels()
        return list(handles), list(labels)
    return list(legend.legend_handles), [t.get_text() for t in legend.get_texts()]


def share_legend(
    fig: Figure,
    axes: Sequence[Axes],
    *,
    neutral: bool = True,
    title: str | None = None,
    ncol: int | None = None,
) -> None:
    """Replace the panels' legends by one legend above the figure.

    The entries are those of the first panel that has any (labels repeated in later panels
    are not added twice); with ``neutral``, their agent colours become grey (the panels'
    titles say whose they are).
    """
    handles: dict[str, Any] = {}
    for ax in axes:
        for handle, label in zip(*_legend_entries(ax), strict=True):
            if not label.startswith("_"):
                handles.setdefault(label, neutral_handle(handle) if neutral else handle)
        drop_legend(ax)
    if handles:
        fig.legend(
            list(handles.values()),
            list(handles),
            loc="outside upper center",
            ncol=ncol or min(len(handles), 4),
            frameon=False,
            fontsize="small",
            title=title,
            title_fontsize="small",
        )


def share_labels(fig: Figure, axes: Sequence[Axes], *, x: bool = True, y: bool = True) -> None:
    """Write the panels' common x and y labels once, for the whole figure."""
    if x:
        label = axes[0].get_xlabel()
        for ax in axes:
            ax.set_xlabel("")
        fig.supxlabel(label, fontsize="medium")
    if y:
        label = axes[0].get_ylabel()
        for ax in axes:
            ax.set_ylabel("")
        fig.supylabel(label, fontsize="medium")


def per_agent(
    agents: Sequence[str],
    items: Mapping[str, Any],
    draw: Callable[..., Axes],
    colors: Mapping[str, str],
    *,
    title: Callable[[str, Any], str] = lambda agent, item: agent,
    **kwargs: Any,
) -> Figure:
    """Small multiples: one panel per agent with an item, drawn by ``draw(item, ax=,
    color=)`` in the agent's colour, titled by ``title``, with one shared legend and one
    label per axis."""
    shown = [a for a in agents if a in items]
    fig, axes = agent_grid(shown, sharex=True)
    for ax, agent in zip(axes, shown, strict=True):
        draw(items[agent], ax=ax, color=colors[agent], **kwargs)
        ax.set_title(title(agent, items[agent]))
    share_legend(fig, axes, ncol=2)
    share_labels(fig, axes)
    return fig
