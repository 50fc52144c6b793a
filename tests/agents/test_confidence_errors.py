"""A failed confidence question is recorded with its category and counted, never silent."""

from __future__ import annotations

import asyncio
import json
import math
from pathlib import Path
from typing import Any

import pytest

from reliability_lab.agents import CONFIDENCE_QUESTION, RunSpec, execute_run
from reliability_lab.cli import main
from reliability_lab.llm import LLMCallError
from reliability_lab.results import load_results
from tests.experiment.helpers import config_writer, result_lines
from tests.fake_openai_server import FakeOpenAIServer
from tests.safety.helpers import DirectSim


class FailingConfidence(DirectSim):
    """The simulated model, except that the confidence question fails like a provider."""

    async def acompletion(self, *, messages: list[dict[str, Any]], **kw: Any) -> Any:
        if messages[-1]["content"] == CONFIDENCE_QUESTION:
            raise LLMCallError("timeout", "request timed out after 60 s", attempts=5)
        return await super().acompletion(messages=messages, **kw)


def _spec(task_id: str) -> RunSpec:
    return RunSpec(
        agent="cal",
        model="sim/perfect",
        params={},
        environment="customer_service",
        task_id=task_id,
        run=0,
        seed=3,
    )


def test_failed_confidence_call_is_recorded_with_its_category() -> None:
    result = asyncio.run(execute_run(_spec("cs_01"), FailingConfidence()))  # type: ignore[arg-type]
    assert result.confidence_error == "timeout: request timed out after 60 s"
    assert math.isnan(result.confidence) and result.confidence_source == "fallback"
    # the run's own outcome is known: not an infrastructure error, scored as usual
    assert result.error is None and result.success and result.score == 1.0


def test_answered_confidence_has_no_error() -> None:
    result = asyncio.run(execute_run(_spec("cs_01"), DirectSim()))  # type: ignore[arg-type]
    assert result.confidence_error is None and result.confidence_source == "elicited"


def test_experiment_counts_confidence_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-confidence-000000")
    with FakeOpenAIServer() as server:
        agent = {"model": "openai/confidence-500", "params": {"api_base": server.base_url}}
        cfg = config_writer(tmp_path)(
            {
                "name": "conf",
                "runs": 2,
                "environment": {"limit": 2},
                "agents": [
                    {"label": "net", **agent},
                    {"label": "sim", "model": "sim/calibrated"},
                ],
                "llm": {"max_retries": 0},
                "sessions": {"enabled": False},
                "report": {"n_boot": 20},
            }
        )
        assert main(["run", str(cfg), "--output", str(tmp_path / "out")]) == 0
    stdout = capsys.readouterr().out
    net = [r for r in result_lines(tmp_path / "out") if r["agent"] == "net"]
    assert len(net) == 4
    assert all(r["confidence_error"].startswith("server: ") for r in net)
    assert all(r["error"] is None and r["confidence_source"] == "fallback" for r in net)
    runs = load_results(tmp_path / "out")
    assert runs.groupby("agent")["confidence_error"].count().to_dict() == {"net": 4, "sim": 0}
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    errors = summary["confidence_errors"]
    assert (errors["total"], errors["by_category"], errors["per_agent"]) == (
        4,
        {"server": 4},
        {"net": 4},
    )
    assert errors["first_cause"]["server"].startswith("run net|cs_0")
    assert "Confidence question failed in 4 runs (server 4)" in stdout
