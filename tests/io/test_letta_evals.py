"""letta-evals importer on results directories built here in its documented layout.

``--output DIR`` with ``num_runs: 3`` gives ``DIR/run_1..3/{header.json, results.jsonl,
summary.json}`` and ``DIR/aggregate_stats.json``; lines are the streaming writer's
``{"type": "result", "result": SampleResult}`` or bare sample results as the docs show.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from reliability_lab.io import LettaEvalsFormatError, detect_format, load_letta_evals
from reliability_lab.metrics import pass_hat_k

# run → sample id → score of the gate's grader ("quality")
SCORES = [{0: 1.0, 1: 0.9, 2: 0.3}, {0: 1.0, 1: 0.7, 2: 0.85}, {0: 0.95, 1: 0.8, 2: 0.1}]
SIMPLE_GATE = {
    "kind": "simple",
    "metric_key": "quality",
    "aggregation": "accuracy",
    "op": "gte",
    "value": 0.6,
    "pass_threshold": 0.8,
}


def _trajectory(sample_id: int) -> list[list[dict[str, Any]]]:
    call = {"message_type": "tool_call_message", "tool_call": {"name": "archival_search"}}
    turn = [
        {"message_type": "user_message", "content": "q"},
        {"message_type": "reasoning_message", "reasoning": "…"},
        call,
        {"message_type": "tool_return_message", "tool_return": "…"},
        {"message_type": "tool_call_message", "tool_calls": [{"name": "send_message"}]},
    ]
    return [turn] * (1 + sample_id % 2)


def _result(sample_id: int, score: float, **extra: Any) -> dict[str, Any]:
    return {
        "sample": {"id": sample_id, "input": f"question {sample_id}", "ground_truth": "x"},
        "submission": "answer",
        "trajectory": _trajectory(sample_id),
        "agent_id": f"agent-{sample_id}",
        "grade": {"score": score, "rationale": "r"},
        "grades": {"quality": {"score": score}, "format": {"score": 1.0}},
        "model_name": "gpt-4.1-mini",
        "cost": 0.001 * (sample_id + 1),
        "prompt_tokens": 500,
        "completion_tokens": 50,
        "total_time": 2.5,
        **extra,
    }


def _write(root: Path, gate: dict[str, Any] | None, *, wrapped: bool = True) -> Path:
    for k, scores in enumerate(SCORES, start=1):
        run_dir = root / f"run_{k}"
        run_dir.mkdir(parents=True)
        config = {"target": {"kind": "letta_agent"}, "graders": {"quality": {}, "format": {}}}
        if gate is not None:
            config["gate"] = gate
        header = {"type": "header", "suite": "memory-suite", "config": config}
        (run_dir / "header.json").write_text(json.dumps(header), encoding="utf-8")
        lines = []
        for sample_id, score in scores.items():
            result = _result(sample_id, score)
            lines.append({"type": "result", "result": result} if wrapped else result)
        text = "".join(json.dumps(line) + "\n" for line in lines)
        (run_dir / "results.jsonl").write_text(text, encoding="utf-8")
        summary = {"type": "summary", "metrics": {}, "gates_passed": True}
        (run_dir / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    (root / "aggregate_stats.json").write_text('{"num_runs": 3}', encoding="utf-8")
    return root


def test_runs_scores_and_the_gate_pass_rule(tmp_path: Path) -> None:
    runs = load_letta_evals(_write(tmp_path / "out", SIMPLE_GATE))
    assert len(runs) == 9 and set(runs["agent"]) == {"gpt-4.1-mini"}
    for _, row in runs.iterrows():
        score = SCORES[row["run"]][int(row["task_id"])]
        assert row["score"] == score
        assert row["success"] == (score >= 0.8)  # the gate's pass_threshold
    # pass^2 by hand from SCORES: task 0 3/3, task 1 2/3, task 2 1/3 → (1 + 1/3 + 0) / 3
    assert pass_hat_k(runs["success"], runs["task_id"], 2) == pytest.approx(4 / 9)


def test_resources_actions_and_columns(tmp_path: Path) -> None:
    runs = load_letta_evals(_write(tmp_path / "out", SIMPLE_GATE, wrapped=False))
    row = runs.set_index(["task_id", "run"]).loc[("1", 2)]
    assert row["actions"] == ["archival_search", "send_message"] * 2
    assert row["num_actions"] == 4
    assert row["cost_usd"] == pytest.approx(0.002) and row["wall_time_s"] == 2.5
    assert (row["prompt_tokens"], row["completion_tokens"]) == (500, 50)
    assert (row["suite"], row["agent_id"], row["model"]) == (
        "memory-suite",
        "agent-1",
        "gpt-4.1-mini",
    )
    assert row["confidence_source"] == "none" and row["error"] is None


@pytest.mark.parametrize(
    ("gate", "expected"),
    [
        # letta-evals 0.3 gates: accuracy without pass_value → 1.0; avg_score → op/value
        ({"metric": "accuracy", "metric_key": "quality", "op": "gte", "value": 0.6}, 1.0),
        ({"metric": "avg_score", "metric_key": "quality", "op": "gte", "value": 0.85}, 0.85),
        (
            {
                "metric": "avg_score",
                "metric_key": "quality",
                "op": "gte",
                "value": 0.5,
                "pass_op": "gt",
                "pass_value": 0.85,
            },
            0.851,
        ),
        ({**SIMPLE_GATE, "pass_threshold": None}, 1.0),
    ],
)
def test_gate_variants(tmp_path: Path, gate: dict[str, Any] | None, expected: float) -> None:
    runs = load_letta_evals(_write(tmp_path / "out", gate))
    assert (runs["success"] == (runs["score"] >= expected)).all()


def test_weighted_and_logical_gates(tmp_path: Path) -> None:
    weighted = {
        "kind": "weighted_average",
        "aggregation": "avg_score",
        "op": "gte",
        "value": 0.5,
        "weights": {"quality": 3, "format": 1},
    }
    runs = load_letta_evals(_write(tmp_path / "w", weighted))
    expected = [
        0.75 * SCORES[r][int(t)] + 0.25 for t, r in zip(runs["task_id"], runs["run"], strict=True)
    ]
    assert runs["score"].tolist() == pytest.approx(expected)
    logical = {
        "kind": "logical",
        "operator": "and",
        "conditions": [
            {
                "metric_key": "quality",
                "aggregation": "accuracy",
                "op": "gte",
                "value": 0.5,
                "pass_threshold": 0.9,
            },
            {"metric_key": "format", "aggregation": "accuracy", "op": "gte", "value": 0.5},
        ],
    }
    runs = load_letta_evals(_write(tmp_path / "l", logical))
    quality = [SCORES[r][int(t)] for t, r in zip(runs["task_id"], runs["run"], strict=True)]
    assert runs["success"].tolist() == [q >= 0.9 for q in quality]


def test_errors_are_classified(tmp_path: Path) -> None:
    root = _write(tmp_path / "out", SIMPLE_GATE)
    errors = [
        {"category": "grading", "exception_type": "ValueError", "message": "judge said nothing"},
        {"category": "target", "exception_type": "APIConnectionError", "message": "reset"},
        {"category": "extraction", "exception_type": "ValueError", "message": "empty reply"},
    ]
    lines = [
        json.dumps({"type": "result", "result": _result(i, 1.0, error=e)})
        for i, e in enumerate(errors)
    ]
    (root / "run_1" / "results.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    runs = load_letta_evals(root).set_index(["task_id", "run"])
    grading, target, extraction = (runs.loc[(str(i), 0)] for i in range(3))
    assert grading["error"].startswith("infrastructure: letta-evals grading error")
    assert target["error"].startswith("infrastructure:") and "APIConnectionError" in target["error"]
    assert extraction["error"] == "letta-evals extraction error: ValueError: empty reply"
    assert not extraction["success"] and extraction["error_category"] == "extraction"


def test_single_run_directory_and_detection(tmp_path: Path) -> None:
    root = _write(tmp_path / "out", SIMPLE_GATE)
    single = root / "run_2"
    runs = load_letta_evals(single)
    assert set(runs["run"]) == {0} and len(runs) == 3
    assert detect_format(root) == detect_format(single) == "letta-evals"
    assert load_letta_evals(root, agent="mine")["agent"].eq("mine").all()


def test_bad_input_names_file_line_and_field(tmp_path: Path) -> None:
    root = _write(tmp_path / "out", SIMPLE_GATE)
    path = root / "run_3" / "results.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    bad = json.loads(lines[1])
    bad["result"]["grades"]["quality"]["score"] = 1.2
    path.write_text("\n".join([lines[0], json.dumps(bad)]) + "\n", encoding="utf-8")
    with pytest.raises(
        LettaEvalsFormatError,
        match=r"run_3/results\.jsonl: line 2: field 'grades\.quality\.score': .*got 1\.2",
    ):
        load_letta_evals(root)
    path.write_text(lines[0] + "\n{oops\n", encoding="utf-8")
    with pytest.raises(LettaEvalsFormatError, match=r"results\.jsonl: line 2: not valid JSON"):
        load_letta_evals(root)
    bad_gate = {"metric": "avg_score", "op": "bigger", "value": 1}
    for k in (1, 2, 3):
        header = root / f"run_{k}" / "header.json"
        header.write_text(json.dumps({"config": {"gate": bad_gate}}), encoding="utf-8")
    with pytest.raises(
        LettaEvalsFormatError, match=r"field 'config\.gate\.op': unknown op 'bigger'"
    ):
        load_letta_evals(root)
    with pytest.raises(LettaEvalsFormatError, match=r"neither suite\.json, results\.jsonl nor"):
        load_letta_evals(tmp_path)


def test_missing_cost_is_not_zero(tmp_path: Path) -> None:
    root = _write(tmp_path / "out", SIMPLE_GATE)
    path = root / "run_1" / "results.jsonl"
    path.write_text(json.dumps(_result(0, 1.0, cost=None)) + "\n", encoding="utf-8")
    runs = load_letta_evals(root)
    assert math.isnan(runs.set_index(["task_id", "run"]).loc[("0", 0), "cost_usd"])
