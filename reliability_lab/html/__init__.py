"""The self-contained HTML reliability report of a results directory
(``reliability-lab html DIR -o report.html``; docs/results.md, "The HTML report").

One file, no network and no external asset: provenance, the per-agent table with intervals
and the reason for every n/a, every figure of the figure set as inline SVG, robustness by
intensity with intervals, safety findings, the paired comparison, and a per-task drill-down
linking each failed run to its transcript. Rendered with Jinja2 templates shipped in the
package (``templates/``); tables sort on click and read fully without JavaScript.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["render_html_report", "write_html_report"]


def render_html_report(directory: str | os.PathLike[str]) -> str:
    """The HTML report of the results directory ``directory``, as one string.

    Raises
    ------
    RunTableError
        Not a results directory, unreadable records, or no ``summary.json``.
    """
    import jinja2

    from reliability_lab.html._context import report_context

    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("reliability_lab.html", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=False,
        keep_trailing_newline=True,
    )
    return environment.get_template("report.html.j2").render(**report_context(Path(directory)))


def write_html_report(
    directory: str | os.PathLike[str], output: str | os.PathLike[str] | None = None
) -> Path:
    """Write :func:`render_html_report` to ``output`` (default ``DIR/report.html``)."""
    target = Path(output) if output is not None else Path(directory) / "report.html"
    text = render_html_report(directory)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    return target
