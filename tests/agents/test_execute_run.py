"""execute_run end to end with the simulated model and with a failing provider."""

from __future__ import annotations

import asyncio
import json
import math
from typing import Any

import pytest

from reliability_lab.agents import RunResult, RunSpec, execute_run, parse_confidence
from reliability_lab.envs import get_environment
from reliability_lab.llm import LLMClient
from reliability_lab.runs import RUN_TABLE_COLUMNS, run_table_from_records
from tests.fake_openai_server import FakeOpenAIServer

TASKS = [t.task_id for t in get_environment("customer_service").tasks()]


def _spec(model: str, task_id: str = "cs_11", run: int = 0, seed: int = 42, **kw: Any) -> RunSpec:
    return RunSpec(
        agent=model.split("/")[-1],
        model=model,
        params=kw.pop("params", {}),
        environment="customer_service",
        task_id=task_id,
        run=run,
        seed=seed,
        **kw,
    )


def _run(spec: RunSpec, llm: LLMClient | None = None) -> RunResult:
    return asyncio.run(execute_run(spec, llm or LLMClient()))


def test_agents_perfect_sim_solves_every_task() -> None:
    async def all_tasks() -> list[RunResult]:
        llm = LLMClient()
        return [await execute_run(_spec("sim/perfect", t), llm) for t in TASKS]

    results = asyncio.run(all_tasks())
    assert all(r.success and r.score == 1.0 and r.error is None for r in results)
    assert all(r.confidence == 1.0 and r.confidence_source == "elicited" for r in results)
    oracle = get_environment("customer_service")
    for r in results:
        assert tuple(r.actions) == oracle.oracle_result(oracle.task(r.task_id)).actions
        assert r.api_calls == len(r.actions) + 2  # one call per action + final + confidence
        assert r.num_actions == len(r.actions) and r.simulated and r.cost_usd > 0


def test_agents_same_seed_same_result_except_wall_time() -> None:
    def strip(r: RunResult) -> dict:
        return r.model_dump(exclude={"wall_time_s", "call_latency_s"})

    a = _run(_spec("sim/inconsistent", seed=7))
    b = _run(_spec("sim/inconsistent", seed=7))
    assert strip(a) == strip(b)
    seeds = {
        json.dumps(strip(_run(_spec("sim/inconsistent", seed=s)))["actions"]) for s in range(12)
    }
    assert len(seeds) > 1  # different seeds give different trajectories


def test_agents_result_rows_form_a_valid_run_table() -> None:
    rows = [_run(_spec("sim/calibrated", run=k, seed=k)).to_row() for k in range(3)]
    assert list(rows[0]) == list(RUN_TABLE_COLUMNS)
    table = run_table_from_records(rows)
    assert len(table) == 3


def test_agents_result_json_is_nan_safe_roundtrip() -> None:
    result = _run(_spec("sim/calibrated", elicit_confidence=False))
    assert math.isnan(result.confidence) and result.confidence_source == "none"
    text = result.model_dump_json()
    assert "NaN" not in text and json.loads(text)["confidence"] is None
    back = RunResult.model_validate_json(text)
    assert math.isnan(back.confidence) and back.actions == result.actions


def test_agents_max_steps_is_an_agent_failure() -> None:
    result = _run(_spec("sim/perfect", task_id="cs_11", max_steps=2))
    assert not result.success and result.error is not None
    assert result.error.startswith("agent: reached max_steps=2")
    assert result.final_answer is None and result.num_actions == 2
    assert result.confidence_source == "elicited"  # still asked afterwards


def test_agents_spec_rejects_credentials_and_bad_values() -> None:
    with pytest.raises(ValueError, match="api_key"):
        _spec("sim/perfect", params={"api_key": "sk-123"})
    for params, where in [
        ({"extra_headers": {"Authorization": "x"}}, r"params\.extra_headers\.Authorization"),
        ({"api_base": "http://u:pw-secret@h/v1"}, r"params\.api_base"),
    ]:
        with pytest.raises(ValueError, match=where) as info:
            _spec("sim/perfect", params=params)
        assert "pw-secret" not in str(info.value)
    _spec("sim/perfect", params={"max_tokens": 5, "extra_headers": {"X-Source": "lab"}})
    with pytest.raises(ValueError, match="run"):
        _spec("sim/perfect", run=-1)


def test_agents_provider_failure_is_infrastructure_error(
    chat_server: tuple[FakeOpenAIServer, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    server, base = chat_server
    server.script = [("status", 503)]  # overloaded on every attempt
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-overloaded-000000")
    llm = LLMClient(max_retries=1, backoff_base_s=0.0)
    result = _run(_spec("openai/test-model", params={"api_base": base}), llm)
    assert len(server.requests) == 2  # the provider really was asked, and asked again
    assert not result.success and math.isnan(result.score)
    assert result.error is not None and result.error.startswith("infrastructure: server:")
    assert result.confidence_source == "none" and result.api_calls == 0
    assert not result.simulated


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("85", 0.85),
        ("0.85", 0.85),
        ("85%", 0.85),
        ("Confidence: 85/100", 0.85),
        ("I'd say 85 out of 100.", 0.85),
        ("85 percent", 0.85),
        ("8.5/10", 0.85),
        ("100", 1.0),
        ("0", 0.0),
        ("1.0", 1.0),
        (".9", 0.9),
        ("Around 70.", 0.70),
        ("I am 90% sure.", 0.90),
    ],
)
def test_agents_confidence_parser_table(text: str, expected: float) -> None:
    assert parse_confidence(text) == pytest.approx(expected)


@pytest.mark.parametrize("text", [None, "", "not sure", "150", "-5", "-50%", "120/100"])
def test_agents_confidence_parser_unparseable_is_nan(text: str | None) -> None:
    assert math.isnan(parse_confidence(text))
