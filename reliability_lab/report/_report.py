"""The reliability report: every metric per agent with bootstrap confidence intervals."""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from reliability_lab._labels import LabelCodes
from reliability_lab.errors import RunTableError, UndefinedMetricWarning
from reliability_lab.metrics.profiles import MetricProfile, get_profile, with_resources
from reliability_lab.metrics.registry import (
    METRIC_REGISTRY,
    METRICS,
    REPORT_METRICS,
    explain_undefined,
    terms_used,
)
from reliability_lab.report._bootstrap import (
    agent_rng,
    bootstrap_replicates,
    percentile_interval,
    point_estimates,
    undefined_share,
)
from reliability_lab.report._boundary import boundary_interval, degenerate_at_boundary
from reliability_lab.report._spread import spread_notes
from reliability_lab.report._taskstats import TaskStats
from reliability_lab.report._within import RunResampler
from reliability_lab.report.robustness import robustness_table
from reliability_lab.runs import BASELINE, coded_run_table, is_infrastructure_error

__all__ = ["BOOTSTRAPS", "UNDEFINED_SHARE_WARN", "reliability_report", "robustness_by_variant"]

#: Bootstrap schemes: ``tasks`` resamples tasks (their runs stay together); ``two-level``
#: resamples tasks, then the runs of each drawn task (docs/statistics.md, "Intervals").
BOOTSTRAPS = ("tasks", "two-level")

#: Above this share of bootstrap replicates in which a metric was undefined, the report warns:
#: its interval then describes only the replicates where it was defined.
UNDEFINED_SHARE_WARN = 0.05
#: Aggregates re-weighted over their defined terms: the report records which terms they used
#: (``<symbol>_terms``, e.g. ``R_Con_terms``).
_TERMS_RECORDED = tuple(
    m.symbol for m in METRIC_REGISTRY.values() if m.terms and not m.needs_all_terms
)
_COUNTS = ("n_tasks", "n_runs", "n_baseline_runs", "n_infra_errors")


def _check_options(n_boot: Any, confidence_level: Any, bootstrap: Any) -> None:
    if bootstrap not in BOOTSTRAPS:
        raise ValueError(f"bootstrap={bootstrap!r} is not valid; choose one of {list(BOOTSTRAPS)}")
    if isinstance(n_boot, bool) or not isinstance(n_boot, int | np.integer) or n_boot < 0:
        raise ValueError(f"n_boot must be an integer >= 0, got {n_boot!r}")
    if not isinstance(confidence_level, float | int) or not 0 < confidence_level < 1:
        raise ValueError(
            f"confidence_level must lie strictly between 0 and 1, got {confidence_level!r}"
        )


@dataclass(frozen=True)
class _Interval:
    lo: float
    hi: float
    undefined_share: float
    boundary: bool = False  # Clopper–Pearson on the task level (every task at 0 or 1)


def _bootstrap(
    stats: TaskStats,
    n_boot: int,
    alpha: float,
    rng: np.random.Generator,
    resampler: RunResampler | None,
    point: dict[str, float],
) -> dict[str, _Interval]:
    """Percentile intervals of the replicates of :func:`bootstrap_replicates`.

    A replicate in which a metric is undefined (e.g. AUROC on a resample with one outcome
    class) does not enter its interval; the share of such replicates is recorded with it.
    Two-level replicates are first shifted so that their median is the point estimate:
    redrawing a task's runs with replacement biases every nonlinear per-task value by itself
    ((2p̂ − 1)² of a resample exceeds the task's by 4p̂(1 − p̂)/K on average), and uncentred
    intervals then miss their own estimate (docs/statistics.md, "Intervals"). With one task
    every interval is NaN; a metric at 0 or 1 in every replicate gets the task-level
    Clopper–Pearson interval (:mod:`._boundary`).
    """
    draws = bootstrap_replicates(stats, n_boot, rng, resampler)
    intervals = {}
    for name, values in draws.items():
        share = undefined_share(values)
        if share == 1.0 or math.isnan(point[name]) or stats.n_tasks < 2:
            intervals[name] = _Interval(math.nan, math.nan, share)
            continue
        if degenerate_at_boundary(point[name], values):
            lo, hi = boundary_interval(point[name], stats.n_tasks, alpha)
            intervals[name] = _Interval(lo, hi, share, boundary=True)
            continue
        if resampler is not None:
            values = values - (np.nanmedian(values) - point[name])
        intervals[name] = _Interval(*percentile_interval(values, alpha), share)
    return intervals


