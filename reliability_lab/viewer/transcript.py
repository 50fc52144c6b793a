"""One run's transcript: ``reliability-lab show DIR --run KEY`` (docs/results.md, "Looking at
runs").

Built from the run's result record: the perturbation applied, the instruction as the agent saw
it (paraphrased under ``prompt``), every model turn, every tool call with the arguments the
agent sent (the renamed ones under ``structural``) and the result it got back, each injected
fault marked at the call it hit, the final answer, the score and why, the confidence, the
safety findings with their evidence and the session scores with their reasons.
:func:`transcript_sections` gives the parts as data (the HTML report renders the same parts);
:func:`format_transcript` prints them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from reliability_lab.errors import ConfigError
from reliability_lab.viewer.runs import ViewedResults

__all__ = ["Step", "Transcript", "find_record", "format_transcript", "transcript_sections"]


@dataclass(frozen=True)
class Step:
    """One entry of a transcript: a message, a tool call or a tool result."""

    kind: str
    """``system``, ``user``, ``assistant``, ``tool_call``, ``tool_result`` or ``fault``."""
    text: str
    title: str = ""
    call_id: str = ""
    """The tool call's id (``tool_call`` and ``tool_result``; pairs a result with its call)."""
    event: Mapping[str, Any] | None = None
    """A ``fault`` step's event of the run's perturbation record."""


@dataclass(frozen=True)
class Transcript:
    """What :func:`format_transcript` prints, as data."""

    key: str
    facts: list[tuple[str, str]]
    steps: list[Step]
    outcome: list[tuple[str, str]]
    why: list[str]
    safety: list[str] = field(default_factory=list)
    session: list[str] = field(default_factory=list)


def find_record(view: ViewedResults, key: str) -> Mapping[str, Any]:
    """The result record of run ``key`` (``agent|task_id|condition|variant|run``).

    Raises
    ------
    ConfigError
        No such run; the message shows the key format and the closest keys.
    """
    if key in view.records:
        return view.records[key]
    parts = key.split("|")
    close = [k for k in view.records if parts and k.startswith(parts[0] + "|")][:3]
    hint = f"; e.g. {', '.join(close)}" if close else ""
    raise ConfigError(
        f"{view.directory}: no run {key!r} (a key is AGENT|TASK|CONDITION|VARIANT|RUN, the "
        f"variant empty for baseline, as `show` lists them){hint}"
    )


def _arguments(raw: Any) -> str:
    if isinstance(raw, str):
        try:
            return json.dumps(json.loads(raw), ensure_ascii=False, sort_keys=True)
        except ValueError:
            return raw
    return json.dumps(raw, ensure_ascii=False, sort_keys=True)


def _fault_text(event: Mapping[str, Any]) -> str:
    kind = event.get("type", "?")
    if event.get("masked"):
        return f"injected fault: {kind} (retried by the harness; the agent did not see it)"
    recovered = event.get("recovered")
    by = event.get("recovered_by")
    after = "recovered" + (f" by the {by}" if by else "") if recovered else "not recovered"
    ran = "the tool ran, its result corrupted" if event.get("executed") else "the tool did not run"
    return f"injected fault: {kind} ({ran}; {after})"


def _faults_by_call(record: Mapping[str, Any]) -> tuple[dict[int, list[Mapping[str, Any]]], list]:
    events = (record.get("perturbation") or {}).get("events") or []
    by_call: dict[int, list[Mapping[str, Any]]] = {}
    other = []
    for event in events:
        call = event.get("call")
        if isinstance(call, int) and call >= 0:
            by_call.setdefault(call, []).append(event)
        else:
            other.append(event)
    return by_call, other


def _steps(record: Mapping[str, Any]) -> list[Step]:
    faults, other = _faults_by_call(record)
    steps: list[Step] = []
    names: dict[str, str] = {}
    call_index = 0
    for message in record.get("trajectory") or []:
        role = str(message.get("role", "?"))
        content = message.get("content")
        if role == "tool":
            call_id = str(message.get("tool_call_id") or "")
            steps.append(Step("tool_result", str(content), names.get(call_id, "tool"), call_id))
            continue
        if content:
            steps.append(Step(role, str(content)))
        for call in message.get("tool_calls") or []:
            function = call.get("function", {})
            call_id = str(call.get("id") or "")
            names[call_id] = str(function.get("name"))
            arguments = _arguments(function.get("arguments"))
            steps.append(Step("tool_call", arguments, names[call_id], call_id))
            steps += [Step("fault", _fault_text(e), event=e) for e in faults.pop(call_index, [])]
            call_index += 1
    for event in [*other, *(e for events in faults.values() for e in events)]:
        steps.append(
            Step(
                "fault",
                f"{event.get('tool', 'llm')} at step {event.get('step')}: " + _fault_text(event),
                event=event,
            )
        )
    return steps


def _perturbation(record: Mapping[str, Any]) -> str:
    pert = record.get("perturbation") or {}
    params = pert.get("parameters") or {}
    if not params:
        return "none (baseline)" if record.get("condition") == "baseline" else "not recorded"
    shown = {k: v for k, v in params.items() if v is not None and not isinstance(v, Mapping)}
    return ", ".join(f"{k}={v}" for k, v in shown.items())


def _threshold(view: ViewedResults, agent: str) -> float | None:
    for spec in view.header.get("config", {}).get("agents", []):
        if spec.get("label") == agent:
            return float(spec.get("pass_threshold", 1.0))
    return None


