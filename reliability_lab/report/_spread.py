"""Where the ``jackknife`` C_res and C_conf are unbiased, and the report's warning outside it.

The delete-one jackknife of exp(−CV) removes the O(1/K) bias of the plug-in, not all of it:
the sample CV of skewed values (costs, tokens, times across repeated runs) is biased low by
more than a jackknife corrects once the within-task CV is large. The simulation study
(docs/statistics.md, "Finite K": its table of exp(−CV) estimators under log-normal and
gamma values) finds the jackknife within 0.01 of exp(−CV) for a within-task
CV up to ``MAX_CV`` with at least ``MIN_RUNS`` runs per task; at CV 1 it is +0.02 to +0.06
high (log-normal), at CV 1.5 up to +0.12, and at K = 3 up to −0.02 even for small CVs. The
report warns when an agent's data fall outside that range.
"""

from __future__ import annotations

import numpy as np

from reliability_lab.metrics._arrays import Groups
from reliability_lab.metrics.consistency import confidence_per_task, resource_per_task
from reliability_lab.report._taskstats import TaskStats

__all__ = ["MAX_CV", "MIN_RUNS", "spread_notes"]

#: The largest within-task CV at which the study finds the jackknife within 0.01.
MAX_CV = 0.5
#: The fewest runs per task at which it does (K = 3 is off by up to 0.02).
MIN_RUNS = 5


def _median_cv(plug_in: np.ndarray) -> float:
    """Median over tasks of the CV behind exp(−CV) values (plug-in: biased low)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        cv = -np.log(plug_in[~np.isnan(plug_in)])
    return float(np.median(cv)) if cv.size else float("nan")


def spread_notes(stats: TaskStats) -> list[str]:
    """Warning texts for jackknife C_res / C_conf outside their unbiased range."""
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
    notes = []
    for name, cv in checks:
        if np.isnan(cv) or (cv <= MAX_CV and median_k >= MIN_RUNS):
            continue
        notes.append(
            f"{name} (jackknife) is unbiased within 0.01 only for a within-task CV ≤ {MAX_CV} "
            f"and ≥ {MIN_RUNS} runs per task; these tasks have a median CV ≈ {cv:.2f} and "
            f"median {median_k:g} runs, so {name} may be off by more than 0.01 (high for large "
            'CVs; the bias by CV and K: docs/statistics.md, "Finite K")'
        )
    return notes
