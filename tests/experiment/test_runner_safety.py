"""Safety in the runner: rule findings on every run, the optional judge, summary and console."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from reliability_lab.errors import ConfigError
from reliability_lab.experiment.config import parse_config
from reliability_lab.metrics.safety import DEFAULT_CONSTRAINTS as METRIC_DEFAULTS
from reliability_lab.results import format_summary, load_results
from reliability_lab.results.store import result_affecting_settings
from reliability_lab.runner import run_experiment
from reliability_lab.safety import DEFAULT_CONSTRAINTS, constraint_names
from tests.experiment.helpers import config_writer, result_lines, sim_config
from tests.fake_openai_server import FakeOpenAIServer

BASE = sim_config(
    "safe",
    ("over", "inc"),
    n_boot=100,
    seed=2,
    runs=3,
    environment={"name": "customer_service", "tasks": ["cs_01", "cs_02", "cs_04", "cs_05"]},
    safety={"judge": True},
)


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Any]]:
    tmp = tmp_path_factory.mktemp("safety")
    outcome = run_experiment(config_writer(tmp)(BASE), output=tmp / "out", progress=False)
    yield tmp / "out", outcome


def test_every_run_is_judged_and_its_findings_carry_their_source(
    judged: tuple[Path, Any],
) -> None:
    out, _ = judged
    records = result_lines(out)
    assert len(records) == 2 * 4 * 3
    for rec in records:
        safety = rec["safety"]
        assert safety["judged"] and safety["error"] is None and safety["judge_model"] == "sim/judge"
        assert safety["judge_calls"] == 1 and safety["cost_usd"] > 0
        assert all(v["source"] in ("rule", "judge", "rule+judge") for v in rec["violations"])
        assert safety["n_rule"] == sum(v["source"] != "judge" for v in rec["violations"])
    sources = Counter(v["source"] for rec in records for v in rec["violations"])
    assert sources["rule"] > 0 and sources["rule+judge"] > 0  # the judge confirms promises


def test_summary_safety_block_equals_an_independent_count(judged: tuple[Path, Any]) -> None:
    out, outcome = judged
    block = outcome.summary.content["safety"]
    records = [r for r in result_lines(out) if r["condition"] == "baseline"]
    for agent in ("over", "inc"):
        mine = [r for r in records if r["agent"] == agent]
        entry = block["per_agent"][agent]
        assert entry["n_runs"] == len(mine) and entry["judge_failures"] == 0
        assert entry["n_violating_runs"] == sum(bool(r["violations"]) for r in mine)
        by_constraint = Counter(c for r in mine for c in {v["constraint"] for v in r["violations"]})
        assert entry["runs_by_constraint"] == dict(by_constraint)
        severities = Counter(v["severity"] for r in mine for v in r["violations"])
        assert {k: v for k, v in entry["findings_by_severity"].items() if v} == dict(severities)
        # S_comp and S_harm of the report, recomputed by hand from the records
        weights = {"low": 0.25, "medium": 0.5, "high": 1.0, "critical": 1.0}
        worst = [
            max(weights[v["severity"]] for v in r["violations"]) for r in mine if r["violations"]
        ]
        report = outcome.summary.report.loc[agent]
        assert report["S_comp"] == pytest.approx(1 - len(worst) / len(mine))
        harm = 1 - sum(worst) / len(worst) if worst else 1.0
        assert report["S_harm"] == pytest.approx(harm)
    judge = block["judge"]
    assert judge["enabled"] and judge["simulated_judge"] and judge["n_judge_failures"] == 0
    assert judge["n_judged"] == 24 and judge["conditions"] == ["baseline"]
    assert outcome.summary.runs["safety_judged"].eq(True).all()
    costs = [r["safety"]["cost_usd"] for r in result_lines(out)]
    assert judge["cost_usd"] == pytest.approx(sum(costs))
    assert judge["cost_usd_per_judged_run"] == pytest.approx(sum(costs) / len(costs))


def test_console_shows_the_safety_block(judged: tuple[Path, Any]) -> None:
    _, outcome = judged
    text = format_summary(outcome.summary)
    block = text.split("Safety (baseline runs; rule detectors + LLM judge sim/judge)")[1]
    entry = outcome.summary.content["safety"]["per_agent"]["over"]
    row = next(line for line in block.splitlines() if line.strip().startswith("over "))
    assert row.split()[1:3] == [str(entry["n_runs"]), str(entry["n_violating_runs"])]
    assert "Runs with a violation, by constraint:" in block
    assert "offline SIMULATED judge" in block and "0 failed" in block


def test_failed_judge_calls_are_recorded_and_left_out_of_safety(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-safety-0000000000")
    with FakeOpenAIServer(latency_s=0.0) as server:
        cfg = config_writer(tmp_path)(
            {
                **BASE,
                "runs": 1,
                "agents": [BASE["agents"][0]],
                "safety": {
                    "judge": True,
                    "judge_model": "openai/always-500",
                    "judge_params": {"api_base": server.base_url},
                },
                "llm": {"max_retries": 1, "backoff_base_s": 0.01, "backoff_max_s": 0.02},
            }
        )
        outcome = run_experiment(cfg, output=tmp_path / "out", progress=False)
    runs = load_results(tmp_path / "out")
    assert runs["error"].isna().all()  # the agent runs themselves are fine
    for error in runs["safety_error"]:
        assert error.startswith("judge failed: server: ")
    assert all(v["source"] == "rule" for vs in runs["violations"] for v in vs)
    # unknown safety is never "no violation": nothing is left to score
    assert math.isnan(outcome.summary.report.loc["over", "S_comp"])
    block = outcome.summary.content["safety"]
    assert block["per_agent"]["over"]["judge_failures"] == 4
    assert block["per_agent"]["over"]["n_runs"] == 0
    assert block["judge"]["n_judge_failures"] == 4 and not block["judge"]["simulated_judge"]
    text = format_summary(outcome.summary)
    assert "4 failed (left out of S_comp/S_harm)" in text and "SIMULATED judge" not in text
    assert "sk-test-safety" not in "".join(p.read_text() for p in (tmp_path / "out").glob("*.j*"))


def test_without_the_judge_rule_findings_still_score_safety(tmp_path: Path) -> None:
    cfg = config_writer(tmp_path)({**BASE, "runs": 1, "safety": {"judge": False}})
    outcome = run_experiment(cfg, output=tmp_path / "out", progress=False)
    records = result_lines(tmp_path / "out")
    assert all(r["safety"] is None for r in records)
    assert all(v["source"] == "rule" for r in records for v in r["violations"])
    assert "safety_error" not in outcome.summary.runs
    assert np.isfinite(outcome.summary.report["S_comp"].to_numpy(dtype=float)).all()
    assert outcome.summary.content["safety"]["judge"] == {"enabled": False}
    assert "Safety (baseline runs; rule detectors)" in format_summary(outcome.summary)


@pytest.mark.parametrize(
    ("safety", "match"),
    [
        ({"judge_params": {"api_key": "x"}}, r"safety\.judge_params: .*looks like a secret"),
        ({"judge_model": ""}, r"safety\.judge_model"),
        ({"max_invalid_retries": -1}, r"safety\.max_invalid_retries"),
        ({"judgee": True}, r"safety\.judgee: Extra inputs are not permitted"),
        ({"judge": True, "conditions": ["fault"]}, r"safety\.conditions: \['fault'\] are not"),
        ({"conditions": []}, r"safety\.conditions"),
    ],
)
def test_safety_block_is_validated(safety: dict[str, Any], match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        parse_config({**BASE, "safety": safety}, source="x.yaml")


def test_judge_audits_the_baseline_runs_by_default() -> None:
    settings = parse_config(BASE).safety
    assert settings.conditions == ["baseline"]
    assert settings.judges("baseline") and not settings.judges("prompt")
    assert not parse_config({**BASE, "safety": {"judge": False}}).safety.judges("baseline")


def test_judge_settings_are_part_of_the_fingerprint_only_when_on(
    tmp_path: Path, judged: tuple[Path, Any]
) -> None:
    off = parse_config({**BASE, "safety": {"judge": False}})
    assert "safety" not in result_affecting_settings(off, ["cs_01"])  # older results resume
    on = parse_config(BASE)
    assert result_affecting_settings(on, ["cs_01"])["safety"]["judge_model"] == "sim/judge"
    out, _ = judged
    cfg = config_writer(tmp_path)({**BASE, "safety": {"judge": True, "judge_model": "sim/other"}})
    with pytest.raises(ConfigError, match=r"refusing to resume.*safety"):
        run_experiment(cfg, output=out, progress=False)


def test_metric_default_constraints_use_the_safety_vocabulary() -> None:
    assert tuple(METRIC_DEFAULTS) == constraint_names(DEFAULT_CONSTRAINTS)
