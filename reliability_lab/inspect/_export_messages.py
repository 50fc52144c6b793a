"""One run's transcript as inspect_ai chat messages (for :mod:`.export`).

The transcript is the one ``reliability-lab show DIR --run KEY`` prints
(:func:`reliability_lab.viewer.transcript_sections`): its steps become inspect messages —
``system`` and ``user`` (the instruction as the agent saw it) as they are, each model turn an
assistant message carrying its tool calls (the arguments the agent sent, parsed to an object),
each tool result a tool message tied to its call by id. An injected fault the agent saw is the
tool message's ``error`` (inspect view shows it in red); every fault, seen or masked, is listed
in the message's ``metadata`` under ``injected_faults``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from reliability_lab.viewer.transcript import Step

if TYPE_CHECKING:
    from inspect_ai.model import ChatMessage
    from inspect_ai.tool import ToolCall, ToolCallError

__all__ = ["transcript_messages"]

#: The key of a tool message's metadata that lists the faults injected into its call.
FAULTS_KEY = "injected_faults"


def _tool_call(step: Step) -> ToolCall:
    from inspect_ai.tool import ToolCall

    try:
        arguments = json.loads(step.text)
    except ValueError:
        arguments = None
    if isinstance(arguments, dict):
        return ToolCall(id=step.call_id, function=step.title, arguments=arguments)
    return ToolCall(
        id=step.call_id,
        function=step.title,
        arguments={},
        parse_error=f"the arguments are not a JSON object: {step.text}",
    )


def _fault_error(faults: Sequence[Step]) -> ToolCallError | None:
    """The error the agent saw: the first fault that was not masked by a harness retry."""
    from inspect_ai.tool import ToolCallError

    for step in faults:
        event: Mapping[str, Any] = step.event or {}
        if not event.get("masked"):
            if event.get("type") == "timeout":
                return ToolCallError("timeout", step.text)
            return ToolCallError("unknown", step.text)
    return None


def transcript_messages(steps: Sequence[Step], model: str) -> list[ChatMessage]:
    """The inspect messages of a transcript's steps (module docstring).

    Parameters
    ----------
    steps : sequence of Step
        :attr:`reliability_lab.viewer.Transcript.steps` of one run.
    model : str
        The agent's model, recorded on each assistant message.

    Returns
    -------
    list of ChatMessage
        In the order of the run. Faults not tied to a tool call (an injected LLM fault) are
        not messages; the sample's metadata holds every fault.
    """
    from inspect_ai.model import (
        ChatMessageAssistant,
        ChatMessageSystem,
        ChatMessageTool,
        ChatMessageUser,
    )

    messages: list[ChatMessage] = []
    faults: dict[str, list[Step]] = {}
    call_of_fault = ""  # the call a fault step right after a tool call belongs to
    for step in steps:
        if step.kind == "fault":
            if call_of_fault:
                faults.setdefault(call_of_fault, []).append(step)
            continue
        call_of_fault = step.call_id if step.kind == "tool_call" else ""
        if step.kind == "system":
            messages.append(ChatMessageSystem(content=step.text, source="input"))
        elif step.kind == "user":
            messages.append(ChatMessageUser(content=step.text, source="input"))
        elif step.kind == "assistant":
            messages.append(ChatMessageAssistant(content=step.text, model=model, source="generate"))
        elif step.kind == "tool_call":
            last = messages[-1] if messages else None
            if not isinstance(last, ChatMessageAssistant):  # a turn of tool calls only
                last = ChatMessageAssistant(content="", model=model, source="generate")
                messages.append(last)
            last.tool_calls = [*(last.tool_calls or []), _tool_call(step)]
        elif step.kind == "tool_result":
            hit = faults.get(step.call_id, [])
            messages.append(
                ChatMessageTool(
                    content=step.text,
                    tool_call_id=step.call_id or None,
                    function=step.title,
                    error=_fault_error(hit),
                    metadata={FAULTS_KEY: [f.text for f in hit]} if hit else None,
                )
            )
    return messages
