"""What every figure of the set carries about where it came from: a small footer (SIMULATED
when any agent is simulated, the profile, K and the number of tasks), and the manifest
``save_all`` writes beside the files (docs/figures.md, "Provenance and manifest")."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import pandas as pd
from matplotlib.figure import Figure

from reliability_lab.runs import BASELINE


class FigureData(Protocol):
    """What the provenance reads of a figure set's data (``figure_set.FigureData``)."""

    @property
    def runs(self) -> pd.DataFrame: ...
    @property
    def source(self) -> str: ...
    @property
    def agents(self) -> Sequence[str]: ...
    @property
    def profile(self) -> Any: ...


class FigureSpec(Protocol):
    """What the manifest reads of a figure's spec (``figure_set.FigureSpec``)."""

    @property
    def name(self) -> str: ...
    @property
    def what(self) -> str: ...


__all__ = ["MANIFEST_FILE", "add_provenance", "provenance", "write_manifest"]

#: The manifest's file name, beside the figures.
MANIFEST_FILE = "manifest.json"


def provenance(data: FigureData) -> dict[str, Any]:
    """Source, agents, SIMULATED flag, profile, K (most baseline runs of an agent on a task)
    and the number of tasks of the figure data."""
    runs = data.runs
    base = runs[runs["condition"] == BASELINE]
    per_task = base.groupby(["agent", "task_id"]).size()
    simulated = (
        bool(runs["simulated"].fillna(False).astype(bool).any()) if "simulated" in runs else False
    )
    return {
        "source": data.source,
        "agents": list(data.agents),
        "simulated": simulated,
        "profile": data.profile.name,
        "K": int(per_task.max()) if len(per_task) else 0,
        "n_tasks": int(base["task_id"].nunique()),
        "n_runs": len(runs),
    }


def footer_text(info: Mapping[str, Any]) -> str:
    """``SIMULATED · profile default · K = 3 · 24 tasks``."""
    parts = ["SIMULATED"] if info["simulated"] else []
    parts += [f"profile {info['profile']}", f"K = {info['K']}", f"{info['n_tasks']} tasks"]
    return " · ".join(parts)


def add_provenance(fig: Figure, data: FigureData) -> Figure:
    """Write the provenance footer in the bottom-left corner of ``fig`` (returned)."""
    text = footer_text(provenance(data))
    # below the axes' labels: the saved figure's tight bounding box grows to include it
    fig.text(0.005, -0.01, text, fontsize=6.5, color="0.35", ha="left", va="top")
    return fig


def write_manifest(
    directory: Path,
    data: FigureData,
    specs: Sequence[FigureSpec],
    written: Mapping[str, list[Path]],
    skipped: Mapping[str, str],
) -> Path:
    """``manifest.json``: the provenance, then per figure its name, caption, files or the
    reason it was skipped."""
    figures = []
    for spec in specs:
        entry: dict[str, Any] = {"name": spec.name, "caption": spec.what}
        if spec.name in written:
            entry["files"] = [p.name for p in written[spec.name]]
        if spec.name in skipped:
            entry["skipped"] = skipped[spec.name]
        figures.append(entry)
    content = {"data": provenance(data), "figures": figures}
    path = directory / MANIFEST_FILE
    path.write_text(json.dumps(content, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path
