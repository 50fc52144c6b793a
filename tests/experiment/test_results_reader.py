"""The results reader builds the run table column by column: the same values a record-by-record
reading gives, nested objects (perturbation, session, safety) only where a record has one."""

from __future__ import annotations

import math
from typing import Any

import pytest

from reliability_lab.errors import RunTableError
from reliability_lab.results.read import records_to_run_table


def _record(run: int, **extra: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "schema_version": 1,
        "agent": "a",
        "task_id": "t1",
        "condition": "baseline",
        "variant": "",
        "run": run,
        "success": run % 2 == 0,
        "score": None,
        "confidence": 0.5 if run else None,
        "confidence_source": "elicited" if run else "none",
        "actions": ["search", "answer"][: run % 3],
        "cost_usd": 0.01,
        "wall_time_s": None,
        "violations": [],
        "error": None,
        "trajectory": [{"role": "user", "content": "hi"}],
        "session": None,
        "safety": None,
        "perturbation": None,
    }
    record.update(extra)
    return record


def test_columns_match_the_records() -> None:
    records = [
        _record(0),
        _record(1, session={"agent_reliability": 0.25, "agent_consistency": None, "error": None}),
        _record(2, safety={"judged": True, "error": None, "cost_usd": 0.002}),
        _record(
            3,
            condition="prompt",
            variant="medium/2",
            perturbation={"intensity": "medium", "parameters": {"paraphrase_id": 7}},
        ),
        _record(4, condition="fault", variant="low/1"),
    ]
    table = records_to_run_table(records).set_index("run")
    assert table["success"].tolist() == [True, False, True, False, True]
    assert math.isnan(table.loc[0, "confidence"]) and table.loc[1, "confidence"] == 0.5
    assert table["wall_time_s"].isna().all() and table["score"].isna().all()
    assert table.loc[2, "actions"] == ["search", "answer"] and table.loc[0, "actions"] == []
    assert table.loc[1, "agent_reliability"] == 0.25
    assert math.isnan(table.loc[1, "agent_consistency"]) and math.isnan(
        table.loc[0, "agent_reliability"]
    )
    assert table.loc[2, "safety_judged"] is True and table.loc[0, "safety_judged"] is None
    assert table.loc[2, "safety_judge_cost_usd"] == 0.002
    assert table.loc[3, "intensity"] == "medium" and table.loc[3, "paraphrase_id"] == 7
    assert table.loc[4, "intensity"] == "low" and table.loc[0, "paraphrase_id"] is None
    assert math.isnan(table.loc[0, "n_faults"]) and table.loc[3, "n_faults"] == 0
    assert table.loc[0, "faults"] == [] and table.loc[0, "faults"] is not table.loc[1, "faults"]
    assert "trajectory" not in table


@pytest.mark.parametrize(
    ("line", "field", "value", "message"),
    [
        (3, "run", "x", "line 3: field 'run': expected an integer >= 0"),
        (2, "task_id", "", "line 2: field 'task_id': expected a non-empty string"),
        (4, "schema_version", 9, "line 4: schema_version 9 is not supported"),
        (2, "session", [1], "line 2: field 'session' must be an object or null"),
    ],
)
def test_bad_record_names_its_line(line: int, field: str, value: Any, message: str) -> None:
    records = [_record(i) for i in range(5)]
    records[line - 1][field] = value
    with pytest.raises(RunTableError, match=message):
        records_to_run_table(records, source="results.jsonl")


def test_schema_comes_from_the_record_model() -> None:
    from reliability_lab.agents import RunResult
    from reliability_lab.results.read import EXTRA_COLUMNS, RESULT_SCHEMA_VERSION

    assert RESULT_SCHEMA_VERSION == RunResult.model_fields["schema_version"].default
    model_only = [c for c in EXTRA_COLUMNS if c != "safety_checked"]  # an importer's column
    assert set(model_only) <= set(RunResult.model_fields)
    assert {"seed", "model", "simulated", "final_answer"} <= set(model_only)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("success", "maybe"),
        ("confidence", "high"),
        ("prompt_tokens", 2.5),
        ("model", 5),
        ("simulated", [1]),
    ],
)
def test_wrong_typed_field_is_named_by_the_model(field: str, value: Any) -> None:
    from pydantic import ValidationError

    from reliability_lab.agents import RunResult

    records = [_record(i, seed=i, model="sim/x", simulated=True) for i in range(4)]
    records[2][field] = value
    with pytest.raises(ValidationError) as verdict:  # what the record model says about it
        RunResult.model_validate({k: v for k, v in records[2].items() if k != "trajectory"})
    assert any(e["loc"][0] == field for e in verdict.value.errors())
    with pytest.raises(RunTableError, match=rf"results.jsonl: line 3: field '{field}': "):
        records_to_run_table(records, source="results.jsonl")


def test_actions_are_read_as_codes() -> None:
    from reliability_lab._actions import ActionsDtype

    records = [_record(i) for i in range(6)]
    table = records_to_run_table(records)
    assert isinstance(table["actions"].dtype, ActionsDtype)
    assert table["actions"].tolist() == [r["actions"] for r in records]
