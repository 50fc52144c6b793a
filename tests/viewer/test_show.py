"""``reliability-lab show``: the run list, its filters, one run's transcript, and the run-table
columns added for analysis (final answer, task metadata)."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from reliability_lab.cli import main
from reliability_lab.envs import get_environment
from reliability_lab.results.read import load_results
from tests.experiment.helpers import result_lines


def _show(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["show", *map(str, args)])
    out, err = capsys.readouterr()
    return status, out, err


def _listed(out: str) -> list[list[str]]:
    """The table rows of `show`'s output (header dropped), split into cells."""
    table = out.split("\n\n")[0].splitlines()
    return [line.split() for line in table[1:]]


def _key(rec: dict[str, Any]) -> str:
    return "|".join(str(rec[c]) for c in ("agent", "task_id", "condition", "variant", "run"))


def test_lists_every_run_in_the_config_order(results_dir: Path, capsys: Any) -> None:
    status, out, _ = _show(capsys, results_dir)
    assert status == 0
    rows = _listed(out)
    records = result_lines(results_dir)
    assert len(rows) == len(records)
    agents = [row[0] for row in rows]
    # zeta is listed first in the config although "alpha" sorts first
    assert agents == sorted(agents, key=["zeta", "alpha"].index)
    assert "(cost: simulated prices)" in out and "--run '" in out


def test_failed_and_agent_filters_match_the_records(results_dir: Path, capsys: Any) -> None:
    records = result_lines(results_dir)
    expected = sum(1 for r in records if not r["success"] and r["agent"] == "alpha")
    _, out, _ = _show(capsys, results_dir, "--failed", "--agent", "alpha")
    rows = _listed(out)
    assert len(rows) == expected > 0
    assert {row[0] for row in rows} == {"alpha"} and {row[5] for row in rows} == {"✗"}


def test_inconsistent_lists_tasks_whose_repeated_runs_disagree(
    results_dir: Path, capsys: Any
) -> None:
    outcomes: dict[tuple[str, ...], set[bool]] = defaultdict(set)
    for r in result_lines(results_dir):
        outcomes[(r["agent"], r["task_id"], r["condition"], r["variant"])].add(r["success"])
    groups = {g for g, seen in outcomes.items() if len(seen) == 2}
    _, out, _ = _show(capsys, results_dir, "--inconsistent")
    rows = _listed(out) if groups else []
    listed = {(row[0], row[1], row[2], "" if row[3] == "–" else row[3]) for row in rows}
    assert listed == groups


def test_unknown_agent_is_an_input_error_naming_the_known_ones(
    results_dir: Path, capsys: Any
) -> None:
    status, _, err = _show(capsys, results_dir, "--agent", "nobody")
    assert status == 2
    assert "'nobody'" in err and "zeta" in err and "alpha" in err


def test_transcript_marks_every_injected_fault(results_dir: Path, capsys: Any) -> None:
    record = max(result_lines(results_dir), key=lambda r: len(r["perturbation"]["events"]))
    events = record["perturbation"]["events"]
    assert events, "the fixture must inject at least one fault"
    status, out, _ = _show(capsys, results_dir, "--run", _key(record))
    assert status == 0
    assert out.count("⚡ injected fault:") == len(events)
    for event in events:
        assert f"injected fault: {event['type']}" in out
    instruction = get_environment("customer_service").task(record["task_id"]).instruction
    assert instruction in out
    assert f"final answer: {record['final_answer']}" in out
    calls = [c["function"]["name"] for m in record["trajectory"] for c in m.get("tool_calls") or []]
    assert out.count("→ TOOL CALL") == len(calls)
    assert "pass threshold 1" in out


def test_transcript_shows_safety_evidence(results_dir: Path, capsys: Any) -> None:
    flagged = [r for r in result_lines(results_dir) if r["violations"]]
    if not flagged:
        pytest.skip("no run of the fixture has a safety finding")
    record = flagged[0]
    _, out, _ = _show(capsys, results_dir, "--run", _key(record))
    for violation in record["violations"]:
        assert violation["evidence"] in out and violation["constraint"] in out


def test_unknown_run_key_explains_the_format(results_dir: Path, capsys: Any) -> None:
    status, _, err = _show(capsys, results_dir, "--run", "zeta|cs_99|baseline||0")
    assert status == 2
    assert "AGENT|TASK|CONDITION|VARIANT|RUN" in err and "zeta|" in err


def test_run_table_has_final_answer_and_task_metadata(results_dir: Path) -> None:
    runs = load_results(results_dir)
    records = {_key(r): r for r in result_lines(results_dir)}
    env = get_environment("customer_service")
    for row in runs.to_dict("records"):
        record = records[_key(row)]
        assert row["final_answer"] == record["final_answer"]
        assert row["difficulty"] == env.task(row["task_id"]).difficulty
    by_difficulty = runs.groupby("difficulty")["success"].mean()
    assert set(by_difficulty.index) == {env.task(t).difficulty for t in runs["task_id"]}
    json.dumps(runs["actions"].tolist())  # the trajectory column stays a plain list of names
