"""The per-sample score and pass rule of a letta-evals suite (docs/importers.md,
"letta-evals results directories").

One rule for every run of a directory, from the suite's configuration — ``config.gate`` of
``header.json`` (letta-evals ≤ 0.16) or ``suite.json`` (0.17 – 0.20), or ``config.reward``
(0.21 and later, which states no pass rule) — never a different default per run.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from reliability_lab.io._common import fail, mapping, unit_number
from reliability_lab.io._letta_layout import Layout, LettaEvalsFormatError

__all__ = ["ScoreRule"]

_OPS: Mapping[str, Callable[[float, float], bool]] = {
    "gt": operator.gt,
    "gte": operator.ge,
    "lt": operator.lt,
    "lte": operator.le,
    "eq": operator.eq,
}
PassRule = Callable[[Mapping[str, float], float], bool]
_fail = partial(fail, error=LettaEvalsFormatError)
_unit = partial(unit_number, error=LettaEvalsFormatError)


def _compare(op: Any, source: str, field: str) -> Callable[[float, float], bool]:
    if op in _OPS:
        return _OPS[op]
    raise _fail(source, None, field, f"unknown op {op!r} (valid: {', '.join(_OPS)})")


def _threshold(value: Any, source: str, field: str) -> float:
    if value is None:
        return 1.0
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    raise _fail(source, None, field, f"expected a number, got {value!r}")


def _condition_rule(cond: Mapping[str, Any], source: str, field: str) -> PassRule:
    if cond.get("kind") == "logical" or "conditions" in cond:
        rules = [
            _condition_rule(c, source, f"{field}.conditions[{i}]")
            for i, c in enumerate(cond.get("conditions") or [])
        ]
        if not rules:
            raise _fail(source, None, f"{field}.conditions", "empty list")
        combine = {"and": all, "or": any}.get(cond.get("operator", ""))
        if combine is None:
            raise _fail(source, None, f"{field}.operator", "expected 'and' or 'or'")
        return lambda grades, score: combine(rule(grades, score) for rule in rules)
    key = str(cond.get("metric_key"))
    threshold = _threshold(cond.get("pass_threshold"), source, f"{field}.pass_threshold")
    return lambda grades, score: grades.get(key, math.nan) >= threshold


def _gate_rule(gate: Any, source: str) -> tuple[PassRule, Callable[[Mapping[str, float]], float]]:
    """The per-sample pass rule and the per-sample score of a letta-evals gate spec."""
    if not isinstance(gate, Mapping):
        raise _fail(source, None, "config.gate", f"expected a gate object, got {gate!r}")
    kind = gate.get("kind")
    if kind == "weighted_average":
        weights = gate.get("weights")
        if not isinstance(weights, Mapping) or not weights:
            raise _fail(source, None, "config.gate.weights", f"got {weights!r}")
        total = float(sum(weights.values()))
        if total <= 0:
            raise _fail(source, None, "config.gate.weights", "must sum to > 0")
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


class ScoreRule:
    """The suite's per-sample score and pass rule, the same for every run (never per file)."""

    def __init__(self, layout: Layout, pass_threshold: float | None) -> None:
        config, source = layout.config, layout.config_source
        self._reward_key: str | None = None
        self._uses_reward = "gate" not in config and isinstance(config.get("reward"), Mapping)
        if "gate" in config:
            self.passes, self._score_of = _gate_rule(config["gate"], source)
        elif pass_threshold is None:
            field = "config.reward" if self._uses_reward else "config.gate"
            why = (
                "letta-evals ≥ 0.21 composes a per-sample reward and states no pass rule"
                if self._uses_reward
                else "missing, so the suite's per-sample pass rule is unknown"
            )
            raise _fail(
                source,
                None,
                field,
                f"{why}; give pass_threshold= (--pass-threshold) to say which score passes",
            )
        else:
            self._score_of = _first_score(None)
            reward = mapping(config.get("reward"))
            if reward.get("kind") == "metric":
                self._reward_key = str(reward.get("metric_key"))
        if pass_threshold is not None:
            threshold = pass_threshold
            self.passes = lambda grades, score: score >= threshold

    def score(
        self, grades: Mapping[str, float], result: Mapping[str, Any], source: str, where: str
    ) -> float:
        """The gate's score, or (reward suites) the composed reward."""
        if not self._uses_reward:
            return self._score_of(grades)
        reward = result.get("reward")
        if isinstance(reward, Mapping) and "score" in reward:
            return _unit(reward["score"], source, where, "reward.score")
        return grades.get(self._reward_key, math.nan) if self._reward_key else math.nan
