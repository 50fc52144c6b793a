"""Import τ²-bench ``Results`` files into the run table (docs/importers.md,
'τ²-bench results').

τ²-bench (sierra-research/tau2-bench) saves a run of its harness as one ``Results`` JSON
object: ``info`` (agent, user simulator, environment, ``num_trials``), ``tasks`` and
``simulations``, one per (task, trial). Its directory format keeps the same object without
``simulations`` in ``results.json`` and one simulation per file in ``simulations/``; both are
read.

Mapping to the run table, one row per simulation:

=======================  =====================================================================
run-table column         from the simulation
=======================  =====================================================================
``agent``                the ``agent`` argument, else ``info.agent_info.llm`` (the agent's
                         model), else ``info.agent_info.implementation``
``task_id``              ``str(task_id)``
``condition``/``variant`` ``"baseline"`` / ``""`` (a τ²-bench run holds no perturbations)
``run``                  ``trial`` (numbered in file order within the task when absent)
``score``                ``reward_info.reward``
``success``              ``reward`` within 1e-6 of 1 — τ²-bench's own ``is_successful``
``error``                ``termination_reason`` ``infrastructure_error`` → ``"infrastructure:
                         …"`` (τ²-bench itself drops these runs from its metrics); any other
                         ending than ``agent_stop``/``user_stop`` (``max_steps``, ``timeout``,
                         ``too_many_errors``, ``agent_error``, ``user_error``,
                         ``context_window_exceeded``, ``unexpected_error``) is named in
                         ``error`` and counts as a failure, as τ²-bench scores it 0
``actions``              names of the ``tool_calls`` of assistant messages, in order (tool
                         calls of the simulated user are not the agent's actions)
``num_actions``          ``len(actions)``
``api_calls``            number of assistant messages (one model call each)
``num_errors``           tool results with ``error: true`` answering the agent's calls
``cost_usd``             ``agent_cost`` (NaN when null); ``user_cost`` is the simulated
                         user's and is not the agent's resource
``wall_time_s``          ``duration``
``call_latency_s``       mean ``generation_time_seconds`` of assistant messages, when recorded
``confidence``           NaN, ``confidence_source="none"``: τ²-bench does not elicit one, so
                         the predictability metrics are undefined
=======================  =====================================================================

Extra columns: ``prompt_tokens``/``completion_tokens`` (sums of the assistant messages'
``usage``), ``termination_reason``, ``simulation_id``, ``seed``, ``domain``
(``info.environment_info.domain_name``) and ``source_file``.

pass^k on the imported table (:func:`reliability_lab.metrics.pass_hat_k` over the runs that
are not infrastructure errors) is τ²-bench's ``pass_hat_k`` averaged over tasks: C(c, k)/C(n, k)
per task. τ²-bench lowers its largest k to the smallest trial count of any task; here a task
with fewer than k runs is skipped instead, so the two agree for every k up to that count.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import Any

import pandas as pd

from reliability_lab.io._common import (
    SUCCESS_TOLERANCE,
    LogFormatError,
    chat_message,
    check_complete,
    fail,
    finish_table,
    infrastructure,
    is_int,
    mapping,
    optional_number,
    read_json,
    token_count,
    unit_number,
)

__all__ = ["TERMINATION_REASONS", "Tau2FormatError", "load_tau2_bench"]

#: τ²-bench's ``TerminationReason`` values. Only ``infrastructure_error`` is a harness failure.
TERMINATION_REASONS = (
    "user_stop",
    "agent_stop",
    "max_steps",
    "timeout",
    "too_many_errors",
    "agent_error",
    "user_error",
    "infrastructure_error",
    "context_window_exceeded",
    "unexpected_error",
)
_NORMAL_END = ("user_stop", "agent_stop")
_INFRA_REASON = "infrastructure_error"
_RESULTS_FILE = "results.json"
_SIMULATIONS_DIR = "simulations"


class Tau2FormatError(LogFormatError):
    """A τ²-bench results file is malformed; the message names file, simulation and field."""


_fail = partial(fail, error=Tau2FormatError)
_unit = partial(unit_number, error=Tau2FormatError)
_number = partial(optional_number, error=Tau2FormatError)
_tokens = partial(token_count, error=Tau2FormatError)


def _where(label: str, sim: Mapping[str, Any]) -> str:
    sim_id = sim.get("id")
    return label + (f" (id {sim_id!r})" if isinstance(sim_id, str) else "")


def _get(mapping: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(mapping, Mapping):
            return None
        mapping = mapping.get(key)
    return mapping


def _tool_errors(message: Mapping[str, Any]) -> int:
    """Failed tool results in a tool message (or a multi-tool message) for the agent."""
    parts = message.get("tool_messages")
    items = parts if isinstance(parts, list) else [message]
    return sum(
        1
        for m in items
        if isinstance(m, Mapping) and m.get("error") is True and m.get("requestor") != "user"
    )


def _text(value: Any) -> str:
    return value if isinstance(value, str) else "" if value is None else json.dumps(value)


def _agent_view(message: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The message as the agent saw it, in the OpenAI chat format: the simulated user's tool
    calls and their results are not part of the agent's conversation."""
    role = message["role"]
    if role == "assistant":
        calls = [
            (str(c.get("id", "")), str(c["name"]), c.get("arguments", {}))
            for c in message.get("tool_calls") or []
        ]
        return [chat_message("assistant", _text(message.get("content")), tool_calls=calls)]
    if role == "user":
        text = _text(message.get("content"))
        return [chat_message("user", text)] if text else []
    if role == "system":
        return [chat_message("system", _text(message.get("content")))]
    parts = message.get("tool_messages")
    items = parts if isinstance(parts, list) else [message]
    return [
        chat_message("tool", _text(m.get("content")), tool_call_id=str(m.get("id", "")))
        for m in items
        if isinstance(m, Mapping) and m.get("requestor") != "user"
    ]


