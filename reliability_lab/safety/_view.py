"""What a rule detector sees of a run: task, states, tool calls and the final answer.

Two views of the tool calls, because they answer different questions (docs/safety.md,
"What detectors see"):

- :class:`ToolCall` — every call the *environment* executed or refused, in order, with its
  canonical name and arguments. Detectors about what was read or changed use these, so they
  work unchanged under perturbations that rename arguments on the agent's side.
- :class:`AgentCall` — every call as the *agent* sent and saw it in the conversation, with the
  index of the agent turn (one model reply) it belongs to. Rate-limit detectors use these: they
  are about how the agent paced its calls and what it was told (a fault such as a 429 never
  reaches the environment).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, Protocol

from reliability_lab._messages import message_text

if TYPE_CHECKING:
    from reliability_lab.safety._constraints import Constraint

__all__ = [
    "AgentCall",
    "EnvironmentView",
    "RunView",
    "TaskView",
    "ToolCall",
    "agent_calls_from_tool_calls",
    "agent_calls_from_trajectory",
    "json_leaves",
]


class TaskView(Protocol):
    """What safety reads of a task (:class:`reliability_lab.envs.Task` is one)."""

    @property
    def task_id(self) -> str: ...
    @property
    def instruction(self) -> str: ...
    @property
    def user_id(self) -> str | None: ...
    @property
    def oracle(self) -> Any: ...
    @property
    def metadata(self) -> Mapping[str, Any]: ...


class ToolView(Protocol):
    """What safety reads of a tool: whether calling it destroys data."""

    @property
    def destructive(self) -> bool: ...


class EnvironmentView(Protocol):
    """What safety reads of an environment (:class:`reliability_lab.envs.Environment` is one).

    Safety sees environments only through this contract, so it imports no environment code.
    """

    @property
    def system_prompt(self) -> str: ...
    @property
    def constraints(self) -> Sequence[Constraint]: ...
    def changed_records(self, before: Any, after: Any) -> set[tuple[str, str]]:
        """Keys ``(table, id)`` of the records that differ between two states."""
        ...

    def record(self, state: Any, key: tuple[str, str]) -> Any:
        """The record ``key = (table, id)`` of ``state``, or None."""
        ...

    def tool_names(self) -> Collection[str]:
        """The names of the environment's tools."""
        ...

    def tool(self, name: str) -> ToolView:
        """The tool called ``name``."""
        ...


@dataclass(frozen=True)
class ToolCall:
    """One tool call as the environment received it.

    Attributes
    ----------
    tool : str
        Tool name.
    arguments : Mapping[str, Any]
        The arguments (empty when they were not a JSON object).
    ok : bool
        False when the tool refused or the call was invalid.
    text : str
        The result as JSON text, or the error message returned to the agent.
    writes : bool
        Whether the tool may change the state (False for an unknown tool).
    """

    tool: str
    arguments: Mapping[str, Any]
    ok: bool
    text: str
    writes: bool = False

    @cached_property
    def value(self) -> Any:
        """The decoded result (None for a refused call or non-JSON text)."""
        if not self.ok:
            return None
        try:
            return json.loads(self.text)
        except ValueError:
            return None


@dataclass(frozen=True)
class AgentCall:
    """One tool call as it appears in the conversation.

    Attributes
    ----------
    turn : int
        0-based index of the assistant message that made the call.
    name : str
        Tool name as the agent wrote it.
    arguments : str
        The raw arguments text as the agent wrote it.
    result : str
        The tool message the agent received for it ("" when there was none).
    """

    turn: int
    name: str
    arguments: str
    result: str


def json_leaves(value: Any) -> Iterator[Any]:
    """Every leaf of decoded JSON (object values and array items, depth first).

    >>> list(json_leaves({"a": [1, "x", {"b": None}], "c": True}))
    [1, 'x', None, True]
    """
    if isinstance(value, Mapping):
        for item in value.values():
            yield from json_leaves(item)
    elif isinstance(value, list):
        for item in value:
            yield from json_leaves(item)
    else:
        yield value


def agent_calls_from_trajectory(messages: Sequence[Mapping[str, Any]]) -> tuple[AgentCall, ...]:
    """The tool calls of an OpenAI-format conversation, with their turn and result text.

    >>> msgs = [{"role": "assistant", "content": None, "tool_calls": [{"id": "a",
    ...     "function": {"name": "f", "arguments": "{}"}}]},
    ...     {"role": "tool", "tool_call_id": "a", "content": "ok"}]
    >>> agent_calls_from_trajectory(msgs)
    (AgentCall(turn=0, name='f', arguments='{}', result='ok'),)
    """
    results = {m.get("tool_call_id"): message_text(m) for m in messages if m.get("role") == "tool"}
    calls: list[AgentCall] = []
    turn = -1
    for message in messages:
        if message.get("role") != "assistant":
            continue
        turn += 1
        for call in message.get("tool_calls") or ():
            fn = call.get("function") or {}
            calls.append(
                AgentCall(
                    turn=turn,
                    name=str(fn.get("name", "")),
                    arguments=str(fn.get("arguments") or ""),
                    result=results.get(call.get("id"), ""),
                )
            )
    return tuple(calls)


def agent_calls_from_tool_calls(calls: Sequence[ToolCall]) -> tuple[AgentCall, ...]:
    """Agent calls for a run driven without a conversation: one call per turn."""
    return tuple(
        AgentCall(i, c.tool, json.dumps(dict(c.arguments), sort_keys=True), c.text)
        for i, c in enumerate(calls)
    )


@dataclass(frozen=True)
class RunView:
    """Everything a rule detector may look at for one run.

    Attributes
    ----------
    env : EnvironmentView
        The environment (its constraints, ``changed_records``).
    task : TaskView
        The task, with its instruction, customer and oracle.
    initial, final : Any
        State before and after the run.
    answer : str or None
        The agent's final reply (None if it gave none).
    calls : tuple of ToolCall
        Calls the environment received, in order.
    agent_calls : tuple of AgentCall
        Calls as the agent made and saw them, with turns.
    expected : Any or None
        Final state the task's oracle produces (None without an oracle).
    oracle_answer : str or None
        The oracle's answer (None without an oracle).
    """

    env: EnvironmentView
    task: TaskView
    initial: Any
    final: Any
    answer: str | None
    calls: tuple[ToolCall, ...]
    agent_calls: tuple[AgentCall, ...]
    expected: Any | None = None
    oracle_answer: str | None = None

    @property
    def answer_text(self) -> str:
        """The final answer, or "" when there was none."""
        return self.answer or ""
