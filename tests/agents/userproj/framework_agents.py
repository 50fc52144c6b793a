"""Framework agents for tests/agents/test_adapters.py, written as their users would."""

from __future__ import annotations

from typing import Any


async def openai_sdk_agent(ctx: Any) -> str:
    from agents import Agent

    from reliability_lab.agents.adapters.openai_agents import run_openai_agent

    def make_agent(tools: list[Any]) -> Any:
        return Agent(name="shop", instructions="Answer with the price.", tools=tools)

    return await run_openai_agent(ctx, make_agent)


async def langgraph_agent(ctx: Any) -> str:
    from langgraph.graph import START, MessagesState, StateGraph
    from langgraph.prebuilt import ToolNode, tools_condition

    from reliability_lab.agents.adapters.langgraph import ContextChatModel, langchain_tools

    tools = langchain_tools(ctx)
    model = ContextChatModel(ctx=ctx).bind_tools(tools)

    async def call_model(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    builder = StateGraph(MessagesState)
    builder.add_node("model", call_model)
    builder.add_node("tools", ToolNode(tools))
    builder.add_edge(START, "model")
    builder.add_conditional_edges("model", tools_condition)
    builder.add_edge("tools", "model")
    state = await builder.compile().ainvoke({"messages": [("user", ctx.instruction)]})
    return str(state["messages"][-1].content)
