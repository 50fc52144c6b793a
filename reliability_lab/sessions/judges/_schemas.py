"""Structured-output schemas of the judge stages (one pydantic model per stage)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "AgentPlan",
    "ArgumentReason",
    "ArgumentVerdict",
    "ArgumentVerdicts",
    "NamedTool",
    "ScoreWithReason",
    "TaskExtraction",
    "TaskOutcome",
    "TaskVerdict",
    "ToolCallContext",
    "ToolCallWithReasoning",
    "ToolSelectionContext",
    "ToolUse",
]


class _Stage(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TaskOutcome(_Stage):
    """task_completion stage 1: the user's task and a factual account of what the agent did."""

    task: str = Field(description="The user's objective, in one or two sentences.")
    outcome: str = Field(description="What the agent actually did, factually, no judgement words.")


class TaskVerdict(_Stage):
    """task_completion stage 2: how fully the outcome fulfils the task."""

    verdict: float = Field(ge=0.0, le=1.0, description="Fulfilment from 0 (none) to 1 (complete).")
    reason: str = Field(description="Short justification.")


class ScoreWithReason(_Stage):
    """A score in [0, 1] with a short justification (used by several scoring stages)."""

    score: float = Field(ge=0.0, le=1.0, description="Score from 0 (worst) to 1 (best).")
    reason: str = Field(description="Short justification.")


class ToolUse(_Stage):
    """A tool call as extracted from the trace."""

    name: str = Field(description="Tool name.")
    parameters: dict[str, Any] = Field(description="Arguments passed to the tool.")


class NamedTool(_Stage):
    """A tool the agent could have used."""

    name: str = Field(description="Tool name.")
    description: str = Field(description="What the tool does.")


class ToolSelectionContext(_Stage):
    """tool_correctness stage 1: goal, tools called and tools available."""

    user_input: str = Field(description="The user's goal.")
    tools_called: list[ToolUse] = Field(description="Every tool call made, in order.")
    available_tools: list[NamedTool] = Field(description="Every tool that was available.")


class ToolCallWithReasoning(_Stage):
    """A tool call with the agent's stated reason for it."""

    name: str = Field(description="Tool name.")
    parameters: dict[str, Any] = Field(description="Arguments passed to the tool.")
    reasoning: str | None = Field(description="Why the agent made the call, if stated; else null.")


class ToolCallContext(_Stage):
    """argument_correctness stage 1: user input and every tool call."""

    user_input: str = Field(description="The user's request.")
    tool_calls: list[ToolCallWithReasoning] = Field(description="Every tool call, in order.")


class ArgumentVerdict(_Stage):
    """Whether one call's arguments were right for the task."""

    verdict: Literal["yes", "no"] = Field(description="'yes' if the arguments are correct.")
    reason: str | None = Field(description="Why not, when the verdict is 'no'; else null.")


class ArgumentVerdicts(_Stage):
    """argument_correctness stage 2: one verdict per tool call, in call order."""

    verdicts: list[ArgumentVerdict] = Field(min_length=1, description="One verdict per call.")


class ArgumentReason(_Stage):
    """argument_correctness stage 3: overall explanation of the score."""

    reason: str = Field(description="Concise explanation of the score.")


class TaskExtraction(_Stage):
    """step_efficiency / plan metrics stage 1: the user's original goal."""

    task: str = Field(description="The user's original goal.")


class AgentPlan(_Stage):
    """plan metrics stage 2: the agent's plan, each step backed by trace evidence."""

    plan: list[str] = Field(description="Plan steps in order; empty if the trace shows no plan.")