def _explain(row: dict[str, Any], names: list[str]) -> list[str]:
    """Record why each undefined metric of ``row`` is NaN (``why_undefined``); the warnings."""
    reasons = {m: explain_undefined(m, row) for m in names if math.isnan(row[m])}
    row["why_undefined"] = "; ".join(reasons.values())
    notes = [reasons.pop("R")] if "R" in reasons else []
    if reasons:
        notes.append("undefined metrics are NaN: " + "; ".join(reasons.values()))
    return notes


def _agent_row(
    agent: str,
    table: pd.DataFrame,
    rows: np.ndarray | None,
    checked: _Checked,
    options: _Options,
) -> tuple[dict[str, Any], list[str]]:
    """The report row of the agent whose runs are the rows ``rows`` of the validated ``table``
    (all if None), and the texts of the warnings it raises."""
    infra = checked.infra if rows is None else checked.infra[rows]
    # the runs the metrics use, as row positions: leaving runs out never copies the table
    if rows is None:
        used = np.flatnonzero(~infra) if infra.any() else None
    else:
        used = rows[~infra]
    baseline = checked.baseline if used is None else checked.baseline[used]
    row: dict[str, Any] = {
        "agent": agent,
        "n_tasks": 0,
        "n_runs": len(baseline),
        "n_baseline_runs": int(baseline.sum()),
        "n_infra_errors": int(infra.sum()),
    }
    if row["n_runs"] == 0:
        reason = "every run is an infrastructure error"
        return row | {m: math.nan for m in METRICS} | {"why_undefined": reason}, [
            f"{reason}; all metrics are NaN"
        ]
    profile = options.profile
    stats = TaskStats.build(table, profile, used, checked.labels)
    row["n_tasks"] = stats.n_tasks  # tasks with at least one non-infrastructure run
    point = point_estimates(stats)
    row.update(point)
    for name in _TERMS_RECORDED:
        row[f"{name}_terms"] = "+".join(terms_used(name, row))
    notes = _explain(row, list(point)) + spread_notes(stats)
    if options.n_boot > 0:
        two_level = options.bootstrap == "two-level"
        resampler = RunResampler.build(table, stats, profile) if two_level else None
        rng = agent_rng(options.seed, agent)
        alpha = 1 - options.confidence_level
        intervals = _bootstrap(stats, options.n_boot, alpha, rng, resampler, point)
        notes += _add_intervals(row, point, intervals, options.n_boot)
        if stats.n_tasks < 2:
            notes.append(
                "one task: a bootstrap over tasks cannot vary, so every interval is undefined "
                "(NaN); run more tasks"
            )
    return row, notes


@dataclass(frozen=True)
class _Options:
    profile: MetricProfile
    n_boot: int
    confidence_level: float
    seed: int
    bootstrap: str


@dataclass(frozen=True)
class _Checked:
    """What validation and one pass over the table give every agent's row."""

    labels: Mapping[str, LabelCodes]  # every row's label codes (coded_run_table)
    infra: np.ndarray  # every row: an infrastructure error
    baseline: np.ndarray  # every row: a baseline run

    def agents(self) -> Iterator[tuple[str, np.ndarray | None]]:
        """Each agent, in sorted order, with its rows (None: one agent, every row)."""
        codes, agents = self.labels["agent"].sorted_codes()
        if len(agents) == 1:
            yield str(agents[0]), None
            return
        order = np.argsort(codes, kind="stable")
        ends = np.cumsum(np.bincount(codes, minlength=len(agents)))
        for agent, part in zip(agents, np.split(order, ends[:-1]), strict=True):
            yield str(agent), part


