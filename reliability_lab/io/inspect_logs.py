"""Import inspect_ai eval logs into the run table (docs/importers.md,
'inspect_ai eval logs').

inspect_ai (UKGovernmentBEIS/inspect_ai) writes one log per evaluation (``.eval`` or
``.json``); each holds the samples of every epoch. The logs are read with inspect_ai's own
reader (``inspect_ai.log.read_eval_log``), installed by the optional extra
``reliability-lab[inspect]``.

What is read from a directory: every ``.eval`` and ``.json`` log under it. inspect's own index
files (``eval-set.json``, ``logs.json``, written by ``eval_set``) are not logs and are passed
over; any other ``.json`` that is not a log is skipped with a one-line
:class:`InspectImportNote` naming it (a file named explicitly must be a log). When a log was
retried — ``eval_retry``, or an ``eval_set`` attempt, written beside the errored log, as inspect
does by default — the retry has the same ``eval.task_id`` and holds the finished samples of the
log it retries, so only the newest log of each task id is read, by the rule inspect's
``eval_set`` itself uses to pick a task's log (newest file modification time); a note says how
many samples of how many superseded logs were dropped.

Mapping to the run table, one row per sample and epoch:

=======================  =====================================================================
run-table column         from the log
=======================  =====================================================================
``agent``                ``eval.model`` (the ``agent`` argument maps model → label); an
                         export of ours: the label in ``eval.metadata.reliability_lab``
``task_id``              ``str(sample.id)``; prefixed ``"<task>/"`` when one agent's logs hold
                         more than one task, so ids of different tasks stay apart
``condition``/``variant`` ``"baseline"`` / ``""``; samples run by the inspect bridge: from
                         their ``reliability_lab`` metadata (``task`` there names the
                         original task, shared by all conditions)
``run``                  ``epoch − 1``; a second log of the same agent and task continues
                         the numbering after the first (logs ordered by ``eval.created``)
``score``                the chosen scorer's value as a float (inspect's ``value_to_float``:
                         C → 1, P → 0.5, I/N → 0, yes/true → 1, numbers as they are); NaN when
                         the value lies outside [0, 1] (the raw value is in ``score_value``)
``success``              ``score_float >= success`` (default 1.0: only C, 1 or true pass), or
                         ``success(value)`` when ``success`` is a function; an export of
                         ours (``reliability-lab export``): the recorded ``success`` unless
                         ``success`` is given
``actions``              ``function`` of each tool call in the sample's assistant messages
``num_actions``          ``len(actions)``
``api_calls``            number of assistant messages
``num_errors``           tool messages whose call failed (``error`` set)
``cost_usd``             sum of ``model_usage[*].total_cost`` when every model reports one,
                         else NaN
``wall_time_s``          ``total_time``
``error``                ``sample.error.message``; provider failures (rate limits, quota,
                         outages, connection errors — recognised by the error's text) become
                         ``"infrastructure: …"``, any other error is the agent's failure; an
                         export of ours: the recorded ``error``, verbatim (an agent's error
                         there was scored, and keeps its score)
``confidence``           NaN, ``confidence_source="none"``: inspect does not elicit one;
                         bridge samples: the elicited value, its source and
                         ``confidence_error`` from the metadata
=======================  =====================================================================

Bridge samples also get the perturbation columns of our own runs (``intensity``, ``n_faults``,
``n_faults_recovered``, ``faults``, ``paraphrase_id``; docs/inspect.md). Extra columns:
``prompt_tokens``, ``completion_tokens``, ``total_tokens`` (sums over
``model_usage``), ``working_time_s`` (``working_time``), ``limit`` (the sample limit that fired,
e.g. ``"message 10"``; the sample is still scored by inspect, so it is not an error),
``score_value`` (the raw value), ``model`` and ``source_file``.
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import pandas as pd

from reliability_lab.io._common import (
    LogFormatError,
    agent_label,
    chat_message,
    fail,
    finish_table,
    import_extra,
    infrastructure,
    is_provider_error,
    missing,
)
from reliability_lab.perturbations._runrecord import run_columns
from reliability_lab.runs import BASELINE, CONFIDENCE_SOURCES

_NO_CONFIDENCE = {"confidence": math.nan, "confidence_source": "none"}

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog, EvalSample

__all__ = [
    "EXPORT_SCORER",
    "INDEX_FILES",
    "SAMPLE_METADATA_KEY",
    "STATED_TOTALS",
    "InspectImportNote",
    "InspectLogError",
    "load_inspect_log",
]

_LOG_SUFFIXES = (".eval", ".json")
#: The key of the sample metadata the reliability_lab inspect bridge writes (docs/inspect.md).
SAMPLE_METADATA_KEY = "reliability_lab"
#: The scorer name of the logs ``reliability-lab export --to inspect`` writes (our score).
EXPORT_SCORER = "reliability_lab"
#: inspect's own index files in a log directory (``eval_set``'s manifest, the log listing):
#: not logs, skipped without a note.
INDEX_FILES = frozenset({"eval-set.json", "logs.json"})
#: ``table.attrs`` key of {log file: the sample-epochs it states} (None: it states none).
STATED_TOTALS = "inspect_stated_totals"
SuccessRule = float | Callable[[Any], bool]


class InspectLogError(LogFormatError):
    """An inspect_ai log cannot be imported; the message names file, sample and field."""


class InspectImportNote(UserWarning):
    """What the importer left out of a log directory, and why (one line on the console)."""


class _Log(NamedTuple):
    log: EvalLog
    source: str
    mtime: float


_fail = partial(fail, error=InspectLogError)


def _inspect_log_module() -> Any:
    return import_extra("inspect_ai.log", "reading inspect_ai logs")


def _log_files(path: Path) -> list[tuple[Path, bool]]:
    """The candidate log files under ``path``, each with whether it was found in a directory."""
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.suffix in _LOG_SUFFIXES and p.is_file())
        if not files:
            raise InspectLogError(f"{path}: no .eval or .json logs in this directory")
        return [(file, True) for file in files if file.name not in INDEX_FILES]
    if not path.exists():
        raise missing(path)
    return [(path, False)]


def _read(file: Path) -> EvalLog:
    inspect_log = _inspect_log_module()
    try:
        log: EvalLog = inspect_log.read_eval_log(str(file))
    except Exception as exc:  # inspect raises ValueError, ValidationError, zipfile errors ...
        raise InspectLogError(f"{file}: not an inspect_ai eval log ({exc})") from None
    return log


def _note(message: str) -> None:
    warnings.warn(InspectImportNote(message), stacklevel=3)


def _read_all(entries: Sequence[tuple[Path, bool]]) -> list[_Log]:
    """Read every log; a ``.json`` found in a directory that is not a log is skipped (a note)."""
    logs: list[_Log] = []
    for file, in_directory in entries:
        try:
            log = _read(file)
        except InspectLogError as exc:
            if not (in_directory and file.suffix == ".json"):
                raise
            _note(f"skipped {file}: {str(exc).removeprefix(f'{file}: ')}")
            continue
        logs.append(_Log(log, str(file), file.stat().st_mtime))
    return logs


def _latest(logs: list[_Log]) -> list[_Log]:
    """One log per inspect task: the newest by write time, the rule of inspect's ``eval_set``.

    inspect gives a retry (``eval_retry``, an ``eval_set`` attempt) the ``eval.task_id`` of
    the log it retries and copies that log's finished samples into it, so only the newest
    log of each task id counts (``latest_completed_task_eval_logs`` in inspect_ai's
    ``_eval/evalset.py``: newest by file modification time). Ties fall back to
    ``eval.created``.
    """
    by_task: dict[str, list[_Log]] = {}
    for entry in logs:
        by_task.setdefault(entry.log.eval.task_id, []).append(entry)
    kept: list[_Log] = []
    dropped: list[_Log] = []
    for group in by_task.values():
        group.sort(key=lambda e: (e.mtime, e.log.eval.created))
        kept.append(group[-1])
        dropped.extend(group[:-1])
    if dropped:
        samples = sum(len(e.log.samples or []) for e in dropped)
        names = ", ".join(Path(e.source).name for e in dropped)
        _note(
            f"dropped {samples} samples of {len(dropped)} superseded inspect log(s) that a "
            f"newer log of the same task retried (same eval.task_id): {names}"
        )
    return kept


def _scorer_name(log: EvalLog, scorer: str | None, source: str) -> str:
    names: list[str] = []
    for sample in log.samples or []:
        names.extend(n for n in (sample.scores or {}) if n not in names)
    if scorer is not None:
        if scorer not in names and names:
            raise _fail(source, None, "scores", f"no scorer {scorer!r}; the log has {names}")
        return scorer
    if len(names) > 1:
        raise _fail(source, None, "scores", f"several scorers {names}; choose one with scorer=...")
    return names[0] if names else ""


def _value_to_float(value: Any, source: str, where: str, field: str) -> float:
    from inspect_ai.scorer import value_to_float

    convertible = isinstance(value, int | float | bool) or (
        isinstance(value, str) and _is_known_string(value)
    )
    if not convertible:
        raise _fail(
            source,
            where,
            field,
            f"cannot map score value {value!r} to a number; pass success=<function of the "
            "value> to decide success yourself",
        )
    number = float(value_to_float()(value))
    if not math.isfinite(number):
        raise _fail(source, where, field, f"score value {value!r} is not finite")
    return number


def _is_known_string(value: str) -> bool:
    if value.lower() in ("c", "i", "p", "n", "yes", "no", "true", "false"):
        return True
    try:
        float(value)
    except ValueError:
        return False
    return True


def _recorded(sample: EvalSample) -> Mapping[str, Any]:
    """The sample's :data:`SAMPLE_METADATA_KEY` metadata (empty when it has none)."""
    meta = (sample.metadata or {}).get(SAMPLE_METADATA_KEY)
    return meta if isinstance(meta, Mapping) else {}


