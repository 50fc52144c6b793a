"""The simulated model under perturbations: known sensitivities, measured within binomial bounds."""

from __future__ import annotations

import json
import math
import random
from collections.abc import Iterator
from typing import Any

import pytest

from reliability_lab.envs import get_environment
from reliability_lab.perturbations import (
    PRESETS,
    STRENGTHS,
    PerturbationContext,
    StructuralPerturbation,
    ToolOutcome,
    offline_paraphrase,
    schema_map,
)
from reliability_lab.sim import PERSONAS, SimPersona, register_persona, simulate
from reliability_lab.sim._replay import identify_task

ENV = get_environment("customer_service")
QUIET = dict(
    slip_rate=0.0,
    detour_rate=0.0,
    arg_error_rate=0.0,
    early_stop_rate=0.0,
    perturbation_sensitivity=0.0,
    structural_sensitivity=0.0,
    error_recovery=1.0,
)


def _tolerance(n: int, p: float) -> float:
    return 4.5 * math.sqrt(n * p * (1 - p))


@pytest.fixture
def profile() -> Iterator[Any]:
    """Register test profiles (``sim/t-...``) and remove them afterwards."""
    made: list[str] = []

    def make(name: str, **knobs: float) -> str:
        register_persona(SimPersona(name, "test", **{**QUIET, **knobs}), overwrite=True)
        made.append(name)
        return name

    yield make
    for name in made:
        PERSONAS.pop(name, None)


def test_every_offline_paraphrase_is_recognised_as_its_task() -> None:
    for task in ENV.tasks():
        details = ENV.task_details(task)
        for strength in STRENGTHS:
            for seed in range(3):
                text = offline_paraphrase(task.instruction, details, strength, random.Random(seed))
                match = identify_task([{"role": "user", "content": text}], ENV.tool_schemas)
                assert match is not None and match.task.task_id == task.task_id, text
                assert match.similarity < 1.0


def test_structural_preset_is_recognised_from_the_schemas() -> None:
    user = [{"role": "user", "content": ENV.tasks()[0].instruction}]
    assert identify_task(user, ENV.tool_schemas).structure is None  # type: ignore[union-attr]
    for preset in PRESETS.values():
        shown = schema_map(ENV, preset).tools(ENV.tool_schemas)
        match = identify_task(user, shown)
        assert match is not None and match.structure is not None
        assert match.structure.preset == preset


def _after_fault(task_id: str) -> tuple[list[dict[str, Any]], str]:
    """A conversation whose first planned tool call just failed with an injected timeout."""
    task = ENV.task(task_id)
    assert task.oracle is not None
    step = task.oracle.steps[0]
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": step.tool, "arguments": json.dumps(dict(step.args))},
    }
    return [
        {"role": "system", "content": ENV.system_prompt},
        {"role": "user", "content": task.instruction},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {
            "role": "tool",
            "tool_call_id": "c1",
            "content": "Error: timeout: find_user_by_email did not respond within 30 s.",
        },
    ], step.tool


def test_recovery_after_an_injected_fault_matches_error_recovery(profile: Any) -> None:
    name = profile("t-recover", error_recovery=0.3)
    messages, tool = _after_fault("cs_01")
    n = 3000
    retried = 0
    for seed in range(n):
        reply = simulate(name, messages, tools=ENV.tool_schemas, seed=seed).message
        calls = reply.get("tool_calls") or []
        retried += bool(calls) and calls[0]["function"]["name"] == tool
    assert abs(retried - 0.3 * n) <= _tolerance(n, 0.3)


@pytest.mark.parametrize("preset", ["medium", "severe"])
def test_interface_slip_rate_is_sensitivity_times_severity(profile: Any, preset: str) -> None:
    name = profile("t-struct", structural_sensitivity=0.6)
    structure = schema_map(ENV, PRESETS[preset])
    tools = structure.tools(ENV.tool_schemas)
    task = ENV.task("cs_03")  # first call: find_user_by_email
    messages = [{"role": "user", "content": task.instruction}]
    original = {"email": "alice.chen@example.com"}
    n = 3000
    slips = 0
    for seed in range(n):
        call = simulate(name, messages, tools=tools, seed=seed).message["tool_calls"][0]
        args = json.loads(call["function"]["arguments"])
        assert args in (original, structure.forward_arguments("find_user_by_email", original))
        slips += args == original and args != structure.forward_arguments(
            "find_user_by_email", original
        )
    expected = 0.6 * PRESETS[preset].severity
    if preset == "medium":  # 'email' keeps its name under camelCase: a slip is invisible
        assert slips == 0
    else:
        assert abs(slips - expected * n) <= _tolerance(n, expected)


def _structural_run(profile: str, task_id: str, seed: int) -> bool:
    """One run of the sim under the severe preset, straight through the perturbation."""
    task = ENV.task(task_id)
    episode = ENV.start(task_id)
    perturbation = StructuralPerturbation(
        PerturbationContext("structural", "severe", None, seed, ENV, task)
    )
    tools = perturbation.tools(list(ENV.tool_schemas))

    def execute(name: str, arguments: str) -> ToolOutcome:
        try:
            return ToolOutcome(episode.call_tool(name, json.loads(arguments)), False)
        except Exception as exc:
            return ToolOutcome(str(exc), True)

    messages: list[dict[str, Any]] = [{"role": "user", "content": task.instruction}]
    for step in range(10):
        reply = simulate(profile, messages, tools=tools, seed=seed).message
        messages.append(reply)
        if not reply.get("tool_calls"):
            return episode.score(reply["content"]) == 1.0
        for call in reply["tool_calls"]:
            fn = call["function"]
            out = perturbation.call_tool(fn["name"], fn["arguments"], step, execute)
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": out.text})
    return False


def test_structural_failure_rate_is_computable(profile: Any) -> None:
    """Slip s per call, no recovery: a 2-call task succeeds with probability (1 - s)**2."""
    name = profile("t-fail", structural_sensitivity=0.5, error_recovery=0.0)
    n = 400
    ok = sum(_structural_run(name, "cs_01", seed) for seed in range(n))
    assert abs(ok - 0.25 * n) <= _tolerance(n, 0.25)
    perfect = sum(_structural_run(profile("t-ok"), "cs_05", seed) for seed in range(20))
    assert perfect == 20  # it inverts the severe preset: without slips it always succeeds
