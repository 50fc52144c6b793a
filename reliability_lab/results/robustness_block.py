"""The robustness part of an experiment's summary and console block.

:func:`robustness_summary` (stored in ``summary.json`` as ``robustness``) holds the robustness
per condition and intensity (:func:`~reliability_lab.report.robustness.robustness_by_intensity`),
the faults fired and recovered per agent, and the counts of every prepared artifact (e.g.
paraphrases generated, rejected by the detail check, filled in by the offline fallback).
:func:`robustness_lines` renders it for the console.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from reliability_lab.report.robustness import intensity_sort_key, robustness_by_intensity
from reliability_lab.report.text import value_with_ci
from reliability_lab.runs import BASELINE, PERTURBATION_CONDITIONS

__all__ = ["robustness_lines", "robustness_summary"]


def _faults(runs: pd.DataFrame) -> dict[str, dict[str, Any]]:
    if "faults" not in runs.columns:
        return {}
    out: dict[str, dict[str, Any]] = {}
    for agent, group in runs.groupby("agent", sort=True):
        events = [e for faults in group["faults"] for e in faults]
        if not events:
            continue
        by_type: dict[str, int] = {}
        for e in events:
            by_type[str(e.get("type"))] = by_type.get(str(e.get("type")), 0) + 1
        out[str(agent)] = {
            "runs_with_faults": int(sum(bool(f) for f in group["faults"])),
            "faults": len(events),
            "recovered": sum(bool(e.get("recovered")) for e in events),
            "by_type": dict(sorted(by_type.items())),
        }
    return out


def _artifacts(directory: Path, artifacts: Mapping[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for condition, name in artifacts.items():
        path = directory / name
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            out[condition] = {"file": name, "error": "missing or unreadable"}
            continue
        out[condition] = {
            "file": name,
            "settings": data.get("settings", {}),
            "counts": data.get("counts", {}),
        }
    return out


def robustness_summary(
    runs: pd.DataFrame, directory: Path, artifacts: Mapping[str, str]
) -> dict[str, Any]:
    """Robustness by condition and intensity, faults, and prepared-artifact counts.

    Parameters
    ----------
    runs : DataFrame
        The experiment's run table.
    directory : Path
        The results directory (to read prepared artifacts such as ``paraphrases.json``).
    artifacts : mapping
        Condition → artifact file name (``experiment.plan.condition_artifacts``).
    """
    perturbed = runs["condition"] != BASELINE
    if not perturbed.any():
        return {"by_intensity": [], "faults": {}, "prepared": {}}
    table = robustness_by_intensity(runs)
    records = json.loads(table.to_json(orient="records"))
    return {
        "by_intensity": records,
        "faults": _faults(runs),
        "prepared": _artifacts(directory, artifacts),
    }


def _cell(entry: Mapping[str, Any] | None) -> str:
    if entry is None:
        return "-"
    value = entry.get("robustness")
    shown = "n/a" if value is None else f"{value:.2f}"
    return f"{shown} (acc {entry['accuracy']:.2f}, n={entry['n_runs']})"


def robustness_lines(
    content: Mapping[str, Any],
    report: pd.DataFrame,
    agents: list[str],
    table: Callable[[list[list[str]]], list[str]],
) -> list[str]:
    """The console's robustness block (empty when the experiment ran only the baseline).

    ``table`` renders rows of cells as aligned lines (the console's table helper).
    """
    info = content.get("robustness") or {}
    rows = info.get("by_intensity") or []
    if not rows:
        return []
    lines = ["", "  Robustness (R = accuracy under the perturbation / baseline accuracy, ≤ 1):"]
    metrics = list(PERTURBATION_CONDITIONS.values())
    cells = [["agent", *metrics]]
    for agent in agents:
        row: Any = report.loc[agent] if agent in report.index else {}
        cells.append([agent, *(value_with_ci(row, m, digits=2) for m in metrics)])
    lines += table(cells)
    index = {(r["agent"], r["condition"], r["intensity"]): r for r in rows}
    groups = sorted(
        {(r["condition"], r["intensity"]) for r in rows},
        key=lambda g: (g[0], intensity_sort_key(g[1])),
    )
    cells = [["condition", "intensity", *agents]]
    for condition, intensity in groups:
        cells.append(
            [condition, intensity, *(_cell(index.get((a, condition, intensity))) for a in agents)]
        )
    lines += ["  By intensity: R (accuracy, runs):", *table(cells)]
    faults = info.get("faults") or {}
    for agent in [*(a for a in agents if a in faults), *sorted(set(faults) - set(agents))]:
        f = faults[agent]
        share = f["recovered"] / f["faults"] if f["faults"] else math.nan
        types = ", ".join(f"{k} {v}" for k, v in f["by_type"].items())
        lines.append(
            f"  Faults [{agent}]: {f['faults']} injected in {f['runs_with_faults']} runs, "
            f"{f['recovered']} recovered ({share:.0%}); {types}"
        )
    for condition, p in (info.get("prepared") or {}).items():
        counts = ", ".join(f"{v} {k}" for k, v in p.get("counts", {}).items())
        state = p.get("error") or f"{counts}; prepared once, shared by every agent"
        lines.append(f"  Prepared [{condition}] {p['file']}: {state}")
    return lines
