"""Run a LangGraph (LangChain) agent on the ``ctx`` contract.

:class:`ContextChatModel` is a LangChain chat model whose every call is ``ctx.llm``;
:func:`langchain_tools` are the condition's tools as LangChain tools calling ``ctx.acall_tool``.
Build your graph with them as usual (``create_react_agent(ContextChatModel(ctx=ctx),
langchain_tools(ctx))``). Needs ``pip install 'reliability-lab[langgraph]'``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from reliability_lab.agents.adapters import chat_params, require

if TYPE_CHECKING:
    from reliability_lab.agents import AgentContext

__all__ = ["ContextChatModel", "langchain_tools", "to_ai_message"]

_EXTRA = "langgraph"


def to_ai_message(message: dict[str, Any]) -> Any:
    """An OpenAI-format assistant message as a LangChain ``AIMessage`` (tool calls kept)."""
    from langchain_core.messages import AIMessage

    calls = []
    for call in message.get("tool_calls") or ():
        function = call.get("function", {})
        try:
            args = json.loads(function.get("arguments") or "{}")
        except json.JSONDecodeError:
            args = {}
        calls.append({"name": function.get("name", ""), "args": args, "id": call.get("id")})
    return AIMessage(content=message.get("content") or "", tool_calls=calls)


def langchain_tools(ctx: AgentContext) -> list[Any]:
    """The condition's tools as LangChain ``StructuredTool`` objects calling ``ctx.acall_tool``
    (JSON schemas as presented: perturbed under ``structural``)."""
    require("langchain_core", _EXTRA)
    from langchain_core.tools import StructuredTool

    def make(view: Any) -> Any:
        async def acall(**arguments: Any) -> str:
            return await ctx.acall_tool(view.name, arguments)

        def call(**arguments: Any) -> str:
            return ctx.call_tool(view.name, arguments)

        return StructuredTool.from_function(
            func=call,
            coroutine=acall,
            name=view.name,
            description=view.description or view.name,
            args_schema=dict(view.parameters),
        )

    return [make(view) for view in ctx.tools]


def _model_class() -> type:
    require("langchain_core", _EXTRA)
    from langchain_core.language_models.chat_models import BaseChatModel
    from langchain_core.messages import convert_to_openai_messages
    from langchain_core.outputs import ChatGeneration, ChatResult
    from langchain_core.utils.function_calling import convert_to_openai_tool

    class _ContextChatModel(BaseChatModel):  # type: ignore[misc,unused-ignore]
        """A LangChain chat model over ``ctx.llm`` (construct with ``ctx=ctx``)."""

        ctx: Any
        temperature: float | None = None
        max_tokens: int | None = None

        @property
        def _llm_type(self) -> str:
            return "reliability-lab-ctx"

        def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Any:
            return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)

        def _request(self, messages: list[Any], kwargs: dict[str, Any]) -> tuple[Any, ...]:
            tools = kwargs.pop("tools", None)
            kwargs.pop("stop", None)
            params = {**chat_params(self), **kwargs}
            return convert_to_openai_messages(messages), tools, params

        def _result(self, reply: dict[str, Any]) -> Any:
            return ChatResult(generations=[ChatGeneration(message=to_ai_message(reply))])

        def _generate(
            self,
            messages: list[Any],
            stop: list[str] | None = None,
            run_manager: Any = None,
            **kwargs: Any,
        ) -> Any:
            chat, tools, params = self._request(messages, kwargs)
            return self._result(self.ctx.llm.complete(chat, tools=tools, **params))

        async def _agenerate(
            self,
            messages: list[Any],
            stop: list[str] | None = None,
            run_manager: Any = None,
            **kwargs: Any,
        ) -> Any:
            chat, tools, params = self._request(messages, kwargs)
            return self._result(await self.ctx.llm.acomplete(chat, tools=tools, **params))

    return _ContextChatModel


def ContextChatModel(*, ctx: AgentContext, **settings: Any) -> Any:
    """A LangChain chat model over ``ctx.llm`` (``temperature``, ``max_tokens`` optional)."""
    return _model_class()(ctx=ctx, **settings)
