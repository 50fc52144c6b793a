"""Run an OpenAI Agents SDK agent (``openai-agents``) on the ``ctx`` contract.

``run_openai_agent(ctx, make_agent)`` builds the condition's tools as SDK
:class:`agents.FunctionTool` objects that call ``ctx.acall_tool``, lets ``make_agent(tools)``
build your :class:`agents.Agent`, and runs it with :class:`ContextModel` — an SDK ``Model``
whose calls go through ``ctx.llm`` — with the SDK's tracing export off (nothing leaves the
machine but the model calls). Needs ``pip install 'reliability-lab[openai-agents]'``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from reliability_lab.agents.adapters import chat_params, require

if TYPE_CHECKING:
    from reliability_lab.agents import AgentContext

__all__ = ["ContextModel", "function_tools", "run_openai_agent"]

_EXTRA = "openai-agents"


def function_tools(ctx: AgentContext) -> list[Any]:
    """The condition's tools as SDK ``FunctionTool`` objects calling ``ctx.acall_tool``."""
    sdk = require("agents", _EXTRA)

    def make(view: Any) -> Any:
        async def invoke(tool_context: Any, arguments: str) -> str:
            call_id = getattr(tool_context, "tool_call_id", None)
            return await ctx.acall_tool(view.name, arguments, call_id=call_id)

        return sdk.FunctionTool(
            name=view.name,
            description=view.description,
            params_json_schema=dict(view.parameters),
            on_invoke_tool=invoke,
            strict_json_schema=False,
        )

    return [make(view) for view in ctx.tools]


def _model_class() -> type:
    sdk = require("agents", _EXTRA)
    from agents.models.chatcmpl_converter import Converter
    from agents.models.interface import Model
    from openai.types.chat import ChatCompletionMessage

    class ContextModel(Model):  # type: ignore[misc,unused-ignore]
        """An SDK ``Model`` whose every call is ``ctx.llm.acomplete`` (chat completions)."""

        def __init__(self, ctx: AgentContext) -> None:
            self.ctx = ctx

        async def get_response(
            self,
            system_instructions: str | None,
            input: Any,
            model_settings: Any,
            tools: list[Any],
            output_schema: Any,
            handoffs: list[Any],
            tracing: Any,
            **_: Any,
        ) -> Any:
            messages: list[dict[str, Any]] = [dict(m) for m in Converter.items_to_messages(input)]
            if system_instructions:
                messages.insert(0, {"role": "system", "content": system_instructions})
            schemas = [dict(Converter.tool_to_openai(t)) for t in tools]
            schemas += [dict(Converter.convert_handoff_tool(h)) for h in handoffs]
            reply = await self.ctx.llm.acomplete(
                messages, tools=schemas or None, **chat_params(model_settings)
            )
            message = ChatCompletionMessage.model_validate({**reply, "role": "assistant"})
            return sdk.ModelResponse(
                output=Converter.message_to_output_items(message),
                usage=sdk.Usage(),
                response_id=None,
            )

        def stream_response(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError("ContextModel does not stream: use Runner.run")

    return ContextModel


def ContextModel(ctx: AgentContext) -> Any:
    """An SDK ``Model`` over ``ctx.llm`` (the class is built when the SDK is imported)."""
    return _model_class()(ctx)


async def run_openai_agent(
    ctx: AgentContext, make_agent: Callable[[list[Any]], Any], *, max_turns: int | None = None
) -> str:
    """Run the agent ``make_agent(tools)`` returns on ``ctx.instruction``; its final output.

    Parameters
    ----------
    ctx : AgentContext
        The run's context (its config entry needs ``model:``).
    make_agent : callable
        ``make_agent(tools) -> agents.Agent``; ``tools`` are :func:`function_tools`.
    max_turns : int, optional
        The SDK's turn limit (default ``ctx.max_steps``).
    """
    sdk = require("agents", _EXTRA)
    agent = make_agent(function_tools(ctx))
    config = sdk.RunConfig(model=ContextModel(ctx), tracing_disabled=True)
    result = await sdk.Runner.run(
        agent, ctx.instruction, max_turns=max_turns or ctx.max_steps, run_config=config
    )
    return str(result.final_output)
