"""Runner throughput against a local OpenAI-compatible server with a fixed per-call latency.

Starts ``tests/experiment/fake_openai_server.py`` in a separate process (so the server's CPU
time is not charged to us), then runs the real stack — runner → agent loop → LLMClient →
litellm → HTTP — at several concurrency levels, with the response cache off so every call
reaches the server. Prints achieved LLM calls per second against the ideal (concurrency ÷
latency) and where the time per call goes:

- ``call ms``: mean latency of one LLM call as the agent sees it (server latency + litellm +
  HTTP), so ``call ms − latency`` is litellm's and the HTTP stack's overhead;
- ``agent ms/call``: run wall time not spent waiting for calls (tool execution, environment,
  message handling), per call;
- ``overhead ms/call``: concurrency ÷ achieved rate − latency, the total per-call cost of
  everything that is not the server's latency (includes queueing for the CPU).

Target (issue 3): ≥ 80 % of ideal at concurrency 16.

Usage::

    python benchmarks/bench_runner.py [--latency 0.1] [--levels 1 4 16 32] [--model M]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SERVER = ROOT / "tests" / "experiment" / "fake_openai_server.py"


@dataclass(frozen=True)
class Level:
    concurrency: int
    runs: int
    calls: int
    seconds: float
    call_latency_s: float
    agent_s_per_call: float


def _start_server(latency: float) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, str(SERVER), "--latency", str(latency)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline().split()
    if not line or line[0] != "READY":
        proc.kill()
        raise RuntimeError("fake server did not start")
    return proc, line[1]


def _measure(concurrency: int, base_url: str, model: str, tmp: Path, latency: float) -> Level:
    from reliability_lab.agents import RunResult, RunSpec, execute_run
    from reliability_lab.experiment import parse_config, run_experiment
    from reliability_lab.llm import LLMClient

    calls_per_run = 3  # tool call, final answer, confidence (fake server's script)
    # about 6 s of ideal work per level (at least 60 calls), so start-up and tail are small
    target_calls = max(60, int(6 * concurrency / latency))
    n_runs = max(concurrency * 2, target_calls // calls_per_run)
    n_tasks = 24
    k = max(1, -(-n_runs // n_tasks))
    times: list[tuple[float, float]] = []

    async def timed(spec: RunSpec, llm: LLMClient) -> RunResult:
        start = time.perf_counter()
        result = await execute_run(spec, llm)
        times.append((start, time.perf_counter()))
        return result

    config = parse_config(
        {
            "name": f"bench-c{concurrency}",
            "runs": k,
            "max_concurrent": concurrency,
            "cache": False,
            "output": str(tmp / f"c{concurrency}"),
            "agents": [{"label": "bench", "model": model, "params": {"api_base": base_url}}],
            "report": {"n_boot": 10},
        }
    )
    outcome = run_experiment(config, progress=False, execute=timed)
    runs = outcome.summary.runs
    errors = runs["error"].dropna()
    if len(errors):
        raise RuntimeError(f"benchmark runs failed: {errors.iloc[0]}")
    calls = int(runs["api_calls"].sum())
    seconds = max(e for _, e in times) - min(s for s, _ in times)
    waited = (runs["call_latency_s"] * runs["api_calls"]).sum()
    agent = (runs["wall_time_s"].sum() - waited) / calls
    return Level(concurrency, len(runs), calls, seconds, float(waited / calls), float(agent))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="runner throughput benchmark")
    parser.add_argument("--latency", type=float, default=0.1, help="server latency per call (s)")
    parser.add_argument("--levels", type=int, nargs="+", default=[1, 4, 16, 32])
    parser.add_argument(
        "--model",
        default="openai/gpt-4o-mini",
        help="model name sent to the fake server (a priced name exercises cost tracking)",
    )
    parser.add_argument(
        "--sdk-free",
        action="store_true",
        help="set litellm's EXPERIMENTAL_OPENAI_BASE_LLM_HTTP_HANDLER=true (OpenAI calls without "
        "the openai SDK, whose request transform dominates the per-call CPU)",
    )
    args = parser.parse_args(argv)
    if args.sdk_free:
        os.environ["EXPERIMENTAL_OPENAI_BASE_LLM_HTTP_HANDLER"] = "true"
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench-not-a-real-key")
    import reliability_lab  # noqa: F401  (sets the offline cost-map flag before litellm loads)

    proc, base_url = _start_server(args.latency)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            _measure(1, base_url, args.model, Path(tmp) / "warmup", args.latency)  # imports
            rows = [_measure(c, base_url, args.model, Path(tmp), args.latency) for c in args.levels]
    finally:
        proc.kill()
        proc.wait()
    lat_ms = args.latency * 1000
    path = "litellm base HTTP handler (no openai SDK)" if args.sdk_free else "litellm default"
    print(
        f"runner benchmark: server latency {lat_ms:.0f} ms/call, model {args.model}, "
        f"cache off, {path}"
    )
    print(
        f"{'conc':>4} {'runs':>5} {'calls':>6} {'secs':>6} {'calls/s':>8} {'ideal':>6} "
        f"{'%ideal':>7} {'call ms':>8} {'agent ms/call':>13} {'overhead ms/call':>16}"
    )
    for r in rows:
        rate = r.calls / r.seconds
        ideal = r.concurrency / args.latency
        overhead = r.concurrency / rate * 1000 - lat_ms
        print(
            f"{r.concurrency:>4} {r.runs:>5} {r.calls:>6} {r.seconds:>6.2f} {rate:>8.1f} "
            f"{ideal:>6.0f} {rate / ideal:>7.1%} {r.call_latency_s * 1000:>8.1f} "
            f"{r.agent_s_per_call * 1000:>13.2f} {overhead:>16.2f}"
        )
    at16 = [r for r in rows if r.concurrency == 16]
    if at16:
        share = at16[0].calls / at16[0].seconds / (16 / args.latency)
        print(f"target >= 80% of ideal at concurrency 16: {'met' if share >= 0.8 else 'MISSED'}")


if __name__ == "__main__":
    main()
