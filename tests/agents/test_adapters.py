"""Framework adapters offline: a scripted model behind ctx.llm drives an OpenAI Agents SDK agent
and a LangGraph agent; an injected fault reaches the framework's tool and the structural change
is visible in the tool schema the framework sent to its model."""

from __future__ import annotations

import asyncio
import json
import math
from pathlib import Path
from typing import Any

import pytest

from reliability_lab.agents import RunResult, RunSpec, execute_run
from reliability_lab.envs import Task
from reliability_lab.envs.taskset import TaskSetEnvironment
from reliability_lab.llm import Completion, LLMClient

HERE = Path(__file__).parent / "userproj"


def get_price(item_id: str) -> dict[str, Any]:
    """Price of an item in dollars.

    Parameters
    ----------
    item_id : str
        The item's id.
    """
    return {"item_id": item_id, "price_usd": 12.5}


class ScriptedModel(LLMClient):
    """Calls the first tool once (arguments from the schema it was sent), then answers with
    the tool result it read; records every request."""

    def __init__(self) -> None:
        super().__init__()
        self.requests: list[dict[str, Any]] = []

    async def acompletion(self, **kwargs: Any) -> Completion:
        self.requests.append(kwargs)
        messages = kwargs["messages"]
        tools = kwargs.get("tools") or []
        tool_messages = [m for m in messages if m.get("role") == "tool"]
        if tools and not tool_messages:
            function = tools[0]["function"]
            (name, spec), *_ = function["parameters"]["properties"].items()
            value: Any = "B101"
            if spec.get("type") == "object":
                value = {next(iter(spec["properties"])): "B101"}
            call = {
                "id": "call_a1",
                "type": "function",
                "function": {"name": function["name"], "arguments": json.dumps({name: value})},
            }
            message = {"role": "assistant", "content": None, "tool_calls": [call]}
        else:
            seen = tool_messages[-1]["content"] if tool_messages else "nothing"
            message = {"role": "assistant", "content": f"I saw: {seen}"}
        return Completion(message, 0.001, 10, 5, 0.0, 1, False)


def _env_name() -> str:
    from reliability_lab.envs import register_environment

    env = TaskSetEnvironment(
        name="adapter_shop",
        tasks=[Task("p1", "What does item B101 cost?", metadata={"expected": "12.5"})],
        tools=[get_price],
        scorer="contains",
    )
    register_environment("adapter_shop", lambda: env, overwrite=True)
    return "adapter_shop"


def _run(entry: str, condition: str = "baseline", variant: str = "") -> tuple[RunResult, Any]:
    llm = ScriptedModel()
    spec = RunSpec(
        agent="fw",
        model="openai/scripted",
        params={},
        environment=_env_name(),
        task_id="p1",
        run=0,
        seed=3,
        condition=condition,
        variant=variant,
        agent_entry=entry,
        import_root=str(HERE),
        elicit_confidence=False,
    )
    return asyncio.run(execute_run(spec, llm)), llm


FRAMEWORKS = [
    pytest.param("framework_agents:openai_sdk_agent", "agents", id="openai-agents"),
    pytest.param("framework_agents:langgraph_agent", "langgraph", id="langgraph"),
]


@pytest.mark.parametrize("entry,module", FRAMEWORKS)
def test_framework_agent_baseline(entry: str, module: str) -> None:
    pytest.importorskip(module)
    result, _ = _run(entry)
    assert result.error is None and result.success, result.error
    assert result.actions == ["get_price"] and result.num_errors == 0
    assert result.api_calls == 2 and math.isclose(result.cost_usd, 0.002)
    assert "12.5" in (result.final_answer or "")
    tool_message = next(m for m in result.trajectory if m["role"] == "tool")
    assert tool_message["tool_call_id"] == "call_a1"  # paired with the model's call


@pytest.mark.parametrize("entry,module", FRAMEWORKS)
def test_injected_fault_reaches_the_framework_tool(entry: str, module: str) -> None:
    pytest.importorskip(module)
    result, llm = _run(entry, "fault", "p=1.0")
    assert result.num_errors == 1 and result.perturbation["events"]
    fault_text = next(m for m in result.trajectory if m["role"] == "tool")["content"]
    second = llm.requests[1]["messages"]
    assert any(m.get("role") == "tool" and m.get("content") == fault_text for m in second)
    assert not result.success


@pytest.mark.parametrize("entry,module", FRAMEWORKS)
def test_structural_change_is_in_the_schema_sent_to_the_model(entry: str, module: str) -> None:
    pytest.importorskip(module)
    result, llm = _run(entry, "structural", "severe")
    sent = llm.requests[0]["tools"][0]["function"]["parameters"]
    assert "item_id" not in sent["properties"]  # perturbed: nested under "request"
    assert list(sent["properties"]) == ["request"]
    assert result.num_errors == 0 and result.actions == ["get_price"]
