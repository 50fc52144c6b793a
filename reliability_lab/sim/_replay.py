"""Read a conversation back: which task it is and how far the oracle plan has got.

The simulated model is stateless: every call re-derives its position from the messages it
receives, exactly as a real model only sees the conversation. It reads perturbed inputs the way
a capable model would: a reworded instruction is recognised by the task's details (IDs, emails,
names, amounts) and its wording seen through known synonyms; perturbed tool schemas are
recognised as a registered structural preset, whose results and arguments it then inverts.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import Levenshtein

from reliability_lab._messages import message_text
from reliability_lab.envs import Environment, Task, ToolError, get_environment, list_environments
from reliability_lab.envs._base import render_template
from reliability_lab.perturbations import (
    SchemaMap,
    canonical_words,
    detect_preset,
    missing_details,
    schema_map,
)

__all__ = ["Progress", "TaskMatch", "identify_task", "replay", "tool_arguments", "tool_calls"]

_MIN_SIMILARITY = 0.5
_TOKEN = re.compile(r"[a-z0-9@.'-]{3,}")
_SAME_TOKEN = 0.8  # Levenshtein ratio at which a (mistyped) word counts as the same word


@dataclass(frozen=True)
class TaskMatch:
    """The task a conversation is about and how close its instruction is to the canonical one.

    ``similarity`` is the Levenshtein ratio of the received instruction to the canonical one
    (1.0 when unchanged); ``structure`` is the structural perturbation the request's tool
    schemas show (None for the environment's own schemas).
    """

    env: Environment
    task: Task
    similarity: float
    structure: SchemaMap | None = None


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


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(canonical_words(text))


def _word_overlap(task_text: str, text: str) -> float:
    """Share of the task's words (after synonyms) found in ``text``, typos tolerated."""
    wanted, seen = _tokens(task_text), set(_tokens(text))
    if not wanted:
        return 0.0
    hits = sum(
        w in seen or any(Levenshtein.ratio(w, s) >= _SAME_TOKEN for s in seen) for w in wanted
    )
    return hits / len(wanted)


def _score(env: Environment, task: Task, instruction: str) -> tuple[float, int, float]:
    """(share of the task's details present, how many, word overlap): larger is better."""
    details = env.task_details(task)
    present = len(details) - len(missing_details(instruction, details))
    coverage = present / len(details) if details else 0.0
    return coverage, present, _word_overlap(task.instruction, instruction)


@lru_cache(maxsize=4096)
def _match(tool_names: frozenset[str], instruction: str) -> tuple[str, str, float] | None:
    best: tuple[str, str] | None = None
    best_key = (-1.0, -1, -1.0)
    for env_name in list_environments():
        env = get_environment(env_name)
        if tool_names and not tool_names <= env.tool_names():
            continue
        for task in env.tasks():
            if task.oracle is None:
                continue
            if task.instruction == instruction:
                return env_name, task.task_id, 1.0
            key = _score(env, task, instruction)
            if key > best_key:
                best, best_key = (env_name, task.task_id), key
    if best is None or max(best_key[0], best_key[2]) < _MIN_SIMILARITY:
        return None
    task = get_environment(best[0]).task(best[1])
    return best[0], best[1], Levenshtein.ratio(task.instruction, instruction)


@lru_cache(maxsize=256)
def _structure(env_name: str, tools_json: str) -> SchemaMap | None:
    env = get_environment(env_name)
    if tools_json == json.dumps(list(env.tool_schemas), sort_keys=True):
        return None
    preset = detect_preset(env, tools_json)
    return schema_map(env, preset) if preset is not None else None


def identify_task(
    messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] | None
) -> TaskMatch | None:
    """Find the registered task whose instruction the first user message carries.

    Exact instructions match at once; otherwise the task whose details (IDs, emails, names,
    amounts: ``Environment.task_details``) the message contains best wins, ties broken by
    word overlap after mapping known synonyms (typos tolerated). None when neither reaches
    0.5.
    """
    first = next((m for m in messages if m.get("role") == "user"), None)
    if first is None:
        return None
    names = frozenset(t["function"]["name"] for t in tools or () if "function" in t)
    hit = _match(names, message_text(first))
    if hit is None:
        return None
    env = get_environment(hit[0])
    structure = _structure(env.name, json.dumps(list(tools or ()), sort_keys=True))
    return TaskMatch(env, env.task(hit[1]), hit[2], structure)


def _decode(text: str) -> tuple[bool, Any]:
    if text.lstrip().lower().startswith("error"):
        return False, None
    try:
        return True, json.loads(text)
    except ValueError:
        return False, None


def tool_arguments(match: TaskMatch | None, name: str, raw: str | None) -> Any:
    """The arguments of a call in the environment's own terms (None when not a JSON object)."""
    try:
        args = json.loads(raw or "{}")
    except ValueError:
        return None
    if match is not None and match.structure is not None and isinstance(args, dict):
        try:
            args = match.structure.arguments(name, args)
        except ToolError:
            pass  # rejected by the perturbed interface; the tool result says so
    return args


def tool_calls(
    messages: Sequence[Mapping[str, Any]], match: TaskMatch | None = None
) -> list[tuple[str, Any, str]]:
    """``(name, arguments or None, result text)`` of every tool call, in order.

    With ``match``, arguments are given in the environment's own terms (a structural
    perturbation's renames undone).
    """
    results = {m.get("tool_call_id"): message_text(m) for m in messages if m.get("role") == "tool"}
    calls = []
    for m in messages:
        if m.get("role") != "assistant":
            continue
        for call in m.get("tool_calls") or ():
            fn = call.get("function", {})
            name = str(fn.get("name"))
            args = tool_arguments(match, name, fn.get("arguments"))
            calls.append((name, args, results.get(call.get("id"), "Error: none")))
    return calls


def replay(match: TaskMatch, messages: Sequence[Mapping[str, Any]], *, start: int = 0) -> Progress:
    """Advance the oracle plan over the tool calls already made in ``messages``.

    ``start`` is the first plan step the model follows (1 when it skipped the first step).
    """
    assert match.task.oracle is not None
    steps = match.task.oracle.steps
    progress = Progress(step=start)
    for name, args, result in tool_calls(messages, match):
        ok, value = _decode(result)
        if ok and match.structure is not None:
            value = match.structure.original_result(value)
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
