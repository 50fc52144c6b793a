"""Structural perturbations: round trips for every tool and preset, execution unchanged."""

from __future__ import annotations

import json
from typing import Any

import pytest

from reliability_lab.envs import (
    Environment,
    Episode,
    Oracle,
    OracleStep,
    Task,
    Tool,
    get_environment,
    render_template,
)
from reliability_lab.envs._base import check_arguments
from reliability_lab.perturbations import (
    PRESETS,
    PerturbationContext,
    StructuralPerturbation,
    StructuralPreset,
    ToolOutcome,
    schema_map,
)

ENV = get_environment("customer_service")


def _oracle_calls(env: Environment) -> list[tuple[str, dict[str, Any], Any]]:
    """(tool, arguments, decoded result) of every oracle step of every task."""
    calls = []
    for task in env.tasks():
        assert task.oracle is not None
        episode, bindings = env.start(task.task_id), {}
        for step in task.oracle.steps:
            args = render_template(dict(step.args), bindings)
            result = json.loads(episode.call_tool(step.tool, args))
            calls.append((step.tool, args, result))
            bindings.update({k: f(result) for k, f in step.bind.items()})
    return calls


CALLS = _oracle_calls(ENV)


def _schema_args(parameters: dict[str, Any]) -> list[dict[str, Any]]:
    """Argument sets built from a schema: every enum value, dates and times for strings."""
    props = parameters.get("properties", {})
    samples: list[dict[str, Any]] = []
    for value in ("X1", "2024-05-02", "14:05", "2024-05-02T09:30:00", "no longer needed"):
        samples.append(
            {
                p: s.get("enum", [value])[0] if "enum" in s else value
                for p, s in props.items()
                if s.get("type") == "string"
            }
        )
    for p, s in props.items():
        for value in s.get("enum", []):
            samples.append({**samples[0], p: value})
    return samples


def test_oracles_exercise_every_tool() -> None:
    assert {tool for tool, _, _ in CALLS} == ENV.tool_names()


@pytest.mark.parametrize("preset", list(PRESETS))
def test_arguments_round_trip_for_every_tool(preset: str) -> None:
    m = schema_map(ENV, PRESETS[preset])
    shown_tools = {t["function"]["name"]: t["function"] for t in m.tools(ENV.tool_schemas)}
    cases = [(t, a) for t, a, _ in CALLS]
    cases += [
        (s["function"]["name"], a)
        for s in ENV.tool_schemas
        for a in _schema_args(s["function"]["parameters"])
    ]
    for tool, args in cases:
        shown = m.forward_arguments(tool, args)
        check_arguments(tool, shown_tools[tool]["parameters"], shown)  # valid for what it sees
        assert m.arguments(tool, shown) == args, (preset, tool)


@pytest.mark.parametrize("preset", list(PRESETS))
def test_results_round_trip_for_every_tool(preset: str) -> None:
    m = schema_map(ENV, PRESETS[preset])
    extra = {
        "placed_on": "2024-05-02",
        "at": "2024-05-02T21:07:00",
        "slot": "00:30",
        "method": "store_credit",
        "nested": [{"order_id": "O1", "when": "12:00:59"}],
    }
    for tool, _, result in [*CALLS, ("get_order", {}, extra)]:
        shown = m.result(result)
        assert m.original_result(shown) == result, (preset, tool)
        if m.preset.wrap_response:
            assert set(shown) == {"status", "data"}


def test_presets_transform_what_the_issue_lists() -> None:
    order = ENV.initial_state()["orders"]["O2001"]
    mild, medium, severe = (schema_map(ENV, PRESETS[p]) for p in ("mild", "medium", "severe"))
    assert "orderId" in mild.result(order) and "placedOn" in mild.result(order)
    data = medium.result(order)["data"]
    assert data["placedOn"] == "05/02/2024"
    assert medium.result({"t": "14:05"})["data"]["t"] == "2:05 PM"
    assert medium.forward_arguments(
        "refund_order", {"order_id": "O1", "method": "store_credit"}
    ) == {"orderId": "O1", "method": "STORE_CREDIT"}
    nested = severe.result(order)["data"]
    assert nested["ids"] == {"order": "O2001", "user": "U1001"}
    assert severe.forward_arguments(
        "refund_order", {"order_id": "O1", "method": "store_credit"}
    ) == {"request": {"ordrId": "O1", "mthd": "SC"}}
    shown = {t["function"]["name"]: t for t in severe.tools(ENV.tool_schemas)}
    reason = shown["cancel_order"]["function"]["parameters"]["properties"]["request"]
    assert reason["properties"]["rsn"]["enum"] == ["NLN", "OBM"]


