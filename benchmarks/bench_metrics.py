"""Benchmark ``reliability_report`` and the flat metric functions on a synthetic run table.

Prints wall time, runs/second and peak memory (max RSS of this process) for the report
without and with the bootstrap, the flat trajectory functions on the baseline runs, and the
time to ``import reliability_lab.metrics`` in a fresh interpreter. Targets on a 2-core machine:
10,000 tasks × 10 runs × 4 conditions (400,000 runs) in < 2 s without and < 10 s with
B = 1000; each flat trajectory function on 100,000 runs (10,000 tasks × 10) in < 1 s;
``import reliability_lab.metrics`` in < 0.5 s.

    python benchmarks/bench_metrics.py --tasks 10000 --runs 10 --conditions 4 --boot 1000
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from reliability_lab import reliability_report
from reliability_lab.errors import UndefinedMetricWarning
from reliability_lab.metrics import (
    trajectory_distribution_consistency,
    trajectory_sequence_consistency,
)

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


def _time(call: Callable[[], Any], repeat: int = 1) -> float:
    """Best wall time of ``repeat`` calls (UndefinedMetricWarnings silenced)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            call()
        best = min(best, time.perf_counter() - start)
    return best


_IMPORT = "import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"


def import_seconds(module: str, repeat: int = 5) -> float:
    """Best time to import ``module`` in a fresh interpreter (``repeat`` interpreters)."""
    times = []
    for _ in range(repeat):
        out = subprocess.run(
            [sys.executable, "-c", _IMPORT.format(module=module)],
            capture_output=True,
            text=True,
            check=True,
        )
        times.append(float(out.stdout))
    return min(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--conditions", type=int, default=4, choices=range(1, 5))
    parser.add_argument("--boot", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=1, help="best of this many timings")
    args = parser.parse_args(argv)
    for module in ("reliability_lab.metrics", "reliability_lab.metrics.consistency"):
        print(f"import {module:<38} {import_seconds(module):6.3f} s (best of 5 interpreters)")
    start = time.perf_counter()
    runs = synthetic_runs(args.tasks, args.runs, args.conditions)
    n = len(runs)
    print(
        f"synthetic run table: {args.tasks} tasks x {args.runs} runs x {args.conditions} "
        f"conditions = {n:,} runs (built in {time.perf_counter() - start:.1f} s)"
    )
    base = runs[runs["condition"] == "baseline"]
    flat = (base["actions"], base["task_id"], base["success"])
    for name, function in (
        ("trajectory_distribution_consistency", trajectory_distribution_consistency),
        ("trajectory_sequence_consistency", trajectory_sequence_consistency),
    ):
        elapsed = _time(lambda f=function: f(*flat), args.repeat)
        print(f"{name:<37} {len(base):,} runs  wall {elapsed:7.2f} s")
    for n_boot in (0, args.boot):
        elapsed = _time(lambda b=n_boot: reliability_report(runs, n_boot=b, seed=0), args.repeat)
        print(
            f"reliability_report n_boot={n_boot:<5d} wall {elapsed:7.2f} s   "
            f"{n / elapsed:12,.0f} runs/s   peak RSS {_peak_mb():7.0f} MB"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