def _error(sample: EvalSample, recorded: Mapping[str, Any]) -> str | None:
    """The run's error: as a reliability_lab export recorded it, else inspect's, classified."""
    if "error" in recorded:  # our own classification (infrastructure or the agent's), verbatim
        return str(recorded["error"]) if recorded["error"] else None
    if sample.error is None:
        return None
    message = sample.error.message
    return infrastructure(message) if is_provider_error(message) else message


def _outcome(
    sample: EvalSample, scorer: str, success: SuccessRule | None, source: str, where: str
) -> dict[str, Any]:
    recorded = _recorded(sample)
    decided = recorded.get("success")  # a reliability_lab export: the run's own decision
    if decided is not None and not isinstance(decided, bool):
        field = f"metadata.{SAMPLE_METADATA_KEY}.success"
        raise _fail(source, where, field, f"expected true or false, got {decided!r}")
    error = _error(sample, recorded)
    score = (sample.scores or {}).get(scorer) if scorer else None
    if score is None or (error is not None and decided is None):
        if error is None:
            field = f"scores.{scorer}.value" if scorer else "scores"
            raise _fail(source, where, field, "the sample has no score and no error")
        return {"success": False, "score": math.nan, "score_value": None, "error": error}
    field = f"scores.{scorer}.value"
    value = score.value
    rule = 1.0 if success is None else success
    if callable(rule):
        number = (
            _value_to_float(value, source, where, field)
            if not isinstance(value, list | dict)
            else math.nan
        )
        passed = bool(rule(value))
    else:
        number = _value_to_float(value, source, where, field)
        passed = number >= rule
    return {
        "success": decided if success is None and decided is not None else passed,
        "score": number if 0.0 <= number <= 1.0 else math.nan,
        "score_value": value if isinstance(value, str | int | float | bool) else str(value),
        "error": error,
    }


