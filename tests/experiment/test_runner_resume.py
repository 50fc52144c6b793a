"""Runner with the shipped simulated model: determinism, resume, exactly-once, result files."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from reliability_lab.agents import RunResult, RunSpec, execute_run
from reliability_lab.errors import ConfigError
from reliability_lab.experiment import run_seed
from reliability_lab.llm import LLMClient
from reliability_lab.results import load_results
from reliability_lab.runner import run_experiment
from reliability_lab.runs import session_id
from tests.experiment.helpers import result_lines, run_keys, sim_config

TIMING_FIELDS = ("wall_time_s", "call_latency_s")
BASE = sim_config("tiny", limit=3, n_boot=50, sessions=True, seed=11)
N_PLANNED = 2 * 3 * 2


class Counting:
    """Wraps the real ``execute_run`` and records which runs it executed."""

    def __init__(self) -> None:
        self.keys: list[tuple[str, str, int]] = []

    async def __call__(self, spec: RunSpec, llm: LLMClient) -> RunResult:
        self.keys.append((spec.agent, spec.task_id, spec.run))
        return await execute_run(spec, llm)


def _without_timings(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = [{k: v for k, v in r.items() if k not in TIMING_FIELDS} for r in records]
    return sorted(out, key=lambda r: (r["agent"], r["task_id"], r["run"]))


def test_same_seed_and_config_give_identical_results(
    tmp_path: Path, write_config: Callable
) -> None:
    cfg = write_config(BASE)
    first = run_experiment(cfg, output=tmp_path / "a", progress=False)
    second = run_experiment(cfg, output=tmp_path / "b", progress=False, max_concurrent=1)
    a, b = result_lines(tmp_path / "a"), result_lines(tmp_path / "b")
    assert len(a) == len(b) == N_PLANNED == first.n_executed == second.n_executed
    assert _without_timings(a) == _without_timings(b)
    # each run carries the seed derived from the master seed and its identity
    for rec in a:
        assert rec["seed"] == run_seed(
            11,
            agent=rec["agent"],
            task_id=rec["task_id"],
            run=rec["run"],
        )
    # repeated runs are independent (different seeds, not cache replays of run 0)
    seeds: dict[tuple[str, str], set[int]] = {(r["agent"], r["task_id"]): set() for r in a}
    for r in a:
        seeds[(r["agent"], r["task_id"])].add(r["seed"])
    assert all(len(s) == 2 for s in seeds.values())
    other = run_experiment(cfg, output=tmp_path / "c", progress=False, seed=12)
    assert other.n_executed == N_PLANNED
    assert _without_timings(result_lines(tmp_path / "c")) != _without_timings(a)


def test_resume_executes_only_missing_runs(tmp_path: Path, write_config: Callable) -> None:
    cfg = write_config(BASE)
    out = tmp_path / "out"
    run_experiment(cfg, output=out, progress=False)
    lines = (out / "results.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    kept, dropped = lines[:7], lines[7:]
    (out / "results.jsonl").write_text("".join(kept), encoding="utf-8")

    dropped_ids = {session_id(json.loads(line)) for line in dropped}
    traces = (out / "traces.jsonl").read_text(encoding="utf-8").splitlines()
    n_traces = sum(json.loads(t)["session_id"] in dropped_ids for t in traces)
    assert n_traces > 0
    counter = Counting()
    with pytest.warns(UserWarning, match=rf"traces\.jsonl: removed {n_traces} line"):
        outcome = run_experiment(cfg, output=out, progress=False, execute=counter)
    dropped_keys = {(r["agent"], r["task_id"], r["run"]) for r in map(json.loads, dropped)}
    assert sorted(counter.keys) == sorted(dropped_keys)
    assert (outcome.n_previous, outcome.n_executed, outcome.n_planned) == (7, 5, N_PLANNED)
    after = (out / "results.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    assert after[:7] == kept  # finished runs are never rewritten
    assert len(set(run_keys(result_lines(out)))) == len(after) == N_PLANNED

    counter = Counting()
    run_experiment(cfg, output=out, progress=False, execute=counter)
    assert counter.keys == []  # complete directory: nothing runs again

    counter = Counting()
    outcome = run_experiment(cfg, output=out, progress=False, execute=counter, runs=3)
    assert sorted({k[2] for k in counter.keys}) == [2] and len(counter.keys) == 6
    assert outcome.summary.header.config["runs"] == 3
    assert sorted({r["run"] for r in result_lines(out)}) == [0, 1, 2]


def test_resume_refuses_changed_settings(tmp_path: Path, write_config: Callable) -> None:
    cfg = write_config(BASE)
    out = tmp_path / "out"
    run_experiment(cfg, output=out, progress=False)
    before = (out / "results.jsonl").read_bytes()
    with pytest.raises(ConfigError, match=r"refusing to resume.*seed: 11 -> 5"):
        run_experiment(cfg, output=out, progress=False, seed=5)
    changed = write_config(
        {**BASE, "agents": [{"label": "cal", "model": "sim/brittle"}, BASE["agents"][1]]},
        name="changed.yaml",
    )
    with pytest.raises(ConfigError, match=r"agents\.cal\.model"):
        run_experiment(changed, output=out, progress=False)
    with pytest.raises(ConfigError, match="does not plan"):
        run_experiment(cfg, output=out, progress=False, runs=1)
    assert (out / "results.jsonl").read_bytes() == before


def test_results_directory_layout(tmp_path: Path, write_config: Callable) -> None:
    cfg = write_config({**BASE, "gates": ["accuracy >= 0.0", "R_Con >= 0.0"]})
    out = tmp_path / "out"
    outcome = run_experiment(cfg, output=out, progress=False)
    names = sorted(p.name for p in out.iterdir())
    assert names == [
        ".reliability-lab.lock",
        "aggregate_stats.json",
        "cache",
        "header.json",
        "reliability_lab.json",
        "results.jsonl",
        "run_1",
        "run_2",
        "summary.json",
        "traces.jsonl",
    ]
    header = json.loads((out / "header.json").read_text())
    assert header["suite_name"] == "tiny" and header["seed"] == 11 and header["simulated"]
    assert header["models"] == {"cal": "sim/calibrated", "inc": "sim/inconsistent"}
    assert header["profile"] == "default" and header["version"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["gates_passed"] is True and summary["simulated"] is True
    assert "SIMULATED MODEL" in summary["notice"]
    rel = summary["reliability"]["agents"]
    assert set(rel) == {"cal", "inc"} and {"R", "R_lo", "R_hi", "C_out"} <= set(rel["cal"])
    runs = load_results(out)
    assert len(runs) == N_PLANNED and {"seed", "model", "simulated"} <= set(runs.columns)
    # the outcome hands over the run table and report without reloading them from disk
    key = ["agent", "task_id", "condition", "variant", "run"]
    columns = [*key, "success"]
    reloaded = runs.sort_values(key).reset_index(drop=True)[columns]
    assert outcome.runs.sort_values(key).reset_index(drop=True)[columns].equals(reloaded)
    assert sorted(outcome.report.index) == ["cal", "inc"]
    for agent, group in runs.groupby("agent"):
        # per-agent accuracy in summary.json is the share of successes (independent count)
        per_model = {m["agent"]: m for m in summary["metrics"]["per_model"]}
        assert per_model[agent]["accuracy"] == pytest.approx(group["success"].mean())
        assert rel[agent]["accuracy"] == pytest.approx(group["success"].mean())
        assert outcome.report.loc[agent, "accuracy"] == pytest.approx(group["success"].mean())
    # run_k/ hold the runs of repetition k-1; aggregate_stats = mean/std(ddof=1) across them
    per_run_acc = []
    for k in (1, 2):
        lines = result_lines(out / f"run_{k}")
        assert {r["run"] for r in lines} == {k - 1} and len(lines) == N_PLANNED // 2
        per_run_acc.append(np.mean([r["success"] for r in lines]))
        assert json.loads((out / f"run_{k}" / "summary.json").read_text())["run"] == k
    stats = json.loads((out / "aggregate_stats.json").read_text())
    assert stats["num_runs"] == 2
    assert stats["mean_scores"]["accuracy"] == pytest.approx(np.mean(per_run_acc))
    assert stats["std_scores"]["accuracy"] == pytest.approx(np.std(per_run_acc, ddof=1))
    assert outcome.passed
    for path in out.rglob("*.json*"):  # strict JSON: no NaN/Infinity tokens anywhere
        text = path.read_text(encoding="utf-8")
        docs = text.splitlines() if path.suffix == ".jsonl" else [text]
        for doc in docs:
            json.loads(doc, parse_constant=_reject_constant)


def _reject_constant(token: str) -> None:
    raise AssertionError(f"non-standard JSON constant {token}")


def test_harness_exceptions_are_reported_not_recorded(
    tmp_path: Path, write_config: Callable
) -> None:
    """A bug raising inside a run is never written as a result; a rerun retries that run."""
    from reliability_lab.runner import ExperimentError

    cfg = write_config(BASE)
    out = tmp_path / "out"

    async def buggy(spec: RunSpec, llm: LLMClient) -> RunResult:
        if spec.task_id == "cs_01" and spec.run == 1:
            raise KeyError("boom")
        return await execute_run(spec, llm)

    with pytest.raises(ExperimentError, match=r"2 run\(s\) raised.*KeyError") as info:
        run_experiment(cfg, output=out, progress=False, execute=buggy)
    assert "rerun the same command" in str(info.value)
    assert len(result_lines(out)) == N_PLANNED - 2
    counter = Counting()
    run_experiment(cfg, output=out, progress=False, execute=counter)
    assert sorted(counter.keys) == [("cal", "cs_01", 1), ("inc", "cs_01", 1)]


def test_runs_inside_a_running_event_loop(tmp_path: Path, write_config: Callable) -> None:
    """As in Jupyter: called from code that already runs an asyncio loop."""
    import asyncio

    cfg = write_config({**BASE, "runs": 1})

    async def notebook_cell() -> int:
        return run_experiment(cfg, output=tmp_path / "nb", progress=False).n_executed

    assert asyncio.run(notebook_cell()) == N_PLANNED // 2
