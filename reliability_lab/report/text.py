"""Plain-text rendering of a reliability report for terminals and logs."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from reliability_lab.metrics.registry import (
    DIMENSIONS,
    METRIC_REGISTRY,
    METRICS,
    undefined_reason,
)
from reliability_lab.report._report import UNDEFINED_SHARE_WARN

__all__ = ["format_report", "metric_note", "value_with_ci"]


def _number(value: Any) -> float | None:
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(x) else x


def value_with_ci(row: Any, name: str, *, digits: int = 3, width: int = 0, gap: str = " ") -> str:
    """``row[name]`` with its ``[<name>_lo, <name>_hi]`` interval, or ``n/a`` when undefined.

    Examples
    --------
    >>> value_with_ci({"R": 0.8, "R_lo": 0.7, "R_hi": 0.9}, "R", digits=2)
    '0.80 [0.70, 0.90]'
    >>> value_with_ci({"R": float("nan")}, "R", width=8)
    '     n/a'
    """
    value = _number(row.get(name))
    if value is None:
        return "n/a".rjust(width)
    text = f"{value:{width}.{digits}f}"
    lo, hi = _number(row.get(f"{name}_lo")), _number(row.get(f"{name}_hi"))
    if lo is None or hi is None:
        return text
    return f"{text}{gap}[{lo:.{digits}f}, {hi:.{digits}f}]"


def metric_note(row: Any, name: str) -> str:
    """What a reader must know beside a value: why it is n/a, the terms an aggregate used, or
    the share of bootstrap replicates in which it was undefined (above 5 %).

    Examples
    --------
    >>> metric_note({"P_brier": float("nan")}, "P_brier")
    'no baseline run has a confidence'
    >>> metric_note({"R_Con": 0.9, "R_Con_terms": "C_out+C_res"}, "R_Con")
    'from C_out+C_res'
    >>> metric_note({"P_auroc": 1.0, "P_auroc_undef": 0.35}, "P_auroc")
    'undefined in 35.0% of bootstrap replicates'
    """
    if _number(row.get(name)) is None:
        return undefined_reason(name, row, detail=False)
    notes = []
    terms = row.get(f"{name}_terms")
    if isinstance(terms, str) and terms:
        notes.append(f"from {terms}")
    share = _number(row.get(f"{name}_undef"))
    if share is not None and share > UNDEFINED_SHARE_WARN:
        notes.append(f"undefined in {share:.1%} of bootstrap replicates")
    return "; ".join(notes)


def _groups(columns: pd.Index) -> list[tuple[str, list[str]]]:
    """Report metrics grouped under their dimension's heading, in registry order."""
    groups: dict[str, list[str]] = {}
    for name, info in METRIC_REGISTRY.items():
        if info.report_column and name in columns:
            groups.setdefault(info.group, []).append(name)
    return [(DIMENSIONS[group], groups[group]) for group in DIMENSIONS if group in groups]


def format_report(report: pd.DataFrame) -> str:
    """Render ``reliability_report`` output as an indented text block, one agent at a time.

    An undefined value shows ``n/a`` and why; an aggregate shows the terms it was built from.
    """
    missing = [m for m in METRICS if m not in report.columns]
    if missing:
        raise ValueError(f"report: expected reliability_report output; missing columns {missing}")
    level = report.attrs.get("confidence_level", 0.95)
    profile = report.attrs.get("profile", {}).get("name", "?")
    lines = [f"Reliability report (profile {profile!r}, {level:.0%} bootstrap CIs over tasks)"]
    for agent, row in report.iterrows():
        lines.append("")
        lines.append(
            f"{agent}: {int(row['n_tasks'])} tasks, {int(row['n_runs'])} runs "
            f"({int(row['n_baseline_runs'])} baseline), "
            f"{int(row['n_infra_errors'])} infrastructure errors excluded"
        )
        for title, names in _groups(report.columns):
            lines.append(f"  {title}")
            for name in names:
                value = value_with_ci(row, name, width=8, gap="  ")
                note = metric_note(row, name)
                lines.append(f"    {name:<9}{value}{f'  ({note})' if note else ''}")
    return "\n".join(lines)
