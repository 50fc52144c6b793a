"""Import HAL harness reliability runs into the run table (docs/importers.md,
'HAL reliability runs').

HAL's reliability evaluation (princeton-pli/hal-harness, ``reliability_eval/``) runs each agent
on a benchmark several times per condition and uploads one ``<run_id>_UPLOAD.json`` per run:
``config`` (``agent_name``, ``benchmark_name``, ``run_id``, ``agent_args``,
``prompt_sensitivity``), ``results`` (``costs`` and ``latencies`` per task), ``raw_eval_results``
(per task: ``reward``, ``taken_actions``, ``confidence``, ``confidence_details``, ``cost``,
``compliance``, ``llm_compliance``, ``llm_safety``, ``abstention``, ``fault_injection``) and
``raw_logging_results`` (one entry per traced model call, with ``weave_task_id``, token usage
and latency). HAL's repository has no licence; this module only reads that documented layout.

Which run a file is: the condition comes from ``agent_args`` (``enable_fault_injection``,
``enable_structural_perturbations``), ``prompt_sensitivity``, then the run id's words
(``fault``, ``struct``/``perturbed``, ``prompt``), else ``baseline``. The run id is
``<benchmark>_<agent>_<condition words>_<unix time>``; the agent is the part before the
condition words, the variant is the fault rate (``50pct``), the structural strength or the
prompt strength and variation (``strong_var2``). Runs of one agent, condition and variant are
numbered 0, 1, … by their ``rep<k>`` marker, then (runs without one) by run id. A
``struct_baseline`` run is a baseline run (HAL's own loader counts it as structural).

Mapping to the run table, one row per task of a run:

=======================  =====================================================================
run-table column         from the upload
=======================  =====================================================================
``task_id``              the key of ``raw_eval_results``
``score``                ``reward``; ``success`` = reward within 1e-6 of 1
``actions``              ``taken_actions[*].name``
``confidence``           ``confidence`` when the model's answer was parsed
                         (``confidence_source="elicited"``); a heuristic value that HAL used
                         because the call failed (``confidence_details.fallback``) or the
                         answer held no number is ``"fallback"`` with NaN, its value kept in
                         ``hal_confidence``
``num_errors``           ``confidence_details.num_errors`` (NaN when absent)
``cost_usd``             ``cost``, else ``metrics.estimated_cost``, else ``results.costs``
``wall_time_s``          ``results.latencies[task].total_time`` (first to last model call)
``api_calls``            ``raw_logging_results`` entries of the task with token usage
``call_latency_s``       their mean ``summary.weave.latency_ms`` / 1000
``violations``           ``llm_safety.compliance_violations`` (post-hoc LLM safety analysis),
                         ``compliance.violations`` (rule monitor) and ``llm_compliance.
                         violations`` (in-run LLM analysis), each with its ``source``;
                         severities must be low/medium/high/critical
``error``                ``error`` of the task result if any (provider failures →
                         ``infrastructure:``)
=======================  =====================================================================

A prompt-sensitivity upload that stores a list of variation results per task gives one row
per variation (variant ``var<i>``) with its ``score``/``reward`` only.

Extra columns: ``hal_confidence``, ``confidence_details``, ``prompt_tokens``,
``completion_tokens``, ``safety_checked`` (the post-hoc safety analysis ran on this task, or
a finding shows something checked it; unchecked runs are left out of the safety metrics, as
HAL leaves them out),
``violation_sources``, ``abstained``, ``faults_injected``, ``hal_run_id``, ``benchmark``
and ``source_file``.

:mod:`reliability_lab.io.hal_metrics` reads HAL's per-agent ``reliability_metrics.csv`` and
puts its numbers beside a reliability report.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from reliability_lab.io._common import (
    SUCCESS_TOLERANCE,
    LogFormatError,
    agent_label,
    check_complete,
    count_gap,
    fail,
    finish_table,
    infrastructure,
    is_provider_error,
    mapping,
    missing,
    optional_number,
    read_json,
    token_count,
    unit_number,
)
from reliability_lab.runs import SEVERITY_WEIGHTS

__all__ = ["FINDING_SOURCES", "UPLOAD_SUFFIX", "HalFormatError", "load_hal_results"]

UPLOAD_SUFFIX = "_UPLOAD.json"
#: Where HAL stores compliance/safety findings of a task → the ``source`` we record.
FINDING_SOURCES: Mapping[str, str] = {
    "llm_safety": "hal llm_safety",
    "compliance": "hal compliance monitor",
    "llm_compliance": "hal llm_compliance",
}
_STOP_WORDS = ("fault", "struct", "perturbed", "prompt", "baseline", "compliance", "sensitivity")
_REP = re.compile(r"^rep(\d+)$")
_TRUE = (True, "true", "True")


class HalFormatError(LogFormatError):
    """A HAL upload is malformed; the message names file, task and field."""


_fail = partial(fail, error=HalFormatError)
_unit = partial(unit_number, error=HalFormatError)
_number = partial(optional_number, error=HalFormatError)
_tokens = partial(token_count, error=HalFormatError)


def _upload_files(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    files: list[Path] = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            found = sorted(path.rglob(f"*{UPLOAD_SUFFIX}"))
            if not found:
                raise HalFormatError(f"{path}: no *{UPLOAD_SUFFIX} files in this directory")
            files.extend(found)
        elif path.exists():
            files.append(path)
        else:
            raise missing(path)
    return list(dict.fromkeys(f.resolve() for f in files))


def _words(run_id: str, benchmark: str | None) -> list[str]:
    name = run_id.removesuffix(UPLOAD_SUFFIX)
    if benchmark and name.startswith(f"{benchmark}_"):
        name = name[len(benchmark) + 1 :]
    words = name.split("_")
    if words and words[-1].isdigit():  # the unix-time suffix
        words = words[:-1]
    return words


def _is_stop(word: str) -> bool:
    return word in _STOP_WORDS or word.endswith("pct") or bool(_REP.match(word))


def _run_identity(data: Mapping[str, Any], file: Path) -> dict[str, Any]:
    config = mapping(data.get("config"))
    meta = mapping(data.get("metadata"))
    run_id = str(config.get("run_id") or meta.get("run_id") or file.name)
    words = _words(run_id, config.get("benchmark_name"))
    stop = next((i for i, w in enumerate(words) if _is_stop(w)), len(words))
    agent_name, tail = "_".join(words[:stop]), words[stop:]
    args = {**mapping(meta.get("agent_args")), **mapping(config.get("agent_args"))}
    rep = next((int(m.group(1)) for w in tail if (m := _REP.match(w))), None)
    condition, variant = _condition(args, config, meta, tail)
    return {
        "hal_agent": agent_name or str(config.get("agent_name") or file.stem),
        "condition": condition,
        "variant": variant,
        "rep": rep,
        "hal_run_id": run_id,
        "benchmark": config.get("benchmark_name"),
    }


def _condition(
    args: Mapping[str, Any], config: Mapping[str, Any], meta: Mapping[str, Any], tail: list[str]
) -> tuple[str, str]:
    if "struct" in tail and "baseline" in tail:
        return "baseline", ""
    if args.get("enable_fault_injection") in _TRUE or "fault" in tail:
        pct = next((w for w in tail if w.endswith("pct")), None)
        rate = args.get("fault_rate")
        return "fault", pct or (f"rate {rate}" if rate is not None else "")
    if args.get("enable_structural_perturbations") in _TRUE or {"struct", "perturbed"} & set(tail):
        strength = args.get("perturbation_strength")
        after = tail[tail.index("struct") + 1 :] if "struct" in tail else []
        return "structural", str(strength or (after[0] if after else ""))
    if config.get("prompt_sensitivity") or meta.get("prompt_sensitivity") or "prompt" in tail:
        after = tail[tail.index("prompt") + 1 :] if "prompt" in tail else []
        return "prompt", "_".join(after)
    return "baseline", ""


def _severity(value: Any, source: str, where: str, field: str) -> str:
    if value in SEVERITY_WEIGHTS:
        return str(value)
    raise _fail(
        source, where, field, f"unknown severity {value!r} (valid: {', '.join(SEVERITY_WEIGHTS)})"
    )


def _findings(
    task: Mapping[str, Any], sources: Sequence[str], source: str, where: str
) -> tuple[list[dict[str, Any]], bool]:
    found: list[dict[str, Any]] = []
    for key in sources:
        block = task.get(key)
        if not isinstance(block, Mapping):
            continue
        if key == "llm_safety" and not block.get("analyzed"):
            continue
        items = block.get("compliance_violations" if key == "llm_safety" else "violations") or []
        for i, item in enumerate(items):
            field = f"{key}.violations[{i}]"
            if not isinstance(item, Mapping):
                raise _fail(source, where, field, f"expected an object, got {item!r:.80}")
            constraint = item.get("constraint") or item.get("constraint_violated")
            if not isinstance(constraint, str) or not constraint:
                raise _fail(source, where, f"{field}.constraint", f"missing in {item!r:.80}")
            found.append(
                {
                    "constraint": constraint,
                    "severity": _severity(item.get("severity"), source, where, f"{field}.severity"),
                    "evidence": str(
                        item.get("evidence") or item.get("violation_description") or ""
                    ),
                    "source": FINDING_SOURCES[key],
                }
            )
    llm_safety = task.get("llm_safety")
    analyzed = isinstance(llm_safety, Mapping) and bool(llm_safety.get("analyzed"))
    return found, analyzed or bool(found)  # a finding means something checked the run


def _confidence(task: Mapping[str, Any], source: str, where: str) -> dict[str, Any]:
    value = task.get("confidence")
    details = mapping(task.get("confidence_details"))
    if value is None:
        return {"confidence": math.nan, "confidence_source": "none", "hal_confidence": math.nan}
    number = _unit(value, source, where, "confidence")
    answer = details.get("model_response")
    unparsed = isinstance(answer, str) and not re.search(r"\d", answer)
    fallback = details.get("fallback") is True or unparsed
    return {
        "confidence": math.nan if fallback else number,
        "confidence_source": "fallback" if fallback else "elicited",
        "hal_confidence": number,
    }


def _details(task: Mapping[str, Any]) -> dict[str, Any] | None:
    details = task.get("confidence_details")
    if not isinstance(details, Mapping):
        return None
    keys = ("parsed_score", "num_actions", "num_errors", "fallback", "model", "model_response")
    return {k: details[k] for k in keys if k in details}


def _calls(logging: Any, source: str) -> dict[str, dict[str, float]]:
    """Per task: model calls with usage, their tokens and mean latency."""
    out: dict[str, dict[str, Any]] = {}
    for i, entry in enumerate(logging if isinstance(logging, list) else []):
        if not isinstance(entry, Mapping) or entry.get("weave_task_id") is None:
            continue
        summary = mapping(entry.get("summary"))
        usage = mapping(summary.get("usage"))
        if not usage:
            continue
        task = out.setdefault(
            str(entry["weave_task_id"]), {"calls": 0, "prompt": 0, "completion": 0, "lat": []}
        )
        task["calls"] += 1
        where = f"raw_logging_results[{i}]"
        for model, per_model in usage.items():
            field = f"summary.usage.{model}"
            per_model = mapping(per_model)
            task["prompt"] += _tokens(
                per_model.get("prompt_tokens"), source, where, f"{field}.prompt_tokens"
            )
            task["completion"] += _tokens(
                per_model.get("completion_tokens"), source, where, f"{field}.completion_tokens"
            )
        latency = mapping(summary.get("weave")).get("latency_ms")
        if isinstance(latency, int | float):
            task["lat"].append(latency / 1000.0)
    return {
        tid: {
            "api_calls": float(t["calls"]),
            "prompt_tokens": float(t["prompt"]),
            "completion_tokens": float(t["completion"]),
            "call_latency_s": float(np.mean(t["lat"])) if t["lat"] else math.nan,
        }
        for tid, t in out.items()
    }


def _cost(
    task: Mapping[str, Any], costs: Mapping[str, Any], tid: str, src: str, where: str
) -> float:
    metrics = mapping(task.get("metrics"))
    for field, value in (
        ("cost", task.get("cost")),
        ("metrics.estimated_cost", metrics.get("estimated_cost")),
        ("results.costs", costs.get(tid)),
    ):
        if value is not None:
            return _number(value, src, where, field)
    return math.nan


def _task_row(
    tid: str, task: Mapping[str, Any], run: Mapping[str, Any], findings: Sequence[str]
) -> dict[str, Any]:
    src, where = run["source_file"], f"task {tid!r}"
    reward = _unit(task.get("reward"), src, where, "reward")
    actions = [a.get("name") for a in task.get("taken_actions") or [] if isinstance(a, Mapping)]
    if not all(isinstance(a, str) and a for a in actions):
        raise _fail(src, where, "taken_actions[*].name", f"expected names, got {actions!r:.80}")
    violations, checked = _findings(task, findings, src, where)
    details = _details(task)
    latency = run["latencies"].get(tid)
    error = task.get("error")
    if error is not None:
        error = infrastructure(str(error)) if is_provider_error(str(error)) else str(error)
    num_errors = details.get("num_errors") if details else None
    return {
        "task_id": tid,
        "success": abs(reward - 1.0) <= SUCCESS_TOLERANCE,
        "score": reward,
        **_confidence(task, src, where),
        "confidence_details": details,
        "actions": actions,
        "num_actions": float(len(actions)),
        "num_errors": _number(num_errors, src, where, "confidence_details.num_errors"),
        "cost_usd": _cost(task, run["costs"], tid, src, where),
        "wall_time_s": _number(
            latency.get("total_time") if isinstance(latency, Mapping) else None,
            src,
            where,
            "results.latencies.total_time",
        ),
        **run["calls"].get(tid, {}),
        "violations": violations,
        "violation_sources": sorted({v["source"] for v in violations}),
        "safety_checked": checked,
        "abstained": mapping(task.get("abstention")).get("abstained"),
        "faults_injected": mapping(mapping(task.get("fault_injection")).get("stats")).get(
            "total_faults_injected"
        ),
        "error": error,
    }


def _variation_rows(
    tid: str, variations: list[Any], run: Mapping[str, Any]
) -> list[dict[str, Any]]:
    rows = []
    for i, item in enumerate(variations):
        where = f"task {tid!r} variation {i}"
        if not isinstance(item, Mapping):
            raise _fail(run["source_file"], where, "<variation>", "expected an object")
        value = item.get("score", item.get("reward"))
        score = _unit(value, run["source_file"], where, "score")
        variant = f"{run['variant']}_var{i}" if run["variant"] else f"var{i}"
        rows.append(
            {
                "task_id": tid,
                "variant": variant,
                "success": abs(score - 1.0) <= SUCCESS_TOLERANCE,
                "score": score,
                "confidence": math.nan,
                "confidence_source": "none",
            }
        )
    return rows


def _task_list_gaps(results: Mapping[str, Any], evals: Mapping[str, Any], source: str) -> list[str]:
    """Tasks HAL's metrics list (``results.successful_tasks``/``failed_tasks``) that
    ``raw_eval_results`` does not hold."""
    listed = [
        str(t)
        for key in ("successful_tasks", "failed_tasks")
        if isinstance(results.get(key), list)
        for t in results[key]
    ]
    gap = count_gap(f"{source}: raw_eval_results", listed, map(str, evals), "listed tasks")
    return [gap] if gap else []


def _file_rows(file: Path, findings: Sequence[str]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    data = read_json(file, HalFormatError)
    source = str(file)
    if not isinstance(data, Mapping):
        raise _fail(source, None, "<file>", "expected a JSON object")
    evals = data.get("raw_eval_results")
    if not isinstance(evals, Mapping) or not evals:
        raise _fail(source, None, "raw_eval_results", "expected a non-empty object of task results")
    results = mapping(data.get("results"))
    run = {
        **_run_identity(data, file),
        "source_file": source,
        "costs": mapping(results.get("costs")),
        "latencies": (mapping(results.get("latencies"))),
        "calls": _calls(data.get("raw_logging_results"), source),
        "gaps": _task_list_gaps(results, evals, source),
    }
    rows: list[dict[str, Any]] = []
    for tid, task in evals.items():
        if isinstance(task, list):
            rows.extend(_variation_rows(str(tid), task, run))
        elif isinstance(task, Mapping):
            rows.append(_task_row(str(tid), task, run, findings))
        else:
            raise _fail(source, f"task {tid!r}", "<task>", "expected an object or a list")
    return run, rows


def load_hal_results(
    paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    agent: str | Mapping[str, str] | None = None,
    findings: Sequence[str] = tuple(FINDING_SOURCES),
    allow_partial: bool = False,
) -> pd.DataFrame:
    """Read HAL reliability uploads (``*_UPLOAD.json``) into a validated run table.

    Parameters
    ----------
    paths : path-like or sequence of path-likes
        Upload files, or directories searched recursively for ``*_UPLOAD.json``.
    agent : str or mapping, optional
        The agent label for every run, or a mapping from HAL's agent name (parsed from the run
        id, e.g. ``taubench_toolcalling_gpt_4o_mini``) to a label; default HAL's name.
    findings : sequence of str
        Which of HAL's finding blocks become ``violations``: any of ``llm_safety``,
        ``compliance``, ``llm_compliance`` (default all). HAL's published safety metrics use
        ``("llm_safety",)`` only.
    allow_partial : bool, default False
        Import uploads whose ``raw_eval_results`` lack tasks that ``results.successful_tasks``
        or ``failed_tasks`` list; the gaps are kept in ``table.attrs["import_gaps"]``.

    Returns
    -------
    DataFrame
        One row per task of each run (mapping in the module docstring and
        docs/importers.md).

    Raises
    ------
    HalFormatError
        A file is not JSON or lacks ``raw_eval_results``, a reward or confidence is outside
        [0, 1], or a finding has a severity other than low/medium/high/critical; the message
        names the file, the task and the field. :class:`IncompleteLogError` for listed tasks
        without results, unless ``allow_partial``.
    """
    unknown = [f for f in findings if f not in FINDING_SOURCES]
    if unknown:
        raise ValueError(f"findings: unknown {unknown}; valid: {list(FINDING_SOURCES)}")
    items = [paths] if isinstance(paths, str | os.PathLike) else list(paths)
    runs = [_file_rows(f, findings) for f in _upload_files(items)]
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for run, _ in runs:
        groups.setdefault((run["hal_agent"], run["condition"], run["variant"]), []).append(run)
    for group in groups.values():
        group.sort(key=lambda r: (r["rep"] is None, r["rep"] or 0, r["hal_run_id"]))
        for index, run in enumerate(group):
            run["run"] = index
    rows = []
    for run, task_rows in runs:
        label = agent_label(run["hal_agent"], agent)
        for row in task_rows:
            rows.append(
                {
                    "agent": label,
                    "condition": run["condition"],
                    "variant": run["variant"],
                    "run": run["run"],
                    **row,
                    "hal_run_id": run["hal_run_id"],
                    "benchmark": run["benchmark"],
                    "source_file": run["source_file"],
                }
            )
    source = str(items[0]) if len(items) == 1 else f"{len(runs)} HAL uploads"
    table = finish_table(rows, source, empty_message="no task results in the uploads")
    gaps = [gap for run, _ in runs for gap in run["gaps"]]
    return check_complete(table, gaps, source, allow_partial=allow_partial)
