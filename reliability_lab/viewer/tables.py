"""The per-agent table as a paper prints it: ``reliability-lab table DIR --latex`` or
``--markdown`` (docs/results.md, "Tables for a paper").

Rows are agents in the config's order; each cell is the point estimate with its bootstrap
interval; an undefined value is ``n/a`` with a note mark, and the notes below the table say why
(one note per distinct reason). LaTeX output uses booktabs rules (``\\usepackage{booktabs}``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pandas as pd

from reliability_lab.errors import ConfigError
from reliability_lab.report.text import _number, metric_note

__all__ = ["DEFAULT_TABLE_METRICS", "latex_table", "markdown_table"]

#: The headline metrics, safety last (the console's summary columns).
DEFAULT_TABLE_METRICS: tuple[str, ...] = ("accuracy", "R_Con", "R_Pred", "R_Rob", "R", "R_saf")
_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_MARKS = "abcdefghijklmnopqrstuvwxyz"


def latex_escape(text: str) -> str:
    """``text`` with LaTeX's special characters escaped.

    >>> latex_escape("gpt_4o & co")
    'gpt\\\\_4o \\\\& co'
    """
    return "".join(_LATEX_SPECIAL.get(c, c) for c in text)


def _latex_symbol(metric: str) -> str:
    """``R_Con`` → ``$R_{\\mathrm{Con}}$``; ``accuracy`` stays a word."""
    if "_" not in metric:
        return f"${metric}$" if len(metric) == 1 else latex_escape(metric.capitalize())
    base, sub = metric.split("_", 1)
    return f"${base}_{{\\mathrm{{{sub.replace('_', ',')}}}}}$"


def _check(report: pd.DataFrame, metrics: Sequence[str]) -> None:
    unknown = [m for m in metrics if m not in report.columns]
    if unknown:
        known = ", ".join(c for c in report.columns if f"{c}_lo" in report.columns)
        raise ConfigError(f"--metric {', '.join(unknown)}: not in the report (known: {known})")


class _Notes:
    """Distinct n/a reasons, each with its mark (a, b, ...)."""

    def __init__(self) -> None:
        self.reasons: dict[str, str] = {}

    def mark(self, reason: str) -> str:
        if reason not in self.reasons:
            self.reasons[reason] = _MARKS[len(self.reasons) % len(_MARKS)]
        return self.reasons[reason]


def _cells(
    report: pd.DataFrame,
    metrics: Sequence[str],
    digits: int,
    notes: _Notes,
    *,
    na: Callable[[str], str],
    interval: Callable[[str, str, str], str],
) -> list[tuple[str, list[str]]]:
    """Per agent, each metric's cell: ``interval(value, lo, hi)``, the bare value when the
    interval is missing, or ``na(mark)`` with the mark of the reason it is undefined."""
    rows = []
    for agent, row in report.iterrows():
        texts = []
        for metric in metrics:
            value = _number(row.get(metric))
            lo, hi = _number(row.get(f"{metric}_lo")), _number(row.get(f"{metric}_hi"))
            if value is None:
                texts.append(na(notes.mark(metric_note(row, metric) or "undefined")))
            elif lo is None or hi is None:
                texts.append(f"{value:.{digits}f}")
            else:
                texts.append(
                    interval(f"{value:.{digits}f}", f"{lo:.{digits}f}", f"{hi:.{digits}f}")
                )
        rows.append((str(agent), texts))
    return rows


def _level(report: pd.DataFrame) -> str:
    return f"{float(report.attrs.get('confidence_level') or 0.95):.0%}"


def latex_table(
    report: pd.DataFrame,
    *,
    metrics: Sequence[str] = DEFAULT_TABLE_METRICS,
    digits: int = 2,
    caption: str | None = None,
    label: str = "tab:reliability",
) -> str:
    """A booktabs ``table`` environment of ``report`` (:func:`load_report` layout).

    Each cell is ``value {\\scriptsize [lo, hi]}``; an undefined value is ``n/a`` with a
    superscript mark explained under the table.
    """
    _check(report, metrics)
    notes = _Notes()
    rows = _cells(
        report,
        metrics,
        digits,
        notes,
        na=lambda mark: f"n/a$^{{{mark}}}$",
        interval=lambda v, lo, hi: f"{v} {{\\scriptsize [{lo}, {hi}]}}",
    )
    level = latex_escape(_level(report))
    caption = caption or (
        f"Reliability per agent: point estimate and {level} bootstrap interval over tasks."
    )
    lines = [
        r"\begin{table}[t]",
        r"\centering",
        rf"\caption{{{caption}}}",
        rf"\label{{{label}}}",
        r"\begin{tabular}{l" + "c" * len(metrics) + "}",
        r"\toprule",
        "Agent & " + " & ".join(_latex_symbol(m) for m in metrics) + r" \\",
        r"\midrule",
    ]
    for agent, texts in rows:
        lines.append(latex_escape(agent) + " & " + " & ".join(texts) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    if notes.reasons:
        text = "; ".join(f"$^{{{m}}}$ {latex_escape(r)}" for r, m in notes.reasons.items())
        lines.append(rf"\par\smallskip{{\footnotesize n/a: undefined. {text}.}}")
    lines.append(r"\end{table}")
    return "\n".join(lines)


def markdown_table(
    report: pd.DataFrame, *, metrics: Sequence[str] = DEFAULT_TABLE_METRICS, digits: int = 2
) -> str:
    """A GitHub-flavoured Markdown table of ``report``, with n/a notes below it."""
    _check(report, metrics)
    notes = _Notes()
    rows = _cells(
        report,
        metrics,
        digits,
        notes,
        na=lambda mark: f"n/a<sup>{mark}</sup>",
        interval=lambda v, lo, hi: f"{v} [{lo}, {hi}]",
    )
    lines = [
        "| agent | " + " | ".join(metrics) + " |",
        "|---|" + "---:|" * len(metrics),
    ]
    for agent, texts in rows:
        escaped = agent.replace("|", "\\|")
        lines.append(f"| {escaped} | " + " | ".join(texts) + " |")
    lines += ["", f"Point estimate [{_level(report)} bootstrap interval over tasks]."]
    lines += [f"<sup>{m}</sup> n/a: {r}.  " for r, m in notes.reasons.items()]
    return "\n".join(lines)
