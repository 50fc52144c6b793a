"""Runner throughput against a local OpenAI-compatible server with a fixed per-call latency.

Starts ``tests/fake_openai_server.py`` in a separate process (so the server's CPU
time is not charged to us), then runs the real stack — runner → agent loop → LLMClient →
litellm → HTTP — at several concurrency levels, with the response cache off so every call
reaches the server. Prints achieved LLM calls per second against the ideal (concurrency ÷
latency) and where the time per call goes:

- ``call ms``: mean latency of one LLM call as the agent sees it (server latency + litellm +
  HTTP), so ``call ms − latency`` is litellm's and the HTTP stack's overhead;
- ``agent ms/call``: run wall time not spent waiting for calls (tool execution, environment,
  message handling), per call;
- ``overhead ms/call``: concurrency ÷ achieved rate − latency, the total per-call cost of
  everything that is not the server's latency (includes queueing for the CPU);
- ``cpu ms/call``: CPU time of this process (all threads) per call — the figure that decides
  the ceiling (the runner holds one GIL) and, unlike wall time, barely moves when other
  processes load the machine.

Finally it measures the boundary's own cost: CPU per call of ``LLMClient.acompletion`` minus
CPU per call of the same ``litellm.acompletion`` call made directly (same process, same
transport), both at concurrency 16. That difference is our own overhead; the rest of the
per-call CPU is litellm's and the HTTP stack's.

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
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SERVER = ROOT / "tests" / "fake_openai_server.py"


@dataclass(frozen=True)
class Level:
    concurrency: int
    runs: int
    calls: int
    seconds: float
    call_latency_s: float
    agent_s_per_call: float
    cpu_s: float


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
    from reliability_lab.experiment import parse_config
    from reliability_lab.llm import LLMClient
    from reliability_lab.runner import run_experiment

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
            # Session scoring (judge + embeddings after each run) is CPU work of its own,
            # measured by the demo; this benchmark measures the LLM call path.
            "sessions": {"enabled": False},
        }
    )
    cpu0 = time.process_time()
    outcome = run_experiment(config, progress=False, execute=timed)
    cpu = time.process_time() - cpu0
    runs = outcome.summary.runs
    errors = runs["error"].dropna()
    if len(errors):
        raise RuntimeError(f"benchmark runs failed: {errors.iloc[0]}")
    calls = int(runs["api_calls"].sum())
    seconds = max(e for _, e in times) - min(s for s, _ in times)
    waited = (runs["call_latency_s"] * runs["api_calls"]).sum()
    agent = (runs["wall_time_s"].sum() - waited) / calls
    return Level(
        concurrency, len(runs), calls, seconds, float(waited / calls), float(agent), cpu / calls
    )


def _boundary_overhead(base_url: str, model: str, batches: int = 25) -> tuple[float, float]:
    """CPU seconds per call: (through LLMClient, litellm called directly), concurrency 16."""
    import asyncio

    from reliability_lab.llm import LLMClient
    from reliability_lab.llm._litellm import load_litellm

    litellm = load_litellm()  # the same module, configured the same way, as LLMClient uses
    client = LLMClient()
    messages = [
        {"role": "system", "content": "You are a customer-service agent. " * 20},
        {"role": "user", "content": "Where is my order O1001? " * 5},
    ]

    async def ours() -> None:
        await client.acompletion(model=model, messages=messages, api_base=base_url)

    async def direct() -> None:
        await litellm.acompletion(
            model=model,
            messages=messages,
            api_base=base_url,
            drop_params=True,
            timeout=60.0,
            max_retries=0,
        )

    async def batch(fn: Callable[[], Awaitable[None]]) -> float:
        start = time.process_time()
        for _ in range(batches):
            await asyncio.gather(*(fn() for _ in range(16)))
        return (time.process_time() - start) / (batches * 16)

    async def both() -> tuple[float, float]:
        mine, raw = [], []
        for _ in range(3):  # alternate to share any drift
            mine.append(await batch(ours))
            raw.append(await batch(direct))
        return min(mine), min(raw)

    return asyncio.run(both())


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
        help="set litellm's EXPERIMENTAL_OPENAI_BASE_LLM_HTTP_HANDLER=true for this process, as a "
        "user may in their own environment (OpenAI calls without the openai SDK)",
    )
    args = parser.parse_args(argv)
    # This script is an application, not library code: it may set its own environment.
    if args.sdk_free:
        os.environ["EXPERIMENTAL_OPENAI_BASE_LLM_HTTP_HANDLER"] = "true"
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench-not-a-real-key")

    proc, base_url = _start_server(args.latency)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            _measure(1, base_url, args.model, Path(tmp) / "warmup", args.latency)  # imports
            rows = [_measure(c, base_url, args.model, Path(tmp), args.latency) for c in args.levels]
        ours, raw = _boundary_overhead(base_url, args.model)
    finally:
        proc.kill()
        proc.wait()
    lat_ms = args.latency * 1000
    path = (
        "EXPERIMENTAL_OPENAI_BASE_LLM_HTTP_HANDLER=true for the whole process"
        if args.sdk_free
        else "litellm's default transport (openai SDK)"
    )
    print(
        f"runner benchmark: server latency {lat_ms:.0f} ms/call, model {args.model}, "
        f"cache off, {path}"
    )
    print(
        f"{'conc':>4} {'runs':>5} {'calls':>6} {'secs':>6} {'calls/s':>8} {'ideal':>6} "
        f"{'%ideal':>7} {'call ms':>8} {'agent ms/call':>13} {'overhead ms/call':>16} "
        f"{'cpu ms/call':>11}"
    )
    for r in rows:
        rate = r.calls / r.seconds
        ideal = r.concurrency / args.latency
        overhead = r.concurrency / rate * 1000 - lat_ms
        print(
            f"{r.concurrency:>4} {r.runs:>5} {r.calls:>6} {r.seconds:>6.2f} {rate:>8.1f} "
            f"{ideal:>6.0f} {rate / ideal:>7.1%} {r.call_latency_s * 1000:>8.1f} "
            f"{r.agent_s_per_call * 1000:>13.2f} {overhead:>16.2f} {r.cpu_s * 1000:>11.2f}"
        )
    print(
        f"boundary (LLMClient) CPU per call {ours * 1000:.2f} ms vs litellm.acompletion directly "
        f"{raw * 1000:.2f} ms: our own overhead {(ours - raw) * 1000:.2f} ms/call"
    )
    at16 = [r for r in rows if r.concurrency == 16]
    if at16:
        share = at16[0].calls / at16[0].seconds / (16 / args.latency)
        print(f"target >= 80% of ideal at concurrency 16: {'met' if share >= 0.8 else 'MISSED'}")


if __name__ == "__main__":
    main()
