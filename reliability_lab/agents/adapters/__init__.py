"""Adapters that run agents written for agent frameworks on the ``ctx`` contract.

Each adapter routes the framework's model calls through ``ctx.llm`` and its tool calls through
``ctx.call_tool``, so perturbations, safety checks and accounting apply unchanged
(docs/your_agent.md, "Frameworks"). The frameworks are optional extras, imported only by the
adapter module that needs them: :mod:`.openai_agents` (``reliability-lab[openai-agents]``) and
:mod:`.langgraph` (``reliability-lab[langgraph]``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["chat_params", "require"]


def require(module: str, extra: str) -> Any:
    """Import an optional framework; ImportError saying which extra installs it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(
            f"{module} is not installed: pip install 'reliability-lab[{extra}]'"
        ) from exc


#: Model settings passed on to ``ctx.llm`` when a framework sets them.
_CHAT_PARAMS = (
    "temperature",
    "top_p",
    "max_tokens",
    "stop",
    "presence_penalty",
    "frequency_penalty",
)


def chat_params(settings: Any) -> dict[str, Any]:
    """The chat-completion parameters a framework's settings object sets (None left out)."""
    out: dict[str, Any] = {}
    for name in _CHAT_PARAMS:
        value = getattr(settings, name, None)
        if value is not None:
            out[name] = value
    return out
