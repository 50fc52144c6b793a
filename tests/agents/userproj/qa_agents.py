"""Agents and tools used by tests/agents/test_user_agents.py (imported from the config's folder)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from reliability_lab.agents import AgentOutput


def lookup_capital(country: str) -> str:
    """Capital city of a country.

    Parameters
    ----------
    country : str
        Country name, e.g. France.
    """
    capitals = {"france": "Paris", "japan": "Tokyo", "peru": "Lima", "kenya": "Nairobi"}
    try:
        return capitals[country.strip().lower()]
    except KeyError:
        raise ValueError(f"unknown country {country!r}") from None


def bump(state: dict[str, Any], key: str) -> int:
    """Add one to a counter of this run's state and return it.

    Args:
        key: The counter's name.
    """
    state[key] = state.get(key, 0) + 1
    return int(state[key])


TOOLS = [lookup_capital, bump]


def country_of(instruction: str) -> str:
    return instruction.rstrip("?").split()[-1]


def solve(ctx: Any) -> str:
    """A sync agent: one tool call, the result is the answer."""
    tool = ctx.tool("lookup_capital") if ctx.condition != "structural" else ctx.tools[0]
    key = next(iter(tool.parameters["properties"]))
    text = ctx.call_tool(tool.name, {key: country_of(ctx.instruction)})
    return text.strip('"')


def solve_flaky(ctx: Any) -> str:
    """Raises on odd runs (the agent's own bug)."""
    if ctx.run % 2 == 1:
        raise ZeroDivisionError(f"boom on run {ctx.run}")
    return solve(ctx)


def solve_no_tools(ctx: Any) -> AgentOutput:
    """Never calls a tool; reports its own confidence and metadata."""
    return AgentOutput(answer="Paris", confidence=0.75, metadata={"why": "always Paris"})


async def solve_async(ctx: Any) -> str:
    """Interleaves with other runs between its tool calls; answers with what it saw."""
    seen = []
    for _ in range(3):
        seen.append(json.loads(await ctx.acall_tool("bump", {"key": "n"})))
        await asyncio.sleep(0)
    return " ".join(map(str, seen))


def solve_bad_confidence(ctx: Any) -> AgentOutput:
    return AgentOutput(answer="Paris", confidence=1.7)


def solve_misuse(ctx: Any) -> str:
    return ctx.instructions  # a typo: no such field


NOT_CALLABLE = 3