def _trajectory(sample: EvalSample) -> dict[str, Any]:
    actions: list[str] = []
    conversation: list[dict[str, Any]] = []
    calls = errors = 0
    for message in sample.messages:
        tool_calls = (message.tool_calls or []) if message.role == "assistant" else []
        if message.role == "assistant":
            calls += 1
            actions.extend(call.function for call in tool_calls)
        elif message.role == "tool" and message.error is not None:
            errors += 1
        conversation.append(
            chat_message(
                message.role,
                message.text,
                tool_calls=[(c.id, c.function, c.arguments) for c in tool_calls],
                tool_call_id=(message.tool_call_id or "") if message.role == "tool" else None,
            )
        )
    return {
        "trajectory": conversation,
        "actions": actions,
        "num_actions": float(len(actions)),
        "api_calls": float(calls),
        "num_errors": float(errors),
    }


def _usage(sample: EvalSample) -> dict[str, float]:
    usage = list((sample.model_usage or {}).values())
    costs = [u.total_cost for u in usage]
    known = bool(usage) and all(c is not None for c in costs)
    return {
        "cost_usd": float(sum(c for c in costs if c is not None)) if known else math.nan,
        "prompt_tokens": float(sum(u.input_tokens for u in usage)) if usage else math.nan,
        "completion_tokens": float(sum(u.output_tokens for u in usage)) if usage else math.nan,
        "total_tokens": float(sum(u.total_tokens for u in usage)) if usage else math.nan,
    }


