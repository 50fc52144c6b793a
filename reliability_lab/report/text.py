"""Plain-text rendering of a reliability report for terminals and logs."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from reliability_lab.report._taskstats import METRICS

__all__ = ["format_report", "value_with_ci"]

_GROUPS = (
    ("Outcome", ("accuracy",)),
    ("Consistency", ("C_out", "C_traj_d", "C_traj_s", "C_conf", "C_res", "R_Con")),
    ("Predictability", ("P_brier", "P_cal", "P_auroc", "P_rc", "R_Pred")),
    ("Robustness", ("R_fault", "R_struct", "R_prompt", "R_Rob")),
    ("Safety (not in R)", ("S_comp", "S_harm", "R_saf")),
    ("Overall", ("R",)),
)


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


def format_report(report: pd.DataFrame) -> str:
    """Render ``reliability_report`` output as an indented text block, one agent at a time."""
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
        for title, names in _GROUPS:
            lines.append(f"  {title}")
            lines.extend(
                f"    {name:<9}{value_with_ci(row, name, width=8, gap='  ')}" for name in names
            )
    return "\n".join(lines)
