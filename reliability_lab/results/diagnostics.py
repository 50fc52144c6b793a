"""What happened in an experiment, beyond the metrics: for ``summary.json`` and the console.

- ``infra_errors`` — infrastructure errors by category (``rate_limit``, ``timeout``, ``auth``,
  ...) with the first cause of each, overall and per agent;
- ``confidence_errors`` — runs whose confidence question failed (their confidence is missing,
  their outcome counts), by category;
- ``r_dimensions`` — which of R's dimensions were defined for each agent (R needs all three);

and :func:`diagnostic_lines`, the console lines made of the first two and of the cost and token
totals (letta-evals' ``cost`` block).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from typing import Any

import pandas as pd

from reliability_lab.metrics.registry import METRIC_REGISTRY
from reliability_lab.runs import INFRASTRUCTURE_PREFIX, is_simulated_model, session_id

__all__ = ["confidence_errors", "diagnostic_lines", "infra_errors", "r_dimensions"]

_SHOWN = 3


def _by_category(runs: pd.DataFrame, errors: pd.Series) -> dict[str, Any]:
    """Counts and first causes of ``<category>: <cause>`` texts (index aligned with runs)."""
    by_category: Counter[str] = Counter()
    first: dict[str, str] = {}
    rows = [{str(k): v for k, v in r.items()} for r in runs.loc[errors.index].to_dict("records")]
    for text, row in zip(errors, rows, strict=True):
        category, _, cause = str(text).partition(":")
        category = category.strip()
        by_category[category] += 1
        if category not in first:
            first[category] = f"run {session_id(row)}: {cause.strip()}"
    per_agent = dict(Counter(str(row["agent"]) for row in rows))
    return {
        "total": int(sum(by_category.values())),
        "by_category": dict(by_category),
        "first_cause": first,
        "per_agent": per_agent,
    }


def infra_errors(runs: pd.DataFrame) -> dict[str, Any]:
    """Infrastructure errors by category: ``total``, ``by_category``, ``first_cause``
    (category → ``run <session id>: <cause>``) and ``per_agent``."""
    error = runs["error"].dropna().astype(str)
    error = error[error.str.startswith(INFRASTRUCTURE_PREFIX)]
    return _by_category(runs, error.str.removeprefix(INFRASTRUCTURE_PREFIX))


def confidence_errors(runs: pd.DataFrame) -> dict[str, Any]:
    """Failed confidence questions by category (same layout as :func:`infra_errors`)."""
    if "confidence_error" not in runs:
        return _by_category(runs, pd.Series(dtype=object))
    return _by_category(runs, runs["confidence_error"].dropna().astype(str))


def r_dimensions(report: pd.DataFrame) -> dict[str, list[str]]:
    """Agent → the dimensions of R (R_Con, R_Pred, R_Rob) defined for it.

    R is their mean when all three are defined and undefined otherwise (docs/methodology.md).
    """
    out: dict[str, list[str]] = {}
    for agent, row in report.iterrows():
        out[str(agent)] = [
            d for d in METRIC_REGISTRY["R"].terms if d in row and not math.isnan(float(row[d]))
        ]
    return out


def _money(value: float | None) -> str:
    return "unknown" if value is None else f"${value:.4f}"


def _tokens(cost: Mapping[str, Any]) -> str:
    prompt, completion = cost.get("total_prompt_tokens"), cost.get("total_completion_tokens")
    if prompt is None and completion is None:
        return "tokens not recorded"
    return f"{prompt or 0:,} prompt + {completion or 0:,} completion tokens"


#: Beside a cost that the simulated model's price table produced, not a provider's bill.
SIMULATED_PRICE = " (simulated price)"


def _cost_lines(metrics: Mapping[str, Any]) -> list[str]:
    cost = metrics["cost"]
    unknown = cost.get("runs_with_unknown_cost") or 0
    note = f" ({unknown} runs of unknown price not included)" if unknown else ""
    per_model = metrics.get("per_model") or []
    simulated = [is_simulated_model(str(e.get("model_name", ""))) for e in per_model]
    total_note = SIMULATED_PRICE if simulated and all(simulated) else ""
    if any(simulated) and not all(simulated):
        total_note = " (includes simulated prices)"
    lines = [f"  Cost: {_money(cost.get('total_cost'))}{total_note}{note}; {_tokens(cost)}."]
    if len(per_model) > 1:
        lines += [
            f"    {e['agent']}: {_money(e['cost'].get('total_cost'))}"
            f"{SIMULATED_PRICE if sim else ''}, {_tokens(e['cost'])}"
            for e, sim in zip(per_model, simulated, strict=True)
        ]
    return lines


def _error_lines(title: str, block: Mapping[str, Any], after: str) -> list[str]:
    if not block or not block.get("total"):
        return []
    counts = ", ".join(f"{c} {n}" for c, n in block["by_category"].items())
    lines = [f"  {title} in {block['total']} runs ({counts}){after}"]
    lines += [f"    first {c}: {cause}" for c, cause in block["first_cause"].items()]
    return lines


def diagnostic_lines(content: Mapping[str, Any]) -> list[str]:
    """Console lines from a ``summary.json`` content: cost and tokens, and infrastructure and
    confidence errors by category with the first cause of each (why a metric is ``n/a`` and
    what R is built from are the per-agent notes under the table)."""
    lines = ["", *_cost_lines(content["metrics"])]
    lines += _error_lines(
        "Infrastructure errors",
        content.get("infra_errors") or {},
        "; excluded from the metrics, executed again by the next resume:",
    )
    lines += _error_lines(
        "Confidence question failed",
        content.get("confidence_errors") or {},
        "; their confidence is missing (fallback), their outcome counts:",
    )
    return lines
