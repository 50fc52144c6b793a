"""experiments/your_agent: the offline example separates its agents' dimensions; CLI filters."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reliability_lab import run_experiment
from reliability_lab.cli import main

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "experiments" / "your_agent" / "your_agent.yaml"


def test_offline_example_separates_careful_from_sloppy(tmp_path: Path) -> None:
    outcome = run_experiment(CONFIG, output=tmp_path / "out", progress=False)
    assert outcome.n_planned == 2 * 24 * (5 + 3)
    report = outcome.report
    careful, sloppy = report.loc["careful"], report.loc["sloppy"]
    for metric in ("accuracy", "R_Con", "R_Pred", "R_Rob", "R"):
        assert careful[metric] > sloppy[metric], metric
    assert careful["S_comp"] == 1.0 and sloppy["S_comp"] < 1.0  # sloppy cancels orders
    runs = outcome.runs
    assert runs["cost_usd"].isna().all()  # no ctx.llm calls: cost not recorded, never 0
    finished = runs["error"].isna()
    assert set(runs.loc[finished, "confidence_source"]) == {"agent"}
    assert set(runs.loc[~finished, "confidence_source"]) <= {"none"}  # gave up: no model to ask
    assert runs.loc[~finished, "error"].str.startswith("agent: gave up").all()
    assert "careful" in str(outcome) and "Results written to" in str(outcome)


def test_cli_validate_and_run_with_filters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate", str(CONFIG), "--agents", "careful", "--limit", "3"]) == 0
    assert "1 agents × 3 tasks" in capsys.readouterr().out
    out = tmp_path / "narrow"
    code = main(
        ["run", str(CONFIG), "--tasks", "t01,t05", "--agents", "sloppy", "--output", str(out)]
    )
    assert code in (0, 1)
    text = capsys.readouterr().out
    assert "sloppy" in text and "careful" not in text.split("Results:")[1].split("pass^k")[0]
    assert main(["validate", str(CONFIG), "--agents", "nobody"]) == 2
    assert "unknown agent 'nobody'" in capsys.readouterr().err


@pytest.mark.skipif(not os.environ.get("OPENAI_API_KEY"), reason="needs OPENAI_API_KEY")
def test_real_model_variant(tmp_path: Path) -> None:  # pragma: no cover - needs a key
    config = CONFIG.with_name("your_agent_llm.yaml")
    outcome = run_experiment(config, output=tmp_path / "llm", runs=1, limit=3, progress=False)
    assert outcome.runs["api_calls"].gt(0).all()
