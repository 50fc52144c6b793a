"""Import letta-evals results directories into the run table (docs/importers.md,
'letta-evals results directories').

letta-evals (letta-ai/letta-evals) writes, for ``--output DIR``, ``header.json`` (suite name and
configuration: target, graders, gate), ``results.jsonl`` (one sample result per line) and
``summary.json``; with ``num_runs > 1`` each repetition gets ``DIR/run_k/`` holding the same
three files, plus ``DIR/aggregate_stats.json``. Result lines are read both as
``{"type": "result", "result": {...}}`` (what its streaming writer produces) and as the bare
sample result (as its documentation shows them).

Mapping to the run table, one row per result line:

=======================  =====================================================================
run-table column         from the sample result
=======================  =====================================================================
``agent``                ``model_name`` (the ``agent`` argument maps model → label), else
                         the suite name
``task_id``              ``str(sample.id)``
``condition``/``variant`` ``"baseline"`` / ``""``
``run``                  ``k − 1`` for ``run_k/``; 0 for a single-run directory
``score``                the gate's score: ``grades[metric_key].score`` for a simple gate,
                         the normalised weighted sum for a weighted-average gate, the mean of
                         the grades for a logical gate, else ``grade.score``
``success``              the gate's per-sample pass rule (see below), or
                         ``score >= pass_threshold`` when ``pass_threshold`` is given
``actions``              tool names of the ``tool_call_message`` entries of ``trajectory``
``num_actions``          ``len(actions)``
``cost_usd``             ``cost`` (NaN when null: no pricing for the model)
``wall_time_s``          ``total_time`` (NaN when absent)
``error``                ``error.message``; a ``grading`` error (the grader failed) and a
                         provider failure (rate limit, quota, outage, connection) become
                         ``"infrastructure: …"``, other errors are the agent's failure
``confidence``           NaN, ``confidence_source="none"``: letta-evals does not elicit one
=======================  =====================================================================

The gate's per-sample pass rule: a gate with ``pass_op``/``pass_value`` compares the score with
them; a gate on ``accuracy`` without ``pass_value`` needs a score of 1.0; another gate without
``pass_value`` compares with its ``op``/``value``; a ``simple`` gate passes a sample whose
score is at least ``pass_threshold`` (default 1.0); a ``logical`` gate combines the same rule
for each condition's grader with ``and``/``or``; a ``weighted_average`` gate (which has no
per-sample rule) and a header without a gate need a score of 1.0.

Extra columns: ``prompt_tokens``, ``completion_tokens``, ``agent_id``, ``error_category``,
``model``, ``suite`` and ``source_file``.
"""

from __future__ import annotations

import json
import math
import operator
import os
import re
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import Any

import pandas as pd

from reliability_lab.io._common import (
    LogFormatError,
    agent_label,
    fail,
    finish_table,
    infrastructure,
    is_int,
    is_provider_error,
    mapping,
    missing,
    optional_number,
    read_json,
    unit_number,
)

__all__ = ["LettaEvalsFormatError", "load_letta_evals"]

_RUN_DIR = re.compile(r"^run_(\d+)$")
_OPS: Mapping[str, Callable[[float, float], bool]] = {
    "gt": operator.gt,
    "gte": operator.ge,
    "lt": operator.lt,
    "lte": operator.le,
    "eq": operator.eq,
}
_INFRA_CATEGORIES = ("grading",)
PassRule = Callable[[Mapping[str, float], float], bool]


class LettaEvalsFormatError(LogFormatError):
    """A letta-evals results directory is malformed; the message names file, line and field."""


_fail = partial(fail, error=LettaEvalsFormatError)
_unit = partial(unit_number, error=LettaEvalsFormatError)
_number = partial(optional_number, error=LettaEvalsFormatError)


def _run_dirs(path: Path) -> list[tuple[int, Path]]:
    if not path.exists():
        raise missing(path)
    if not path.is_dir():
        raise LettaEvalsFormatError(f"{path}: not a directory (expected a letta-evals --output)")
    runs = sorted(
        (int(m.group(1)) - 1, d)
        for d in path.iterdir()
        if d.is_dir() and (m := _RUN_DIR.match(d.name)) and int(m.group(1)) >= 1
    )
    if runs:
        return runs
    if (path / "results.jsonl").exists():
        return [(0, path)]
    raise LettaEvalsFormatError(f"{path}: neither results.jsonl nor run_k/ directories found")


def _compare(op: Any, source: str, field: str) -> Callable[[float, float], bool]:
    if op in _OPS:
        return _OPS[op]
    raise _fail(source, "header.json", field, f"unknown op {op!r} (valid: {', '.join(_OPS)})")


def _threshold(value: Any, source: str, field: str) -> float:
    if value is None:
        return 1.0
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    raise _fail(source, "header.json", field, f"expected a number, got {value!r}")


