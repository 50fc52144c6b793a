"""The simulated model's decision rule: next tool call, final answer, or confidence reply.

Randomness: every draw comes from a ``random.Random`` seeded with a SHA-256 of (profile, request
seed, turn, purpose), so a reply depends only on the profile, the seed and the conversation.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from reliability_lab.envs._base import render_template
from reliability_lab.sim._profiles import SimPersona
from reliability_lab.sim._replay import Progress, TaskMatch, identify_task, replay, tool_arguments
from reliability_lab.sim._rng import rng_for
from reliability_lab.sim._unsafe import (
    answer_suffix,
    circumvention_call,
    extra_call,
    own_unsafe_error,
    skipped_steps,
)

__all__ = ["SimReply", "rng_for", "sim_respond"]

_DIFFICULTY_FACTOR = {1: 0.5, 2: 1.0, 3: 1.5}
_ID = re.compile(r"^([A-Z]+)(\d+)$")
_LOOKUPS = {"uid": "get_user", "oid": "get_order", "pid": "get_product"}


@dataclass(frozen=True)
class SimReply:
    """An assistant message in OpenAI format plus simulated token counts."""

    message: dict[str, Any]
    prompt_tokens: int
    completion_tokens: int


def _run_factor(profile: SimPersona, seed: int | None, task_id: str) -> float:
    if profile.run_variability == 0:
        return 1.0
    sigma = profile.run_variability
    z = rng_for(profile.name, seed, task_id, "run").gauss(0, 1)
    return math.exp(sigma * z - sigma**2 / 2)


def _slip_prob(profile: SimPersona, match: TaskMatch, seed: int | None) -> float:
    base = profile.slip_rate * _DIFFICULTY_FACTOR.get(match.task.difficulty, 1.0)
    base *= _run_factor(profile, seed, match.task.task_id)
    return min(1.0, base + profile.perturbation_sensitivity * (1.0 - match.similarity))


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _distractor(
    value: Any, progress: Progress, enum: Sequence[Any] | None, rng: random.Random
) -> Any | None:
    if enum:
        others = [e for e in enum if e != value]
        return rng.choice(others) if others else None
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return None
    if isinstance(value, int | float):
        return round(value * rng.choice((0.9, 1.1)) + rng.choice((-1, 1)), 2)
    m = _ID.match(value)
    if m:
        seen = sorted(
            {
                s
                for obs in progress.observed
                for s in _strings(obs)
                if s != value and len(s) == len(value) and s.startswith(m.group(1)) and _ID.match(s)
            }
        )
        if seen:
            return rng.choice(seen)
        return f"{m.group(1)}{int(m.group(2)) + rng.choice((1, 2, 3))}"
    digits = [i for i, c in enumerate(value) if c.isdigit()]
    if digits:
        i = rng.choice(digits)
        return value[:i] + str((int(value[i]) + 1) % 10) + value[i + 1 :]
    return None


def _tool_call(
    name: str, args: Mapping[str, Any], turn: int, seed: int | None, copies: int = 1
) -> dict[str, Any]:
    calls = []
    for i in range(copies):
        tag = f"{seed}:{turn}:{name}" + (f":{i}" if i else "")
        calls.append(
            {
                "id": "call_" + hashlib.sha256(tag.encode()).hexdigest()[:16],
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(dict(args))},
            }
        )
    return {"role": "assistant", "content": None, "tool_calls": calls}


def _final(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text}


def _detour(match: TaskMatch, progress: Progress, rng: random.Random) -> tuple[str, dict] | None:
    options = []
    for var, tool in _LOOKUPS.items():
        value = progress.bindings.get(var)
        if isinstance(value, str):
            options.append((tool, {tool.split("_", 1)[1] + "_id": value}))
    if "uid" in progress.bindings:
        options.append(("list_orders", {"user_id": progress.bindings["uid"]}))
    return rng.choice(options) if options else None


def _enum_of(match: TaskMatch, tool: str, arg: str) -> Sequence[Any] | None:
    props = match.env.tool(tool).parameters.get("properties", {})
    return props.get(arg, {}).get("enum")


def _slip_args(
    match: TaskMatch, tool: str, args: dict[str, Any], progress: Progress, rng: random.Random
) -> dict[str, Any]:
    for key in rng.sample(sorted(args), len(args)):
        alt = _distractor(args[key], progress, _enum_of(match, tool, key), rng)
        if alt is not None:
            return {**args, key: alt}
    return args


def _answer(match: TaskMatch, progress: Progress, slip: bool, rng: random.Random) -> str:
    oracle = match.task.oracle
    assert oracle is not None
    bindings = dict(progress.bindings)
    if slip:
        facts = [v for v in bindings if any("{" + v + "}" in f for f in oracle.facts)]
        for var in rng.sample(facts, len(facts)):
            alt = _distractor(bindings[var], progress, None, rng)
            if alt is not None:
                bindings[var] = alt
                break
    try:
        return str(render_template(oracle.answer, bindings))
    except KeyError:
        return "I have taken care of your request."


def _order_ids(value: Any, *, status: str | None = None) -> set[str]:
    """Order ids in a tool result (optionally only orders with ``status``)."""
    if isinstance(value, list):
        return {oid for v in value for oid in _order_ids(v, status=status)}
    if isinstance(value, Mapping) and isinstance(value.get("order_id"), str):
        if status is None or value.get("status") == status:
            return {value["order_id"]}
    return set()


def _overreach(
    profile: SimPersona,
    match: TaskMatch,
    progress: Progress,
    messages: Sequence[Mapping[str, Any]],
    seed: int | None,
) -> dict[str, Any] | None:
    """Arguments of one unrequested cancellation of another pending order, or None."""
    if profile.overreach_rate == 0 or "cancel_order" not in match.env.tool_names():
        return None
    rng = rng_for(profile.name, seed, match.task.task_id, "overreach")
    if rng.random() >= profile.overreach_rate:
        return None
    oracle = match.task.oracle
    assert oracle is not None
    planned = {
        str(v)
        for step in oracle.steps
        for v in render_template(dict(step.args), progress.bindings).values()
    }
    cancelled = {
        (tool_arguments(match, "cancel_order", call["function"]["arguments"]) or {}).get("order_id")
        for m in messages
        for call in m.get("tool_calls") or []
        if call["function"]["name"] == "cancel_order"
    }
    if cancelled - planned:
        return None  # already overreached in this run
    candidates = sorted(_order_ids(progress.observed, status="pending") - planned - cancelled)
    if not candidates:
        return None
    reasons = _enum_of(match, "cancel_order", "reason")
    args: dict[str, Any] = {"order_id": rng.choice(candidates)}
    if reasons:
        args["reason"] = reasons[0]
    return args


def _shown(
    profile: SimPersona,
    match: TaskMatch,
    tool: str,
    args: dict[str, Any],
    seed: int | None,
    turn: int,
) -> dict[str, Any]:
    """The arguments as sent: mapped to a structural perturbation's interface, unless the model
    slips (probability ``structural_sensitivity × severity``) and uses the original names and
    values, which the perturbed interface rejects."""
    structure = match.structure
    if structure is None:
        return args
    slip = profile.structural_sensitivity * structure.preset.severity
    if rng_for(profile.name, seed, match.task.task_id, "interface", turn).random() < slip:
        return args
    return structure.forward_arguments(tool, args)


def next_turn(
    profile: SimPersona, match: TaskMatch, messages: Sequence[Mapping[str, Any]], seed: int | None
) -> dict[str, Any]:
    """The next assistant message of the agent conversation."""
    oracle = match.task.oracle
    assert oracle is not None
    progress = replay(match, messages, start=skipped_steps(profile, match, seed))
    turn = sum(1 for m in messages if m.get("role") == "assistant")
    rng = rng_for(profile.name, seed, match.task.task_id, "turn", turn)

    def call(tool: str, args: dict[str, Any], copies: int = 1) -> dict[str, Any]:
        shown = _shown(profile, match, tool, args, seed, turn)
        return _tool_call(tool, shown, turn, seed, copies)

    run_factor = _run_factor(profile, seed, match.task.task_id)
    if progress.confused:
        return _final("I'm sorry, I could not find the information needed to finish this.")
    if (
        progress.last_error is not None
        and not own_unsafe_error(match, progress, messages)
        and rng.random() >= profile.error_recovery
    ):
        return _final(
            "I'm sorry, I ran into a problem with our systems and could not "
            "complete your request. Please try again later."
        )
    if progress.step >= len(oracle.steps):
        overreach = _overreach(profile, match, progress, messages, seed)
        if overreach is not None:
            return call("cancel_order", overreach)
        extra = extra_call(profile, match, progress, messages, seed)
        if extra is not None:
            tool, args, copies = extra
            return call(tool, args, copies)
        answer = _answer(match, progress, rng.random() < _slip_prob(profile, match, seed), rng)
        return _final(answer + answer_suffix(profile, match, progress, messages, seed))
    forbidden = circumvention_call(profile, match, progress, messages, seed)
    if forbidden is not None:
        return call(*forbidden)
    step = oracle.steps[progress.step]
    writes = match.env.tool(step.tool).writes
    if progress.detours < profile.max_detours and rng.random() < min(
        1.0, profile.detour_rate * run_factor
    ):
        detour = _detour(match, progress, rng)
        if detour is not None:
            return call(*detour)
    if writes and rng.random() < profile.early_stop_rate:
        return _final("Done! I have taken care of your request.")
    args = dict(render_template(dict(step.args), progress.bindings))
    if args and rng.random() < profile.arg_error_rate:
        args.pop(rng.choice(sorted(args)))
    elif writes and rng.random() < _slip_prob(profile, match, seed):
        args = _slip_args(match, step.tool, args, progress, rng)
    return call(step.tool, args)


def _posterior(profile: SimPersona, match: TaskMatch, seed: int | None) -> float:
    oracle = match.task.oracle
    assert oracle is not None
    q = _slip_prob(profile, match, seed)
    writes = sum(match.env.tool(s.tool).writes for s in oracle.steps)
    p_ok = (1 - q) ** (writes + (1 if oracle.facts else 0)) * (
        1 - profile.early_stop_rate
    ) ** writes
    unnoticed = (1 - p_ok) * (1 - profile.slip_awareness)
    return p_ok / (p_ok + unnoticed) if p_ok + unnoticed > 0 else 0.0


def confidence_value(
    profile: SimPersona,
    match: TaskMatch | None,
    messages: Sequence[Mapping[str, Any]],
    seed: int | None,
) -> float:
    """The probability of success the model reports, before formatting."""
    task_id = match.task.task_id if match is not None else ""
    rng = rng_for(profile.name, seed, task_id, "confidence")
    if profile.confidence_mode == "overconfident":
        return rng.uniform(0.9, 1.0)
    if match is None or match.task.oracle is None:
        base = 0.5
    else:
        progress = replay(match, messages, start=skipped_steps(profile, match, seed))
        finished = progress.step >= len(match.task.oracle.steps) and not progress.confused
        noticed = progress.slips > 0 and rng.random() < profile.slip_awareness
        base = 0.1 if not finished or noticed else _posterior(profile, match, seed)
    return min(1.0, max(0.0, base + rng.gauss(0, profile.confidence_noise)))


_FORMATS = (
    "{pct}",
    "{frac:.2f}",
    "{pct}%",
    "Confidence: {pct}/100",
    "I'd put my confidence at about {pct} out of 100.",
    "{pct} percent",
)


def confidence_text(profile: SimPersona, value: float, seed: int | None) -> str:
    """Format ``value`` in one of several styles (or, rarely, not at all)."""
    rng = rng_for(profile.name, seed, "confidence-format")
    if rng.random() < profile.confidence_unparseable_rate:
        return "Hard to say - I did my best."
    return rng.choice(_FORMATS).format(pct=round(value * 100), frac=value)


def sim_respond(
    profile: SimPersona,
    messages: Sequence[Mapping[str, Any]],
    tools: Sequence[Mapping[str, Any]] | None,
    seed: int | None,
) -> dict[str, Any]:
    """The simulated model's reply message to an agent conversation.

    A user message after the first one is taken as a follow-up question and answered with a
    confidence (the agent's post-hoc elicitation). A conversation whose task is not found in any
    registered environment gets a polite refusal.
    """
    match = identify_task(messages, tools)
    users = [m for m in messages if m.get("role") == "user"]
    if len(users) > 1:
        value = confidence_value(profile, match, messages, seed)
        return _final(confidence_text(profile, value, seed))
    if match is None:
        return _final("I'm sorry, I don't know how to help with that request.")
    return next_turn(profile, match, messages, seed)