def _add_intervals(
    row: dict[str, Any], point: dict[str, float], intervals: dict[str, _Interval], n_boot: int
) -> list[str]:
    """``<m>_lo``, ``<m>_hi`` and ``<m>_undef`` for every metric defined at the point estimate;
    a warning text if a metric was undefined in more than 5 % of the replicates."""
    shaky, boundary = [], []
    for name, value in point.items():
        if math.isnan(value):
            continue
        interval = intervals[name]
        row[f"{name}_lo"], row[f"{name}_hi"] = interval.lo, interval.hi
        row[f"{name}_undef"] = interval.undefined_share
        if interval.undefined_share > UNDEFINED_SHARE_WARN:
            shaky.append(f"{name} in {interval.undefined_share:.1%}")
        if interval.boundary:
            boundary.append(f"{name} = {value:g}")
    notes = []
    if shaky:
        notes.append(
            f"metrics undefined in part of the {n_boot} bootstrap replicates (their intervals "
            f"rest on the others only): {', '.join(shaky)}"
        )
    if boundary:
        notes.append(
            f"{', '.join(boundary)} on every task: the bootstrap cannot vary there, so these "
            "intervals are task-level Clopper–Pearson intervals "
            '(docs/statistics.md, "Intervals")'
        )
    return notes