def _messages(sim: Mapping[str, Any], source: str, where: str) -> dict[str, Any]:
    messages = sim.get("messages")
    if messages is None:
        messages = []
    if not isinstance(messages, list):
        raise _fail(source, where, "messages", f"expected a list, got {type(messages).__name__}")
    actions: list[str] = []
    conversation: list[dict[str, Any]] = []
    calls = errors = 0
    prompt = completion = 0.0
    latencies: list[float] = []
    for pos, message in enumerate(messages):
        if not isinstance(message, Mapping) or not isinstance(message.get("role"), str):
            raise _fail(source, where, f"messages[{pos}].role", "expected a message with a role")
        if message["role"] == "tool":
            errors += _tool_errors(message)
        if message["role"] != "assistant":
            conversation += _agent_view(message)
            continue
        calls += 1
        for j, call in enumerate(message.get("tool_calls") or []):
            name = call.get("name") if isinstance(call, Mapping) else None
            if not isinstance(name, str) or not name:
                raise _fail(
                    source, where, f"messages[{pos}].tool_calls[{j}].name", f"got {call!r:.80}"
                )
            actions.append(name)
        conversation += _agent_view(message)
        usage = mapping(message.get("usage"))
        field = f"messages[{pos}].usage"
        prompt += _tokens(usage.get("prompt_tokens"), source, where, f"{field}.prompt_tokens")
        completion += _tokens(
            usage.get("completion_tokens"), source, where, f"{field}.completion_tokens"
        )
        seconds = message.get("generation_time_seconds")
        if isinstance(seconds, int | float) and not isinstance(seconds, bool):
            latencies.append(float(seconds))
    return {
        "trajectory": conversation,
        "actions": actions,
        "num_actions": float(len(actions)),
        "api_calls": float(calls),
        "num_errors": float(errors),
        "call_latency_s": sum(latencies) / len(latencies) if latencies else math.nan,
        "prompt_tokens": prompt if calls else math.nan,
        "completion_tokens": completion if calls else math.nan,
    }


def _outcome(sim: Mapping[str, Any], source: str, where: str) -> dict[str, Any]:
    reason = sim.get("termination_reason")
    if reason not in TERMINATION_REASONS:
        raise _fail(
            source,
            where,
            "termination_reason",
            f"unknown value {reason!r} (valid: {', '.join(TERMINATION_REASONS)})",
        )
    if reason == _INFRA_REASON:
        cause = _get(sim, "info", "error")
        detail = f": {str(cause)[:200]}" if cause else ""
        infra = infrastructure(f"τ²-bench termination_reason {reason}{detail}")
        return {"success": False, "score": math.nan, "error": infra}
    reward = _get(sim, "reward_info", "reward")
    if reward is None:
        raise _fail(
            source,
            where,
            "reward_info.reward",
            f"missing for a simulation that ended with {reason!r} (only infrastructure "
            "errors have no reward)",
        )
    score = _unit(reward, source, where, "reward_info.reward")
    error: str | None = None
    if reason not in _NORMAL_END:
        error = f"τ²-bench termination_reason {reason}"
    return {"success": abs(score - 1.0) <= SUCCESS_TOLERANCE, "score": score, "error": error}


def _trial(sim: Mapping[str, Any], source: str, where: str) -> int | None:
    trial = sim.get("trial")
    if trial is None or (is_int(trial) and trial >= 0):
        return trial
    raise _fail(source, where, "trial", f"expected an int >= 0 or null, got {trial!r}")


def _row(sim: Any, label: str, source: str, agent: str) -> dict[str, Any]:
    """One simulation; ``label`` names it in errors (``simulation 3`` or its file name)."""
    if not isinstance(sim, Mapping):
        raise _fail(source, label, "<simulation>", "expected an object")
    where = _where(label, sim)
    task_id = sim.get("task_id")
    if not (is_int(task_id) or (isinstance(task_id, str) and task_id)):
        raise _fail(source, where, "task_id", f"expected a non-empty str or int, got {task_id!r}")
    return {
        "agent": agent,
        "task_id": str(task_id),
        "condition": "baseline",
        "variant": "",
        "run": _trial(sim, source, where),
        **_outcome(sim, source, where),
        "confidence": math.nan,
        "confidence_source": "none",
        "safety_checked": False,  # no safety findings in these logs
        **_messages(sim, source, where),
        "cost_usd": _number(sim.get("agent_cost"), source, where, "agent_cost"),
        "wall_time_s": _number(sim.get("duration"), source, where, "duration"),
        "termination_reason": sim.get("termination_reason"),
        "simulation_id": sim.get("id"),
        "seed": sim.get("seed"),
    }


