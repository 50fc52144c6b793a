"""HAL's published per-agent numbers beside ours (docs/importers.md,
"HAL's published numbers beside ours").

HAL's ``analyze_reliability.py`` writes ``reliability_metrics.csv``: one row per agent with its
metrics under HAL's names. :func:`load_hal_metrics` reads it with the report's metric names
(:data:`HAL_METRIC_COLUMNS`); :func:`compare_with_hal` lists HAL's value and ours metric by
metric, for the agents both tables have — ours under the ``hal`` profile by default, which
reproduces HAL's ``reliability_eval`` (docs/importers.md, "The hal profile").
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from reliability_lab.io._common import fail
from reliability_lab.io.hal import HalFormatError

__all__ = ["HAL_METRIC_COLUMNS", "compare_with_hal", "load_hal_metrics"]

#: Columns of HAL's ``reliability_metrics.csv`` → the report's metric names.
HAL_METRIC_COLUMNS: Mapping[str, str] = {
    "accuracy": "accuracy",
    "consistency_outcome": "C_out",
    "consistency_trajectory_distribution": "C_traj_d",
    "consistency_trajectory_sequence": "C_traj_s",
    "consistency_confidence": "C_conf",
    "consistency_resource": "C_res",
    "predictability_brier_score": "P_brier",
    "predictability_calibration": "P_cal",
    "predictability_roc_auc": "P_auroc",
    "predictability_rate_confidence_correlation": "P_rc",
    "robustness_fault_injection": "R_fault",
    "robustness_structural": "R_struct",
    "robustness_prompt_variation": "R_prompt",
    "safety_compliance": "S_comp",
    "safety_harm_severity": "S_harm",
    "safety_score": "R_saf",
    "reliability_consistency": "R_Con",
    "reliability_predictability": "R_Pred",
    "reliability_robustness": "R_Rob",
    "reliability_overall": "R",
}


def load_hal_metrics(path: str | os.PathLike[str]) -> pd.DataFrame:
    """HAL's per-agent ``reliability_metrics.csv`` with the report's metric names.

    Parameters
    ----------
    path : str or PathLike
        A ``reliability_metrics.csv`` written by HAL's ``analyze_reliability.py``.

    Returns
    -------
    DataFrame
        Indexed by HAL's agent name; the columns of :data:`HAL_METRIC_COLUMNS` present in the
        file, renamed (``consistency_outcome`` → ``C_out`` …), plus ``num_tasks`` and
        ``num_runs`` when present. Columns HAL did not write stay absent, never computed.

    Raises
    ------
    HalFormatError
        The file is not a CSV with an ``agent`` column, or a metric value is not a number.
    """
    file = Path(path)
    try:
        table = pd.read_csv(file)
    except FileNotFoundError:
        raise HalFormatError(f"{file}: file not found") from None
    except (pd.errors.ParserError, UnicodeDecodeError, pd.errors.EmptyDataError) as exc:
        raise HalFormatError(f"{file}: not a CSV file ({exc})") from None
    if "agent" not in table.columns:
        present = list(table.columns)
        raise fail(
            str(file), None, "agent", f"missing column; present: {present}", error=HalFormatError
        )
    keep = [c for c in ("num_tasks", "num_runs", *HAL_METRIC_COLUMNS) if c in table.columns]
    out = table.set_index("agent")[keep].rename(columns=dict(HAL_METRIC_COLUMNS))
    for column in out.columns:
        values = pd.to_numeric(out[column], errors="coerce")
        bad = values.isna() & out[column].notna()
        if bad.any():
            agent = out.index[bad.to_numpy()][0]
            value = out[column][bad].iloc[0]
            where = f"agent {agent!r}"
            raise fail(str(file), where, column, f"not a number: {value!r}", error=HalFormatError)
        out[column] = values
    return out


def _our_report(ours: pd.DataFrame, profile: str) -> pd.DataFrame:
    """``ours`` when it is a report under ``profile``; a run table's report under it."""
    if "task_id" in ours.columns:  # a run table
        from reliability_lab.report import reliability_report

        return reliability_report(ours, profile=profile, n_boot=0)
    used = ours.attrs.get("profile", {}).get("name")
    if used is not None and used != profile:
        raise ValueError(
            f"report: computed under profile {used!r}, compared under {profile!r}; pass the "
            f"run table (computed under {profile!r}), or profile={used!r}"
        )
    return ours


def compare_with_hal(
    ours: pd.DataFrame,
    hal: pd.DataFrame,
    *,
    agents: Mapping[str, str] | None = None,
    profile: str = "hal",
) -> pd.DataFrame:
    """HAL's published numbers beside ours, one row per (agent, metric).

    Parameters
    ----------
    ours : DataFrame
        The imported run table (its report is computed under ``profile``), or a
        :func:`reliability_lab.report.reliability_report` computed under ``profile``.
    hal : DataFrame
        :func:`load_hal_metrics` of HAL's ``reliability_metrics.csv``.
    agents : mapping, optional
        Our agent label → HAL's agent name, where they differ.
    profile : str, default "hal"
        The metric profile of our side: ``hal`` reproduces HAL's conventions, so a difference
        is a difference in the data; another profile shows what our conventions change.

    Returns
    -------
    DataFrame
        Columns ``agent``, ``metric``, ``ours``, ``hal``, ``difference`` (ours − HAL) for
        every metric both tables have, for the agents of ``ours`` found in ``hal``.

    Raises
    ------
    ValueError
        ``ours`` is a report computed under another profile than ``profile``.
    """
    report = _our_report(ours, profile)
    names = dict(agents or {})
    metrics = [m for m in HAL_METRIC_COLUMNS.values() if m in report.columns and m in hal.columns]
    rows = []
    for agent in report.index:
        hal_name = names.get(str(agent), str(agent))
        if hal_name not in hal.index:
            continue
        for metric in metrics:
            ours_value = float(report[metric].loc[agent])
            theirs = float(hal[metric].loc[hal_name])
            rows.append(
                {
                    "agent": str(agent),
                    "metric": metric,
                    "ours": ours_value,
                    "hal": theirs,
                    "difference": ours_value - theirs,
                }
            )
    return pd.DataFrame(rows, columns=["agent", "metric", "ours", "hal", "difference"])
