"""Where the ``jackknife`` C_res and C_conf are unbiased, and the report's warning outside it.

The delete-one jackknife of exp(−CV) removes the O(1/K) bias of the plug-in, not all of it:
the sample CV of skewed values (costs, tokens, times across repeated runs) is biased low by
more than a jackknife corrects once the within-task CV is large, and at K = 3 it over-corrects.
No estimator can do better for every distribution: exp(−CV) is not a polynomial in the
distribution, so no function of K values has expectation exp(−CV) for all of them (Halmos
1946) — an estimator unbiased at large CV is unbiased only for the family it assumes
(docs/statistics.md, "Finite K").

:data:`REGION` is the simulation study's table "Where the jackknife C_res and C_conf are within
0.01" (log-normal and gamma values): per number of runs, the largest within-task CV up to
which the jackknife is within 0.01 under both, and the median plug-in CV that tasks at that
edge show. The report compares an agent's median plug-in CV with that observable edge, at the
row of its median runs per task, and warns outside.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reliability_lab.metrics._arrays import Groups
from reliability_lab.metrics.consistency import confidence_per_task, resource_per_task
from reliability_lab.report._taskstats import TaskStats

__all__ = ["REGION", "SpreadRegion", "region_for", "spread_notes"]


@dataclass(frozen=True)
class SpreadRegion:
    """One row of the region: from ``runs`` runs per task on (until the next row)."""

    runs: int
    max_cv: float
    """Largest within-task CV at which the jackknife is within 0.01 (log-normal and gamma)."""
    max_observed: float
    """Median plug-in CV of tasks at ``max_cv`` (the lower of the two families): the data's
    median plug-in CV above this is outside the region."""


#: The study's table (docs/statistics.md); rows by increasing runs, a row holds until the next.
REGION = (
    SpreadRegion(3, 0.15, 0.12),
    SpreadRegion(4, 0.50, 0.40),
    SpreadRegion(5, 0.50, 0.42),
    SpreadRegion(8, 0.55, 0.47),
    SpreadRegion(10, 0.55, 0.48),
    SpreadRegion(20, 0.70, 0.63),
)


def region_for(runs: float) -> SpreadRegion | None:
    """The row for a median of ``runs`` runs per task (None below 3: the jackknife needs 3).

    Examples
    --------
    >>> region_for(12).max_cv  # the K = 10 row holds until K = 20
    0.55
    >>> region_for(2) is None
    True
    """
    rows = [row for row in REGION if row.runs <= runs]
    return rows[-1] if rows else None


def _median_cv(plug_in: np.ndarray) -> float:
    """Median over tasks of the CV behind exp(−CV) values (plug-in: biased low)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        cv = -np.log(plug_in[~np.isnan(plug_in)])
    return float(np.median(cv)) if cv.size else float("nan")


def spread_notes(stats: TaskStats) -> list[str]:
    """Warning texts for jackknife C_res / C_conf outside their unbiased region."""
    base = stats.baseline
    if base.profile.resource_variant != "jackknife" and (
        base.profile.confidence_variant != "jackknife"
    ):
        return []
    groups = Groups(codes=base.task, labels=np.arange(stats.n_tasks))
    runs = np.bincount(base.task, minlength=stats.n_tasks)
    median_k = float(np.median(runs[runs > 0])) if (runs > 0).any() else 0.0
    checks = []
    if base.profile.resource_variant == "jackknife" and base.resources:
        checks.append(("C_res", _median_cv(resource_per_task(base.resources, groups))))
    if base.profile.confidence_variant == "jackknife":
        checks.append(("C_conf", _median_cv(confidence_per_task(base.confidence, groups))))
    row = region_for(median_k)
    notes = []
    for name, cv in checks:
        if np.isnan(cv) or (row is not None and cv <= row.max_observed):
            continue
        where = (
            "needs ≥ 3 runs per task"
            if row is None
            else f"is within 0.01 at {median_k:g} runs per task only for a within-task CV ≤ "
            f"{row.max_cv} (a median observed CV ≤ {row.max_observed})"
        )
        notes.append(
            f"{name} (jackknife) {where}; these tasks have a median observed CV ≈ {cv:.2f} "
            f"with median {median_k:g} runs, so {name} may be off by more than 0.01 (high for "
            'large CVs, low at 3 runs; the region by K: docs/statistics.md, "Finite K")'
        )
    return notes
