"""Fault injection: rates, type mix, what the agent sees, recovery, harness retries, LLM faults."""

from __future__ import annotations

import json
import math
from collections import Counter
from typing import Any

import pytest

from reliability_lab.envs import get_environment
from reliability_lab.perturbations import (
    DEFAULT_MIX,
    FaultInjection,
    FaultOptions,
    PerturbationContext,
    ToolOutcome,
)

BODY = json.dumps({"order_id": "O2001", "status": "pending", "total": 59.49})


def _injector(variant: str = "p=0.2", seed: int = 7, **options: Any) -> FaultInjection:
    env = get_environment("customer_service")
    ctx = PerturbationContext("fault", variant, FaultOptions(**options), seed, env, env.tasks()[0])
    return FaultInjection(ctx)


class Tool:
    """An execute callback that counts how often the tool really ran."""

    def __init__(self, body: str = BODY, error: bool = False) -> None:
        self.calls = 0
        self.body, self.error = body, error

    def __call__(self, name: str, arguments: str) -> ToolOutcome:
        self.calls += 1
        return ToolOutcome(self.body, self.error)


def _tolerance(n: int, p: float) -> float:
    """4.5 binomial standard deviations: a false alarm about once in 150 000 runs."""
    return 4.5 * math.sqrt(n * p * (1 - p))


@pytest.mark.parametrize("rate", [0.1, 0.2, 0.4])
def test_fault_rate_and_mix_match_the_configuration(rate: float) -> None:
    n = 20_000
    injector, tool = _injector(f"p={rate}"), Tool()
    for i in range(n):
        injector.call_tool("get_order", "{}", i, tool)
    events = injector.record()["events"]
    assert abs(len(events) - n * rate) <= _tolerance(n, rate)
    kinds = Counter(e["type"] for e in events)
    for kind, weight in DEFAULT_MIX.items():
        assert abs(kinds[kind] - len(events) * weight) <= _tolerance(len(events), weight), kind


def test_custom_mix_and_eligible_tools() -> None:
    injector, tool = _injector("p=0.5", mix={"rate_limit": 1.0}, tools=["get_order"]), Tool()
    for i in range(400):
        injector.call_tool("get_order", "{}", i, tool)
        injector.call_tool("get_user", "{}", i, tool)
    events = injector.record()["events"]
    assert {e["type"] for e in events} == {"rate_limit"}
    assert {e["tool"] for e in events} == {"get_order"}
    assert all(e["retry_after_s"] == 2.0 for e in events)


def test_same_seed_same_faults_other_seed_other_faults() -> None:
    def trace(seed: int) -> list[Any]:
        injector, tool = _injector(seed=seed), Tool()
        seen = [injector.call_tool("get_order", "{}", i, tool) for i in range(200)]
        return [seen, injector.record()]

    assert trace(3) == trace(3)
    assert trace(3) != trace(4)


def test_what_the_agent_sees_for_each_type() -> None:
    for kind in DEFAULT_MIX:
        injector, tool = _injector("p=1.0", mix={kind: 1.0}), Tool()
        outcome = injector.call_tool("get_order", "{}", 0, tool)
        assert outcome.is_error
        event = injector.record()["events"][0]
        assert event["type"] == kind and event["step"] == 0 and event["tool"] == "get_order"
        ran = kind in ("partial", "invalid", "empty")
        assert tool.calls == int(ran) and event["executed"] is ran
        if kind == "partial":
            assert outcome.text == BODY[: len(BODY) // 2]
        elif kind == "empty":
            assert outcome.text == ""
        elif kind == "invalid":
            with pytest.raises(json.JSONDecodeError):
                json.loads(outcome.text)
        else:
            assert outcome.text.startswith("Error: ")
    rate_limited = _injector("p=1.0", mix={"rate_limit": 1}, retry_after_s=5)
    text = rate_limited.call_tool("get_order", "{}", 0, Tool()).text
    assert "429 Too Many Requests" in text and "retry after 5 s" in text


def _first_call_faulted(n_calls: int, later: Tool) -> FaultInjection:
    """An injector (found by trying seeds) whose call 0 faulted and later calls did not."""
    for seed in range(10_000):
        injector = _injector("p=0.3", seed=seed, mix={"timeout": 1})
        injector.call_tool("get_order", "{}", 0, Tool())
        for i in range(1, n_calls):
            injector.call_tool("get_order", "{}", i, later)
        calls = [e["call"] for e in injector.events]
        if calls == [0]:
            return injector
    raise AssertionError("no seed found")  # pragma: no cover


def test_recovered_when_the_same_tool_later_succeeds() -> None:
    event = _first_call_faulted(2, Tool()).record()["events"][0]
    assert event["recovered"] is True and event["recovered_by"] == "agent"
    event = _first_call_faulted(2, Tool(error=True)).record()["events"][0]
    assert event["recovered"] is False and event["recovered_by"] is None
    record = _first_call_faulted(1, Tool()).record()
    assert record["events"][0]["recovered"] is False
    assert record["summary"] == {
        "n_tool_calls": 1,
        "n_attempts": 1,
        "n_faults": 1,
        "n_faults_recovered": 0,
        "n_llm_faults": 0,
    }


def test_harness_retry_is_off_by_default_and_masks_faults_when_on() -> None:
    assert FaultOptions().retry.max_retries == 0
    injector, tool = _injector("p=0.5", mix={"server_error": 1}, retry={"max_retries": 3}), Tool()
    outcomes = [injector.call_tool("get_order", "{}", i, tool) for i in range(300)]
    events = injector.record()["events"]
    masked = [e for e in events if e["masked"]]
    assert masked and all(e["recovered_by"] == "harness" for e in masked if e["recovered"])
    # a call fails only when all 4 attempts fault: 0.5 ** 4 of the calls
    failed = sum(o.is_error for o in outcomes)
    assert abs(failed - 300 / 16) <= _tolerance(300, 1 / 16)
    assert tool.calls == 300 - failed
    # partial/invalid/empty mean the tool ran: never resent
    ran = _injector("p=1.0", mix={"partial": 1}, retry={"max_retries": 3})
    tool = Tool()
    ran.call_tool("cancel_order", "{}", 0, tool)
    assert tool.calls == 1 and not ran.events[0]["masked"]


def test_llm_faults_are_off_by_default_and_end_the_run_when_on() -> None:
    assert all(_injector("p=1.0").llm_fault(step) is None for step in range(10))
    injector = _injector("p=1.0", llm_faults=True, mix={"timeout": 1})
    described = injector.llm_fault(3)
    assert described is not None and described.startswith("llm timeout at step 3")
    assert injector.record()["events"][0]["tool"] == "llm"
    rate = _injector("p=0.2", llm_faults=True, llm_rate=0.5)
    fired = sum(rate.llm_fault(step) is not None for step in range(2000))
    assert abs(fired - 1000) <= _tolerance(2000, 0.5)
