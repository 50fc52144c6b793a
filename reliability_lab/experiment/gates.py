"""Pass/fail gates on reported metrics (docs/results.md, "Gates").

A gate names one reported metric, a comparison and a threshold on the 0–1 scale
(``accuracy >= 0.9`` means 90 %), optionally an agent (default: every agent must pass) and a
minimum number of attempted runs. Gates are evaluated on the aggregate over all runs of an
agent — never "any run passed". In YAML a gate is either a string ``"R >= 0.7"`` or a
mapping ``{metric: R, op: ">=", value: 0.7, agent: a, min_runs: 20}``; letta-evals' spelling
``{metric_key: accuracy, op: gte, value: 0.8}`` is accepted too.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from reliability_lab.experiment.limits import Float, Int
from reliability_lab.metrics.registry import METRIC_REGISTRY, REPORT_METRICS, explain_undefined

__all__ = [
    "GATE_METRICS",
    "GateConfig",
    "GateResult",
    "compare",
    "evaluate_gates",
    "normalise_op",
    "parse_gate_text",
    "why_undefined",
]

#: letta-evals style metrics computed from the scores (``avg_score`` = ``avg_score_attempted``).
SCORE_METRICS = ("avg_score", "avg_score_attempted", "avg_score_total")
#: Every metric name a gate may use.
GATE_METRICS: tuple[str, ...] = (
    *REPORT_METRICS,
    *(f"{m}_{side}" for m in REPORT_METRICS for side in ("lo", "hi")),
    *SCORE_METRICS,
)

_OPS: Mapping[str, Callable[[float, float], bool]] = {
    ">=": operator.ge,
    ">": operator.gt,
    "<=": operator.le,
    "<": operator.lt,
    "==": operator.eq,
}
_OP_ALIASES = {"gte": ">=", "gt": ">", "lte": "<=", "lt": "<", "eq": "==", "=": "=="}
_GATE_TEXT = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(>=|<=|==|=|>|<)\s*(\S+)\s*$")


def parse_gate_text(text: str) -> tuple[str, str, str]:
    """``(metric, op, value)`` of a gate written ``"METRIC OP VALUE"`` (value not yet checked).

    Examples
    --------
    >>> parse_gate_text("R >= -0.02")
    ('R', '>=', '-0.02')
    """
    match = _GATE_TEXT.match(text)
    if match is None:
        raise ValueError(f"cannot parse gate {text!r}; expected 'METRIC OP VALUE', e.g. 'R >= 0.7'")
    metric, op, value = match.groups()
    return metric, op, value


def normalise_op(op: str) -> str:
    """The comparison ``op`` in symbols (``gte`` → ``>=``); ValueError listing the valid ones."""
    symbol = _OP_ALIASES.get(op, op)
    if symbol not in _OPS:
        valid = ", ".join([*_OPS, *_OP_ALIASES])
        raise ValueError(f"unknown comparison {op!r}; valid: {valid}")
    return symbol


def compare(value: float, op: str, threshold: float) -> bool:
    """Whether ``value op threshold`` holds (``op`` normalised)."""
    return _OPS[op](value, threshold)


class GateConfig(BaseModel):
    """One gate: ``metric op value`` on the aggregate of an agent's runs."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    metric: str
    """Name of a reported metric (see :data:`GATE_METRICS`)."""
    op: str = ">="
    """Comparison: ``>=``, ``>``, ``<=``, ``<``, ``==`` (or gte, gt, lte, lt, eq)."""
    value: Float
    """Threshold on the 0–1 scale (accuracy 0.9 means 90 %)."""
    agent: str | None = None
    """Agent label the gate applies to; ``None`` means every agent must pass."""
    min_runs: Int = Field(default=1, ge=1)
    """Minimum number of attempted (non-infrastructure-error) runs; fewer fails the gate."""

    @model_validator(mode="before")
    @classmethod
    def _parse_text(cls, data: Any) -> Any:
        if isinstance(data, str):
            metric, op, value = parse_gate_text(data)
            return {"metric": metric, "op": op, "value": value}
        if isinstance(data, Mapping) and "metric_key" in data:
            data = dict(data)
            if "metric" in data:
                raise ValueError("give either 'metric' or 'metric_key', not both")
            data["metric"] = data.pop("metric_key")
        return data

    @field_validator("metric")
    @classmethod
    def _known_metric(cls, value: str) -> str:
        if value not in GATE_METRICS:
            raise ValueError(
                f"unknown metric {value!r}; gates may use: {', '.join(REPORT_METRICS)}, "
                f"{', '.join(SCORE_METRICS)}, or <metric>_lo/<metric>_hi"
            )
        return value

    @field_validator("value")
    @classmethod
    def _unit_scale(cls, value: float) -> float:
        if not 0.0 <= value <= 1.0:
            raise ValueError("gate thresholds are on a 0–1 scale (accuracy 0.9 means 90 %)")
        return value

    @field_validator("op")
    @classmethod
    def _known_op(cls, value: str) -> str:
        return normalise_op(value)

    def describe(self) -> str:
        """Human-readable form, e.g. ``R >= 0.7``."""
        return f"{self.metric} {self.op} {self.value:g}"