def reliability_report(
    runs: pd.DataFrame,
    *,
    profile: str | MetricProfile = "default",
    n_boot: int = 1000,
    confidence_level: float = 0.95,
    seed: int = 0,
    bootstrap: str = "tasks",
    resources: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Every reliability metric per agent, with bootstrap confidence intervals.

    Consistency, predictability and accuracy use each agent's ``baseline`` runs;
    R_fault/R_struct/R_prompt compare the ``fault``/``structural``/``prompt`` conditions to
    baseline accuracy; safety uses the baseline runs. Runs whose ``error`` starts with
    ``infrastructure:`` are excluded from every metric and counted in ``n_infra_errors``.

    Aggregates (docs/methodology.md, "Aggregates and intervals"): R_Con = ⅓ C_out +
    ⅓ mean(C_traj_d, C_traj_s) + ⅓ C_res, re-weighted over the defined terms (recorded in
    ``R_Con_terms``); R_Pred = P_brier; R_Rob = mean of the defined robustness terms
    (``R_Rob_terms``); R = mean of R_Con, R_Pred and R_Rob, **undefined unless all three are
    defined** (the warning and ``why_undefined`` name the missing dimension and why). Safety
    (S_comp, S_harm, R_saf) is reported separately, never averaged into R. Every metric and
    its meaning are listed in :data:`~reliability_lab.report.METRIC_REGISTRY`.

    Parameters
    ----------
    runs : DataFrame
        A run table (docs/run_table.md); validated with :func:`~reliability_lab.validate_run_table`.
    profile : {"default", "preprint", "hal", "unbiased"} or MetricProfile
        Metric conventions; ``preprint`` = literal C_out, natural-log JS distance and
        ``linspace`` ECE edges (the conventions behind the preprint's numbers); ``hal`` = HAL's
        current ``reliability_eval`` (docs/importers.md, "The hal profile"); ``unbiased`` =
        estimators whose expectation does not depend on K (unbiased C_out, jackknifed C_conf
        and C_res; docs/statistics.md, "Finite K").
    n_boot : int
        Bootstrap replicates; each resamples the agent's tasks with replacement (all runs
        of a task stay together, across conditions). 0 disables the bootstrap.
    confidence_level : float
        Coverage of the percentile intervals ``<metric>_lo`` / ``<metric>_hi``.
    seed : int
        Seed of the bootstrap; the same seed gives identical intervals.
    bootstrap : {"tasks", "two-level"}
        ``tasks`` resamples tasks only; ``two-level`` also redraws, for every drawn copy of a
        task, its runs with replacement (a run index's baseline and perturbed runs together),
        and centres the replicates on the point estimate. Both are percentile intervals; what
        each covers: docs/statistics.md, "Intervals".
    resources : sequence of str, optional
        The resource columns C_res averages over (default: every recorded one of
        ``RESOURCE_COLUMNS``, the paper's set); recorded in ``attrs["profile"]``. Leave out
        ``wall_time_s`` and ``call_latency_s`` for numbers that identical reruns reproduce.

    Returns
    -------
    DataFrame
        Indexed by ``agent``; columns ``n_tasks, n_runs, n_baseline_runs,
        n_infra_errors``, the metrics of :data:`METRICS` (and the session metrics when the
        runs carry them), ``R_Con_terms`` and ``R_Rob_terms`` (the terms used, joined by
        ``+``), then ``<metric>_lo`` and ``<metric>_hi`` for each (NaN when ``n_boot=0`` or the
        metric is undefined), ``<metric>_undef`` (the share of bootstrap replicates in which
        the metric was undefined; a share above 5 % is warned about) and ``why_undefined``
        (one reason per undefined metric). ``attrs`` records the profile, n_boot,
        confidence_level, seed and bootstrap. Undefined metrics are NaN with an
        :class:`~reliability_lab.UndefinedMetricWarning`.

    Raises
    ------
    RunTableError
        The run table is invalid or empty.

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({"agent": "a", "task_id": ["t1"] * 4 + ["t2"] * 4,
    ...                      "run": [0, 1, 2, 3] * 2, "success": [1, 1, 1, 0, 0, 0, 0, 0]})
    >>> report = reliability_report(runs, n_boot=200)
    >>> float(report.loc["a", "C_out"])  # ((2·0.75 − 1)² + 1) / 2
    0.625
    >>> float(report.loc["a", "accuracy"]), float(report.loc["a", "R_Con"])
    (0.375, 0.625)
    """
    prof = with_resources(get_profile(profile), resources)
    _check_options(n_boot, confidence_level, bootstrap)
    coded = coded_run_table(runs, source="runs")
    table = coded.table
    if table.empty:
        raise RunTableError("runs: the run table is empty; a report needs at least one run")
    checked = _Checked(
        labels=coded.labels,
        infra=is_infrastructure_error(table["error"]),
        baseline=coded.labels["condition"].equals(BASELINE),
    )
    options = _Options(prof, int(n_boot), float(confidence_level), int(seed), bootstrap)
    rows = []
    for agent, agent_rows in checked.agents():
        row, notes = _agent_row(agent, table, agent_rows, checked, options)
        rows.append(row)
        for note in notes:
            warnings.warn(f"agent {agent!r}: {note}", UndefinedMetricWarning, stacklevel=2)
    report = pd.DataFrame(rows).set_index("agent")
    metrics = [m for m in REPORT_METRICS if m in METRICS or m in report.columns]
    columns = [
        *_COUNTS,
        *metrics,
        *(f"{m}_terms" for m in _TERMS_RECORDED),
        *(f"{m}_{side}" for m in metrics for side in ("lo", "hi")),
        *(f"{m}_undef" for m in metrics),
        "why_undefined",
    ]
    report = report.reindex(columns=columns)
    for text in ("why_undefined", *(f"{m}_terms" for m in _TERMS_RECORDED)):
        column = report[text].astype(object)  # an all-NaN column arrives as float
        report[text] = column.where(column.notna(), "")
    report.attrs.update(
        profile=prof.to_dict(),
        n_boot=int(n_boot),
        confidence_level=float(confidence_level),
        seed=int(seed),
        bootstrap=bootstrap,
    )
    return report


def robustness_by_variant(runs: pd.DataFrame) -> pd.DataFrame:
    """Accuracy and robustness ratio per (agent, condition, variant) against baseline.

    Accuracies are pooled over all non-infrastructure runs of the agent under that
    condition and variant; ``robustness = min(acc / acc_baseline, 1)``, NaN when the
    baseline accuracy is 0 (docs/methodology.md, "Robustness": also per variant). The
    ``intensity`` column names the variant's intensity (``medium/3`` → ``medium``); pooled
    per intensity: :func:`~reliability_lab.report.robustness.robustness_by_intensity`.

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({"agent": "a", "task_id": "t", "run": [0, 1, 0, 1, 0, 1],
    ...     "condition": ["baseline"] * 2 + ["prompt"] * 4,
    ...     "variant": ["", "", "p1", "p1", "p2", "p2"],
    ...     "success": [1, 1, 1, 0, 0, 0]})
    >>> robustness_by_variant(runs)[["condition", "variant", "accuracy", "robustness"]]
      condition variant  accuracy  robustness
    0    prompt      p1       0.5         0.5
    1    prompt      p2       0.0         0.0
    """
    return robustness_table(runs, ["variant", "intensity"])