@pytest.mark.parametrize("preset", list(PRESETS))
def test_environment_executes_the_original_calls(preset: str) -> None:
    """Replaying every oracle through the perturbation reaches the oracle's final state."""
    for task in ENV.tasks():
        assert task.oracle is not None
        ctx = PerturbationContext("structural", preset, None, 0, ENV, task)
        perturbation = StructuralPerturbation(ctx)
        episode = Episode(ENV, task)

        def execute(name: str, arguments: str, episode: Episode = episode) -> ToolOutcome:
            return ToolOutcome(episode.call_tool(name, json.loads(arguments)), False)

        bindings: dict[str, Any] = {}
        for step, oracle_step in enumerate(task.oracle.steps):
            args = render_template(dict(oracle_step.args), bindings)
            shown = perturbation.map.forward_arguments(oracle_step.tool, args)
            outcome = perturbation.call_tool(oracle_step.tool, json.dumps(shown), step, execute)
            assert not outcome.is_error
            result = perturbation.map.original_result(json.loads(outcome.text))
            bindings.update({k: f(result) for k, f in oracle_step.bind.items()})
        assert episode.state == ENV.oracle_result(task).state, (preset, task.task_id)
        summary = perturbation.record()["summary"]
        assert summary["n_rejected_calls"] == 0
        assert summary["n_results_transformed"] == len(task.oracle.steps)


def test_original_names_are_rejected_in_the_perturbed_vocabulary() -> None:
    task = ENV.tasks()[2]
    perturbation = StructuralPerturbation(
        PerturbationContext("structural", "medium", None, 0, ENV, task)
    )
    ran: list[str] = []

    def execute(name: str, arguments: str) -> ToolOutcome:
        ran.append(arguments)
        return ToolOutcome("{}", False)

    out = perturbation.call_tool("get_order", json.dumps({"order_id": "O2001"}), 0, execute)
    assert out.is_error and "'orderId'" in out.text and not ran
    out = perturbation.call_tool(
        "cancel_order", json.dumps({"orderId": "O2001", "reason": "no longer needed"}), 1, execute
    )
    assert out.is_error and "NO LONGER NEEDED" in out.text and not ran
    assert perturbation.record()["summary"]["n_rejected_calls"] == 2


def test_deterministic_and_pure() -> None:
    for preset in PRESETS.values():
        a = json.dumps(schema_map(ENV, preset).tools(ENV.tool_schemas), sort_keys=True)
        b = json.dumps(schema_map(ENV, preset).tools(ENV.tool_schemas), sort_keys=True)
        assert a == b != json.dumps(list(ENV.tool_schemas), sort_keys=True)
    assert ENV.tool_schemas == get_environment("customer_service").tool_schemas


def _book(state: dict[str, Any], start_date: str, slot_time: str, kind: str) -> dict[str, Any]:
    state["bookings"].append({"start_date": start_date, "slot_time": slot_time, "kind": kind})
    return {
        "booking_id": f"B{len(state['bookings'])}",
        "start_date": start_date,
        "slot_time": slot_time,
        "kind": kind,
    }


def test_any_registered_environment_gets_the_presets_from_its_schemas() -> None:
    tool = Tool(
        "book_slot",
        "Book a slot; returns booking_id.",
        {
            "type": "object",
            "required": ["start_date", "slot_time", "kind"],
            "properties": {
                "start_date": {"type": "string"},
                "slot_time": {"type": "string"},
                "kind": {"type": "string", "enum": ["video call", "in_person"]},
            },
        },
        _book,
        writes=True,
    )
    args = {"start_date": "2025-01-31", "slot_time": "15:30", "kind": "in_person"}
    env = Environment(
        name="toy",
        tools=[tool],
        system_prompt="",
        tasks=[Task("t1", "Book it.", Oracle((OracleStep("book_slot", args),), "ok"))],
        initial_state=lambda: {"bookings": []},
    )
    custom = StructuralPreset("dates-only", severity=0.5, us_dates=True, twelve_hour_times=True)
    for preset in [*PRESETS.values(), custom]:
        m = schema_map(env, preset)
        shown = m.forward_arguments("book_slot", args)
        assert m.arguments("book_slot", shown) == args
        result = _book({"bookings": []}, **args)
        assert m.original_result(m.result(result)) == result
    shown = schema_map(env, custom).forward_arguments("book_slot", args)
    assert shown == {"start_date": "01/31/2025", "slot_time": "3:30 PM", "kind": "in_person"}
