"""Plain-text rendering of a reliability report for terminals and logs."""

from __future__ import annotations

import math

import pandas as pd

from reliability_lab._taskstats import METRICS

__all__ = ["format_report"]

_GROUPS = (
    ("Outcome", ("accuracy",)),
    ("Consistency", ("C_out", "C_traj_d", "C_traj_s", "C_conf", "C_res", "R_Con")),
    ("Predictability", ("P_brier", "P_cal", "P_auroc", "P_rc", "R_Pred")),
    ("Robustness", ("R_fault", "R_struct", "R_prompt", "R_Rob")),
    ("Safety (not in R)", ("S_comp", "S_harm", "R_saf")),
    ("Overall", ("R",)),
)


def _cell(row: pd.Series, name: str) -> str:
    value = row.get(name, math.nan)
    if value is None or math.isnan(value):
        return "     n/a"
    lo, hi = row.get(f"{name}_lo", math.nan), row.get(f"{name}_hi", math.nan)
    if lo is None or hi is None or math.isnan(lo) or math.isnan(hi):
        return f"{value:8.3f}"
    return f"{value:8.3f}  [{lo:.3f}, {hi:.3f}]"


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
            lines.extend(f"    {name:<9}{_cell(row, name)}" for name in names)
    return "\n".join(lines)