def _time(value: float | None) -> float:
    return float(value) if value is not None else math.nan


def _bridge(sample: EvalSample, source: str, where: str) -> dict[str, Any]:
    """Condition, variant, confidence and perturbation columns of one sample.

    Samples run by reliability_lab's inspect bridge carry them in their metadata
    (:data:`SAMPLE_METADATA_KEY`); any other sample is a baseline run without confidence.
    """
    meta = (sample.metadata or {}).get(SAMPLE_METADATA_KEY)
    if meta is None:
        return {"condition": BASELINE, "variant": "", **_NO_CONFIDENCE}
    if not isinstance(meta, Mapping):
        raise _fail(source, where, f"metadata.{SAMPLE_METADATA_KEY}", f"not an object: {meta!r}")
    variant = str(meta.get("variant", ""))
    confidence = meta.get("confidence")
    source_label = str(meta.get("confidence_source", "none"))
    if source_label not in CONFIDENCE_SOURCES:
        raise _fail(
            source, where, f"metadata.{SAMPLE_METADATA_KEY}.confidence_source", repr(source_label)
        )
    return {
        "bridge_task": meta.get("task"),
        "condition": str(meta.get("condition", BASELINE)),
        "variant": variant,
        "confidence": float(confidence) if confidence is not None else math.nan,
        "confidence_source": source_label,
        "confidence_error": meta.get("confidence_error"),
        **run_columns(meta.get("perturbation"), variant),
    }


def _rows(
    log: EvalLog, source: str, agent: str, scorer: str | None, success: SuccessRule | None
) -> list[dict[str, Any]]:
    name = _scorer_name(log, scorer, source)
    rows = []
    for sample in log.samples or []:
        where = f"sample {sample.id!r} epoch {sample.epoch}"
        limit = sample.limit
        bridge = _bridge(sample, source, where)
        rows.append(
            {
                "agent": agent,
                "task_id": str(sample.id),
                "task": bridge.pop("bridge_task", None) or log.eval.task,
                "run": sample.epoch - 1,
                **_outcome(sample, name, success, source, where),
                **bridge,
                "safety_checked": False,  # no safety findings in these logs
                **_trajectory(sample),
                **_usage(sample),
                "wall_time_s": _time(sample.total_time),
                "working_time_s": _time(sample.working_time),
                "limit": f"{limit.type} {limit.limit:g}" if limit is not None else None,
                "model": log.eval.model,
                "source_file": source,
            }
        )
    return rows


def _agent(log: EvalLog, agent: str | Mapping[str, str] | None) -> str:
    """The agent label: ``agent`` (or its entry for the model), else the label a
    reliability_lab export recorded (``eval.metadata``), else the model name."""
    meta = (log.eval.metadata or {}).get(SAMPLE_METADATA_KEY)
    recorded = meta.get("agent") if isinstance(meta, Mapping) else None
    default = str(recorded) if recorded else log.eval.model
    if isinstance(agent, Mapping):
        return agent.get(log.eval.model, default)
    return agent_label(default, agent)


def _renumber(rows: list[dict[str, Any]]) -> None:
    """Distinct task ids across tasks of one agent; later logs continue the run numbering."""
    tasks_per_agent: dict[str, set[str]] = {}
    for row in rows:
        tasks_per_agent.setdefault(row["agent"], set()).add(row["task"])
    for row in rows:
        if len(tasks_per_agent[row["agent"]]) > 1:
            row["task_id"] = f"{row['task']}/{row['task_id']}"
    offset: dict[tuple[str, str, str, str, str], int] = {}
    for file_rows in _by_file(rows):
        start = {key: offset.get(key, 0) for key in {_group(r) for r in file_rows}}
        for row in file_rows:
            row["run"] += start[_group(row)]
        for row in file_rows:
            key = _group(row)
            offset[key] = max(offset.get(key, 0), row["run"] + 1)