def _condition_rule(cond: Mapping[str, Any], source: str, field: str) -> PassRule:
    if cond.get("kind") == "logical" or "conditions" in cond:
        rules = [
            _condition_rule(c, source, f"{field}.conditions[{i}]")
            for i, c in enumerate(cond.get("conditions") or [])
        ]
        if not rules:
            raise _fail(source, "header.json", f"{field}.conditions", "empty list")
        combine = {"and": all, "or": any}.get(cond.get("operator", ""))
        if combine is None:
            raise _fail(source, "header.json", f"{field}.operator", "expected 'and' or 'or'")
        return lambda grades, score: combine(rule(grades, score) for rule in rules)
    key = str(cond.get("metric_key"))
    threshold = _threshold(cond.get("pass_threshold"), source, f"{field}.pass_threshold")
    return lambda grades, score: grades.get(key, math.nan) >= threshold


def _gate_rule(gate: Any, source: str) -> tuple[PassRule, Callable[[Mapping[str, float]], float]]:
    """The per-sample pass rule and the per-sample score of a letta-evals gate spec."""
    if not isinstance(gate, Mapping):
        return (lambda grades, score: score >= 1.0), _first_score(None)
    kind = gate.get("kind")
    if kind == "weighted_average":
        weights = gate.get("weights")
        if not isinstance(weights, Mapping) or not weights:
            raise _fail(source, "header.json", "config.gate.weights", f"got {weights!r}")
        total = float(sum(weights.values()))
        if total <= 0:
            raise _fail(source, "header.json", "config.gate.weights", "must sum to > 0")
        return (lambda grades, score: score >= 1.0), (
            lambda grades: sum(w / total * grades.get(k, 0.0) for k, w in weights.items())
        )
    if kind == "logical":
        mean: Callable[[Mapping[str, float]], float] = lambda g: (  # noqa: E731
            sum(g.values()) / len(g) if g else math.nan
        )
        return _condition_rule(gate, source, "config.gate"), mean
    key = gate.get("metric_key")
    if kind == "simple":
        threshold = _threshold(gate.get("pass_threshold"), source, "config.gate.pass_threshold")
        return (lambda grades, score: score >= threshold), _first_score(key)
    # letta-evals 0.3-style gate: metric (avg_score | accuracy), op, value, pass_op, pass_value
    if gate.get("pass_value") is None and gate.get("metric") == "accuracy":
        return (lambda grades, score: score >= 1.0), _first_score(key)
    compare = _compare(gate.get("pass_op") or gate.get("op"), source, "config.gate.op")
    value = gate.get("pass_value") if gate.get("pass_value") is not None else gate.get("value")
    limit = _threshold(value, source, "config.gate.value")
    return (lambda grades, score: compare(score, limit)), _first_score(key)


def _first_score(key: str | None) -> Callable[[Mapping[str, float]], float]:
    """The gate's grader score; a single-grader result stores it as ``grade``."""
    return lambda grades: (
        grades.get(key, grades.get("", math.nan)) if key else grades.get("", math.nan)
    )


def _grades(result: Mapping[str, Any], source: str, where: str) -> dict[str, float]:
    grades: dict[str, float] = {}
    single = result.get("grade")
    if isinstance(single, Mapping) and "score" in single:
        grades[""] = _unit(single["score"], source, where, "grade.score")
    multi = result.get("grades")
    if isinstance(multi, Mapping):
        for key, grade in multi.items():
            if isinstance(grade, Mapping) and "score" in grade:
                grades[key] = _unit(grade["score"], source, where, f"grades.{key}.score")
        if "" not in grades and multi:
            grades[""] = grades[next(iter(multi))]
    return grades


def _actions(trajectory: Any, source: str, where: str) -> list[str]:
    if trajectory is None:
        return []
    if not isinstance(trajectory, list):
        raise _fail(source, where, "trajectory", "expected a list of turns")
    actions: list[str] = []
    for t, turn in enumerate(trajectory):
        for m, message in enumerate(turn if isinstance(turn, list) else [turn]):
            if not isinstance(message, Mapping):
                continue
            if message.get("message_type") != "tool_call_message":
                continue
            calls = message.get("tool_calls") or [message.get("tool_call")]
            for call in calls:
                name = call.get("name") if isinstance(call, Mapping) else None
                if not isinstance(name, str) or not name:
                    raise _fail(source, where, f"trajectory[{t}][{m}].tool_call.name", "missing")
                actions.append(name)
    return actions


def _error(result: Mapping[str, Any]) -> tuple[str | None, str | None]:
    error = result.get("error")
    if not isinstance(error, Mapping):
        return (str(error), None) if error else (None, None)
    category = error.get("category")
    kind = error.get("exception_type")
    message = f"{kind}: {error.get('message')}" if kind else str(error.get("message"))
    if category in _INFRA_CATEGORIES or is_provider_error(kind, error.get("message")):
        return infrastructure(f"letta-evals {category} error: {message}"), category
    return f"letta-evals {category} error: {message}", category


