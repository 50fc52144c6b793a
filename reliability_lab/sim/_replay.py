"""Read a conversation back: which task it is and how far the oracle plan has got.

The simulated model is stateless: every call re-derives its position from the messages it
receives, exactly as a real model only sees the conversation.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import Levenshtein

from reliability_lab.envs import Environment, Task, get_environment, list_environments
from reliability_lab.envs._base import render_template

__all__ = ["Progress", "TaskMatch", "identify_task", "replay", "tool_calls"]

_MIN_SIMILARITY = 0.5


@dataclass(frozen=True)
class TaskMatch:
    """The task a conversation is about and how close its instruction is to the canonical one."""

    env: Environment
    task: Task
    similarity: float


@dataclass
class Progress:
    """Where a conversation stands relative to the task's oracle plan."""

    step: int = 0
    bindings: dict[str, Any] = field(default_factory=dict)
    slips: int = 0
    detours: int = 0
    last_error: str | None = None
    confused: bool = False
    observed: list[Any] = field(default_factory=list)


def _text(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
    return ""


@lru_cache(maxsize=4096)
def _match(tool_names: frozenset[str], instruction: str) -> tuple[str, str, float] | None:
    best: tuple[str, str, float] | None = None
    for env_name in list_environments():
        env = get_environment(env_name)
        names = {s["function"]["name"] for s in env.tools()}
        if tool_names and not tool_names <= names:
            continue
        for task in env.tasks():
            if task.oracle is None:
                continue
            sim = (
                1.0
                if task.instruction == instruction
                else Levenshtein.ratio(task.instruction, instruction)
            )
            if best is None or sim > best[2]:
                best = (env_name, task.task_id, sim)
            if sim == 1.0:
                return best
    return best if best is not None and best[2] >= _MIN_SIMILARITY else None


def identify_task(
    messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] | None
) -> TaskMatch | None:
    """Find the registered task whose instruction the first user message carries."""
    first = next((m for m in messages if m.get("role") == "user"), None)
    if first is None:
        return None
    names = frozenset(t["function"]["name"] for t in tools or () if "function" in t)
    hit = _match(names, _text(first))
    if hit is None:
        return None
    env = get_environment(hit[0])
    return TaskMatch(env, env.task(hit[1]), hit[2])


def _decode(text: str) -> tuple[bool, Any]:
    if text.lstrip().lower().startswith("error"):
        return False, None
    try:
        return True, json.loads(text)
    except ValueError:
        return False, None


def tool_calls(messages: Sequence[Mapping[str, Any]]) -> list[tuple[str, Any, str]]:
    """``(name, decoded arguments or None, result text)`` of every tool call, in order."""
    results = {m.get("tool_call_id"): _text(m) for m in messages if m.get("role") == "tool"}
    calls = []
    for m in messages:
        if m.get("role") != "assistant":
            continue
        for call in m.get("tool_calls") or ():
            fn = call.get("function", {})
            try:
                args = json.loads(fn.get("arguments") or "{}")
            except ValueError:
                args = None
            calls.append((str(fn.get("name")), args, results.get(call.get("id"), "Error: none")))
    return calls


def replay(match: TaskMatch, messages: Sequence[Mapping[str, Any]], *, start: int = 0) -> Progress:
    """Advance the oracle plan over the tool calls already made in ``messages``.

    ``start`` is the first plan step the model follows (1 when it skipped the first step).
    """
    assert match.task.oracle is not None
    steps = match.task.oracle.steps
    progress = Progress(step=start)
    for name, args, result in tool_calls(messages):
        ok, value = _decode(result)
        if ok:
            progress.observed.append(value)
        if progress.step >= len(steps) or name != steps[progress.step].tool:
            progress.detours += 1
            progress.last_error = None if ok else result
            continue
        if not ok:
            progress.last_error = result
            continue
        step = steps[progress.step]
        try:
            expected = render_template(dict(step.args), progress.bindings)
        except KeyError:
            progress.confused = True
            expected = None
        if args != expected:
            progress.slips += 1
        try:
            progress.bindings.update({k: f(value) for k, f in step.bind.items()})
        except (LookupError, TypeError, ValueError, StopIteration):
            progress.confused = True
        progress.step += 1
        progress.last_error = None
    return progress
