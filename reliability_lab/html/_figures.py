"""The figure set as inline SVG for the HTML report (every figure of
:data:`reliability_lab.plots.FIGURES`, or the reason the data cannot support it)."""

from __future__ import annotations

import io
import re
from dataclasses import dataclass

import matplotlib as mpl

from reliability_lab.plots._provenance import add_provenance
from reliability_lab.plots.figure_set import FIGURES, FigureData
from reliability_lab.plots.style import paper_style

__all__ = ["InlineFigure", "inline_figures"]

#: The XML prolog and DOCTYPE matplotlib writes: an inline <svg> needs neither, and the DOCTYPE
#: names an external DTD.
_PROLOG = re.compile(r"^.*?(?=<svg)", re.DOTALL)


@dataclass(frozen=True)
class InlineFigure:
    """One figure of the set as the HTML report shows it."""

    name: str
    what: str
    svg: str | None
    """The figure as an ``<svg>`` element, or None when skipped."""
    skipped: str | None = None
    """Why the data cannot support the figure."""


def _svg(figure: object, name: str) -> str:
    buffer = io.StringIO()
    with mpl.rc_context({"svg.hashsalt": name, "svg.fonttype": "path"}):
        figure.savefig(buffer, format="svg", bbox_inches="tight")  # type: ignore[attr-defined]
    text = _PROLOG.sub("", buffer.getvalue(), count=1)
    # ids must be unique in one HTML page: prefix every id (and its references) with the name
    text = re.sub(r'id="([^"]+)"', rf'id="{name}-\1"', text)
    return re.sub(r"url\(#([^)]+)\)", rf"url(#{name}-\1)", text).replace(
        'xlink:href="#', f'xlink:href="#{name}-'
    )


def inline_figures(data: FigureData) -> list[InlineFigure]:
    """Every figure of the set, drawn as SVG, in :data:`FIGURES` order."""
    out = []
    with paper_style():
        for spec in FIGURES:
            reason = spec.needs(data)
            if reason is not None:
                out.append(InlineFigure(spec.name, spec.what, None, reason))
                continue
            figure = add_provenance(spec.draw(data), data)
            out.append(InlineFigure(spec.name, spec.what, _svg(figure, spec.name)))
    return out
