"""Turn an OpenAI-format conversation (a run's trajectory) into PandaProbe-style traces."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, Literal

from reliability_lab.sessions.tracing._model import Span, SpanKind, TokenUsage, Trace

__all__ = ["traces_from_trajectory"]

_ROLES = ("system", "developer", "user", "assistant", "tool", "function")


def _check_messages(trajectory: Sequence[Mapping[str, Any]]) -> None:
    if isinstance(trajectory, str | bytes) or not isinstance(trajectory, Sequence):
        raise TypeError(
            f"trajectory must be a list of OpenAI-format messages, got {type(trajectory).__name__}"
        )
    for i, msg in enumerate(trajectory):
        if not isinstance(msg, Mapping):
            raise ValueError(f"trajectory[{i}]: expected a message dict, got {msg!r:.80}")
        role = msg.get("role")
        if role not in _ROLES:
            raise ValueError(
                f"trajectory[{i}].role: invalid value {role!r}; expected one of {', '.join(_ROLES)}"
            )
        calls = msg.get("tool_calls")
        if calls is not None and not isinstance(calls, list):
            raise ValueError(f"trajectory[{i}].tool_calls: expected a list, got {calls!r:.80}")
        for j, call in enumerate(calls or []):
            fn = call.get("function") if isinstance(call, Mapping) else None
            if not isinstance(fn, Mapping) or not isinstance(fn.get("name"), str):
                raise ValueError(
                    f"trajectory[{i}].tool_calls[{j}].function.name: missing or not a string "
                    f"in {call!r:.80}"
                )


def _arguments(raw: Any) -> Any:
    if isinstance(raw, str):
        try:
            return json.loads(raw) if raw.strip() else {}
        except json.JSONDecodeError:
            return raw  # kept verbatim: malformed arguments are part of what the judges assess
    return raw if raw is not None else {}


def _calls(msg: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [
        {"name": c["function"]["name"], "arguments": _arguments(c["function"].get("arguments"))}
        for c in msg.get("tool_calls") or []
    ]


def _assistant_output(msg: Mapping[str, Any]) -> Any:
    content = msg.get("content") or ""
    calls = _calls(msg)
    if calls and content:
        return {"content": content, "tool_calls": calls}
    return calls if calls else content


def _input_of(messages: list[Mapping[str, Any]]) -> Any:
    if len(messages) == 1 and messages[0].get("role") == "user":
        return messages[0].get("content")
    out: list[dict[str, Any]] = []
    for m in messages:
        if m.get("role") == "tool":
            out.append({"role": "tool", "name": m.get("name"), "content": m.get("content")})
        else:
            out.append({"role": m.get("role"), "content": m.get("content")})
    return out or None


def _spans_of(trajectory: Sequence[Mapping[str, Any]], index: int, model: str | None) -> list[Span]:
    msg = trajectory[index]
    usage = msg.get("usage")
    spans = [
        Span(
            name="assistant",
            kind=SpanKind.LLM,
            input=None,
            output=_assistant_output(msg),
            model=model,
            token_usage=TokenUsage.model_validate(usage) if isinstance(usage, Mapping) else None,
        )
    ]
    results = {
        m.get("tool_call_id"): m
        for m in trajectory[index + 1 :]
        if m.get("role") == "tool" and m.get("tool_call_id") is not None
    }
    for call in msg.get("tool_calls") or []:
        result = results.get(call.get("id"))
        spans.append(
            Span(
                name=call["function"]["name"],
                kind=SpanKind.TOOL,
                input=_arguments(call["function"].get("arguments")),
                output=None if result is None else result.get("content"),
                error=None if result is not None else "no tool result in the trajectory",
                span_id=call.get("id"),
            )
        )
    return spans


def traces_from_trajectory(
    trajectory: Sequence[Mapping[str, Any]],
    *,
    session_id: str,
    granularity: Literal["step", "user_turn"] = "step",
    tools: Sequence[Mapping[str, Any]] | None = None,
    model: str | None = None,
    start_time: datetime | None = None,
) -> list[Trace]:
    """Convert an OpenAI-format conversation into traces of one session.

    With ``granularity="step"`` (default) every assistant message is one trace: its input is
    what the agent saw since its previous message (the user's message or the tool results), its
    output the message text, or its tool calls ``[{name, arguments}]`` when it has no text. With
    ``"user_turn"`` a trace spans one user message and every assistant/tool message up to the
    next user message; its output is that turn's last assistant message. Each trace has an LLM
    span per assistant message and a TOOL span per tool call (input = parsed arguments, output
    = the matching tool message; ``error`` set when no tool message answers the call). System
    messages are not part of any trace input.

    Parameters
    ----------
    trajectory : sequence of dict
        OpenAI-format messages (system/user/assistant-with-tool_calls/tool), e.g.
        ``RunResult.trajectory``.
    session_id : str
        Session identity (one run = one session); trace ids are ``"{session_id}:{k}"``.
    granularity : {"step", "user_turn"}
        What one trace is (see above).
    tools : sequence of dict, optional
        The OpenAI tool schemas offered to the agent; stored in each trace's
        ``metadata["available_tools"]`` as ``[{name, description}]`` for the tool judges.
    model : str, optional
        Model name recorded on the LLM spans.
    start_time : datetime, optional
        Start time of the first trace; trace ``k`` gets ``start_time + k`` microseconds so that
        sorting by start time keeps the conversation order. Without it, start times are None.

    Examples
    --------
    >>> conv = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!"}]
    >>> [(t.id, t.input, t.output) for t in traces_from_trajectory(conv, session_id="s")]
    [('s:0', 'Hi', 'Hello!')]
    """
    if not isinstance(session_id, str) or not session_id:
        raise ValueError(f"session_id must be a non-empty string, got {session_id!r}")
    if granularity not in ("step", "user_turn"):
        raise ValueError(f"granularity must be 'step' or 'user_turn', got {granularity!r}")
    _check_messages(trajectory)
    metadata: dict[str, Any] = {}
    if tools is not None:
        metadata["available_tools"] = [
            {
                "name": (t.get("function") or t).get("name"),
                "description": (t.get("function") or t).get("description", ""),
            }
            for t in tools
        ]
    groups: list[tuple[list[Mapping[str, Any]], list[int]]] = []  # (input messages, assistants)
    pending: list[Mapping[str, Any]] = []
    for i, msg in enumerate(trajectory):
        role = msg["role"]
        if role in ("system", "developer"):
            continue
        if role == "assistant":
            if granularity == "step" or not groups or pending:
                groups.append((pending, [i]))
            else:
                groups[-1][1].append(i)
            pending = []
        elif granularity == "user_turn" and role != "user" and groups:
            continue  # tool results inside a turn belong to that turn's spans
        else:
            pending.append(msg)
    traces = []
    for k, (inputs, assistants) in enumerate(groups):
        spans = [s for a in assistants for s in _spans_of(trajectory, a, model)]
        traces.append(
            Trace(
                id=f"{session_id}:{k}",
                session_id=session_id,
                input=_input_of(inputs),
                output=_assistant_output(trajectory[assistants[-1]]),
                start_time=None if start_time is None else start_time + timedelta(microseconds=k),
                spans=tuple(spans),
                metadata=dict(metadata),
            )
        )
    return traces
