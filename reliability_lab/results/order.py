"""The experiment's own order of agents, tasks, conditions and runs (the config's, as its
header records it): every view — console, viewers, figures, HTML — lists them so."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from reliability_lab.errors import RunTableError
from reliability_lab.results.store import read_header
from reliability_lab.runs import KEY_COLUMNS

__all__ = ["experiment_order", "in_config_order", "ordered_labels"]


def ordered_labels(values: pd.Series, preferred: Sequence[str] | Mapping[str, Any]) -> list[str]:
    """Distinct ``values``: those of ``preferred`` first in its order, the rest sorted."""
    present = set(map(str, values))
    first = [v for v in preferred if v in present]
    return first + sorted(present - set(first))


def _rank(values: pd.Series, order: list[str]) -> pd.Series:
    return values.astype(str).map({v: i for i, v in enumerate(order)})


def in_config_order(report: pd.DataFrame, directory: str | os.PathLike[str]) -> pd.DataFrame:
    """``report``'s rows (indexed by agent) in the order the experiment's config lists the
    agents, when ``directory`` has a header; agents it does not list follow, sorted."""
    try:
        models = read_header(directory).models
    except RunTableError:
        return report
    ordered = report.loc[ordered_labels(pd.Series(report.index, dtype=object), models)]
    ordered.attrs.update(report.attrs)
    return ordered


def experiment_order(runs: pd.DataFrame, header: Mapping[str, Any]) -> pd.DataFrame:
    """``runs`` sorted as the experiment planned them (stable, deterministic)."""
    config = header.get("config", {})
    conditions = [
        c if isinstance(c, str) else c.get("name", "") for c in config.get("conditions", [])
    ]
    ranks = pd.DataFrame(
        {
            "agent": _rank(runs["agent"], ordered_labels(runs["agent"], header.get("models", {}))),
            "task_id": _rank(
                runs["task_id"], ordered_labels(runs["task_id"], header.get("tasks", []))
            ),
            "condition": _rank(runs["condition"], ordered_labels(runs["condition"], conditions)),
            "variant": runs["variant"].astype(str),
            "run": runs["run"],
        },
        index=runs.index,
    )
    order = ranks.sort_values(list(KEY_COLUMNS), kind="mergesort").index
    return runs.loc[order].reset_index(drop=True)
