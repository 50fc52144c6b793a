"""Agents: the ``ctx`` contract any agent runs on (:class:`AgentContext`, :class:`AgentOutput`),
the built-in tool loop (one agent on that contract), :func:`execute_run` and the records
(:class:`RunSpec`, :class:`RunResult`). Bring your own agent: docs/your_agent.md."""

from __future__ import annotations

from reliability_lab.agents._builtin import tool_loop
from reliability_lab.agents._callable import AgentCheckError, check_agent, resolve_agent
from reliability_lab.agents._confidence import CONFIDENCE_QUESTION, parse_confidence
from reliability_lab.agents._context import (
    AgentContext,
    AgentFailure,
    AgentLLM,
    AgentOutput,
    InjectedLLMFault,
    ToolView,
)
from reliability_lab.agents._loop import execute_run
from reliability_lab.agents._records import RunResult, RunSpec

__all__ = [
    "CONFIDENCE_QUESTION",
    "AgentCheckError",
    "AgentContext",
    "AgentFailure",
    "AgentLLM",
    "AgentOutput",
    "InjectedLLMFault",
    "RunResult",
    "RunSpec",
    "ToolView",
    "check_agent",
    "execute_run",
    "parse_confidence",
    "resolve_agent",
    "tool_loop",
]