@dataclass(frozen=True)
class GateResult:
    """Outcome of one gate for one agent."""

    gate: str
    """The gate as text, e.g. ``R >= 0.7``."""
    agent: str
    """Agent label the gate was checked on."""
    value: float
    """The metric's aggregate value (NaN when undefined or missing)."""
    n_runs: int
    """Attempted (non-infrastructure) runs of the agent."""
    passed: bool
    """Whether the gate holds."""
    reason: str
    """Why it passed or failed."""

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for JSON output."""
        return {
            "gate": self.gate,
            "agent": self.agent,
            "value": self.value,
            "n_runs": self.n_runs,
            "passed": self.passed,
            "reason": self.reason,
        }


def why_undefined(metric: str, metrics: Mapping[str, Any]) -> str:
    """Why gate metric ``metric`` is NaN for an agent whose values are ``metrics``.

    Report metrics explain themselves from the metric registry (R names each missing
    dimension); an interval bound is undefined with its metric or when no bootstrap ran.

    Examples
    --------
    >>> why_undefined("R_Pred_lo", {"R_Pred": float("nan")})
    'R_Pred_lo is undefined: R_Pred is undefined (no baseline run has a confidence)'
    >>> why_undefined("avg_score", {})
    'avg_score is undefined: the agent has no attempted runs'
    """
    base, _, side = metric.rpartition("_")
    if side in ("lo", "hi") and base in METRIC_REGISTRY:
        value = metrics.get(base)
        if value is None or math.isnan(float(value)):
            return f"{metric} is undefined: {explain_undefined(base, metrics)}"
        return f"{metric} is undefined: no bootstrap interval (n_boot = 0?)"
    if metric in METRIC_REGISTRY:
        return explain_undefined(metric, metrics)
    return f"{metric} is undefined: the agent has no attempted runs"


def _check_one(gate: GateConfig, agent: str, metrics: Mapping[str, Any]) -> GateResult:
    n_runs = int(metrics.get("n_attempted", 0))
    raw = metrics.get(gate.metric, math.nan)
    value = float(raw) if raw is not None else math.nan
    if n_runs < gate.min_runs:
        passed, reason = False, f"only {n_runs} attempted runs (< min_runs {gate.min_runs})"
    elif math.isnan(value):
        passed, reason = False, why_undefined(gate.metric, metrics)
    else:
        passed = compare(value, gate.op, gate.value)
        reason = (
            f"{gate.metric} = {value:.4f} {'satisfies' if passed else 'violates'} {gate.describe()}"
        )
    return GateResult(gate.describe(), agent, value, n_runs, passed, reason)


def evaluate_gates(
    gates: list[GateConfig], per_agent: Mapping[str, Mapping[str, Any]]
) -> list[GateResult]:
    """Check every gate against every agent it applies to.

    Parameters
    ----------
    gates : list of GateConfig
        The configured gates.
    per_agent : mapping
        Agent label → aggregate metrics (the reliability report's row plus the score metrics
        and ``n_attempted``).

    Returns
    -------
    list of GateResult
        One result per (gate, agent); a gate naming an agent with no results fails.

    Examples
    --------
    >>> g = GateConfig.model_validate("accuracy >= 0.5")
    >>> [r.passed for r in evaluate_gates([g], {"a": {"accuracy": 0.6, "n_attempted": 10},
    ...                                         "b": {"accuracy": 0.4, "n_attempted": 10}})]
    [True, False]
    """
    results: list[GateResult] = []
    for gate in gates:
        agents = [gate.agent] if gate.agent is not None else list(per_agent)
        for agent in agents:
            if agent not in per_agent:
                results.append(
                    GateResult(gate.describe(), agent, math.nan, 0, False, "no results for agent")
                )
                continue
            results.append(_check_one(gate, agent, per_agent[agent]))
    return results
