"""One style for every figure: fonts, sizes, a colour-blind-safe palette (Okabe–Ito) and metric
symbols typeset as mathtext (``C_out`` → $C_{\\mathrm{out}}$)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import matplotlib as mpl
from cycler import cycler
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from reliability_lab.metrics.registry import METRIC_REGISTRY

__all__ = [
    "NEUTRAL",
    "OUTCOME_COLORS",
    "PALETTE",
    "PAPER_STYLE",
    "agent_colors",
    "metric_label",
    "new_axes",
    "paper_style",
    "save_figure",
    "use_paper_style",
]

#: Okabe & Ito (2008) colour-blind-safe palette: one colour per agent. Its eighth colour,
#: black, is left out: black is the ink of text, axes and reference marks.
PALETTE = (
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#D55E00",
    "#CC79A7",
    "#56B4E9",
    "#F0E442",
)
# Colours mean agents and nothing else: :func:`agent_colors` hands out :data:`PALETTE`, and
# everything that is not an agent (outcomes, severities, references, legend keys shared by
# the panels of several agents) is drawn in greys.

#: The grey of a legend key that stands for every agent's marks.
NEUTRAL = "0.45"
#: Success and failure cells or bars, in greys (dark: success).
OUTCOME_COLORS = {"success": "0.25", "failure": "0.85"}


def _rc(font_size: float) -> Any:  # matplotlib types rcParams keys as Literals
    return {
        "axes.prop_cycle": cycler(color=PALETTE),
        "font.size": font_size,
        "axes.titlesize": font_size + 1,
        "axes.labelsize": font_size,
        "legend.fontsize": font_size - 1,
        "xtick.labelsize": font_size - 1,
        "ytick.labelsize": font_size - 1,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.grid": True,
        "grid.alpha": 0.3,
        "figure.dpi": 100,
        "savefig.dpi": 300,
        "savefig.bbox": "tight",
        "pdf.fonttype": 42,
        "svg.fonttype": "none",
    }


#: The house style as matplotlib rcParams (font size 9).
PAPER_STYLE: Mapping[str, Any] = _rc(9.0)


def use_paper_style(*, font_size: float = 9.0) -> None:
    """Apply the house figure style for the rest of the session (matplotlib rcParams).

    Meant for notebooks and scripts; library code uses :func:`paper_style`, which restores the
    previous settings.
    """
    mpl.rcParams.update(_rc(font_size))


@contextmanager
def paper_style(*, font_size: float = 9.0) -> Iterator[None]:
    """The house style inside a ``with`` block only (``matplotlib.rc_context``)."""
    with mpl.rc_context(_rc(font_size)):
        yield


def agent_colors(agents: Iterable[Any]) -> dict[str, str]:
    """One palette colour per agent, in the given order (the same agent, the same colour).

    The one place an agent gets its colour: every figure of the set takes its colours from
    here. Beyond ``len(PALETTE)`` agents the colours repeat.

    >>> agent_colors(["a", "b"])
    {'a': '#0072B2', 'b': '#E69F00'}
    """
    return {str(a): PALETTE[i % len(PALETTE)] for i, a in enumerate(agents)}


def _mathtext_index(part: str) -> str:
    return part if len(part) == 1 else rf"\mathrm{{{part}}}"


def metric_label(symbol: str, *, index: str | None = None) -> str:
    """How a metric's symbol prints on a figure: mathtext for symbols, words for names.

    The symbol must be in :data:`~reliability_lab.report.METRIC_REGISTRY`. ``X_a_b`` becomes
    $X_{a,b}$ (multi-letter indices upright), ``pass^k`` pass$^{k}$; session and trace-signal
    metrics, whose symbols are names (``agent_reliability``), print as words. ``index`` adds a
    subscript, e.g. ``"t"`` for a per-task value: $C_{\\mathrm{out},t}$.

    Examples
    --------
    >>> metric_label("C_out"), metric_label("C_traj_d"), metric_label("R")
    ('$C_{\\\\mathrm{out}}$', '$C_{\\\\mathrm{traj},d}$', '$R$')
    >>> metric_label("accuracy"), metric_label("pass^k"), metric_label("agent_reliability")
    ('accuracy', 'pass$^{k}$', 'agent reliability')
    >>> metric_label("C_out", index="t")
    '$C_{\\\\mathrm{out},t}$'
    """
    info = METRIC_REGISTRY.get(symbol)
    if info is None:
        raise ValueError(
            f"metric {symbol!r} is not in METRIC_REGISTRY; known: {list(METRIC_REGISTRY)}"
        )
    if info.dimension in ("session", "signal"):
        return symbol.replace("_", " ")
    if "^" in symbol:
        head, sup = symbol.split("^", 1)
        return f"{head}$^{{{sup}}}$"
    if "@" in symbol:
        head, tail = symbol.split("@", 1)
        return f"{head}@${tail}$"
    if "_" in symbol or (index and len(symbol) == 1):
        head, *parts = symbol.split("_")
        parts += [index] if index else []
        return f"${head}_{{{','.join(_mathtext_index(p) for p in parts)}}}$"
    return f"${symbol}$" if len(symbol) == 1 else symbol


def new_axes(ax: Axes | None, size: tuple[float, float] = (3.4, 2.8), **kwargs: Any) -> Axes:
    """Return ``ax`` or a fresh single axes of ``size`` inches (``kwargs``: e.g. projection)."""
    if ax is not None:
        return ax
    from matplotlib import pyplot as plt

    fig = plt.figure(figsize=size)
    return fig.add_subplot(**kwargs)


def save_figure(
    fig: Figure, path: str | Path, *, formats: tuple[str, ...] = ("pdf", "png")
) -> list[Path]:
    """Save ``fig`` as ``path`` with each suffix in ``formats``; returns the written paths.

    PDFs carry no creation date, so the same figure gives the same file.
    """
    base = Path(path).with_suffix("")
    base.parent.mkdir(parents=True, exist_ok=True)
    written = []
    for fmt in formats:
        target = base.with_suffix(f".{fmt}")
        fig.savefig(target, format=fmt, metadata={"CreationDate": None} if fmt == "pdf" else None)
        written.append(target)
    return written
