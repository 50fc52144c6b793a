"""One style for every figure: fonts, sizes and a colour-blind-safe palette (Okabe–Ito)."""

from __future__ import annotations

from pathlib import Path

import matplotlib as mpl
from cycler import cycler
from matplotlib.axes import Axes
from matplotlib.figure import Figure

__all__ = ["PALETTE", "new_axes", "save_figure", "use_paper_style"]

#: Okabe & Ito (2008) colour-blind-safe palette.
PALETTE = (
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#D55E00",
    "#CC79A7",
    "#56B4E9",
    "#F0E442",
    "#000000",
)


def use_paper_style(*, font_size: float = 9.0) -> None:
    """Apply the house figure style globally (matplotlib rcParams)."""
    mpl.rcParams.update(
        {
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
    )


def new_axes(ax: Axes | None, size: tuple[float, float] = (3.4, 2.8)) -> Axes:
    """Return ``ax`` or a fresh single axes of ``size`` inches."""
    if ax is not None:
        return ax
    from matplotlib import pyplot as plt

    _, created = plt.subplots(figsize=size)
    return created


def save_figure(
    fig: Figure, path: str | Path, *, formats: tuple[str, ...] = ("pdf", "png")
) -> list[Path]:
    """Save ``fig`` as ``path`` with each suffix in ``formats``; returns the written paths."""
    base = Path(path).with_suffix("")
    base.parent.mkdir(parents=True, exist_ok=True)
    written = []
    for fmt in formats:
        target = base.with_suffix(f".{fmt}")
        fig.savefig(target, format=fmt, metadata={"CreationDate": None} if fmt == "pdf" else None)
        written.append(target)
    return written
