"""Import τ-bench results files into the run table (docs/importers.md).

τ-bench (sierra-research/tau-bench) writes one JSON file per run of its harness: a list of
records, one per (task, trial), each with ``task_id``, ``trial``, ``reward``, ``info`` and
``traj`` (the OpenAI-format message list, assistant messages carrying ``tool_calls``).

Mapping to the run table, one row per record:

========================  ===========================================================
run-table column          from the record
========================  ===========================================================
``agent``                 the ``agent`` argument
``task_id``               ``str(task_id)``
``condition``/``variant`` ``"baseline"`` / ``""`` (τ-bench files hold no perturbations)
``run``                   ``trial``
``success``               ``reward ≈ 1`` (``math.isclose(reward, 1.0, abs_tol=1e-6)``)
``score``                 ``reward``
``actions``               tool-call function names, in order, from assistant messages
``num_actions``           ``len(actions)``
``api_calls``             number of assistant messages (one model call each)
``cost_usd``              NaN: the file's ``info.user_cost`` is the cost of the *user
                          simulator*, not of the agent, so the agent's cost is not recorded
``confidence``            NaN, ``confidence_source="none"`` (τ-bench does not elicit it)
========================  ===========================================================

If ``domain`` is given it is kept in an extra ``domain`` column.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from reliability_lab.io._common import (
    SUCCESS_TOLERANCE,
    LogFormatError,
    fail,
    is_int,
    read_json,
)
from reliability_lab.runs import validate_run_table

__all__ = [
    "EXAMPLE_AGENT",
    "TauBenchFormatError",
    "load_tau_bench",
    "load_tau_bench_example",
    "trim_tau_bench",
]

#: Agent label of the bundled example (:func:`load_tau_bench_example`).
EXAMPLE_AGENT = "gpt-4o (τ-bench airline, tool-calling)"
_EXAMPLE_FILE = "gpt-4o-airline.json"
_REQUIRED_KEYS = ("task_id", "trial", "reward", "traj")


class TauBenchFormatError(LogFormatError):
    """A τ-bench results file is malformed; the message names file, record and field."""


def _fail(source: str, index: int | None, field: str, message: str) -> LogFormatError:
    where = f"record {index}" if index is not None else None
    return fail(source, where, field, message, error=TauBenchFormatError)


def _read_json(path: Path) -> Any:
    return read_json(path, TauBenchFormatError)


def _task_id(record: Mapping[str, Any], source: str, index: int) -> str:
    value = record["task_id"]
    if is_int(value) or (isinstance(value, str) and value != ""):
        return str(value)
    raise _fail(source, index, "task_id", f"expected an int or non-empty str, got {value!r}")


def _trial(record: Mapping[str, Any], source: str, index: int) -> int:
    value = record["trial"]
    if is_int(value) and value >= 0:
        return int(value)
    raise _fail(source, index, "trial", f"expected an int >= 0, got {value!r}")


def _reward(record: Mapping[str, Any], source: str, index: int) -> float:
    value = record["reward"]
    if isinstance(value, int | float) and not isinstance(value, bool):
        reward = float(value)
        if math.isfinite(reward) and 0.0 <= reward <= 1.0:
            return reward
    raise _fail(source, index, "reward", f"expected a number in [0, 1], got {value!r}")


def _tool_names(message: Mapping[str, Any], source: str, index: int, pos: int) -> list[str]:
    calls = message.get("tool_calls")
    if calls is None:
        return []
    field = f"traj[{pos}].tool_calls"
    if not isinstance(calls, list):
        raise _fail(source, index, field, f"expected a list, got {type(calls).__name__}")
    names = []
    for j, call in enumerate(calls):
        function = call.get("function") if isinstance(call, Mapping) else None
        name = function.get("name") if isinstance(function, Mapping) else None
        if not isinstance(name, str) or name == "":
            raise _fail(
                source, index, f"{field}[{j}].function.name", f"expected a str, got {call!r}"
            )
        names.append(name)
    return names


def _trajectory(record: Mapping[str, Any], source: str, index: int) -> tuple[list[str], int]:
    traj = record["traj"]
    if not isinstance(traj, list):
        raise _fail(
            source, index, "traj", f"expected a list of messages, got {type(traj).__name__}"
        )
    actions: list[str] = []
    assistant_messages = 0
    for pos, message in enumerate(traj):
        if not isinstance(message, Mapping) or not isinstance(message.get("role"), str):
            raise _fail(
                source,
                index,
                f"traj[{pos}].role",
                f"expected a message with a str role, got {str(message)[:80]!r}",
            )
        if message["role"] == "assistant":
            assistant_messages += 1
            actions.extend(_tool_names(message, source, index, pos))
    return actions, assistant_messages


def _row(record: Any, source: str, index: int, agent: str) -> dict[str, Any]:
    if not isinstance(record, Mapping):
        raise _fail(source, index, "<record>", f"expected an object, got {type(record).__name__}")
    missing = [key for key in _REQUIRED_KEYS if key not in record]
    if missing:
        raise _fail(
            source, index, missing[0], f"missing key(s) {missing}; present: {sorted(record)}"
        )
    reward = _reward(record, source, index)
    actions, assistant_messages = _trajectory(record, source, index)
    return {
        "agent": agent,
        "task_id": _task_id(record, source, index),
        "condition": "baseline",
        "variant": "",
        "run": _trial(record, source, index),
        "success": math.isclose(reward, 1.0, abs_tol=SUCCESS_TOLERANCE),
        "score": reward,
        "confidence": math.nan,
        "confidence_source": "none",
        "safety_checked": False,  # no safety findings in these logs
        "actions": actions,
        "cost_usd": math.nan,
        "api_calls": float(assistant_messages),
        "num_actions": float(len(actions)),
        "error": None,
    }


def load_tau_bench(
    path: str | os.PathLike[str], *, agent: str, domain: str | None = None
) -> pd.DataFrame:
    """Read a τ-bench results file into a validated run table.

    Parameters
    ----------
    path : str or PathLike
        A τ-bench results JSON file (a list of records with ``task_id``, ``trial``,
        ``reward`` and ``traj``), full or trimmed by :func:`trim_tau_bench`.
    agent : str
        Label for the ``agent`` column (model + strategy), e.g. ``"gpt-4o (tool-calling)"``.
    domain : str, optional
        τ-bench domain (``"airline"``, ``"retail"``); stored in an extra ``domain`` column.

    Returns
    -------
    DataFrame
        One row per record (see the module docstring for the column mapping), checked by
        :func:`reliability_lab.runs.validate_run_table` with the file as ``source``.

    Raises
    ------
    TauBenchFormatError
        The file is not JSON, not a list, or a record lacks a key or has a wrong-typed
        value; the message names the file, the record index and the field.
    RunTableError
        The resulting table is invalid (e.g. two records with the same task and trial).

    Examples
    --------
    >>> runs = load_tau_bench_example()
    >>> len(runs), runs["task_id"].nunique(), int(runs["success"].sum())
    (200, 50, 84)
    """
    if not isinstance(agent, str) or agent == "":
        raise ValueError(f"agent: expected a non-empty str, got {agent!r}")
    if domain is not None and (not isinstance(domain, str) or domain == ""):
        raise ValueError(f"domain: expected a non-empty str or None, got {domain!r}")
    file = Path(path)
    source = str(file)
    data = _read_json(file)
    if not isinstance(data, list):
        raise _fail(
            source, None, "<file>", f"expected a JSON list of records, got {type(data).__name__}"
        )
    if not data:
        raise _fail(source, None, "<file>", "the file holds no records")
    table = pd.DataFrame.from_records([_row(rec, source, i, agent) for i, rec in enumerate(data)])
    if domain is not None:
        table["domain"] = domain
    return validate_run_table(table, source=source)


def _trim_record(record: Mapping[str, Any]) -> dict[str, Any]:
    traj: list[dict[str, Any]] = []
    for message in record["traj"]:
        kept: dict[str, Any] = {"role": message["role"]}
        calls: Sequence[Mapping[str, Any]] | None = message.get("tool_calls")
        if calls:
            kept["tool_calls"] = [
                {
                    "function": {
                        "name": call["function"]["name"],
                        "arguments": call["function"].get("arguments", ""),
                    }
                }
                for call in calls
            ]
        traj.append(kept)
    return {
        "task_id": record["task_id"],
        "trial": record["trial"],
        "reward": record["reward"],
        "traj": traj,
    }


def trim_tau_bench(path: str | os.PathLike[str], destination: str | os.PathLike[str]) -> None:
    """Write a trimmed copy of a τ-bench results file holding only what the metrics need.

    Keeps ``task_id``, ``trial``, ``reward`` and, per trajectory message, its ``role`` and
    the ``tool_calls`` function names and arguments; drops message contents (including the
    system prompt), tool outputs, call ids and ``info``. :func:`load_tau_bench` gives the
    same run table for the trimmed copy as for the original. Each record is one line.

    Parameters
    ----------
    path : str or PathLike
        The original τ-bench results file (validated by :func:`load_tau_bench` first).
    destination : str or PathLike
        Where to write the trimmed JSON.
    """
    load_tau_bench(path, agent="trim-check")
    records = _read_json(Path(path))
    lines = [json.dumps(_trim_record(rec), separators=(",", ":")) for rec in records]
    Path(destination).write_text("[\n" + ",\n".join(lines) + "\n]\n", encoding="utf-8")


def load_tau_bench_example() -> pd.DataFrame:
    """The bundled τ-bench example: GPT-4o, tool-calling strategy, airline domain.

    200 runs (50 tasks × 4 trials) from τ-bench's released historical trajectories
    (MIT licence, see ``reliability_lab/data/tau_bench/``), trimmed to what the metrics
    need. Published pass^1..4 for it: 0.420, 0.273, 0.220, 0.200.

    Returns
    -------
    DataFrame
        The run table, agent label :data:`EXAMPLE_AGENT`, ``domain="airline"``.

    Examples
    --------
    >>> load_tau_bench_example()["agent"].iloc[0]
    'gpt-4o (τ-bench airline, tool-calling)'
    """
    # A plain path next to the package (not importlib.resources): setuptools' editable
    # installs give the package a multi-entry __path__ that resources.files() rejects.
    file = Path(__file__).resolve().parent.parent / "data" / "tau_bench" / _EXAMPLE_FILE
    return load_tau_bench(file, agent=EXAMPLE_AGENT, domain="airline")
