"""A plain (sync) re-implementation of the built-in loop with ctx.llm.complete / ctx.call_tool."""

from __future__ import annotations

from typing import Any

from reliability_lab.agents import AgentFailure


def solve(ctx: Any) -> str:
    messages = list(ctx.transcript)
    tools = [t.schema() for t in ctx.tools]
    for _ in range(ctx.max_steps):
        message = ctx.llm.complete(messages, tools=tools)
        messages.append(message)
        if not message.get("tool_calls"):
            return str(message.get("content") or "")
        for call in message["tool_calls"]:
            function = call["function"]
            text = ctx.call_tool(function["name"], function["arguments"], call_id=call["id"])
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": text})
    raise AgentFailure(f"reached max_steps={ctx.max_steps} without a final answer")
