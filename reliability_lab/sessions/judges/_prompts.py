"""Prompt text of the judge stages (the project's own wording of PandaProbe's stage designs)."""

from __future__ import annotations

import json
from typing import Any

from reliability_lab.llm.judging import SYSTEM_PROMPT
from reliability_lab.sessions.tracing import Trace

__all__ = ["SYSTEM_PROMPT", "render_trace"]


_MAX_CHARS = 4000


def _clip(value: Any) -> Any:
    if isinstance(value, str) and len(value) > _MAX_CHARS:
        return value[:_MAX_CHARS] + f"... [{len(value) - _MAX_CHARS} more characters]"
    if isinstance(value, dict):
        return {k: _clip(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clip(v) for v in value]
    return value


def render_trace(trace: Trace) -> str:
    """The trace as compact JSON for a judge prompt (long strings clipped to 4000 chars)."""
    payload: dict[str, Any] = {"input": trace.input, "output": trace.output, "spans": []}
    for span in trace.spans:
        entry: dict[str, Any] = {"kind": span.kind.value, "name": span.name}
        if span.input is not None:
            entry["input"] = span.input
        if span.output is not None:
            entry["output"] = span.output
        if span.error:
            entry["error"] = span.error
        payload["spans"].append(entry)
    if "available_tools" in trace.metadata:
        payload["available_tools"] = trace.metadata["available_tools"]
    return json.dumps(_clip(payload), default=str, ensure_ascii=False)


def task_outcome(trace: Trace) -> str:
    return (
        "Read the agent trace below.\n"
        "1. `task`: state what the user wanted the agent to achieve.\n"
        "2. `outcome`: describe what the agent actually did and produced, as plain facts. Do not "
        "judge it: avoid words such as 'successfully', 'correctly' or 'failed to'.\n\n"
        f"TRACE:\n{render_trace(trace)}"
    )


def task_verdict(task: str, outcome: str) -> str:
    return (
        "Compare what the user asked for with what the agent did.\n"
        f"TASK: {task}\nOUTCOME: {outcome}\n\n"
        "Give `verdict` in [0, 1]: 1.0 the task is fully achieved; 0.75-0.99 mostly, small parts "
        "missing; 0.5-0.74 partly; 0.25-0.49 with large gaps; below 0.25 not meaningfully "
        "addressed. Give a one- or two-sentence `reason`."
    )


def tool_context(trace: Trace) -> str:
    return (
        "From the agent trace below extract:\n"
        "- `user_input`: the user's goal;\n"
        "- `tools_called`: every tool call the agent made, in order, with `name` and "
        "`parameters`;\n"
        "- `available_tools`: every tool the agent could have used, with `name` and "
        "`description` (from the trace's available_tools if present, else from the spans).\n\n"
        f"TRACE:\n{render_trace(trace)}"
    )


def tool_score(context: dict[str, Any]) -> str:
    return (
        "Judge how well the agent chose its tools for the user's goal.\n"
        f"CONTEXT:\n{json.dumps(context, ensure_ascii=False)}\n\n"
        "Lower the `score` (0 to 1) for: tools that were unnecessary or redundant "
        "(over-selection), useful available tools left unused (under-selection), and wrong or "
        "irrelevant tools (mis-selection). 1.0 means the selection was appropriate and "
        "sufficient. If no tool was needed and none was called, that is correct. Give a short "
        "`reason`."
    )


def argument_context(trace: Trace) -> str:
    return (
        "From the agent trace below extract `user_input` (the user's request) and `tool_calls`: "
        "every tool call in order with `name`, `parameters` and `reasoning` (the agent's stated "
        "reason for the call, or null if none is stated).\n\n"
        f"TRACE:\n{render_trace(trace)}"
    )


def argument_verdicts(context: dict[str, Any]) -> str:
    return (
        "For each tool call below, in the same order, decide whether its arguments are right "
        "for the user's request: `verdict` 'yes' or 'no'; for 'no' give a `reason` naming the "
        "wrong or missing argument, for 'yes' set `reason` to null. Return exactly one verdict "
        "per tool call.\n"
        f"CONTEXT:\n{json.dumps(context, ensure_ascii=False)}"
    )


def argument_reason(user_input: str, score: float, problems: list[str]) -> str:
    return (
        f"The agent's tool-call arguments scored {score:.2f} (share of calls with correct "
        f"arguments) for the request: {user_input}\n"
        f"Problems found: {json.dumps(problems, ensure_ascii=False)}\n"
        "Write a concise `reason` explaining this score."
    )


def task_only(trace: Trace) -> str:
    return (
        "From the agent trace below extract `task`: the user's original goal, in one or two "
        "sentences, without describing what the agent did.\n\n"
        f"TRACE:\n{render_trace(trace)}"
    )


def step_efficiency(task: str, trace: Trace) -> str:
    return (
        f"TASK: {task}\n"
        "Judge how economically the agent below carried out the task. Lower the `score` "
        "(0 to 1) for redundant or repeated tool calls, steps the task did not need, "
        "speculative work, and verbose reasoning that adds nothing. 1.0 means the minimal "
        "sequence of actions. Give a short `reason`.\n\n"
        f"TRACE:\n{render_trace(trace)}"
    )


def confidence(trace: Trace) -> str:
    return (
        "Judge how confident and well-founded the agent's behaviour in the trace below is.\n"
        "Consider: decisiveness (no needless hesitation or self-contradiction), "
        "appropriateness (actions serve the user's goal), consistency (one coherent strategy), "
        "and signs of low confidence: hedging, contradictions, needless retries, vague answers, "
        "identical tool calls repeated, strategies abandoned.\n"
        "`score`: 1.0 decisive; 0.75 slight hesitation; 0.5 visible indecision; 0.25 strong "
        "uncertainty with abandoned approaches; 0.0 contradictory. Give a short `reason`.\n\n"
        f"TRACE:\n{render_trace(trace)}"
    )


def plan(trace: Trace) -> str:
    return (
        "List the plan the agent in the trace below stated or clearly implied (in its messages "
        "or reasoning) before or while acting, as `plan`: a list of steps in order. Include only "
        "steps the trace itself supports; do not invent steps from what it merely did. If the "
        "trace shows no plan, return an empty list.\n\n"
        f"TRACE:\n{render_trace(trace)}"
    )


def plan_adherence(task: str, steps: list[str], trace: Trace) -> str:
    return (
        f"TASK: {task}\nPLAN:\n{json.dumps(steps, indent=2, ensure_ascii=False)}\n"
        "Judge how closely the execution in the trace followed this plan: were all steps done, "
        "in the planned order, without unplanned extra actions or skipped steps? `score`: 1.0 "
        "exact; 0.75 nearly, minor deviations; 0.5 partly; 0.25 weakly; 0.0 unrelated. Give a "
        "short `reason`.\n\n"
        f"TRACE:\n{render_trace(trace)}"
    )


def plan_quality(task: str, steps: list[str]) -> str:
    return (
        f"TASK: {task}\nPLAN:\n{json.dumps(steps, indent=2, ensure_ascii=False)}\n"
        "Judge the plan itself, not its execution: completeness (covers the whole task), "
        "logical order, efficiency (nothing superfluous), right level of detail, and fit with "
        "what the user wants. `score`: 1.0 excellent; 0.75 good with small flaws; 0.5 workable "
        "with gaps; 0.25 weak; 0.0 does not address the task. Give a short `reason`."
    )