def _sample_id(result: Mapping[str, Any], source: str, where: str) -> str:
    sample = result.get("sample")
    sample_id = sample.get("id") if isinstance(sample, Mapping) else result.get("sample_id")
    if is_int(sample_id) or (isinstance(sample_id, str) and sample_id):
        return str(sample_id)
    raise _fail(source, where, "sample.id", f"expected an int or non-empty str, got {sample_id!r}")


def _row(result: Any, ctx: _RunContext, number: int) -> dict[str, Any]:
    where = f"line {number}"
    if isinstance(result, Mapping) and result.get("type") == "result":
        result = result.get("result")
    if not isinstance(result, Mapping):
        raise _fail(ctx.source, where, "<line>", "expected a sample result object")
    grades = _grades(result, ctx.source, where)
    score = ctx.score_of(grades)
    error, category = _error(result)
    if ctx.pass_threshold is not None:
        passed = score >= ctx.pass_threshold
    else:
        passed = ctx.passes(grades, score)
    if not grades and error is None:
        raise _fail(ctx.source, where, "grade.score", "no grade and no error")
    model = result.get("model_name") or result.get("model_handle")
    actions = _actions(result.get("trajectory"), ctx.source, where)
    return {
        "agent": ctx.label(model),
        "task_id": _sample_id(result, ctx.source, where),
        "condition": "baseline",
        "variant": "",
        "run": ctx.run,
        "success": bool(passed) and error is None,
        "score": score if math.isfinite(score) else math.nan,
        "confidence": math.nan,
        "confidence_source": "none",
        "safety_checked": False,  # no safety findings in these logs
        "actions": actions,
        "num_actions": float(len(actions)),
        "cost_usd": _number(result.get("cost"), ctx.source, where, "cost"),
        "wall_time_s": _number(result.get("total_time"), ctx.source, where, "total_time"),
        "error": error,
        "prompt_tokens": _number(result.get("prompt_tokens"), ctx.source, where, "prompt_tokens"),
        "completion_tokens": _number(
            result.get("completion_tokens"), ctx.source, where, "completion_tokens"
        ),
        "agent_id": result.get("agent_id"),
        "error_category": category,
        "model": model,
        "suite": ctx.suite,
        "source_file": ctx.source,
    }


class _RunContext:
    """What every line of one ``results.jsonl`` shares."""

    def __init__(
        self,
        directory: Path,
        run: int,
        agent: str | Mapping[str, str] | None,
        pass_threshold: float | None,
    ) -> None:
        header = directory / "header.json"
        data = read_json(header, LettaEvalsFormatError) if header.exists() else {}
        if not isinstance(data, Mapping):
            raise LettaEvalsFormatError(f"{header}: expected a JSON object")
        config = mapping(data.get("config"))
        self.suite = str(data.get("suite") or data.get("suite_name") or directory.name)
        self.source = str(directory / "results.jsonl")
        self.run = run
        self.pass_threshold = pass_threshold
        self.passes, self.score_of = _gate_rule(config.get("gate"), str(header))
        self._agent = agent

    def label(self, model: Any) -> str:
        return agent_label(model if isinstance(model, str) and model else self.suite, self._agent)


def _lines(path: Path) -> list[tuple[int, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise missing(path) from None
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            out.append((number, json.loads(line)))
        except json.JSONDecodeError as exc:
            raise LettaEvalsFormatError(
                f"{path}: line {number}: not valid JSON: {exc.msg}"
            ) from None
    return out


def load_letta_evals(
    path: str | os.PathLike[str],
    *,
    agent: str | Mapping[str, str] | None = None,
    pass_threshold: float | None = None,
) -> pd.DataFrame:
    """Read a letta-evals results directory into a validated run table.

    Parameters
    ----------
    path : str or PathLike
        The ``--output`` directory of a letta-evals run: ``run_1/ … run_K/`` (each with
        ``header.json`` and ``results.jsonl``), or a single run's ``results.jsonl`` directly
        inside it.
    agent : str or mapping, optional
        The agent label for every run, or a mapping from model name to label; default the
        sample's ``model_name``.
    pass_threshold : float, optional
        Succeed when the gate's score is at least this, instead of the gate's own rule.

    Returns
    -------
    DataFrame
        One row per sample result (mapping in the module docstring and docs/importers.md).

    Raises
    ------
    LettaEvalsFormatError
        Missing files, a line that is not JSON, a score outside [0, 1] or an unknown gate
        operator; the message names the file, the line and the field.
    """
    if pass_threshold is not None and not 0.0 <= pass_threshold <= 1.0:
        raise ValueError(f"pass_threshold: expected a number in [0, 1], got {pass_threshold!r}")
    root = Path(path)
    rows: list[dict[str, Any]] = []
    for run, directory in _run_dirs(root):
        ctx = _RunContext(directory, run, agent, pass_threshold)
        rows.extend(_row(rec, ctx, n) for n, rec in _lines(directory / "results.jsonl"))
    return finish_table(rows, str(root), empty_message="no sample results in the directory")
