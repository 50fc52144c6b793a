"""The offline demo on local Ray workers vs the built-in executor, and the driver's write rate.

    .venv/bin/python benchmarks/bench_ray.py                 # experiments/demo.yaml, 2 CPUs
    .venv/bin/python benchmarks/bench_ray.py --limit 4       # a subset of the tasks

1. Runs the demo (CPU-bound: simulated agents, simulated judges) with the built-in asyncio
   executor, then with ``executor: {kind: ray, num_cpus: N}`` into a fresh directory each,
   cache off so nothing is reused; prints both wall times and their ratio. The Ray time is
   reported with and without the start of the local Ray instance.
2. Measures how many records per second the driver can write: the records (and traces) of the
   demo just produced appended one run at a time through the same ``ResultsWriter`` path the
   runner uses (one ``write`` + ``fsync`` per file per run).

Figures are in benchmarks/README.md and docs/distributed.md.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

from reliability_lab.experiment.config import ExperimentConfig, parse_config
from reliability_lab.results.store import ResultsWriter
from reliability_lab.runner import run_experiment
from reliability_lab.runs import session_id

ROOT = Path(__file__).resolve().parents[1]


def _config(limit: int | None, out: Path, executor: dict[str, Any]) -> ExperimentConfig:
    data = yaml.safe_load((ROOT / "experiments" / "demo.yaml").read_text(encoding="utf-8"))
    data.update(output=str(out), cache=False, executor=executor)
    if limit is not None:
        data["environment"] = {**data["environment"], "limit": limit}
    return parse_config(data, source="experiments/demo.yaml")


def _timed_run(config: ExperimentConfig) -> tuple[float, int]:
    start = time.perf_counter()
    outcome = run_experiment(config, progress=False, preflight=False)
    return time.perf_counter() - start, outcome.n_executed


def _write_rate(directory: Path, scratch: Path, repeat: int) -> tuple[float, int, float]:
    """(records/s, records written, mean bytes per record incl. traces)."""
    records = [json.loads(x) for x in (directory / "results.jsonl").read_text().splitlines()]
    traces: dict[str, list[dict[str, Any]]] = {}
    for line in (directory / "traces.jsonl").read_text().splitlines():
        trace = json.loads(line)
        traces.setdefault(trace["session_id"], []).append(trace)
    batches = [(r, traces.get(session_id(r), [])) for r in records] * repeat
    nbytes = sum(len(json.dumps(r)) + sum(len(json.dumps(t)) for t in ts) for r, ts in batches)
    with (
        ResultsWriter(scratch / "results.jsonl") as writer,
        ResultsWriter(scratch / "traces.jsonl") as traces_writer,
    ):
        start = time.perf_counter()
        for record, run_traces in batches:  # exactly the runner's persist step
            traces_writer.append_many(run_traces)
            writer.append(record)
        elapsed = time.perf_counter() - start
    return len(batches) / elapsed, len(batches), nbytes / len(batches)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="first N tasks of the demo")
    parser.add_argument("--num-cpus", type=int, default=2, help="CPUs of the local Ray instance")
    parser.add_argument("--repeat", type=int, default=5, help="write-rate: records written x N")
    args = parser.parse_args()
    import ray

    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        builtin_s, n = _timed_run(_config(args.limit, base / "builtin", {"kind": "asyncio"}))
        print(f"built-in asyncio executor: {n} runs in {builtin_s:.1f} s")
        start = time.perf_counter()
        ray.init(
            address="local",
            num_cpus=args.num_cpus,
            include_dashboard=False,
            log_to_driver=False,
            logging_level="ERROR",
            _system_config={"agent_register_timeout_ms": 300_000},
        )
        ray_start_s = time.perf_counter() - start
        try:
            ray_cfg = _config(args.limit, base / "ray", {"kind": "ray"})
            ray_s, n_ray = _timed_run(ray_cfg)
        finally:
            ray.shutdown()
        print(
            f"Ray, {args.num_cpus} local workers: {n_ray} runs in {ray_s:.1f} s "
            f"(+ {ray_start_s:.1f} s to start the local Ray instance)"
        )
        print(
            f"ratio built-in / Ray: {builtin_s / ray_s:.2f} (runs only), "
            f"{builtin_s / (ray_s + ray_start_s):.2f} (including Ray's start)"
        )
        rate, written, size = _write_rate(base / "ray", base, args.repeat)
        print(
            f"driver write rate: {rate:.0f} records/s ({written} records with their traces, "
            f"{size / 1024:.1f} KiB per run, one fsync per file per run)"
        )


if __name__ == "__main__":
    main()
