"""Import letta-evals results directories into the run table (docs/importers.md,
'letta-evals results directories').

letta-evals (letta-ai/letta-evals) has written two layouts for ``--output DIR``
(:mod:`._letta_layout`): since 0.17 ``suite.json`` (suite, config, evaluated samples),
``<model>.jsonl`` or ``<model>/run_k.jsonl`` of bare ``SampleResult`` lines and
``summary.json``; up to 0.16 ``header.json``, ``results.jsonl`` (lines wrapped as ``{"type":
"result", "result": …}`` or bare) and ``summary.json``, in ``run_k/`` for several runs.

Mapping to the run table, one row per result line:

=======================  =====================================================================
run-table column         from the sample result
=======================  =====================================================================
``agent``                ``model_handle`` / ``model_name``, else the model of the file name
                         (``agent`` maps model → label), else the suite name
``task_id``              ``str(sample_id)`` (≥ 0.17) or ``str(sample.id)``
``condition``/``variant`` ``"baseline"`` / ``""``
``run``                  ``k − 1`` for ``run_k``; 0 for a single run
``score``                the suite's score (:mod:`._letta_gates`): the gate's grader score,
                         or the composed ``reward.score`` of a reward suite (≥ 0.21)
``success``              the suite's per-sample pass rule, or ``score >= pass_threshold``
``actions``              tool names of the ``tool_call_message`` entries of ``trajectory``
``num_actions``          ``len(actions)``
``cost_usd``             ``usage.cost`` (≥ 0.17) or ``cost``; NaN when absent (no price)
``wall_time_s``          ``timing.total`` (≥ 0.17) or ``total_time``; NaN when absent
``error``                ``error.message``; a ``grading`` error (the grader failed) and a
                         provider failure (rate limit, quota, outage, connection) become
                         ``"infrastructure: …"``, other errors are the agent's failure
``confidence``           NaN, ``confidence_source="none"``: letta-evals does not elicit one
=======================  =====================================================================

Extra columns: ``prompt_tokens``, ``completion_tokens`` (``usage`` ≥ 0.17, the result's own
fields before, else summed over ``agent_usage``), ``agent_id``, ``error_category``,
``model``, ``suite`` and ``source_file``.

What the directory states it holds — every sample of ``suite.json`` in every run file, the
runs of each model's ``summary.json``, the models of ``summary.json``; ``metrics.total`` of
each run's ``summary.json`` and ``num_runs`` of ``aggregate_stats.json`` — is checked against
what it holds; gaps refuse the import unless ``allow_partial``.
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
    agent_label,
    check_complete,
    count_gap,
    fail,
    finish_table,
    infrastructure,
    is_int,
    is_provider_error,
    missing,
    optional_number,
    token_count,
    unit_number,
)
from reliability_lab.io._letta_gates import ScoreRule
from reliability_lab.io._letta_layout import LettaEvalsFormatError, ResultFile, discover

__all__ = ["LettaEvalsFormatError", "load_letta_evals"]

_INFRA_CATEGORIES = ("grading",)


_E = LettaEvalsFormatError
_fail = partial(fail, error=LettaEvalsFormatError)
_unit = partial(unit_number, error=LettaEvalsFormatError)
_number = partial(optional_number, error=LettaEvalsFormatError)


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


def _tokens(result: Mapping[str, Any], ctx: _RunContext, where: str) -> tuple[float, float]:
    """Prompt and completion tokens: ``usage`` (≥ 0.17), the result's own fields (≤ 0.16),
    else the sums over the ``usage_statistics`` records of ``agent_usage``; NaN when none."""
    usage = result.get("usage")
    block, prefix = (usage, "usage.") if isinstance(usage, Mapping) else (result, "")
    names = ("prompt_tokens", "completion_tokens")
    if any(block.get(name) is not None for name in names):
        pair = [_number(block.get(n), ctx.source, where, prefix + n) for n in names]
        return pair[0], pair[1]
    records = result.get("agent_usage")
    stats = [r for r in records or [] if isinstance(r, Mapping)]
    stats = [r for r in stats if r.get("message_type") == "usage_statistics"]
    if not stats:
        return math.nan, math.nan
    sums = [
        sum(token_count(r.get(n), ctx.source, where, f"agent_usage.{n}", error=_E) for r in stats)
        for n in names
    ]
    return sums[0], sums[1]


def _resources(result: Mapping[str, Any], ctx: _RunContext, where: str) -> dict[str, float]:
    """Cost and time: ``usage.cost`` and ``timing.total`` (≥ 0.17), else ``cost`` and
    ``total_time`` (≤ 0.16); NaN when not recorded (no price for the model)."""
    usage, timing = result.get("usage"), result.get("timing")
    if isinstance(usage, Mapping):
        cost = _number(usage.get("cost"), ctx.source, where, "usage.cost")
    else:
        cost = _number(result.get("cost"), ctx.source, where, "cost")
    if isinstance(timing, Mapping):
        wall = _number(timing.get("total"), ctx.source, where, "timing.total")
    else:
        wall = _number(result.get("total_time"), ctx.source, where, "total_time")
    prompt, completion = _tokens(result, ctx, where)
    return {
        "cost_usd": cost,
        "wall_time_s": wall,
        "prompt_tokens": prompt,
        "completion_tokens": completion,
    }


def _row(result: Any, ctx: _RunContext, number: int) -> dict[str, Any]:
    where = f"line {number}"
    if isinstance(result, Mapping) and result.get("type") == "result":
        result = result.get("result")
    if not isinstance(result, Mapping):
        raise _fail(ctx.source, where, "<line>", "expected a sample result object")
    grades = _grades(result, ctx.source, where)
    score = ctx.rule.score(grades, result, ctx.source, where)
    error, category = _error(result)
    if not grades and error is None and math.isnan(score):
        raise _fail(ctx.source, where, "grades", "no grade and no error")
    model = result.get("model_handle") or result.get("model_name") or ctx.model
    actions = _actions(result.get("trajectory"), ctx.source, where)
    return {
        "agent": ctx.label(model),
        "task_id": _sample_id(result, ctx.source, where),
        "condition": "baseline",
        "variant": "",
        "run": ctx.run,
        "success": bool(ctx.rule.passes(grades, score)) and error is None,
        "score": score if math.isfinite(score) else math.nan,
        "confidence": math.nan,
        "confidence_source": "none",
        "safety_checked": False,  # no safety findings in these logs
        "actions": actions,
        "num_actions": float(len(actions)),
        **_resources(result, ctx, where),
        "error": error,
        "agent_id": result.get("agent_id"),
        "error_category": category,
        "model": model,
        "suite": ctx.suite,
        "source_file": ctx.source,
    }


class _RunContext:
    """What every line of one results file shares."""

    def __init__(
        self, file: ResultFile, rule: ScoreRule, suite: str, agent: str | Mapping[str, str] | None
    ) -> None:
        self.source = str(file.path)
        self.run = file.run
        self.model = file.model
        self.rule = rule
        self.suite = suite
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


def _file_gap(file: ResultFile, rows: list[dict[str, Any]]) -> str | None:
    if file.expected_ids is not None:
        return count_gap(str(file.path), file.expected_ids, (r["task_id"] for r in rows), "samples")
    if file.expected_count is not None and len(rows) < file.expected_count:
        return (
            f"{file.path}: {len(rows)} of {file.expected_count} results "
            f"({file.count_source} states {file.expected_count})"
        )
    return None


def load_letta_evals(
    path: str | os.PathLike[str],
    *,
    agent: str | Mapping[str, str] | None = None,
    pass_threshold: float | None = None,
    allow_partial: bool = False,
) -> pd.DataFrame:
    """Read a letta-evals results directory into a validated run table.

    Parameters
    ----------
    path : str or PathLike
        The ``--output`` directory of a letta-evals run, in either layout (module docstring):
        ``suite.json`` with ``<model>.jsonl`` or ``<model>/run_k.jsonl`` (letta-evals ≥ 0.17),
        or ``run_1/ … run_K/`` with ``header.json`` and ``results.jsonl`` (≤ 0.16), or one
        such run's directory.
    agent : str or mapping, optional
        The agent label for every run, or a mapping from model name to label; default the
        result's model.
    pass_threshold : float, optional
        Succeed when the score is at least this, instead of the suite's own rule. Required
        when the suite states no per-sample rule (a reward suite of letta-evals ≥ 0.21, or a
        directory without any ``header.json``).
    allow_partial : bool, default False
        Import a directory that holds fewer results than its suite and summaries state; the
        gaps are listed in ``table.attrs["import_gaps"]`` (:func:`import_gaps`).

    Returns
    -------
    DataFrame
        One row per sample result (mapping in the module docstring and docs/importers.md).

    Raises
    ------
    LettaEvalsFormatError
        Missing files, a line that is not JSON, a score outside [0, 1], an unknown gate
        operator, no pass rule, or runs whose headers disagree on the gate; the message names
        the file, the line and the field. :class:`IncompleteLogError` when results are missing
        and ``allow_partial`` is False.
    """
    if pass_threshold is not None and not 0.0 <= pass_threshold <= 1.0:
        raise ValueError(f"pass_threshold: expected a number in [0, 1], got {pass_threshold!r}")
    root = Path(path)
    layout = discover(root, LettaEvalsFormatError)
    rule = ScoreRule(layout, pass_threshold)
    rows: list[dict[str, Any]] = []
    gaps = list(layout.gaps)
    for file in layout.files:
        ctx = _RunContext(file, rule, layout.suite, agent)
        found = [_row(rec, ctx, n) for n, rec in _lines(file.path)]
        gaps.extend(gap for gap in [_file_gap(file, found)] if gap)
        rows.extend(found)
    table = finish_table(rows, str(root), empty_message="no sample results in the directory")
    return check_complete(table, gaps, str(root), allow_partial=allow_partial)
