"""Robustness per perturbation variant and per intensity (fault rate, preset, strength).

Both tables compare pooled accuracies with the agent's pooled baseline accuracy, as the
robustness metrics do (docs/methodology.md, "Robustness"): ``robustness = min(acc /
acc_baseline, 1)``, NaN when the baseline accuracy is 0. Infrastructure errors are left out.

A variant's *intensity* is the run table's ``intensity`` column when present (the experiment
runner writes it), else the part of the variant before ``/`` (``medium/3`` → ``medium``;
``p=0.2`` and ``severe`` are their own intensity). Grouping by intensity pools, e.g., the five
paraphrases of one strength, so accuracy can be plotted against the fault rate or the preset.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from reliability_lab.metrics.robustness import robustness_from_accuracy
from reliability_lab.runs import BASELINE, is_infrastructure_error, validate_run_table

__all__ = [
    "fault_rate_of",
    "intensity_sort_key",
    "robustness_by_intensity",
    "robustness_intervals_by_intensity",
    "robustness_table",
    "variant_intensities",
]

_SEPARATOR = "/"
_RATE_PREFIX = "p="
#: Natural order of the named intensities (structural presets, paraphrase strengths).
_NAMED_ORDER = ("mild", "medium", "strong", "severe", "naturalistic")


def variant_intensities(runs: pd.DataFrame) -> pd.Series:
    """Each row's intensity: the ``intensity`` column, else the variant before ``/``.

    >>> import pandas as pd
    >>> variant_intensities(pd.DataFrame({"variant": ["medium/2", "p=0.4", ""]})).tolist()
    ['medium', 'p=0.4', '']
    """
    derived = runs["variant"].astype(str).str.split(_SEPARATOR, n=1).str[0]
    if "intensity" not in runs.columns:
        return derived
    given = runs["intensity"]
    return given.where(given.notna(), derived).astype(str)


def fault_rate_of(intensity: str) -> float:
    """The fault rate of a ``p=<rate>`` intensity, NaN for any other.

    >>> fault_rate_of("p=0.4"), fault_rate_of("medium")
    (0.4, nan)
    """
    if not intensity.startswith(_RATE_PREFIX):
        return float("nan")
    try:
        return float(intensity.removeprefix(_RATE_PREFIX))
    except ValueError:
        return float("nan")


def intensity_sort_key(intensity: str) -> tuple[float, int, str]:
    """Sort key putting intensities in their natural order: fault rates ascending, then
    mild, medium, strong, severe, naturalistic, then any other name alphabetically.

    >>> sorted(["severe", "p=0.4", "mild", "p=0.1", "custom"], key=intensity_sort_key)
    ['p=0.1', 'p=0.4', 'mild', 'severe', 'custom']
    """
    rate = fault_rate_of(intensity)
    if rate == rate:  # not NaN
        return rate, -1, intensity
    rank = _NAMED_ORDER.index(intensity) if intensity in _NAMED_ORDER else len(_NAMED_ORDER)
    return float("inf"), rank, intensity


def robustness_table(runs: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """Accuracy and robustness of the perturbed runs grouped by ``agent``, ``condition`` + ``by``.

    Parameters
    ----------
    runs : DataFrame
        A run table (validated); an ``intensity`` column is derived when absent.
    by : sequence of str
        Extra grouping columns, e.g. ``["variant"]`` or ``["intensity"]``.

    Returns
    -------
    DataFrame
        ``agent, condition, *by, n_runs, accuracy, baseline_accuracy, robustness``, one row
        per perturbed group (baseline rows are not listed), sorted.
    """
    table = validate_run_table(runs, source="runs")
    table = table.loc[~is_infrastructure_error(table["error"])].copy()
    table["intensity"] = variant_intensities(table)
    keys = ["agent", "condition", *by]
    grouped = table.groupby(keys, sort=True)["success"]
    out = grouped.agg(accuracy="mean", n_runs="size").reset_index()
    out = out.loc[out["condition"] != BASELINE].reset_index(drop=True)
    base = table.loc[table["condition"] == BASELINE].groupby("agent")["success"].mean()
    baseline = out["agent"].map(base).to_numpy(dtype=float)
    out["baseline_accuracy"] = baseline
    out["robustness"] = robustness_from_accuracy(baseline, out["accuracy"].to_numpy(dtype=float))
    out["n_runs"] = out["n_runs"].astype(np.int64)
    return out[[*keys, "n_runs", "accuracy", "baseline_accuracy", "robustness"]]


def robustness_by_intensity(runs: pd.DataFrame) -> pd.DataFrame:
    """Accuracy and robustness per (agent, condition, intensity), pooling its variants.

    Adds ``n_variants`` and ``fault_rate`` (the rate of a ``p=<rate>`` intensity, else NaN)
    so accuracy can be plotted against the fault rate. Rows are sorted by agent, condition and
    intensity in its natural order (:func:`intensity_sort_key`).

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({"agent": "a", "task_id": "t", "run": [0, 1, 0, 0, 0, 0],
    ...     "condition": ["baseline"] * 2 + ["prompt"] * 2 + ["fault"] * 2,
    ...     "variant": ["", "", "mild/1", "mild/2", "p=0.1", "p=0.4"],
    ...     "success": [1, 1, 1, 0, 1, 0]})
    >>> robustness_by_intensity(runs)[["condition", "intensity", "n_variants", "robustness"]]
      condition intensity  n_variants  robustness
    0     fault     p=0.1           1         1.0
    1     fault     p=0.4           1         0.0
    2    prompt      mild           2         0.5
    """
    out = robustness_table(runs, ["intensity"])
    table = validate_run_table(runs, source="runs")
    table["intensity"] = variant_intensities(table)
    counts = table.groupby(["agent", "condition", "intensity"])["variant"].nunique()
    index = pd.MultiIndex.from_frame(out[["agent", "condition", "intensity"]])
    out.insert(3, "n_variants", counts.reindex(index).to_numpy(dtype=np.int64))
    out["fault_rate"] = [fault_rate_of(str(i)) for i in out["intensity"]]
    order = sorted(
        range(len(out)),
        key=lambda i: (
            out["agent"].iat[i],
            out["condition"].iat[i],
            intensity_sort_key(str(out["intensity"].iat[i])),
        ),
    )
    return out.iloc[order].reset_index(drop=True)


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
    from reliability_lab.report._report import reliability_report
    from reliability_lab.runs import PERTURBATION_CONDITIONS

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
