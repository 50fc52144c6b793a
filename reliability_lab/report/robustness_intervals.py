"""Robustness by intensity with intervals: each intensity's runs with the baseline through the
report's own bootstrap over tasks (docs/results.md, "The HTML report")."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd

from reliability_lab.report._report import reliability_report
from reliability_lab.report.robustness import robustness_by_intensity, variant_intensities
from reliability_lab.runs import BASELINE, PERTURBATION_CONDITIONS, validate_run_table

__all__ = ["robustness_intervals_by_intensity"]


def robustness_intervals_by_intensity(
    runs: pd.DataFrame,
    *,
    profile: Any = "default",
    n_boot: int = 1000,
    confidence_level: float = 0.95,
    seed: int = 0,
) -> pd.DataFrame:
    """:func:`robustness_by_intensity` with a bootstrap interval on each robustness.

    Each intensity of a condition with a robustness metric (``R_fault``, ``R_struct``,
    ``R_prompt``; docs/methodology.md, "Robustness") is reported on its own: the baseline runs
    plus that intensity's runs go through :func:`~reliability_lab.reliability_report` — the one
    bootstrap over tasks every interval of the report comes from — and its metric's value and
    interval become ``robustness``, ``robustness_lo`` and ``robustness_hi``. Conditions
    without a metric keep NaN intervals.
    """
    table = robustness_by_intensity(runs)
    table["robustness_lo"] = np.nan
    table["robustness_hi"] = np.nan
    checked = validate_run_table(runs, source="runs")
    intensities = variant_intensities(checked)
    for (condition, intensity), rows in table.groupby(["condition", "intensity"], sort=False):
        metric = PERTURBATION_CONDITIONS.get(str(condition))
        if metric is None:
            continue
        keep = (checked["condition"] == BASELINE) | (
            (checked["condition"] == condition) & (intensities == intensity)
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            report = reliability_report(
                checked[keep],
                profile=profile,
                n_boot=n_boot,
                confidence_level=confidence_level,
                seed=seed,
            )
        for bound in ("lo", "hi"):
            values = report[f"{metric}_{bound}"].reindex(rows["agent"]).to_numpy(dtype=float)
            table.loc[rows.index, f"robustness_{bound}"] = values
    return table
