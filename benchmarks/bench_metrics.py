"""Benchmark the reliability report, the flat consistency functions and the results reader.

Every figure is CPU seconds (``time.process_time``), best of ``--repeat``, printed beside a
*floor* measured in the same run on the same data: the least work the step needs (keys, sums,
one pass over the actions, edit distances; parsing the JSON lines), so that the ratio, not the
machine's load, is what compares. A step and its floor are timed in turns (step, floor, step,
…), and so are the old and the new reader's fresh interpreters: a slow spell of a shared host
falls on both sides. Peak memory is the max RSS of a fresh interpreter that builds
the run table and computes the report (``--boot 0``) — the table itself included.

    python benchmarks/bench_metrics.py --tasks 10000 --runs 10 --conditions 4 --boot 1000

Rows (issue 26): report at B = 0 (target ≤ 1.3 × floor); report at B = ``--boot`` with many
(≈ 92k) and few (21) confidence levels (target ≤ 2.5 s); the five flat consistency functions
on the baseline runs (target ≤ 0.35 s at 100k runs); ``load_results`` of a ``results.jsonl``
of ``--read-runs`` runs (target ≥ 4 × faster than before); peak memory (target ≤ 250 MB).
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import Levenshtein
import numpy as np
import orjson
import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))
from _synthetic import synthetic_runs, write_results

from reliability_lab import reliability_report
from reliability_lab._actions import ActionsArray
from reliability_lab.errors import UndefinedMetricWarning
from reliability_lab.metrics import (
    confidence_consistency,
    outcome_consistency,
    resource_consistency,
    trajectory_distribution_consistency,
    trajectory_sequence_consistency,
)
from reliability_lab.results.read import load_results

#: Seconds to wait after a call before reading the clock: a multithreaded BLAS keeps its worker
#: threads spinning for ~0.1 s after a matrix product. That CPU time belongs to the call (it is
#: counted here), not to whatever is timed next (a floor).
SETTLE_S = 0.25


def _seconds(call: Callable[[], Any]) -> float:
    """CPU seconds of one call, the BLAS workers' spinning after it included
    (UndefinedMetricWarnings silenced)."""
    start = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        call()
    time.sleep(SETTLE_S)  # the main thread sleeps: only the workers' CPU time still counts
    return time.process_time() - start


def cpu(call: Callable[[], Any], repeat: int) -> float:
    """Least CPU seconds of ``repeat`` calls."""
    return min(_seconds(call) for _ in range(repeat))


def cpu_against(
    call: Callable[[], Any], floor: Callable[[], Any], repeat: int
) -> tuple[float, float]:
    """Least CPU seconds of ``call`` and of its ``floor``, timed in turns (call, floor, call,
    …): a slow spell of the machine (other processes, a neighbour on the host) then falls on
    both, not on one of them, and the least of each is taken."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeat):
        times[0].append(_seconds(call))
        times[1].append(_seconds(floor))
    return min(times[0]), min(times[1])


def _action_strings(actions: Any) -> np.ndarray:
    """One str per run, one character per distinct action: one pass over the actions (over
    the codes when the column holds them, else over the lists of names)."""
    if isinstance(actions.array, ActionsArray):
        codes, offsets = actions.array.codes, actions.array.offsets
    else:  # lists: flattened and coded in C (no Python step per action)
        runs = actions.to_numpy(dtype=object)
        lengths = np.fromiter(map(len, runs), np.int64, len(runs))
        offsets = np.concatenate(([0], np.cumsum(lengths)))
        flat = np.fromiter(itertools.chain.from_iterable(runs), object, int(offsets[-1]))
        codes = pd.factorize(flat)[0]
    text = (np.asarray(codes).astype("<u4") + 0x100).tobytes().decode("utf-32-le")
    bounds = offsets.tolist()
    return np.fromiter(map(text.__getitem__, map(slice, bounds[:-1], bounds[1:])), object)


