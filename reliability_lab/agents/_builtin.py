"""The built-in tool-calling loop, written as an agent on the ``ctx`` contract like any other."""

from __future__ import annotations

from typing import Any

from reliability_lab.agents._context import AgentContext, AgentFailure

__all__ = ["tool_loop"]


async def tool_loop(ctx: AgentContext) -> str:
    """The built-in agent: system prompt + instruction, the tools, until a reply without calls.

    Every assistant message with ``tool_calls`` gets one tool message per call (through
    ``ctx.acall_tool``: errors come back as text); the first reply without tool calls is the
    final answer. After ``ctx.max_steps`` model calls without one the run fails
    (``agent: reached max_steps=N without a final answer``).
    """
    messages: list[dict[str, Any]] = list(ctx.transcript)
    tools = [tool.schema() for tool in ctx.tools]
    for _ in range(ctx.max_steps):
        message = await ctx.llm.acomplete(messages, tools=tools)
        messages.append(message)
        calls = message.get("tool_calls")
        if not calls:
            return str(message.get("content") or "")
        for call in calls:
            function = call["function"]
            text = await ctx.acall_tool(function["name"], function["arguments"], call_id=call["id"])
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": text})
    raise AgentFailure(f"reached max_steps={ctx.max_steps} without a final answer")
