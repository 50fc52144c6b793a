"""The built-in tool loop's records are unchanged by its move onto the agent contract.

``data/builtin_loop_records.jsonl.gz`` holds the records of ``data/builtin_loop.yaml`` written
by the code *before* the loop became an agent on the ``ctx`` contract (commit 4832293), with
the two wall-clock fields removed; the same config run now must give the same records.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from reliability_lab import run_experiment

DATA = Path(__file__).parent / "data"
VOLATILE = ("wall_time_s", "call_latency_s")


def _normalised(lines: list[str]) -> list[dict[str, Any]]:
    records = [json.loads(line) for line in lines if line.strip()]
    for record in records:
        for name in VOLATILE:
            record.pop(name, None)
    order = ("agent", "task_id", "condition", "variant", "run")
    return sorted(records, key=lambda r: tuple(r[k] for k in order))


def test_builtin_loop_records_equal_the_recorded_fixture(tmp_path: Path) -> None:
    text = (DATA / "builtin_loop.yaml").read_text(encoding="utf-8")
    config = tmp_path / "builtin_loop.yaml"
    config.write_text(text.replace("output: OUT", f"output: {tmp_path / 'out'}"), "utf-8")
    run_experiment(config, progress=False, preflight=False)
    now = _normalised((tmp_path / "out" / "results.jsonl").read_text("utf-8").splitlines())
    with gzip.open(DATA / "builtin_loop_records.jsonl.gz", "rt", encoding="utf-8") as f:
        before = _normalised(f.read().splitlines())
    assert len(now) == len(before) == 30
    for old, new in zip(before, now, strict=True):
        assert new == old, (old["agent"], old["task_id"], old["condition"], old["run"])
