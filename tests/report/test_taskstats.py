"""A bootstrap replicate from per-task statistics equals the metrics of the resampled runs.

The report never recomputes metrics over runs for a replicate: it re-weights per-task
sufficient statistics. Here each replicate is also built the slow way — the runs of each task
repeated as often as the task was drawn — and scored with the flat metric functions.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest

from reliability_lab import metrics as M
from reliability_lab.metrics.profiles import get_profile
from reliability_lab.report import _levels
from reliability_lab.report._taskstats import TaskStats
from reliability_lab.runs import validate_run_table


def _runs(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n_tasks, k = 7, 4
    task = np.repeat([f"t{i}" for i in range(n_tasks)], k)
    # A coarse confidence grid: levels shared by several tasks, and ties within a task.
    confidence = rng.choice([0.1, 0.3, 0.5, 0.7, 0.9, 1.0], size=len(task))
    return _table(rng, task, k, confidence)


def _table(
    rng: np.random.Generator, task: np.ndarray, k: int, confidence: np.ndarray
) -> pd.DataFrame:
    success = rng.random(len(task)) < confidence
    return validate_run_table(
        pd.DataFrame(
            {
                "agent": "a",
                "task_id": task,
                "run": np.tile(np.arange(k), len(task) // k),
                "success": success,
                "confidence": confidence,
            }
        )
    )


def _resampled(runs: pd.DataFrame, labels: list[str], weight: np.ndarray) -> pd.DataFrame:
    parts = [
        runs[runs["task_id"] == t] for t, m in zip(labels, weight, strict=True) for _ in range(m)
    ]
    return pd.concat(parts, ignore_index=True)


def _continuous_runs(seed: int) -> pd.DataFrame:
    """Distinct confidences (long blocks of one outcome), a few exact ties at 0 and 1."""
    rng = np.random.default_rng(seed)
    n_tasks, k = 9, 5
    task = np.repeat([f"t{i}" for i in range(n_tasks)], k)
    confidence = np.clip(rng.normal(0.5, 0.4, size=len(task)), 0.0, 1.0)
    return _table(rng, task, k, confidence)


@pytest.mark.parametrize("dense_cells", [0, 10**9], ids=["running-sums", "dense-product"])
@pytest.mark.parametrize("make_runs", [_runs, _continuous_runs], ids=["grid", "continuous"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_replicates_equal_metrics_of_resampled_runs(
    seed: int, make_runs: Any, dense_cells: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Also for both ways of counting runs per confidence block (dense product, running sums)."""
    monkeypatch.setattr(_levels, "_DENSE_CELLS", dense_cells)
    runs = make_runs(seed)
    stats = TaskStats.build(runs, get_profile("default"))
    labels = sorted(runs["task_id"].unique())  # TaskStats codes tasks in sorted order
    rng = np.random.default_rng(100 + seed)
    weights = rng.multinomial(len(labels), np.full(len(labels), 1 / len(labels)), size=6)
    values = stats.evaluate(weights.astype(float))
    for b, weight in enumerate(weights):
        sample = _resampled(runs, labels, weight)
        c, y = sample["confidence"], sample["success"]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = {
                "P_brier": M.brier_score(c, y),
                "P_cal": M.calibration_score(c, y),
                "P_auroc": M.auroc_score(c, y),
                "P_rc": M.risk_coverage_score(c, y),
                "accuracy": float(y.mean()),
            }
        for name, value in expected.items():
            assert values[name][b] == pytest.approx(value, abs=1e-12, nan_ok=True), (name, b)


def test_blocks_merge_only_one_outcome_levels() -> None:
    """Levels of one outcome in a row become one block; a level with both stays alone."""
    pos = np.array([1.0, 2.0, 0.0, 0.0, 1.0, 1.0, 3.0])
    neg = np.array([0.0, 0.0, 1.0, 2.0, 1.0, 0.0, 0.0])
    assert _levels._block_of_level(pos, neg).tolist() == [0, 0, 1, 1, 2, 3, 3]
