"""Write the three figures the README and docs/figures.md show, from the demo's results.

Run ``make demo`` first; ``make docs-figures`` then writes ``docs/figures/<name>.png`` at a
resolution that keeps the repository small (the figure set itself is written by
``reliability_lab.plots.save_all`` at print resolution).
"""

from __future__ import annotations

import sys
from pathlib import Path

from reliability_lab import plots

#: The figures shown in the README and docs/figures.md.
SHOWN = ("dimensions_dashboard", "robustness_by_intensity", "reliability_diagrams")
DPI = 110


def main(results: str = "results/demo", out: str = "docs/figures") -> None:
    """Draw :data:`SHOWN` from the results directory ``results`` into ``out`` as PNG."""
    data = plots.figure_data(results)
    target = Path(out)
    target.mkdir(parents=True, exist_ok=True)
    for name in SHOWN:
        fig = plots.draw_figure(name, data)
        with plots.paper_style():
            fig.savefig(target / f"{name}.png", dpi=DPI)
        print(target / f"{name}.png")


if __name__ == "__main__":
    main(*sys.argv[1:])