def report_floor(runs: pd.DataFrame) -> None:
    """The least work of a report: keys, per-task sums, one pass over the actions, and the
    edit distances of every pair of successful baseline runs of a task."""
    codes, _ = pd.factorize(runs["task_id"])
    cond, _ = pd.factorize(runs["condition"])
    key = codes * 8 + cond
    for col in ("success", "confidence", "cost_usd", "wall_time_s", "api_calls"):
        np.bincount(key, weights=runs[col].to_numpy(dtype=float))
    strings = _action_strings(runs["actions"])
    base = (runs["condition"] == "baseline").to_numpy() & runs["success"].to_numpy()
    by_task: dict[int, list[str]] = {}
    for task, s in zip(codes[base], strings[base], strict=True):
        by_task.setdefault(task, []).append(s)
    for group in by_task.values():
        for a, b in itertools.combinations(group, 2):
            Levenshtein.distance(a, b)


def flat_five(base: pd.DataFrame) -> None:
    task, success, actions = base["task_id"], base["success"], base["actions"]
    outcome_consistency(success, task)
    confidence_consistency(base["confidence"], task)
    resource_consistency({c: base[c] for c in ("cost_usd", "wall_time_s", "api_calls")}, task)
    trajectory_distribution_consistency(actions, task, success)
    trajectory_sequence_consistency(actions, task, success)


def five_floor(base: pd.DataFrame) -> None:
    """The least work of the five: task keys, per-task sums, one pass over the action lists,
    the edit distances of the pairs (the Jensen–Shannon distances not included)."""
    report_floor(base)


_IMPORT = "import time; t = time.process_time(); import {module}; print(time.process_time() - t)"


def import_seconds(module: str, repeat: int = 5) -> float:
    """Least CPU seconds to import ``module`` in a fresh interpreter (``repeat`` of them)."""
    times = []
    for _ in range(repeat):
        code = _IMPORT.format(module=module)
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        )
        times.append(float(out.stdout))
    return min(times)


_PEAK = """
import resource, sys, warnings
def peak():  # this process's own high-water mark: ru_maxrss would carry the forking parent's
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return float(line.split()[1]) / 1024.0
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
sys.path.insert(0, {bench!r})
from _synthetic import synthetic_runs
from reliability_lab import reliability_report
warnings.simplefilter("ignore")
imported = peak()
runs = synthetic_runs({tasks}, {runs}, {conditions}, coded=True)
table = peak()
reliability_report(runs, n_boot=0, seed=0)
print(imported, table, peak())
"""


