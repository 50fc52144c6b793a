"""Inspect tasks for the bridge and importer tests (loaded by file, as a researcher's are)."""

from __future__ import annotations

import os
from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.model import execute_tools, get_model
from inspect_ai.scorer import includes
from inspect_ai.solver import Generate, TaskState, generate, solver, use_tools
from inspect_ai.tool import Tool, tool

#: Sample ids and inputs: each input names an order id, a date and an amount.
QUESTIONS = {
    "a": "Customer Bob Martinez asks on 2024-05-02 about $35.50 for order O2001",
    "b": "Please check what happened to order O2002",
    "c": "Alice Chen wants the status of order O2003",
}
#: What the real tool received, one line per call (set by the tests, read back by them).
CALLS_FILE = "RL_INSPECT_CALLS"


@tool
def order_status() -> Tool:
    async def execute(order_id: str, detail_level: str = "short") -> str:
        """Look up the status of an order.

        Args:
            order_id: The order's id, e.g. O2001.
            detail_level: How much to say ("short" or "full").
        """
        calls = os.environ.get(CALLS_FILE)
        if calls:
            with open(calls, "a", encoding="utf-8") as out:
                out.write(f"{order_id}|{detail_level}\n")
        return f'{{"order_id": "{order_id}", "status": "shipped", "value": 42}}'

    return execute


@task
def orders(epochs: int = 2) -> Task:
    """Three questions answered with one tool call each; right answer 42."""
    return Task(
        dataset=[Sample(input=q, target="42", id=i) for i, q in QUESTIONS.items()],
        solver=[use_tools(order_status()), generate()],
        scorer=includes(),
        epochs=epochs,
    )


@solver
def _crash_once(marker: str):  # type: ignore[no-untyped-def]
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        if state.sample_id == "b" and state.epoch == 1 and not Path(marker).exists():
            Path(marker).write_text("crashed", encoding="utf-8")
            raise RuntimeError("agent crashed")
        return state

    return solve


@task
def flaky(marker: str, epochs: int = 4) -> Task:
    """Two questions; sample b crashes the first time it runs (the marker file remembers)."""
    return Task(
        dataset=[Sample(input=QUESTIONS[i], target="42", id=i) for i in ("a", "b")],
        solver=[_crash_once(marker), use_tools(order_status()), generate()],
        scorer=includes(),
        epochs=epochs,
    )


@solver
def _private_tools():  # type: ignore[no-untyped-def]
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        tools = [order_status()]  # kept by the agent, never put in state.tools
        output = await get_model().generate(state.messages, tools=tools)
        state.messages.append(output.message)
        result = await execute_tools(state.messages, tools)
        state.messages.extend(result.messages)
        state.output = await get_model().generate(state.messages, tools=tools)
        return state

    return solve


@task
def private() -> Task:
    """One question, answered by an agent that keeps its tools to itself."""
    return Task(
        dataset=[Sample(input=QUESTIONS["a"], target="42", id="a")],
        solver=_private_tools(),
        scorer=includes(),
    )
