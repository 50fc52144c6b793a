"""The progress display's running tally: no ETA before the first finished run; success rate,
infrastructure errors and cost so far."""

from __future__ import annotations

import io

from reliability_lab.runner.progress import LineProgress, RunTally, TalliedProgress


def test_no_eta_until_the_first_run_finishes() -> None:
    now = [100.0]
    tally = RunTally(remaining=4, clock=lambda: now[0])
    assert tally.text() == "waiting for the first run"
    now[0] = 130.0  # 30 s for the first run → 3 runs left ≈ 90 s
    tally.add({"success": True, "cost_usd": 0.5, "simulated": False})
    assert tally.text() == "success 100% · 0 infra errors · $0.5000 · ETA 1m30s"


def test_infrastructure_errors_are_not_failures() -> None:
    tally = RunTally(remaining=3, clock=lambda: 0.0)
    tally.add({"success": False, "error": "infrastructure: timeout", "cost_usd": None})
    tally.add({"success": False, "error": "agent: gave up", "cost_usd": 0.25, "simulated": True})
    tally.add({"success": True, "cost_usd": 0.25, "simulated": True})
    assert tally.text() == "success 50% · 1 infra errors · $0.5000 (simulated price)"


def test_log_lines_carry_the_tally() -> None:
    out = io.StringIO()
    now = [0.0]
    bar = LineProgress(total=2, desc="x", file=out, interval_s=0.0, clock=lambda: now[0])
    progress = TalliedProgress(bar, RunTally(remaining=2, clock=lambda: now[0]))
    now[0] = 4.0
    progress.finished({"success": True, "cost_usd": 0.1})
    progress.close()
    lines = out.getvalue().splitlines()
    assert lines[0] == "x: 0/2 runs (0%)"
    assert lines[1] == "x: 1/2 runs (50%); success 100% · 0 infra errors · $0.1000 · ETA 4s"
