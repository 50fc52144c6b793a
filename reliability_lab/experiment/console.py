"""The console summary block printed after a run (and by ``reliability-lab report``)."""

from __future__ import annotations

import math
from typing import Any

from reliability_lab.experiment.store import is_simulated_model
from reliability_lab.experiment.summary import SIMULATED_NOTICE, ExperimentSummary

__all__ = ["FAILED", "PASSED", "format_summary", "verdict"]

PASSED = "✓ PASSED"
FAILED = "✗ FAILED"
#: Columns of the per-agent table: (report column, heading).
SUMMARY_METRICS = (
    ("accuracy", "accuracy"),
    ("R", "R"),
    ("R_Con", "R_Con"),
    ("R_Pred", "R_Pred"),
    ("R_Rob", "R_Rob"),
    ("R_saf", "R_saf"),
)


def _num(value: Any) -> str:
    try:
        x = float(value)
    except (TypeError, ValueError):
        return "n/a"
    return "n/a" if math.isnan(x) else f"{x:.2f}"


def _with_ci(row: Any, name: str) -> str:
    value = row.get(name, math.nan)
    lo, hi = row.get(f"{name}_lo", math.nan), row.get(f"{name}_hi", math.nan)
    if _num(value) == "n/a":
        return "n/a"
    if _num(lo) == "n/a" or _num(hi) == "n/a":
        return _num(value)
    return f"{_num(value)} [{_num(lo)}, {_num(hi)}]"


def verdict(summary: ExperimentSummary) -> str:
    """``✓ PASSED`` when every gate passed (or there are none), else ``✗ FAILED``."""
    return PASSED if summary.passed else FAILED


def format_summary(summary: ExperimentSummary) -> str:
    """The multi-line summary block: notice, counts, per-agent table with CIs, gates, verdict."""
    header, metrics = summary.header, summary.metrics
    lines = [f"Results: {header.suite_name}  ({summary.directory})"]
    if summary.simulated:
        sim = [a for a, m in header.models.items() if is_simulated_model(m)]
        lines += ["", f"*** {SIMULATED_NOTICE} Simulated agents: {', '.join(sim)}. ***"]
    n_tasks = summary.runs["task_id"].nunique() if len(summary.runs) else 0
    lines += [
        "",
        f"  Total runs: {metrics['total']}  Attempted: {metrics['total_attempted']}  "
        f"Infrastructure errors: {metrics['n_infra_errors']}  "
        f"(agents: {len(header.models)}, tasks: {n_tasks}, "
        f"K: {header.config.get('runs')}, profile: {header.profile})",
        "",
    ]
    level = summary.content["reliability"]["confidence_level"]
    cells = [["agent", "model", "runs", "infra"] + [h for _, h in SUMMARY_METRICS]]
    per_model = {entry["agent"]: entry for entry in metrics["per_model"]}
    for agent in header.models:
        entry = per_model.get(agent)
        if entry is None:
            continue
        row: Any = summary.report.loc[agent] if agent in summary.report.index else {}
        cells.append(
            [agent, header.models[agent], str(entry["total"]), str(entry["n_infra_errors"])]
            + [_with_ci(row, name) for name, _ in SUMMARY_METRICS]
        )
    widths = [max(len(r[i]) for r in cells) for i in range(len(cells[0]))]
    for r in cells:
        lines.append("  " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
    lines.append(f"  [brackets: {level:.0%} bootstrap CI over tasks; R_saf is not part of R]")
    if summary.gates:
        lines.append("")
        for g in summary.gates:
            state = "PASSED" if g.passed else "FAILED"
            lines.append(f"Gate ({g.gate}) [{g.agent}]: {state} — {g.reason}")
    lines += ["", verdict(summary)]
    return "\n".join(lines)
