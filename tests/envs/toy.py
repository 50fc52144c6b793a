"""The toy list environment's one tool, shared by the environment and safety tests."""

from __future__ import annotations

from reliability_lab.envs import Tool


def _add(state: dict, name: str) -> dict:
    state["items"][name] = {"name": name}
    return {"added": name}


def add_item_tool() -> Tool:
    """``add(name)``: puts an item into ``state["items"]`` (a writing tool)."""
    return Tool(
        "add",
        "Add an item.",
        {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
        _add,
        writes=True,
    )
