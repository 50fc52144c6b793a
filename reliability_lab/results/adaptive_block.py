"""``adaptive.json``: the record of an adaptive experiment's rounds, and its summary block.

The runner (:mod:`reliability_lab.runner.adaptive`) appends every round's decision here before
its runs execute; the plan coverage, ``summary.json`` and the console read it back. See the
runner module for what a round decides.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reliability_lab.errors import ConfigError
from reliability_lab.report.allocation import ALLOCATION_RULES, BIASED_RULES
from reliability_lab.runs import BASELINE, RunKey

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "ADAPTIVE_FILE",
    "ADAPTIVE_SCHEMA_VERSION",
    "adaptive_lines",
    "adaptive_summary",
    "decided_keys",
    "read_adaptive",
]

ADAPTIVE_FILE = "adaptive.json"
ADAPTIVE_SCHEMA_VERSION = 1


def read_adaptive(directory: Path) -> dict[str, Any] | None:
    """``adaptive.json`` of a results directory, or None when it has none.

    Raises
    ------
    ConfigError
        The file is unreadable or not an adaptive record.
    """
    path = Path(directory) / ADAPTIVE_FILE
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the adaptive record: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("rounds"), list):
        raise ConfigError(f"{path}: not an adaptive record (expected an object with 'rounds')")
    return data


def decided_keys(directory: Path) -> list[RunKey]:
    """The runs the rounds of ``directory``'s ``adaptive.json`` added, in round order (none
    without the file): with the static plan, every run the directory may hold.

    Raises
    ------
    ConfigError
        The file is unreadable or not an adaptive record.
    """
    record = read_adaptive(directory)
    if record is None:
        return []
    return [
        (str(agent), str(task), BASELINE, "", int(run))
        for entry in record["rounds"]
        for agent, decision in entry["agents"].items()
        for task, run in decision["runs"]
    ]


#: What the adaptive block says about the estimates of the ``uncertainty`` rule
#: (docs/statistics.md, "Adaptive runs").
ADAPTIVE_BIAS = (
    "the extra runs were decided from the outcomes they are then pooled with (optional "
    "stopping), so the estimates of this experiment are biased — the unbiased C_out by "
    "+0.06 to +0.11 at 600 runs on 100 tasks (issue 24's study), where uniform K is unbiased; "
    "use them to see where runs went, and a uniform-K experiment for the numbers you report"
)
#: ... and of the ``uniform`` rule.
ADAPTIVE_UNIFORM = (
    "runs were added evenly (fewest runs first, ties in task order), never according to a "
    "task's own outcomes: the unbiased profile's estimates stay unbiased; only when to stop "
    'depends on the data (docs/statistics.md, "Adaptive runs")'
)
#: The rule of an ``adaptive.json`` written before rules existed.
LEGACY_RULE = "uncertainty"


def allocation_rule(settings: Mapping[str, Any]) -> str:
    """The allocation rule an adaptive record was made with (older records: ``uncertainty``).

    Raises
    ------
    ConfigError
        The record names a rule this version does not know.
    """
    rule = settings.get("allocation", LEGACY_RULE)
    if rule not in ALLOCATION_RULES:
        raise ConfigError(
            f"{ADAPTIVE_FILE}: settings.allocation={rule!r}; "
            f"expected one of {list(ALLOCATION_RULES)}"
        )
    return str(rule)


def adaptive_summary(directory: Path, runs: pd.DataFrame) -> dict[str, Any] | None:
    """The allocation for ``summary.json``: per agent, runs per task, rounds, half-widths."""
    record = read_adaptive(directory)
    if record is None:
        return None
    settings = record.get("settings") or {}
    rule = allocation_rule(settings)
    rounds = record["rounds"]
    base = runs[runs["condition"] == BASELINE]
    agents: dict[str, Any] = {}
    for agent, own in base.groupby("agent", sort=False):
        per_task = own.groupby("task_id")["run"].count()
        steps = [r["agents"][agent] for r in rounds if agent in r["agents"]]
        agents[str(agent)] = {
            "extra_runs": sum(len(s["runs"]) for s in steps),
            "rounds": sum(1 for s in steps if s["runs"]),
            "halfwidth_initial": steps[0]["halfwidth"] if steps else None,
            "halfwidth_final": steps[-1]["halfwidth"] if steps else None,
            "stopped": steps[-1]["reason"] if steps and not steps[-1]["runs"] else "running",
            "runs_per_task": {str(t): int(n) for t, n in per_task.items()},
            "runs_per_task_min": int(per_task.min()),
            "runs_per_task_max": int(per_task.max()),
        }
    return {
        "file": ADAPTIVE_FILE,
        "metric": settings.get("metric"),
        "halfwidth": settings.get("halfwidth"),
        "max_runs": settings.get("max_runs"),
        "initial_runs": record.get("initial_runs"),
        "agents": agents,
        "note": (
            "tasks have different numbers of runs: per-task metrics still weight every task "
            "equally; pooled metrics (accuracy, predictability, robustness) weight tasks by "
            "their runs"
        ),
        "allocation": rule,
        "bias": ADAPTIVE_BIAS if rule in BIASED_RULES else None,
        "unbiased_note": None if rule in BIASED_RULES else ADAPTIVE_UNIFORM,
    }


def adaptive_lines(content: Mapping[str, Any]) -> list[str]:
    """Console lines describing the adaptive allocation of a summary (none without one)."""
    info = content.get("adaptive")
    if not info:
        return []
    lines = [
        "",
        f"  Adaptive runs (target: {info['metric']} half-width ≤ {info['halfwidth']:g}, "
        f"at most {info['max_runs']} runs per task, initial K {info['initial_runs']}):",
    ]
    for agent, entry in info["agents"].items():
        start, end = entry["halfwidth_initial"], entry["halfwidth_final"]
        widths = "n/a" if start is None or end is None else f"±{start:.3f} → ±{end:.3f}"
        lines.append(
            f"    {agent}: {entry['extra_runs']} extra runs in {entry['rounds']} rounds, "
            f"runs per task {entry['runs_per_task_min']}–{entry['runs_per_task_max']}, "
            f"half-width {widths} ({entry['stopped']})"
        )
    lines.append(f"    note: {info['note']}")
    if "allocation" not in info:  # a summary written before the rules: the biased one
        lines.append(f"    biased: {info.get('bias') or ADAPTIVE_BIAS}")
    elif info.get("bias"):
        lines.append(f"    allocation {info['allocation']}, biased: {info['bias']}")
    else:
        lines.append(f"    allocation {info['allocation']}: {info['unbiased_note']}")
    return lines
