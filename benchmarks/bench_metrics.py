"""Benchmark ``reliability_report`` on a synthetic run table.

Prints wall time, runs/second and peak memory (max RSS of this process) for the report
without and with the bootstrap. Targets on a 2-core machine: 10,000 tasks × 10 runs ×
4 conditions (400,000 runs) in < 10 s without and < 60 s with B = 1000, peak < 2 GB.

    python benchmarks/bench_metrics.py --tasks 10000 --runs 10 --conditions 4 --boot 1000
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
import warnings

import numpy as np
import pandas as pd

from reliability_lab import reliability_report
from reliability_lab.errors import UndefinedMetricWarning

CONDITIONS = ("baseline", "fault", "structural", "prompt")
TOOLS = np.array([f"tool_{i}" for i in range(12)], dtype=object)


def synthetic_runs(n_tasks: int, n_runs: int, n_conditions: int, seed: int = 0) -> pd.DataFrame:
    """A run table with ~10-action trajectories, continuous confidences and resources."""
    rng = np.random.default_rng(seed)
    conditions = CONDITIONS[:n_conditions]
    n = n_tasks * n_runs * len(conditions)
    task = np.tile(np.repeat(np.arange(n_tasks), n_runs), len(conditions))
    condition = np.repeat(np.array(conditions, dtype=object), n_tasks * n_runs)
    difficulty = rng.uniform(0.05, 0.95, n_tasks)[task]
    penalty = np.where(condition == "baseline", 0.0, 0.1)
    success = rng.random(n) < (difficulty - penalty)
    confidence = np.clip(difficulty + rng.normal(0, 0.15, n), 0, 1)
    lengths = rng.integers(8, 13, n)
    flat = TOOLS[rng.integers(0, len(TOOLS), lengths.sum())]
    actions = np.split(flat, np.cumsum(lengths)[:-1])
    return pd.DataFrame(
        {
            "agent": "synthetic",
            "task_id": pd.Series(task).map("task-{}".format),
            "condition": condition,
            "variant": np.where(condition == "baseline", "", "v1"),
            "run": np.tile(np.arange(n_runs), n_tasks * len(conditions)),
            "success": success,
            "confidence": confidence,
            "confidence_source": "elicited",
            "actions": [list(a) for a in actions],
            "cost_usd": rng.gamma(2.0, 0.01, n),
            "wall_time_s": rng.gamma(3.0, 2.0, n),
            "api_calls": lengths + 1.0,
            "num_actions": lengths.astype(float),
            "violations": [[] for _ in range(n)],
        }
    )


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _time(runs: pd.DataFrame, n_boot: int) -> float:
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        reliability_report(runs, n_boot=n_boot, seed=0)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--conditions", type=int, default=4, choices=range(1, 5))
    parser.add_argument("--boot", type=int, default=1000)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    runs = synthetic_runs(args.tasks, args.runs, args.conditions)
    n = len(runs)
    print(
        f"synthetic run table: {args.tasks} tasks x {args.runs} runs x {args.conditions} "
        f"conditions = {n:,} runs (built in {time.perf_counter() - start:.1f} s)"
    )
    for n_boot in (0, args.boot):
        elapsed = _time(runs, n_boot)
        print(
            f"reliability_report n_boot={n_boot:<5d} wall {elapsed:7.2f} s   "
            f"{n / elapsed:12,.0f} runs/s   peak RSS {_peak_mb():7.0f} MB"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
