"""The ``safety`` block of ``summary.json``: findings by constraint, severity and source.

Counts are over the runs the safety metrics use (docs/safety.md, "From findings to S_comp,
S_harm and R_saf"): baseline runs that did not end in an ``infrastructure:`` error and, when the
LLM judge ran, whose judge gave a verdict. Runs whose judge failed are counted separately
(``judge_failures``) with their first causes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from reliability_lab.experiment.config import SafetySettings
from reliability_lab.report.safety import safety_scope
from reliability_lab.runs import (
    BASELINE,
    SEVERITY_WEIGHTS,
    is_infrastructure_error,
    safety_assessed,
)

__all__ = ["SIMULATED_SAFETY_JUDGE_NOTICE", "safety_summary"]

SIMULATED_SAFETY_JUDGE_NOTICE = (
    "safety judge {judge} is the offline SIMULATED judge: it recognises two patterns only "
    "(promises, repeated identical calls); its findings demonstrate the pipeline"
)
_MAX_LISTED = 3


def _counts(violations: Iterable[list[Mapping[str, Any]]]) -> dict[str, Any]:
    runs_by_constraint: Counter[str] = Counter()
    by_severity: Counter[str] = Counter({s: 0 for s in SEVERITY_WEIGHTS})
    by_source: Counter[str] = Counter()
    n_runs = n_violating = n_findings = unverified = 0
    for found in violations:
        n_runs += 1
        n_violating += bool(found)
        n_findings += len(found)
        runs_by_constraint.update({str(v["constraint"]) for v in found})
        by_severity.update(str(v["severity"]) for v in found)
        by_source.update(str(v.get("source", "rule")) for v in found)
        unverified += sum(v.get("evidence_verified") is False for v in found)
    return {
        "n_runs": n_runs,
        "n_violating_runs": n_violating,
        "n_findings": n_findings,
        # most runs first; ties by name, so every process prints the same order (set iteration
        # order above depends on the hash seed)
        "runs_by_constraint": dict(sorted(runs_by_constraint.items(), key=lambda c: (-c[1], c[0]))),
        "findings_by_severity": dict(by_severity),
        "findings_by_source": dict(sorted(by_source.items())),
        "unverified_judge_evidence": unverified,
    }


def _judge_info(runs: pd.DataFrame, settings: SafetySettings | None) -> dict[str, Any]:
    if settings is None or not settings.judge:
        return {"enabled": False}
    if "safety_judged" in runs:
        assessed = runs.loc[runs["safety_judged"].notna()]
    else:
        assessed = runs.iloc[:0].assign(safety_judged=[], safety_error=[])
    errors = assessed["safety_error"].dropna().astype(str)
    failed = errors[errors.str.startswith("judge failed")]
    cost = assessed.get("safety_judge_cost_usd", pd.Series(np.nan, index=assessed.index))
    known = cost.dropna()
    info: dict[str, Any] = {
        "enabled": True,
        "judge_model": settings.judge_model,
        "simulated_judge": settings.simulated_judge,
        "conditions": list(settings.conditions),
        "n_judged": int(assessed["safety_judged"].eq(True).sum()),
        "n_judge_failures": len(failed),
        "first_judge_failures": list(dict.fromkeys(failed))[:_MAX_LISTED],
        "cost_usd": float(known.sum()) if len(known) else None,
        "cost_usd_per_judged_run": float(known.mean()) if len(known) else None,
        "runs_with_unknown_cost": int(cost.isna().sum()),
    }
    if settings.simulated_judge:
        info["notice"] = SIMULATED_SAFETY_JUDGE_NOTICE.format(judge=settings.judge_model)
    return info


def safety_summary(runs: pd.DataFrame, settings: SafetySettings | None) -> dict[str, Any]:
    """Safety findings overall and per agent, and how the judge fared.

    Parameters
    ----------
    runs : DataFrame
        The validated run table of a results directory.
    settings : SafetySettings or None
        The experiment's ``safety`` settings; None for imported logs (no judge of ours ran).
    """
    judge_error = (
        runs["safety_error"].notna() if "safety_error" in runs else pd.Series(False, runs.index)
    )
    known = pd.Series(safety_assessed(runs), index=runs.index)
    scope = (runs["condition"] == BASELINE) & ~is_infrastructure_error(runs["error"])
    used = runs.loc[safety_scope(runs)]  # = scope without the runs whose safety is unknown
    per_agent = {}
    for agent, group in runs.loc[scope].groupby("agent", sort=False):
        entry = _counts(group.loc[known.loc[group.index], "violations"])
        entry["judge_failures"] = int(judge_error.loc[group.index].sum())
        entry["not_checked"] = int((~known.loc[group.index] & ~judge_error.loc[group.index]).sum())
        per_agent[str(agent)] = entry
    return {
        "scope": "baseline runs without an infrastructure error and with a judge verdict "
        "(when the judge ran)",
        **_counts(used["violations"]),
        "judge": _judge_info(runs, settings),
        "per_agent": per_agent,
    }
