"""`report` checks the records against the plan in header.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reliability_lab.cli import main
from reliability_lab.results import summarize_directory
from tests.experiment.helpers import TINY_PLANNED, rewrite_lines


@pytest.fixture()
def finished_dir(finished: tuple[Path, Path]) -> Path:
    """The results directory of the shared finished experiment."""
    return finished[1]


def test_complete_directory_reports_every_planned_run(finished_dir: Path) -> None:
    summary = summarize_directory(finished_dir)
    assert summary.content["plan"] == {
        "planned": TINY_PLANNED,
        "recorded": TINY_PLANNED,
        "missing": 0,
        "missing_by_agent": {},
        "first_missing": [],
    }


def test_missing_agent_fails_its_gate_and_is_reported(
    finished_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = finished_copy
    rewrite_lines(out, lambda lines: [x for x in lines if json.loads(x)["agent"] != "inc"])
    capsys.readouterr()
    assert main(["report", str(out), "--write-summary"]) == 1  # was ✓ PASSED, exit 0
    stdout = capsys.readouterr().out
    half = TINY_PLANNED // 2
    assert f"Total runs: {half} of {TINY_PLANNED} planned ({half} missing: inc {half})" in stdout
    assert "Gate (accuracy >= 0) [inc]: FAILED — no results for agent" in stdout
    assert "Gate (accuracy >= 0) [cal]: PASSED" in stdout
    assert stdout.rstrip().endswith("✗ FAILED")
    plan = json.loads((out / "summary.json").read_text())["plan"]
    assert (plan["planned"], plan["recorded"], plan["missing"]) == (TINY_PLANNED, half, half)
    assert plan["missing_by_agent"] == {"inc": half}
    assert plan["first_missing"][0] == "inc|cs_01|baseline||0"


def test_missing_runs_of_a_present_agent_are_counted(finished_copy: Path) -> None:
    out = finished_copy
    rewrite_lines(out, lambda lines: lines[:-1])
    plan = summarize_directory(out).content["plan"]
    assert (plan["recorded"], plan["missing"]) == (TINY_PLANNED - 1, 1)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("agent", "ghost"),
        ("task_id", "cs_24"),
        ("condition", "fault"),
        ("variant", "v1"),
        ("run", 2),
    ],
)
def test_unplanned_record_is_an_input_error(
    finished_copy: Path,
    capsys: pytest.CaptureFixture[str],
    field: str,
    value: object,
) -> None:
    out = finished_copy

    def add(lines: list[str]) -> list[str]:
        extra = dict(json.loads(lines[0]), **{field: value})
        return [*lines, json.dumps(extra)]

    rewrite_lines(out, add)
    capsys.readouterr()
    assert main(["report", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{out / 'results.jsonl'}: line {TINY_PLANNED + 1}: run (" in err
    assert "is not in the plan in header.json" in err and "reliability-lab repair" in err
    assert "Traceback" not in err
