"""Kill, lock and retry scenarios against a local fault-injecting server: nothing is lost.

Each scenario runs ``reliability-lab run`` as a user would (a subprocess), against
``tests/fake_openai_server.py``, and prints the runs planned, recorded, retried and lost:

- ``kill -9``: the server's ``flaky`` model fails the first attempt of every request (429, 500
  or a malformed body; the client retries), and after a number of answered requests holds
  every further one, so the experiment is provably mid-run when it is killed with SIGKILL;
  then the same command resumes it;
- ``SIGTERM``: the same with SIGTERM (exit status 143, finished runs saved), then resume;
- ``lock``: while the first process holds the directory, a second ``run`` on it must exit 2
  naming the holder and write nothing;
- ``infra retry``: every request fails with HTTP 500 (all runs are recorded as
  ``infrastructure:`` errors), then the provider recovers and a rerun executes exactly those
  runs again, moving the old records to ``results.audit.jsonl``.

"retried" counts requests the client sent again after a provider fault (server requests minus
distinct request bodies) and runs executed again on resume; "lost" = planned runs without a
record at the end; "duplicated" = records of a run beyond its first. Both must be 0.

Usage::

    .venv/bin/python benchmarks/trust_scenarios.py
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fake_openai_server import FakeOpenAIServer  # noqa: E402

N_TASKS, K = 6, 4
KEY_FIELDS = ("agent", "task_id", "condition", "variant", "run")
ENV = {**os.environ, "OPENAI_API_KEY": "sk-trust-scenarios-0000", "PYTHONPATH": str(ROOT)}


def _config(directory: Path, server: FakeOpenAIServer, name: str, models: list[str]) -> Path:
    agents = [
        {"label": m, "model": f"openai/{m}", "params": {"api_base": server.base_url}}
        for m in models
    ]
    config = {
        "version": 1,
        "name": name,
        "runs": K,
        "max_concurrent": 2,
        "environment": {"name": "customer_service", "limit": N_TASKS},
        "agents": agents,
        "llm": {"max_retries": 3, "backoff_base_s": 0.01, "backoff_max_s": 0.05},
        "report": {"n_boot": 20},
        "sessions": {"enabled": False},
    }
    path = directory / f"{name}.json"  # YAML is a superset of JSON
    path.write_text(json.dumps(config), encoding="utf-8")
    return path


def _cli(config: Path, out: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "reliability_lab",
            "run",
            str(config),
            "--output",
            str(out),
            "--quiet",
            *extra,
        ],
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _lines(path: Path) -> list[dict]:
    if not path.exists():
        return []
    text = path.read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip().endswith("}")]


def _counts(out: Path, planned: int) -> dict[str, int]:
    keys = [tuple(r[f] for f in KEY_FIELDS) for r in _lines(out / "results.jsonl")]
    distinct = set(keys)
    return {
        "planned": planned,
        "recorded": len(distinct),
        "duplicated": len(keys) - len(distinct),
        "lost": planned - len(distinct),
    }


def _client_retries(server: FakeOpenAIServer) -> int:
    bodies = Counter(
        hashlib.sha256(json.dumps(b, sort_keys=True).encode()).hexdigest() for b in server.requests
    )
    return sum(n - 1 for n in bodies.values())


def _wait_for_lines(path: Path, n: int, proc: subprocess.Popen[str]) -> None:
    while len(_lines(path)) < n:
        if proc.poll() is not None:
            raise SystemExit(f"the run ended early: {proc.stderr.read() if proc.stderr else ''}")
        time.sleep(0.05)


def interrupted(tmp: Path, sig: signal.Signals, check_lock: bool) -> dict[str, int | str]:
    """Interrupt a run mid-way with ``sig`` (optionally trying a second writer), then resume."""
    models = ["flaky", "fake-model"]
    planned = len(models) * N_TASKS * K
    with FakeOpenAIServer(hold_after=60) as server:
        config = _config(tmp, server, f"interrupt-{sig.name.lower()}", models)
        out = tmp / f"out-{sig.name.lower()}"
        first = _cli(config, out)
        server.wait_for_held(2, timeout_s=600)  # both slots wait on the server: mid-run
        _wait_for_lines(out / "results.jsonl", 4, first)
        row: dict[str, int | str] = {"scenario": f"{sig.name} mid-run, then resume"}
        if check_lock:
            second = _cli(config, out)
            _, err = second.communicate(timeout=600)
            row["second writer exit"] = second.returncode
            row["names holder"] = int(f"pid {first.pid}" in err)
        n_before = len(_lines(out / "results.jsonl"))
        first.send_signal(sig)
        first.wait(timeout=600)
        row["exit"] = first.returncode
        server.resume()
        server.hold_after = None
        resumed = _cli(config, out)
        resumed.communicate(timeout=1800)
        row["recorded before"] = n_before
        row["resume exit"] = resumed.returncode
        row["client retries"] = _client_retries(server)
    return row | _counts(out, planned)


def infra_retry(tmp: Path) -> dict[str, int | str]:
    """Every call fails (recorded as infrastructure errors); the provider recovers; rerun."""
    planned = N_TASKS * K
    with FakeOpenAIServer() as server:
        config = _config(tmp, server, "infra", ["fake-model"])
        out = tmp / "out-infra"
        server.script = [("status", 500)]
        first = _cli(config, out)
        first.communicate(timeout=1800)
        infra = sum(
            str(r.get("error", "")).startswith("infrastructure:")
            for r in _lines(out / "results.jsonl")
        )
        server.script = []
        second = _cli(config, out)
        second.communicate(timeout=1800)
        audit = len(_lines(out / "results.audit.jsonl"))
        left = sum(r.get("error") is not None for r in _lines(out / "results.jsonl"))
    return {
        "scenario": "all calls fail, provider recovers, rerun",
        "infra records": infra,
        "runs retried": audit,
        "errors left": left,
        "exit": second.returncode,
    } | _counts(out, planned)


def main() -> None:
    """Run every scenario and print one line of counts each."""
    with tempfile.TemporaryDirectory(prefix="trust-") as name:
        tmp = Path(name)
        rows = [
            interrupted(tmp, signal.SIGKILL, check_lock=True),
            interrupted(tmp, signal.SIGTERM, check_lock=False),
            infra_retry(tmp),
        ]
    for row in rows:
        print("  ".join(f"{k}: {v}" for k, v in row.items()))
    bad = [r["scenario"] for r in rows if r["lost"] or r["duplicated"]]
    if bad:
        raise SystemExit(f"runs lost or duplicated in: {bad}")


if __name__ == "__main__":
    main()
