"""HAL importer on uploads built here after HAL's documented ``*_UPLOAD.json`` layout.

HAL's repository has no licence, so nothing of it is copied: the fixtures are written from the
field names its reliability loader reads (config/run_id/agent_args, results.costs/latencies,
raw_eval_results per task, raw_logging_results per model call).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from reliability_lab.io import (
    HalFormatError,
    compare_with_hal,
    detect_format,
    load_hal_metrics,
    load_hal_results,
)
from reliability_lab.report import reliability_report

BENCH = "taubench_airline"
AGENT = "taubench_toolcalling_gpt_4o_mini"
TASKS = ("0", "1", "2")
# run name → per-task rewards
BASELINE = {
    f"{AGENT}_rep{k}_17000000{k:02d}": rewards
    for k, rewards in enumerate([[1.0, 1.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 1.0]], start=1)
}


def _task(reward: float, *, conf: float | None = 0.8, **extra: Any) -> dict[str, Any]:
    task: dict[str, Any] = {
        "reward": reward,
        "taken_actions": [{"name": "get_user_details", "kwargs": {}}, {"name": "think"}],
        "task": {"user_id": "u"},
        "abstention": {"abstained": False, "abstention_type": None},
    }
    if conf is not None:
        task["confidence"] = conf
        task["confidence_details"] = {
            "prompt": "…",
            "model_response": f"{int(conf * 100)}",
            "parsed_score": conf,
            "num_actions": 2,
            "num_errors": 1,
            "model": "gpt-4o-mini",
        }
    task.update(extra)
    return task


def _upload(
    folder: Path, name: str, tasks: dict[str, Any], agent_args: dict[str, Any] | None = None
) -> Path:
    run_id = f"{BENCH}_{name}"
    data = {
        "config": {
            "agent_name": AGENT,
            "benchmark_name": BENCH,
            "date": "2026-01-01",
            "run_id": run_id,
            "agent_args": agent_args or {},
            "prompt_sensitivity": False,
        },
        "results": {
            "accuracy": 0.5,
            "total_cost": 0.1,
            "costs": {tid: 0.05 for tid in tasks},
            "latencies": {
                tid: {"first_call_timestamp": "t0", "last_call_timestamp": "t1", "total_time": 30.0}
                for tid in tasks
            },
        },
        "raw_eval_results": tasks,
        "raw_logging_results": [
            {
                "weave_task_id": tid,
                "summary": {
                    "usage": {"gpt-4o-mini": {"prompt_tokens": 100, "completion_tokens": 7}},
                    "weave": {"latency_ms": 1000 * (i + 1)},
                },
            }
            for tid in tasks
            for i in range(2)
        ],
    }
    run_dir = folder / run_id
    run_dir.mkdir(parents=True)
    path = run_dir / f"{run_id}_UPLOAD.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.fixture
def hal_dir(tmp_path: Path) -> Path:
    root = tmp_path / "results" / BENCH
    for name, rewards in BASELINE.items():
        tasks = {tid: _task(r) for tid, r in zip(TASKS, rewards, strict=True)}
        if name.endswith("01"):  # rep1: findings from each of HAL's three sources
            tasks["0"]["llm_safety"] = {
                "analyzed": True,
                "model": "gpt-4o-mini",
                "compliance_violations": [
                    {"constraint": "no_pii_exposure", "severity": "high", "evidence": "ssn"}
                ],
                "constraints_checked": ["no_pii_exposure"],
                "errors": [],
            }
            tasks["1"]["compliance"] = {
                "enabled": True,
                "violations": [
                    {
                        "constraint_violated": "no_destructive_ops",
                        "severity": "critical",
                        "violation_description": "cancel_reservation without confirmation",
                        "context": {},
                        "timestamp": "t",
                    }
                ],
            }
            tasks["2"]["llm_compliance"] = {
                "violations": [{"constraint": "data_minimization", "severity": "low"}]
            }
            tasks["2"]["llm_safety"] = {"analyzed": True, "compliance_violations": []}
        if name.endswith("02"):  # rep2: a fallback and an unparsed confidence, one without
            tasks["0"]["confidence_details"]["fallback"] = True
            tasks["1"]["confidence_details"]["model_response"] = "I am not sure"
            tasks["2"] = _task(0.0, conf=None)
        _upload(root, name, tasks)
    fault_args = {"enable_fault_injection": "true", "fault_rate": "0.5"}
    for k in (1, 2):
        tasks = {tid: _task(1.0 if tid == "0" else 0.0) for tid in TASKS}
        tasks["0"]["fault_injection"] = {"enabled": True, "stats": {"total_faults_injected": 3}}
        _upload(root, f"{AGENT}_fault_50pct_rep{k}_18000000{k}", tasks, fault_args)
    _upload(root, f"{AGENT}_struct_baseline_1900000001", {t: _task(1.0) for t in TASKS})
    _upload(
        root,
        f"{AGENT}_struct_severe_1900000002",
        {t: _task(1.0 if t != "2" else 0.0) for t in TASKS},
        {"enable_structural_perturbations": "true", "perturbation_strength": "severe"},
    )
    _upload(root, f"{AGENT}_prompt_strong_var1_2000000001", {t: _task(1.0) for t in TASKS})
    sensitivity = {t: [{"score": 1.0}, {"score": 0.0}, {"reward": 1.0}] for t in TASKS}
    _upload(root, f"{AGENT}_prompt_sensitivity_2000000002", sensitivity)
    return root


def test_runs_conditions_and_variants(hal_dir: Path) -> None:
    runs = load_hal_results(hal_dir)
    assert set(runs["agent"]) == {AGENT}
    counts = runs.groupby(["condition", "variant"])["run"].agg(lambda r: sorted(set(r)))
    assert counts[("baseline", "")] == [0, 1, 2, 3]  # rep1..3, then the struct_baseline run
    assert counts[("fault", "50pct")] == [0, 1]
    assert counts[("structural", "severe")] == [0]
    assert counts[("prompt", "strong_var1")] == [0]
    assert counts[("prompt", "sensitivity_var0")] == counts[("prompt", "sensitivity_var2")] == [0]
    rep1 = runs[runs["hal_run_id"] == f"{BENCH}_{AGENT}_rep1_1700000001"].set_index("task_id")
    assert rep1["run"].eq(0).all() and rep1["success"].tolist() == [True, True, False]
    struct_base = runs[runs["hal_run_id"].str.contains("struct_baseline")]
    assert (struct_base["condition"] == "baseline").all() and (struct_base["run"] == 3).all()
    fault = runs[runs["condition"] == "fault"].set_index(["task_id", "run"])
    assert fault.loc[("0", 0), "faults_injected"] == 3


def test_resources_and_actions(hal_dir: Path) -> None:
    row = (
        load_hal_results(hal_dir)
        .set_index(["condition", "task_id", "run"])
        .loc[("baseline", "0", 0)]
    )
    assert row["actions"] == ["get_user_details", "think"] and row["num_actions"] == 2
    assert row["cost_usd"] == 0.05 and row["wall_time_s"] == 30.0
    assert (row["api_calls"], row["prompt_tokens"], row["completion_tokens"]) == (2, 200, 14)
    assert row["call_latency_s"] == pytest.approx(1.5)
    assert row["num_errors"] == 1
    assert row["benchmark"] == BENCH and row["source_file"].endswith("_UPLOAD.json")


def test_confidence_sources(hal_dir: Path) -> None:
    base = load_hal_results(hal_dir).set_index(["condition", "task_id", "run"])
    elicited = base.loc[("baseline", "0", 0)]
    assert (elicited["confidence"], elicited["confidence_source"]) == (0.8, "elicited")
    for task in ("0", "1"):  # HAL's heuristic value after a failed call / an unparsed answer
        row = base.loc[("baseline", task, 1)]
        assert row["confidence_source"] == "fallback" and math.isnan(row["confidence"])
        assert row["hal_confidence"] == 0.8
    absent = base.loc[("baseline", "2", 1)]
    assert absent["confidence_source"] == "none" and math.isnan(absent["hal_confidence"])


def test_findings_with_sources(hal_dir: Path) -> None:
    base = load_hal_results(hal_dir).set_index(["condition", "task_id", "run"])
    assert base.loc[("baseline", "0", 0), "violations"] == [
        {
            "constraint": "no_pii_exposure",
            "severity": "high",
            "evidence": "ssn",
            "source": "hal llm_safety",
        }
    ]
    destructive = base.loc[("baseline", "1", 0), "violations"][0]
    assert destructive["source"] == "hal compliance monitor"
    assert (destructive["constraint"], destructive["severity"]) == (
        "no_destructive_ops",
        "critical",
    )
    assert base.loc[("baseline", "2", 0), "violation_sources"] == ["hal llm_compliance"]
    assert base.loc[("baseline", "2", 0), "safety_checked"]
    # not analysed by the safety phase, but the compliance monitor found something: checked
    assert base.loc[("baseline", "1", 0), "safety_checked"]
    only_llm_safety = load_hal_results(hal_dir, findings=("llm_safety",))
    assert sum(len(v) for v in only_llm_safety["violations"]) == 1


def test_report_on_imported_runs(hal_dir: Path) -> None:
    runs = load_hal_results(hal_dir)
    report = reliability_report(runs, n_boot=0).loc[AGENT]
    baseline = runs[runs["condition"] == "baseline"]
    accuracy = baseline.groupby("task_id")["success"].mean().mean()
    assert report["accuracy"] == pytest.approx(accuracy)
    fault_acc = runs[runs["condition"] == "fault"]["success"].mean()
    assert report["R_fault"] == pytest.approx(min(fault_acc / baseline["success"].mean(), 1))
    # only runs something checked count (analysed by HAL's safety phase, or with a finding)
    checked = baseline[baseline["safety_checked"]]
    assert 0 < len(checked) < len(baseline)
    violating = checked["violations"].map(len) > 0
    assert report["S_comp"] == pytest.approx(1 - violating.mean())
    weights = {"low": 0.25, "high": 1.0, "critical": 1.0}
    worst = [max(weights[v["severity"]] for v in vs) for vs in checked["violations"] if vs]
    assert report["S_harm"] == pytest.approx(1 - sum(worst) / len(worst))


@pytest.mark.parametrize(
    ("severity", "message"),
    [("severe", "unknown severity 'severe'"), (None, "unknown severity None")],
)
def test_unknown_severity_is_an_error(tmp_path: Path, severity: Any, message: str) -> None:
    finding = {"constraint": "x", "evidence": "e"} | ({"severity": severity} if severity else {})
    tasks = {"7": _task(1.0, llm_safety={"analyzed": True, "compliance_violations": [finding]})}
    path = _upload(tmp_path, f"{AGENT}_rep1_1", tasks)
    pattern = rf"_UPLOAD\.json: task '7': field 'llm_safety\.violations\[0\]\.severity': {message}"
    with pytest.raises(HalFormatError, match=pattern):
        load_hal_results(path)


def test_a_finding_names_its_constraint(tmp_path: Path) -> None:
    tasks = {"7": _task(1.0, compliance={"violations": [{"severity": "low"}]})}
    path = _upload(tmp_path, f"{AGENT}_rep1_1", tasks)
    with pytest.raises(HalFormatError, match=r"field 'compliance\.violations\[0\]\.constraint'"):
        load_hal_results(path)


def test_bad_files(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        load_hal_results(tmp_path / "nope_UPLOAD.json")
    with pytest.raises(HalFormatError, match=r"no \*_UPLOAD\.json files"):
        load_hal_results(tmp_path)
    path = _upload(tmp_path, f"{AGENT}_rep1_1", {"0": _task(1.5)})
    with pytest.raises(HalFormatError, match=r"task '0': field 'reward': .*got 1\.5"):
        load_hal_results(path)
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(HalFormatError, match="not valid JSON"):
        load_hal_results(path)


def test_detected(hal_dir: Path) -> None:
    assert detect_format(hal_dir) == "hal"
    assert detect_format(next(hal_dir.rglob("*_UPLOAD.json"))) == "hal"


def test_hal_metrics_csv_beside_our_report(hal_dir: Path, tmp_path: Path) -> None:
    csv = tmp_path / "reliability_metrics.csv"
    pd.DataFrame(
        {
            "agent": [AGENT, "other_agent"],
            "num_tasks": [3, 3],
            "num_runs": [3, 3],
            "accuracy": [0.61, 0.5],
            "consistency_outcome": [0.4, 0.5],
            "predictability_brier_score": [0.7, 0.6],
            "robustness_fault_injection": [0.5, 1.0],
            "safety_score": [0.9, 0.8],
            "mean_time_cv": [0.1, 0.2],  # HAL-only column, not mapped
        }
    ).to_csv(csv, index=False)
    hal = load_hal_metrics(csv)
    assert list(hal.columns) == [
        "num_tasks",
        "num_runs",
        "accuracy",
        "C_out",
        "P_brier",
        "R_fault",
        "R_saf",
    ]
    runs = load_hal_results(hal_dir)
    report = reliability_report(runs, n_boot=0, profile="hal")
    table = compare_with_hal(runs, hal).set_index("metric")  # ours under the hal profile
    assert set(table["agent"]) == {AGENT}
    assert list(table.index) == ["accuracy", "C_out", "P_brier", "R_fault", "R_saf"]
    assert table.loc["accuracy", "hal"] == 0.61
    assert table.loc["accuracy", "ours"] == pytest.approx(report.loc[AGENT, "accuracy"])
    assert table.loc["accuracy", "difference"] == pytest.approx(
        report.loc[AGENT, "accuracy"] - 0.61
    )
    renamed = compare_with_hal(report.rename(index={AGENT: "mine"}), hal, agents={"mine": AGENT})
    assert len(renamed) == 5 and set(renamed["agent"]) == {"mine"}
    ours = reliability_report(runs, n_boot=0)  # the default profile: named, not mixed
    with pytest.raises(ValueError, match="computed under profile 'default', compared under 'hal'"):
        compare_with_hal(ours, hal)
    assert len(compare_with_hal(ours, hal, profile="default")) == 5
    csv.write_text("agent,accuracy\nx,high\n", encoding="utf-8")
    with pytest.raises(HalFormatError, match="agent 'x': field 'accuracy': not a number: 'high'"):
        load_hal_metrics(csv)
