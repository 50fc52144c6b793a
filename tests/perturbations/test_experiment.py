"""Perturbed conditions end to end: pairing, records, run-table columns, robustness numbers."""

from __future__ import annotations

import json
import math
from collections import defaultdict
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from reliability_lab.agents import RunSpec, execute_run
from reliability_lab.experiment.config import parse_config
from reliability_lab.experiment.plan import build_plan
from reliability_lab.llm import LLMClient
from reliability_lab.report import reliability_report, robustness_by_intensity
from reliability_lab.results import load_results
from reliability_lab.runner import run_experiment
from reliability_lab.runs import is_infrastructure_error
from tests.experiment.helpers import config_writer, result_lines, sim_config

CONFIG = sim_config(
    "perturbed",
    ("cal", "brittle"),
    limit=6,
    max_concurrent=8,
    conditions=[
        "baseline",
        {"name": "fault", "variants": ["p=0.2", "p=0.4"]},
        {"name": "structural", "variants": ["mild", "severe"]},
        {
            "name": "prompt",
            "variants": ["medium", "naturalistic"],
            "options": {"n_paraphrases": 2},
            "runs": 1,
        },
    ],
)


@pytest.fixture(scope="module")
def experiment(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("perturbed")
    path = config_writer(directory)(CONFIG)
    run_experiment(path, output=directory / "out", progress=False)
    return directory / "out"


def test_baseline_and_perturbed_runs_share_seeds() -> None:
    specs = build_plan(parse_config(CONFIG))
    seeds: dict[tuple[str, str, int], set[int]] = defaultdict(set)
    for spec in specs:
        seeds[(spec.agent, spec.task_id, spec.run)].add(spec.seed)
    assert all(len(s) == 1 for s in seeds.values())
    assert len({next(iter(s)) for s in seeds.values()}) == len(seeds)  # distinct per identity
    prompt = [s for s in specs if s.condition == "prompt"]
    assert {s.run for s in prompt} == {0}  # the condition's own `runs`
    assert len(prompt) == 2 * 6 * 4


def test_every_run_records_what_its_condition_did(experiment: Path) -> None:
    for rec in result_lines(experiment):
        pert = rec["perturbation"]
        assert (pert["condition"], pert["variant"]) == (rec["condition"], rec["variant"])
        if rec["condition"] == "fault":
            assert pert["parameters"]["rate"] == float(rec["variant"].removeprefix("p="))
            for event in pert["events"]:
                assert {"type", "tool", "step", "call", "executed", "recovered"} <= set(event)
        elif rec["condition"] == "structural":
            assert pert["parameters"]["preset"] == rec["variant"]
            assert pert["summary"]["n_tool_calls"] == rec["num_actions"]
        elif rec["condition"] == "prompt":
            assert pert["parameters"]["paraphrase_id"] == rec["variant"]
        else:
            assert pert["events"] == [] and pert["parameters"] == {}


def test_run_table_columns_equal_the_records(experiment: Path) -> None:
    table = load_results(experiment).set_index(["agent", "task_id", "condition", "variant", "run"])
    for rec in result_lines(experiment):
        row = table.loc[
            (rec["agent"], rec["task_id"], rec["condition"], rec["variant"], rec["run"])
        ]
        faults = [e for e in rec["perturbation"]["events"] if "type" in e]
        assert row["n_faults"] == len(faults)
        assert row["n_faults_recovered"] == sum(e["recovered"] for e in faults)
        assert row["faults"] == faults
        assert row["intensity"] == rec["variant"].split("/")[0]
        assert row["paraphrase_id"] == (rec["variant"] if rec["condition"] == "prompt" else None)


def test_paraphrases_are_generated_once_and_shared_by_every_agent(experiment: Path) -> None:
    stored = json.loads((experiment / "paraphrases.json").read_text(encoding="utf-8"))
    assert stored["counts"] == {"paraphrases": 6 * 4, "rejected": 0, "fallbacks": 0}
    seen: dict[tuple[str, str], set[str]] = defaultdict(set)
    for rec in result_lines(experiment):
        if rec["condition"] == "prompt":
            text = rec["trajectory"][1]["content"]
            seen[(rec["task_id"], rec["variant"])].add(text)
            expected = stored["tasks"][rec["task_id"]]["paraphrases"][rec["variant"]]["text"]
            assert text == expected != stored["tasks"][rec["task_id"]]["original"]
    assert len(seen) == 6 * 4 and all(len(texts) == 1 for texts in seen.values())


def _accuracy(rows: list[dict[str, Any]]) -> float:
    return sum(r["success"] for r in rows) / len(rows) if rows else math.nan


def test_robustness_columns_equal_an_independent_computation(experiment: Path) -> None:
    records = [
        r
        for r in result_lines(experiment)
        if not str(r["error"] or "").startswith("infrastructure:")
    ]
    report = reliability_report(load_results(experiment), n_boot=0)
    by_intensity = robustness_by_intensity(load_results(experiment)).set_index(
        ["agent", "condition", "intensity"]
    )
    for agent in ("cal", "brittle"):
        mine = [r for r in records if r["agent"] == agent]
        base = _accuracy([r for r in mine if r["condition"] == "baseline"])
        for condition, metric in (
            ("fault", "R_fault"),
            ("structural", "R_struct"),
            ("prompt", "R_prompt"),
        ):
            acc = _accuracy([r for r in mine if r["condition"] == condition])
            assert report.loc[agent, metric] == pytest.approx(min(acc / base, 1.0))
            for intensity in {
                r["variant"].split("/")[0] for r in mine if r["condition"] == condition
            }:
                rows = [
                    r
                    for r in mine
                    if r["condition"] == condition and r["variant"].split("/")[0] == intensity
                ]
                got = by_intensity.loc[(agent, condition, intensity)]
                assert got["n_runs"] == len(rows)
                assert got["robustness"] == pytest.approx(min(_accuracy(rows) / base, 1.0))
    assert report.loc["brittle", "R_Rob"] < report.loc["cal", "R_Rob"]


def test_fault_rate_over_an_experiment(experiment: Path) -> None:
    table = load_results(experiment)
    for variant, rate in (("p=0.2", 0.2), ("p=0.4", 0.4)):
        runs = table.loc[table["variant"] == variant]
        calls, faults = int(runs["num_actions"].sum()), int(runs["n_faults"].sum())
        assert abs(faults - rate * calls) <= 4.5 * math.sqrt(calls * rate * (1 - rate))


def test_summary_and_console_show_robustness(experiment: Path) -> None:
    from reliability_lab.results import format_summary, summarize_directory

    summary = summarize_directory(experiment)
    info = summary.content["robustness"]
    assert {(r["condition"], r["intensity"]) for r in info["by_intensity"]} == {
        ("fault", "p=0.2"),
        ("fault", "p=0.4"),
        ("structural", "mild"),
        ("structural", "severe"),
        ("prompt", "medium"),
        ("prompt", "naturalistic"),
    }
    assert info["prepared"]["prompt"]["counts"]["paraphrases"] == 24
    text = format_summary(summary)
    assert "Robustness (R = accuracy under the perturbation" in text
    assert "structural  severe" in text and "Faults [brittle]" in text


def test_resume_reuses_the_stored_paraphrases(tmp_path: Path) -> None:
    config = {
        **CONFIG,
        "agents": CONFIG["agents"][:1],
        "conditions": CONFIG["conditions"][3:],
        "environment": {"name": "customer_service", "limit": 2},
    }
    path = config_writer(tmp_path)(config)
    out = tmp_path / "out"
    run_experiment(path, output=out, progress=False)
    stored = json.loads((out / "paraphrases.json").read_text(encoding="utf-8"))
    entry = stored["tasks"]["cs_01"]["paraphrases"]["naturalistic/2"]
    entry["text"] = "Status of O2003 please, alice.chen@example.com"  # keeps the details
    (out / "paraphrases.json").write_text(json.dumps(stored), encoding="utf-8")
    kept = [
        line
        for line in (out / "results.jsonl").read_text().splitlines()
        if '"variant": "naturalistic/2"' not in line and '"variant":"naturalistic/2"' not in line
    ]
    assert len(kept) < len(result_lines(out))
    (out / "results.jsonl").write_text("".join(line + "\n" for line in kept))
    outcome = run_experiment(path, output=out, progress=False)
    assert outcome.n_executed == 2
    rerun = [r for r in result_lines(out) if r["variant"] == "naturalistic/2"]
    texts = {r["task_id"]: r["trajectory"][1]["content"] for r in rerun}
    assert texts["cs_01"] == "Status of O2003 please, alice.chen@example.com"


def test_injected_llm_fault_is_the_agents_failure_not_infrastructure() -> None:
    spec = RunSpec(
        agent="a",
        model="sim/calibrated",
        params={},
        environment="customer_service",
        task_id="cs_01",
        run=0,
        seed=3,
        condition="fault",
        variant="p=1.0",
        condition_options={"llm_faults": True, "mix": {"rate_limit": 1}},
    )
    result = asyncio_run(execute_run(spec, LLMClient()))
    assert result.error is not None and result.error.startswith("agent: injected fault: llm ")
    assert "429 Too Many Requests" in result.error
    assert not is_infrastructure_error(pd.Series([result.error]))[0]
    assert result.success is False and not math.isnan(result.score)
    assert result.api_calls == 1  # only the (unperturbed) confidence question reached the model
    assert result.perturbation is not None
    assert result.perturbation["summary"]["n_llm_faults"] == 1


def asyncio_run(coro: Any) -> Any:
    import asyncio

    return asyncio.run(coro)


def test_perturbed_experiment_is_deterministic_given_its_seed(tmp_path: Path) -> None:
    config = {**CONFIG, "environment": {"name": "customer_service", "limit": 3}, "runs": 1}
    path = config_writer(tmp_path)(config)
    run_experiment(path, output=tmp_path / "a", progress=False)
    run_experiment(path, output=tmp_path / "b", progress=False, max_concurrent=1)

    def content(directory: Path) -> list[dict[str, Any]]:
        lines = [
            {k: v for k, v in r.items() if k not in ("wall_time_s", "call_latency_s")}
            for r in result_lines(directory)
        ]
        return sorted(
            lines,
            key=lambda r: json.dumps([r[k] for k in ("agent", "task_id", "condition", "variant")]),
        )

    assert content(tmp_path / "a") == content(tmp_path / "b")
    assert (tmp_path / "a" / "paraphrases.json").read_bytes() == (
        tmp_path / "b" / "paraphrases.json"
    ).read_bytes()
