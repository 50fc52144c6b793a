"""Synthetic run tables and ``results.jsonl`` files of a given shape, for the benchmarks.

Shape: tasks × runs × conditions, trajectories of 8–12 actions over 12 tool names, four
recorded resources, about 2 % of runs crashed (infrastructure errors), and confidences either
continuous (about 92 % of baseline runs at a distinct level: the many-levels case) or on a
grid of 21 levels (0, 0.05, …, 1: the few-levels case).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from reliability_lab._actions import ActionsArray
from reliability_lab._lists import RecordsArray

CONDITIONS = ("baseline", "fault", "structural", "prompt")
TOOLS = np.array([f"tool_{i}" for i in range(12)], dtype=object)
CRASH_SHARE = 0.02


def synthetic_runs(
    n_tasks: int,
    n_runs: int,
    n_conditions: int,
    *,
    levels: str = "many",
    seed: int = 0,
    coded: bool = False,
) -> pd.DataFrame:
    """A run table of ``n_tasks × n_runs × n_conditions`` runs (see the module docstring).

    ``coded``: the list columns as the run table holds them (``actions`` as codes +
    vocabulary, ``violations`` stored flat: what ``load_results`` and ``validate_run_table``
    return), never as Python lists.
    """
    rng = np.random.default_rng(seed)
    conditions = CONDITIONS[:n_conditions]
    n = n_tasks * n_runs * len(conditions)
    task = np.tile(np.repeat(np.arange(n_tasks), n_runs), len(conditions))
    condition = np.repeat(np.array(conditions, dtype=object), n_tasks * n_runs)
    difficulty = rng.uniform(0.05, 0.95, n_tasks)[task]
    penalty = np.where(condition == "baseline", 0.0, 0.1)
    success = rng.random(n) < (difficulty - penalty)
    confidence = np.clip(difficulty + rng.normal(0, 0.15, n), 0, 1)
    if levels == "few":
        confidence = np.round(confidence * 20) / 20
    crashed = rng.random(n) < CRASH_SHARE
    lengths = np.where(crashed, 0, rng.integers(8, 13, n))
    codes = rng.integers(0, len(TOOLS), lengths.sum())
    if coded:
        offsets = np.concatenate(([0], np.cumsum(lengths)))
        actions: Any = ActionsArray(codes, offsets, TOOLS)
    else:
        actions = [list(a) for a in np.split(TOOLS[codes], np.cumsum(lengths)[:-1])]
    # each distinct string is one object, as load_results gives them (equal strings shared)
    labels = np.array([f"task-{t}" for t in range(n_tasks)], dtype=object)
    return pd.DataFrame(
        {
            "agent": "synthetic",
            "task_id": labels[task],
            "condition": condition,
            "variant": np.array(["", "v1"], dtype=object)[(condition != "baseline").astype(int)],
            "run": np.tile(np.arange(n_runs), n_tasks * len(conditions)),
            "success": success & ~crashed,
            "confidence": np.where(crashed, np.nan, confidence),
            "confidence_source": np.array(["elicited", "none"], dtype=object)[crashed.astype(int)],
            "actions": actions,
            "cost_usd": rng.gamma(2.0, 0.01, n),
            "wall_time_s": rng.gamma(3.0, 2.0, n),
            "api_calls": lengths + 1.0,
            "num_actions": lengths.astype(float),
            "violations": RecordsArray.empty(n) if coded else [[] for _ in range(n)],
            "error": np.where(crashed, "infrastructure: provider timeout", None),
        }
    )


def write_results(runs: pd.DataFrame, path: Path, seed: int = 0) -> int:
    """Write ``runs`` as ``results.jsonl`` lines (docs/results.md); returns the bytes written."""
    rng = np.random.default_rng(seed)
    records = runs.astype(object).where(runs.notna(), None).to_dict("records")
    with path.open("w", encoding="utf-8") as fh:
        for record, s in zip(records, rng.integers(0, 2**31, len(records)), strict=True):
            record.update(
                schema_version=1,
                score=float(record["success"]),
                seed=int(s),
                model="sim/calibrated",
                environment="synthetic",
                simulated=True,
                prompt_tokens=812,
                completion_tokens=97,
                final_answer="done",
                confidence_raw=None if record["confidence"] is None else "0.8",
                session=None,
                safety=None,
                perturbation=None,
            )
            fh.write(json.dumps(record) + "\n")
        return fh.tell()
