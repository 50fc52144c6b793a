"""The run list of a results directory: ``reliability-lab show DIR`` (docs/results.md, "Looking
at runs").

One row per run in the experiment's own order — agents as the config lists them, then tasks,
conditions and variants as planned, then the run index — with what a researcher scans first:
success, score, confidence, actions, errors, cost and the first line of the error. Filters pick
failed runs, an agent, a task, a condition, or the *inconsistent* tasks (those whose repeated
runs of one agent under one condition variant disagree on success).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from reliability_lab.errors import ConfigError
from reliability_lab.results.order import experiment_order, in_config_order, ordered_labels
from reliability_lab.results.read import read_results
from reliability_lab.results.store import read_header
from reliability_lab.runs import KEY_COLUMNS, session_id

__all__ = [
    "RunFilter",
    "ViewedResults",
    "filter_runs",
    "format_run_list",
    "in_config_order",
    "read_view",
]

#: Shown in place of a value that was not recorded.
NOT_RECORDED = "–"
_ERROR_WIDTH = 60


@dataclass(frozen=True)
class ViewedResults:
    """A results directory as the viewers read it.

    Attributes
    ----------
    directory : Path
    runs : DataFrame
        The run table (:func:`~reliability_lab.results.read.load_results`), sorted into
        the experiment's order, with a ``key`` column (:func:`reliability_lab.runs.session_id`).
    records : dict
        Run key → its result record (the line of ``results.jsonl``: trajectory, perturbation,
        session and safety details).
    header : dict
        ``header.json`` (what ran, with which settings).
    """

    directory: Path
    runs: pd.DataFrame
    records: Mapping[str, Mapping[str, Any]]
    header: Mapping[str, Any]

    @property
    def agents(self) -> list[str]:
        """Agent labels in the config's order."""
        return ordered_labels(self.runs["agent"], self.header.get("models", {}))


def read_view(directory: str | os.PathLike[str]) -> ViewedResults:
    """Read a results directory for the viewers (run table, records, header).

    Raises
    ------
    RunTableError
        Not a results directory, or unreadable records (the message names the file).
    """
    path = Path(directory)
    header = read_header(path).model_dump(mode="json")
    runs, records = read_results(path)
    keyed = {session_id(r): r for r in records}
    keys = runs[list(KEY_COLUMNS)].itertuples(index=False)
    runs = runs.assign(key=[session_id(dict(zip(KEY_COLUMNS, k, strict=True))) for k in keys])
    return ViewedResults(path, experiment_order(runs, header), keyed, header)


@dataclass(frozen=True)
class RunFilter:
    """Which runs ``show`` lists; every given criterion must hold."""

    failed: bool = False
    agent: str | None = None
    task: str | None = None
    condition: str | None = None
    inconsistent: bool = False


def _check_choice(name: str, value: str | None, runs: pd.DataFrame, column: str) -> None:
    if value is not None and value not in set(runs[column].astype(str)):
        known = ", ".join(ordered_labels(runs[column], []))
        raise ConfigError(f"--{name} {value!r}: no such {column} in the results (known: {known})")


def inconsistent_mask(runs: pd.DataFrame) -> pd.Series:
    """Runs of an (agent, task, condition, variant) whose repeated runs disagree on success."""
    group = runs.groupby(["agent", "task_id", "condition", "variant"], sort=False)["success"]
    return group.transform("nunique").gt(1)


def filter_runs(runs: pd.DataFrame, selection: RunFilter) -> pd.DataFrame:
    """The rows of ``runs`` that ``selection`` picks (order kept).

    Raises
    ------
    ConfigError
        An agent, task or condition that does not occur in ``runs`` (the known ones listed).
    """
    _check_choice("agent", selection.agent, runs, "agent")
    _check_choice("task", selection.task, runs, "task_id")
    _check_choice("condition", selection.condition, runs, "condition")
    keep = pd.Series(True, index=runs.index)
    if selection.failed:
        keep &= ~runs["success"].astype(bool)
    for value, column in (
        (selection.agent, "agent"),
        (selection.task, "task_id"),
        (selection.condition, "condition"),
    ):
        if value is not None:
            keep &= runs[column].astype(str) == value
    if selection.inconsistent:
        keep &= inconsistent_mask(runs)
    return runs[keep]


def _number(value: Any, digits: int) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return NOT_RECORDED
    return f"{float(value):.{digits}f}"


def _count(value: Any) -> str:
    return NOT_RECORDED if value is None or value != value else str(int(value))


def first_line(error: Any, width: int = _ERROR_WIDTH) -> str:
    """First line of an error message, cut to ``width`` characters ('' for no error)."""
    if not error:
        return ""
    line = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return line if len(line) <= width else line[: width - 1] + "…"


def display_rows(runs: pd.DataFrame) -> list[dict[str, str]]:
    """The run list's cells as text, one dict per run (also used by the HTML report)."""
    rows = []
    for rec in runs.to_dict("records"):
        rows.append(
            {
                "agent": str(rec["agent"]),
                "task": str(rec["task_id"]),
                "condition": str(rec["condition"]),
                "variant": str(rec["variant"]) or NOT_RECORDED,
                "run": str(rec["run"]),
                "success": "✓" if rec["success"] else "✗",
                "score": _number(rec.get("score"), 2),
                "confidence": _number(rec.get("confidence"), 2),
                "actions": _count(rec.get("num_actions")),
                "errors": _count(rec.get("num_errors")),
                "cost": _number(rec.get("cost_usd"), 4),
                "error": first_line(rec.get("error")),
            }
        )
    return rows


def format_run_list(view: ViewedResults, runs: pd.DataFrame) -> str:
    """The text of ``reliability-lab show DIR``: a table of ``runs`` and how to open one."""
    rows = display_rows(runs)
    if not rows:
        return f"No run of {view.directory} matches the filters ({len(view.runs)} runs in all)."
    headers = list(rows[0])
    cells = [headers, *[[row[h] for h in headers] for row in rows]]
    widths = [max(len(line[i]) for line in cells) for i in range(len(headers))]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip() for line in cells
    ]
    cost_note = " (cost: simulated prices)" if view.header.get("simulated") else ""
    example = runs["key"].iloc[0]
    lines += [
        "",
        f"{len(rows)} of {len(view.runs)} runs{cost_note}; ✓ success, ✗ failure, "
        f"{NOT_RECORDED} not recorded.",
        f"One run's transcript: reliability-lab show {view.directory} --run '{example}'",
    ]
    return "\n".join(lines)
