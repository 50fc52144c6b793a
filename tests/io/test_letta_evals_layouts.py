"""letta-evals: the suite layout (0.17+), one pass rule for every run, and stated totals.

The files are built here to letta-evals' published schema (``letta_evals/streaming.py``,
``models/results.py``, ``models/summaries.py`` at 0.25.1): ``suite.json`` = ``{suite, config,
samples}``; each line a bare ``SampleResult`` dumped with ``exclude_none`` (``sample_id``,
``agent_id``, ``model_handle``, ``trajectory``, ``grades``, ``reward``, ``usage``, ``timing``,
``error``); ``summary.json`` = ``{suite, models: [{model, n_total, …}]}``; per-model
``summary.json`` with ``runs: [{run, …}]``. Expected values are worked out by hand below.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from reliability_lab.io import LettaEvalsFormatError, detect_format, load_letta_evals
from reliability_lab.io._common import IncompleteLogError, import_gaps

MODEL = "openai/gpt-4.1-mini"  # written as openai-gpt-4.1-mini by letta-evals
# run → sample id → the "quality" grader's score
SCORES = [
    {0: 1.0, 1: 0.75, 2: 0.2, 3: 0.7, 4: 0.0},
    {0: 1.0, 1: 0.65, 2: 0.9, 3: 1.0, 4: 0.1},
    {0: 0.8, 1: 1.0, 2: 0.3, 3: 0.69, 4: 1.0},
]
GATE_017 = {  # letta-evals 0.17 SimpleGateSpec
    "kind": "simple",
    "metric_key": "quality",
    "aggregation": "accuracy",
    "op": "gte",
    "value": 0.5,
    "pass_threshold": 0.7,
}
REWARD_021 = {"kind": "metric", "metric_key": "quality"}  # letta-evals ≥ 0.21


def _record(sample_id: int, score: float, **extra: Any) -> dict[str, Any]:
    call = {"message_type": "tool_call_message", "tool_call": {"name": "memory_search"}}
    return {
        "sample_id": sample_id,
        "agent_id": f"agent-{sample_id}",
        "model_handle": MODEL,
        "trajectory": [[{"message_type": "user_message", "content": "q"}, call]],
        "submissions": {"quality": "answer"},
        "grades": {"quality": {"score": score, "metadata": {}}},
        "reward": {"score": score},
        "usage": {
            "prompt_tokens": 100 + sample_id,
            "completion_tokens": 10,
            "cached_input_tokens": 0,
            "cache_write_tokens": 0,
            "reasoning_tokens": 0,
            "cost": 0.01 * (sample_id + 1),
        },
        "timing": {"total": 3.0 + sample_id, "target": 2.0},
        **extra,
    }


def _suite_dir(root: Path, config: dict[str, Any], runs: int = 3) -> Path:
    root.mkdir(parents=True)
    samples = [{"id": i, "input": f"question {i}"} for i in range(5)]
    suite = {"suite": "memory", "config": {"name": "memory", **config}, "samples": samples}
    (root / "suite.json").write_text(json.dumps(suite), encoding="utf-8")
    model_dir = root / "openai-gpt-4.1-mini"
    for k in range(1, runs + 1):
        if runs == 1:
            path = root / "openai-gpt-4.1-mini.jsonl"
        else:
            model_dir.mkdir(exist_ok=True)
            path = model_dir / f"run_{k}.jsonl"
        lines = [json.dumps(_record(i, s)) for i, s in SCORES[k - 1].items()]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    if runs > 1:
        per_model = {"model": MODEL, "n_total": 5, "runs": [{"run": k} for k in range(1, runs + 1)]}
        (model_dir / "summary.json").write_text(json.dumps(per_model), encoding="utf-8")
    summary = {"suite": "memory", "models": [{"model": MODEL, "n_total": 5, "n_attempted": 15}]}
    (root / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    return root


def test_suite_layout_with_a_gate(tmp_path: Path) -> None:
    root = _suite_dir(tmp_path / "out", {"gate": GATE_017})
    assert detect_format(root) == "letta-evals"
    runs = load_letta_evals(root)
    assert len(runs) == 15 and set(runs["agent"]) == {MODEL}
    # pass_threshold 0.7: run 0 → samples 0, 1, 3; run 1 → 0, 2, 3; run 2 → 0, 1, 4
    passed = runs[runs["success"]].groupby("run")["task_id"].apply(sorted).to_dict()
    assert passed == {0: ["0", "1", "3"], 1: ["0", "2", "3"], 2: ["0", "1", "4"]}
    row = runs.set_index(["task_id", "run"]).loc[("3", 1)]
    assert row["cost_usd"] == pytest.approx(0.04) and row["wall_time_s"] == 6.0
    assert (row["prompt_tokens"], row["completion_tokens"]) == (103, 10)
    assert row["actions"] == ["memory_search"] and row["suite"] == "memory"


def test_single_run_file_per_model(tmp_path: Path) -> None:
    runs = load_letta_evals(_suite_dir(tmp_path / "out", {"gate": GATE_017}, runs=1))
    assert set(runs["run"]) == {0} and len(runs) == 5
    assert runs["source_file"].iloc[0].endswith("openai-gpt-4.1-mini.jsonl")


def test_reward_suite_needs_a_threshold(tmp_path: Path) -> None:
    root = _suite_dir(tmp_path / "out", {"reward": REWARD_021})
    with pytest.raises(
        LettaEvalsFormatError, match=r"suite\.json.*'config\.reward'.*pass_threshold"
    ):
        load_letta_evals(root)
    runs = load_letta_evals(root, pass_threshold=0.7)
    # rewards ≥ 0.7: run 0 → 3 samples, run 1 → 3, run 2 → 3 (0.69 fails)
    assert runs.groupby("run")["success"].sum().tolist() == [3, 3, 3]
    assert runs["score"].tolist() == pytest.approx([s for r in SCORES for s in r.values()])


def test_truncated_run_file_is_refused_then_imported_with_its_gap(tmp_path: Path) -> None:
    root = _suite_dir(tmp_path / "out", {"gate": GATE_017})
    path = root / "openai-gpt-4.1-mini" / "run_2.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:3]), encoding="utf-8")  # cut at a line boundary
    with pytest.raises(
        IncompleteLogError, match=r"run_2\.jsonl: 3 of 5 samples \(missing: '3', '4'\)"
    ):
        load_letta_evals(root)
    runs = load_letta_evals(root, allow_partial=True)
    assert len(runs) == 13
    assert import_gaps(runs) == [f"{path}: 3 of 5 samples (missing: '3', '4')"]


def test_missing_run_file_and_model_are_gaps(tmp_path: Path) -> None:
    root = _suite_dir(tmp_path / "out", {"gate": GATE_017})
    (root / "openai-gpt-4.1-mini" / "run_3.jsonl").unlink()
    summary = json.loads((root / "summary.json").read_text(encoding="utf-8"))
    summary["models"].append({"model": "anthropic/claude", "n_total": 5})
    (root / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    with pytest.raises(IncompleteLogError) as info:
        load_letta_evals(root)
    assert len(info.value.gaps) == 2
    assert "absent: run_3.jsonl" in info.value.gaps[0]
    assert "model 'anthropic/claude' has no results" in info.value.gaps[1]


def test_tokens_from_agent_usage_and_missing_cost(tmp_path: Path) -> None:
    root = _suite_dir(tmp_path / "out", {"gate": GATE_017}, runs=1)
    usage = [
        {"message_type": "usage_statistics", "prompt_tokens": 40, "completion_tokens": 4},
        {"message_type": "usage_statistics", "prompt_tokens": 60, "completion_tokens": None},
    ]
    lines = [_record(i, 1.0) for i in range(5)]
    for line in lines:
        del line["usage"]  # letta-evals leaves usage out when nothing was priced or counted
    lines[0]["agent_usage"] = usage
    path = root / "openai-gpt-4.1-mini.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    runs = load_letta_evals(root).set_index("task_id")
    assert (runs.loc["0", "prompt_tokens"], runs.loc["0", "completion_tokens"]) == (100, 4)
    assert math.isnan(runs.loc["1", "prompt_tokens"]) and math.isnan(runs.loc["0", "cost_usd"])


def _header_dir(root: Path, *, headers: tuple[int, ...], total: int = 5) -> Path:
    gate = {"metric_key": "quality", "metric": "avg_score", "op": "gte", "value": 0.7}
    for k, scores in enumerate(SCORES, start=1):
        run_dir = root / f"run_{k}"
        run_dir.mkdir(parents=True)
        if k in headers:
            header = {"type": "header", "suite": "memory", "config": {"gate": gate}}
            (run_dir / "header.json").write_text(json.dumps(header), encoding="utf-8")
        lines = [
            {"type": "result", "result": {"sample": {"id": i}, "grades": {"quality": {"score": s}}}}
            for i, s in scores.items()
        ]
        text = "".join(json.dumps(line) + "\n" for line in lines)
        (run_dir / "results.jsonl").write_text(text, encoding="utf-8")
        summary = {"type": "summary", "metrics": {"total": total, "total_attempted": total}}
        (run_dir / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    (root / "aggregate_stats.json").write_text('{"num_runs": 3}', encoding="utf-8")
    return root


def test_one_header_sets_the_rule_for_every_run(tmp_path: Path) -> None:
    runs = load_letta_evals(_header_dir(tmp_path / "out", headers=(1,)))
    # score ≥ 0.7 (the gate), counted by hand from SCORES: 3 passes in each run (a fallback
    # to 1.0 would give 1, 2 and 2)
    assert runs.groupby("run")["success"].sum().tolist() == [3, 3, 3]


def test_no_header_at_all_names_what_is_missing(tmp_path: Path) -> None:
    root = _header_dir(tmp_path / "out", headers=())
    with pytest.raises(
        LettaEvalsFormatError, match=r"no header\.json.*'config\.gate'.*pass_threshold"
    ):
        load_letta_evals(root)
    assert load_letta_evals(root, pass_threshold=1.0)["success"].sum() == 1 + 2 + 2


def test_header_layout_totals(tmp_path: Path) -> None:
    root = _header_dir(tmp_path / "out", headers=(1, 2, 3), total=6)
    with pytest.raises(IncompleteLogError, match=r"5 of 6 results \(.*summary\.json states 6\)"):
        load_letta_evals(root)
    root = _header_dir(tmp_path / "out2", headers=(1, 2, 3))
    for path in (root / "run_3").iterdir():
        path.unlink()
    (root / "run_3").rmdir()
    with pytest.raises(IncompleteLogError, match=r"states 3 runs; absent: run_3/"):
        load_letta_evals(root)


def test_report_command_on_a_reward_suite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from reliability_lab.cli import main

    root = _suite_dir(tmp_path / "out", {"reward": REWARD_021})
    assert main(["report", str(root), "--n-boot", "10"]) == 2
    assert "field 'config.reward'" in capsys.readouterr().err
    assert main(["report", str(root), "--n-boot", "10", "--pass-threshold", "0.7"]) == 0
    assert "Total runs: 15" in capsys.readouterr().out