def peak_mb(args: argparse.Namespace) -> tuple[float, ...]:
    """Peak MB of a fresh interpreter after its imports, after building the (coded) run table,
    and after the report at B = 0."""
    code = _PEAK.format(
        bench=str(Path(__file__).parent),
        tasks=args.tasks,
        runs=args.runs,
        conditions=args.conditions,
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return tuple(float(x) for x in out.stdout.split()[-3:])


_READER = """
import sys, time
sys.path.insert(0, {source!r})
try:
    from reliability_lab.results.read import load_results
except ImportError:  # the layout before issue 19
    from reliability_lab.experiment.results import load_results
best = float("inf")
for _ in range({repeat}):
    start = time.process_time()
    load_results({path!r})
    best = min(best, time.process_time() - start)
peak = [line for line in open("/proc/self/status") if line.startswith("VmHWM:")]
print(best, float(peak[0].split()[1]) / 1024 if peak else float("nan"))
"""


def reader_in_fresh_interpreter(source: str, path: Path, repeat: int) -> tuple[float, float]:
    """Least CPU seconds of ``load_results`` of the package checked out at ``source`` (this
    repository, or a worktree of an older commit), in a fresh interpreter, on ``path``; and
    that interpreter's peak memory (MB)."""
    code = _READER.format(source=str(Path(source).resolve()), path=str(path), repeat=repeat)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    seconds, peak = out.stdout.split()[-2:]
    return float(seconds), float(peak)


def reader_rows(args: argparse.Namespace) -> None:
    runs = synthetic_runs(args.read_runs // 10, 10, 1)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "results.jsonl"
        size = write_results(runs, path)
        lines = [line for line in path.read_bytes().split(b"\n") if line]
        # this package and the old one (if given) in fresh interpreters, in turns: the least
        # of each over the rounds, and each one's peak memory
        this = str(Path(__file__).parents[1])
        sources = [this, *([args.reader_before] if args.reader_before else [])]
        fresh: dict[str, list[tuple[float, float]]] = {source: [] for source in sources}
        for _ in range(args.repeat):
            for source in sources:
                fresh[source].append(reader_in_fresh_interpreter(source, path, 2))
        after, after_peak = min(fresh[this])

        def parse_only() -> None:
            gc.disable()  # the parsed objects are not traversed again and again
            try:
                [orjson.loads(line) for line in lines]
            finally:
                gc.enable()

        took, floor = cpu_against(lambda: load_results(path), parse_only, args.repeat)
        stdlib = cpu(lambda: [json.loads(line) for line in lines], 1)
    print(
        f"load_results {len(runs):,} runs ({size / 1e6:.0f} MB)   {took:6.2f} s   "
        f"floor (orjson parse) {floor:5.2f} s  ratio {took / floor:4.1f}   "
        f"[stdlib json.loads per line alone: {stdlib:5.2f} s]"
    )
    print(
        f"load_results in a fresh interpreter: {after:6.2f} s, peak memory {after_peak:.0f} MB "
        f"(the file {size / 1e6:.0f} MB)"
    )
    if args.reader_before:
        before, before_peak = min(fresh[args.reader_before])
        print(
            f"load_results before (package at {args.reader_before}), fresh interpreter: "
            f"{before:6.2f} s, peak {before_peak:.0f} MB   speed-up {before / after:4.1f} x   "
            f"(target >= 4; fresh interpreters in turns, least of {args.repeat} rounds)"
        )


_PARTS = ("report", "reader", "memory")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--conditions", type=int, default=4, choices=range(1, 5))
    parser.add_argument("--boot", type=int, default=1000)
    parser.add_argument("--read-runs", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=3, help="least of this many timings")
    parser.add_argument(
        "--reader-before",
        metavar="DIR",
        help="also time load_results of the package in DIR (a worktree of the code before "
        "issue 26, e.g. `git worktree add /tmp/before 5cf2b89^`) on the same file",
    )
    parser.add_argument(
        "--only",
        action="append",
        choices=_PARTS,
        help="run only this part (repeatable): report (B = 0, B = 1000, flat functions), "
        "reader (load_results), memory (peak of the 400k report); default all",
    )
    args = parser.parse_args(argv)
    parts = set(args.only or _PARTS)
    print(f"CPU seconds, least of {args.repeat}; floors measured in this run")
    if "report" in parts:
        report_rows(args)
    if "reader" in parts:
        reader_rows(args)
    if "memory" in parts:
        imported, table, report = peak_mb(args)
        print(
            f"peak memory, report B=0 (fresh interpreter): {report:.0f} MB, of which imports "
            f"{imported:.0f} MB and building the coded table {table - imported:.0f} MB"
        )
    return 0


def report_rows(args: argparse.Namespace) -> None:
    print(f"import reliability_lab.metrics  {import_seconds('reliability_lab.metrics'):6.3f} s")
    for levels in ("many", "few"):
        lists = synthetic_runs(args.tasks, args.runs, args.conditions, levels=levels)
        runs = synthetic_runs(args.tasks, args.runs, args.conditions, levels=levels, coded=True)
        base = lists[lists["condition"] == "baseline"]
        n_levels = base["confidence"].dropna().nunique()
        print(f"--- {len(runs):,} runs, {n_levels:,} confidence levels among baseline runs")
        for name, table in (("coded table", runs), ("list table", lists)):
            zero, floor = cpu_against(
                lambda r=table: reliability_report(r, n_boot=0, seed=0),
                lambda r=table: report_floor(r),
                args.repeat,
            )
            print(
                f"report B=0, {name:<12s}{zero:6.2f} s   floor {floor:5.2f} s  "
                f"ratio {zero / floor:4.2f}"
            )
        boot = cpu(lambda r=runs: reliability_report(r, n_boot=args.boot, seed=0), args.repeat)
        print(f"report B={args.boot:<5d}            {boot:6.2f} s   (target 2.5 s)")
        if levels == "many":
            five, kernels = cpu_against(
                lambda b=base: flat_five(b), lambda b=base: five_floor(b), args.repeat
            )
            print(
                f"flat consistency x5   {five:6.2f} s   on {len(base):,} baseline runs "
                f"(lists of lists); floor {kernels:5.2f} s  ratio {five / kernels:4.2f}"
            )


if __name__ == "__main__":
    sys.exit(main())