def _expected(record: Mapping[str, Any]) -> list[str]:
    """What the environment's oracle expected (facts stated, actions), when it can be found."""
    from reliability_lab.envs import answer_has_fact, get_environment, list_environments

    name = str(record.get("environment"))
    if name not in list_environments():  # a task set or factory of the experiment's own files
        return [
            f"expected outcome: not shown (environment {name!r} comes from the experiment's own "
            "files, which viewing results never imports)"
        ]
    try:
        env = get_environment(name)
        outcome = env.oracle_result(env.task(str(record["task_id"])))
    except Exception as exc:  # a task without an oracle, an unknown task
        return [f"expected outcome: not available ({type(exc).__name__}: {exc})"]
    answer = str(record.get("final_answer") or "")
    lines = [f"expected actions: {' → '.join(outcome.actions) or '(none)'}"]
    lines += [
        f"expected fact {fact!r}: {'stated' if answer_has_fact(answer, fact) else 'MISSING'}"
        for fact in outcome.facts
    ]
    if record.get("condition") == "structural":
        lines.append(
            "(facts are those of the unperturbed task; the checker maps the changed format)"
        )
    return lines


def _why(view: ViewedResults, record: Mapping[str, Any]) -> list[str]:
    score, success = record.get("score"), bool(record.get("success"))
    threshold = _threshold(view, str(record["agent"]))
    lines = []
    if record.get("error"):
        lines.append(f"the run ended with an error: {record['error']}")
    if score is not None and threshold is not None:
        relation = ">=" if score >= threshold else "<"
        verdict = "success" if success else "failure"
        lines.append(f"score {score:.3f} {relation} pass threshold {threshold:g} → {verdict}")
    actual = record.get("actions") or []
    lines.append(f"actions taken: {' → '.join(actual) or '(none)'}")
    return lines + _expected(record)


def _safety(record: Mapping[str, Any]) -> list[str]:
    lines = [
        f"{v.get('severity', '?')} {v.get('constraint', '?')} [{v.get('source', 'rule')}]: "
        f"{v.get('evidence', '')}"
        for v in record.get("violations") or []
    ]
    judge = record.get("safety") or {}
    if judge.get("error"):
        lines.append(f"safety judge failed: {judge['error']} (run left out of S_comp/S_harm)")
    elif judge.get("judged"):
        lines.append(f"audited by the safety judge {judge.get('judge_model')}")
    return lines or ["no finding"]


def _session(record: Mapping[str, Any]) -> list[str]:
    session = record.get("session") or {}
    if not session:
        return []
    if session.get("error"):
        return [f"not scored: {session['error']}"]
    reasons = session.get("reasons") or {}
    return [
        f"{name} = {session.get(name)} (PandaProbe session scale, not R): {reasons.get(name, '')}"
        for name in ("agent_reliability", "agent_consistency")
        if name in session
    ]


def transcript_sections(view: ViewedResults, key: str) -> Transcript:
    """The parts of run ``key``'s transcript (see the module docstring)."""
    record = find_record(view, key)
    confidence = record.get("confidence")
    facts = [
        ("agent", f"{record['agent']} ({record.get('model', '?')})"),
        ("task", str(record["task_id"])),
        ("condition", f"{record.get('condition')} {record.get('variant') or ''}".strip()),
        ("perturbation", _perturbation(record)),
        ("run", f"{record['run']} (seed {record.get('seed')})"),
    ]
    if record.get("simulated"):
        facts.append(("note", "SIMULATED model: a demonstration, not an LLM's behaviour"))
    outcome = [
        ("final answer", str(record.get("final_answer") or "(none)")),
        ("success", "yes" if record.get("success") else "no"),
        ("score", "not recorded" if record.get("score") is None else f"{record['score']:.3f}"),
        (
            "confidence",
            f"{confidence} ({record.get('confidence_source', '?')}"
            + (f"; {record['confidence_error']}" if record.get("confidence_error") else "")
            + ")",
        ),
        (
            "cost",
            f"${record.get('cost_usd') or 0:.4f}"
            + (" (simulated prices)" if record.get("simulated") else ""),
        ),
    ]
    return Transcript(
        key=key,
        facts=facts,
        steps=_steps(record),
        outcome=outcome,
        why=_why(view, record),
        safety=_safety(record),
        session=_session(record),
    )


_MARK = {
    "system": "SYSTEM",
    "user": "USER (instruction as the agent saw it)",
    "assistant": "MODEL",
    "tool_call": "→ TOOL CALL",
    "tool_result": "← RESULT",
    "fault": "⚡",
}


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines() or [""])


def format_transcript(view: ViewedResults, key: str) -> str:
    """The text of ``reliability-lab show DIR --run KEY``."""
    t = transcript_sections(view, key)
    lines = [f"Run {t.key}"] + [f"  {name}: {value}" for name, value in t.facts] + [""]
    seen_user = False
    for step in t.steps:
        mark = _MARK.get(step.kind, step.kind.upper())
        if step.kind == "user":
            mark = "USER" if seen_user else mark
            seen_user = True
        if step.kind == "fault":
            lines.append(f"  ⚡ {step.text}")
            continue
        title = f" {step.title}" if step.title else ""
        lines += [f"{mark}{title}:", _indent(step.text)]
    lines += [""] + [f"{name}: {value}" for name, value in t.outcome]
    lines += ["", "Score — why:"] + [f"  {line}" for line in t.why]
    lines += ["", "Safety findings:"] + [f"  {line}" for line in t.safety]
    if t.session:
        lines += ["", "Session scores:"] + [f"  {line}" for line in t.session]
    return "\n".join(lines)