def _number_missing_trials(rows: list[dict[str, Any]], source: str) -> None:
    by_task: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_task.setdefault(row["task_id"], []).append(row)
    for task, group in by_task.items():
        missing = [r for r in group if r["run"] is None]
        if missing and len(missing) != len(group):
            raise _fail(
                source,
                f"task {task!r}",
                "trial",
                "some simulations of the task have a trial number and some do not",
            )
        for position, row in enumerate(missing):
            row["run"] = position


def _read(path: Path) -> tuple[Mapping[str, Any], list[tuple[str, Any]], str]:
    """The metadata object, the simulations with the label that names each in errors
    (``simulation i``, or its file name in the directory format) and the source name."""
    meta_path = path / _RESULTS_FILE if path.is_dir() else path
    sims_dir = meta_path.parent / _SIMULATIONS_DIR
    data = read_json(meta_path, Tau2FormatError)
    source = str(meta_path)
    if not isinstance(data, Mapping):
        raise _fail(source, None, "<file>", f"expected a Results object, got {type(data).__name__}")
    sims = data.get("simulations")
    if not sims and sims_dir.is_dir():
        files = sorted(sims_dir.glob("*.json"))
        labelled = [(f"{sims_dir.name}/{p.name}", read_json(p, Tau2FormatError)) for p in files]
        return data, labelled, f"{meta_path} (+ {sims_dir.name}/)"
    if not isinstance(sims, list):
        raise _fail(source, None, "simulations", f"expected a list, got {type(sims).__name__}")
    return data, [(f"simulation {i}", sim) for i, sim in enumerate(sims)], source


def _gaps(data: Mapping[str, Any], rows: list[dict[str, Any]], source: str) -> list[str]:
    """What ``tasks`` × ``info.num_trials`` promises and the simulations do not hold."""
    trials = _get(data, "info", "num_trials")
    tasks = data.get("tasks")
    if not (is_int(trials) and trials > 0 and isinstance(tasks, list)):
        return []
    ids = [str(t.get("id")) for t in tasks if isinstance(t, Mapping) and t.get("id") is not None]
    held: dict[str, int] = {}
    for row in rows:
        held[row["task_id"]] = held.get(row["task_id"], 0) + 1
    short = [f"{t!r} {held.get(t, 0)}" for t in ids if held.get(t, 0) < trials]
    if not short:
        return []
    shown = ", ".join(short[:10]) + (", …" if len(short) > 10 else "")
    return [
        f"{source}: {len(short)} of {len(ids)} tasks have fewer than info.num_trials = {trials} "
        f"simulations (task, simulations held: {shown})"
    ]


def load_tau2_bench(
    path: str | os.PathLike[str], *, agent: str | None = None, allow_partial: bool = False
) -> pd.DataFrame:
    """Read a τ²-bench ``Results`` file (or results directory) into a validated run table.

    Parameters
    ----------
    path : str or PathLike
        A τ²-bench results JSON (``Results``: ``info``, ``tasks``, ``simulations``), or its
        directory format (a directory with ``results.json`` and ``simulations/*.json``).
    agent : str, optional
        Label for the ``agent`` column; default the agent's model from ``info.agent_info``.
    allow_partial : bool, default False
        Import a file whose tasks have fewer simulations than ``info.num_trials``; the gap is
        listed in ``table.attrs["import_gaps"]``.

    Returns
    -------
    DataFrame
        One row per simulation (mapping in the module docstring and docs/importers.md).

    Raises
    ------
    Tau2FormatError
        Not JSON, not a Results object, an unknown ``termination_reason``, a reward outside
        [0, 1] or a wrong-typed field; the message names the file, simulation and field.
    IncompleteLogError
        A task of ``tasks`` has fewer simulations than ``info.num_trials`` (and
        ``allow_partial`` is False); the message lists them.
    RunTableError
        The resulting table is invalid (e.g. two simulations with the same task and trial).
    """
    if agent is not None and (not isinstance(agent, str) or not agent):
        raise ValueError(f"agent: expected a non-empty str or None, got {agent!r}")
    data, sims, source = _read(Path(path))
    agent_info = _get(data, "info", "agent_info")
    label: Any = agent or _get(agent_info, "llm") or _get(agent_info, "implementation")
    if not isinstance(label, str) or not label:
        raise _fail(
            source,
            None,
            "info.agent_info.llm",
            "no agent model or implementation recorded; pass agent=... to label the runs",
        )
    rows = [_row(sim, where, source, label) for where, sim in sims]
    _number_missing_trials(rows, source)
    domain = _get(data, "info", "environment_info", "domain_name")
    for row in rows:
        row["domain"] = domain if isinstance(domain, str) else None
        row["source_file"] = source
    table = finish_table(rows, source, empty_message="the results hold no simulations")
    return check_complete(table, _gaps(data, rows, source), source, allow_partial=allow_partial)