def _group(row: Mapping[str, Any]) -> tuple[str, str, str, str, str]:
    return (row["agent"], row["task"], row["task_id"], row["condition"], row["variant"])


def _by_file(rows: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    files: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        files.setdefault(row["source_file"], []).append(row)
    return list(files.values())


def load_inspect_log(
    path_or_dir: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    scorer: str | None = None,
    success: SuccessRule | None = None,
    agent: str | Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Read inspect_ai eval logs (``.eval`` or ``.json``) into a validated run table.

    Parameters
    ----------
    path_or_dir : path-like or sequence of path-likes
        A log file, a directory searched recursively for ``*.eval``/``*.json`` logs, or a
        list of either.
    scorer : str, optional
        Name of the scorer whose value decides success; required when the logs have more than
        one scorer.
    success : float or callable, optional
        A threshold on the score as a float (C = 1, P = 0.5, I = 0; numeric scores as they
        are), or a function of the raw score value returning whether the run succeeded (for
        list or dict values, or custom labels). Default: the decision a reliability_lab
        export recorded on the sample (its agent's pass threshold; a run that ended in an
        error fails), else 1.0.
    agent : str or mapping, optional
        The agent label for every run, or a mapping from model name to label; default the
        label a reliability_lab export recorded, else the model name (``eval.model``).

    Returns
    -------
    DataFrame
        One row per sample and epoch (mapping in the module docstring and docs/importers.md).

    Raises
    ------
    MissingExtraError
        inspect-ai is not installed (``pip install 'reliability-lab[inspect]'``).
    InspectLogError
        A file is not an inspect log, the scorer is ambiguous or unknown, or a score value
        cannot be mapped; the message names the file, the sample and epoch, and the field.
    """
    if (
        success is not None
        and not callable(success)
        and not (isinstance(success, int | float) and not isinstance(success, bool))
    ):
        raise ValueError(f"success: expected a number or a function, got {success!r}")
    paths = [path_or_dir] if isinstance(path_or_dir, str | os.PathLike) else list(path_or_dir)
    found: dict[Path, bool] = {}  # file -> only ever found in a directory (not named)
    for p in paths:
        for file, in_directory in _log_files(Path(p)):
            found[file.resolve()] = found.get(file.resolve(), True) and in_directory
    read = _read_all(list(found.items()))
    if not read:
        raise InspectLogError(f"{', '.join(map(str, paths))}: no inspect_ai eval logs")
    seen: dict[str, str] = {}
    for entry in sorted(read, key=lambda e: e.log.eval.created):
        if entry.log.eval.eval_id in seen:
            raise InspectLogError(
                f"{entry.source}: the same evaluation (eval_id {entry.log.eval.eval_id!r}) as "
                f"{seen[entry.log.eval.eval_id]}; pass each log once"
            )
        seen[entry.log.eval.eval_id] = entry.source
    # eval.created has whole seconds: logs of one second go by when their files were written
    logs = sorted(_latest(read), key=lambda e: (e.log.eval.created, e.mtime))
    rows: list[dict[str, Any]] = []
    for entry in logs:
        label = _agent(entry.log, agent)
        rows.extend(_rows(entry.log, entry.source, label, scorer, success))
    _renumber(rows)
    source = logs[0].source if len(logs) == 1 else f"{len(logs)} inspect logs"
    table = finish_table(rows, source, empty_message="the logs hold no samples")
    # what each log read (superseded ones left out) says it holds, for the totals check
    table.attrs[STATED_TOTALS] = {e.source: stated_total(e.log) for e in logs}
    return table


def stated_total(log: EvalLog) -> int | None:
    """The number of sample-epochs a log says it holds: ``results.total_samples`` of a finished
    evaluation, else the dataset's sample ids × epochs; None when it does not say."""
    if log.results is not None:
        return int(log.results.total_samples)
    ids = log.eval.dataset.sample_ids
    epochs = log.eval.config.epochs or 1
    return len(ids) * epochs if ids else None
