"""The paper figure set: every figure of a reliability paper from one results directory (or a
run table), written as PDF and PNG by :func:`save_all` (``reliability-lab figures DIR``).

:func:`figure_data` gathers what the figures draw — the run table, the reliability report,
per-task tables and curves per agent, robustness by intensity, safety findings, stored session
risks — from the metric and report functions, once. Each entry of :data:`FIGURES` then draws
one figure from that :class:`FigureData` with the ``plot_*`` functions, or gives the reason it
cannot (no confidences, no perturbed runs, ...). Figures are built on
``matplotlib.figure.Figure`` objects, not pyplot: nothing global is touched and no GUI backend
is needed.

To add a figure, write its ``plot_x(data, *, ax=None) -> Axes``, its layout in
``plots/_draw.py`` and append a :class:`FigureSpec` to :data:`FIGURES` whose ``draw`` lays out
the panels and whose ``needs`` says when the data cannot support it. :class:`FigureData` and
:func:`figure_data` live in ``plots/_figure_data.py`` and are re-exported here.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from reliability_lab.plots import _draw
from reliability_lab.plots._figure_data import FigureData, baseline_runs, figure_data
from reliability_lab.plots._provenance import add_provenance, write_manifest
from reliability_lab.plots.report import INTERVAL_GROUPS
from reliability_lab.plots.style import paper_style, save_figure

__all__ = [
    "FIGURES",
    "FigureData",
    "FigureSpec",
    "SavedFigures",
    "draw_figure",
    "figure_data",
    "save_all",
]

_log = logging.getLogger(__name__)


def _intervals_needs(group: str) -> Callable[[FigureData], str | None]:
    metrics = INTERVAL_GROUPS[group]

    def needs(data: FigureData) -> str | None:
        if data.report[list(metrics)].isna().all().all():
            return f"every {group} metric is undefined for every agent"
        return None

    return needs


def _need_comparisons(data: FigureData) -> str | None:
    if len(data.agents) < 2:
        return "one agent only (needs two to compare)"
    return None if data.comparisons else f"no agent shares a task with {data.agents[0]!r}"


def _need_agents_with(attr: str, what: str) -> Callable[[FigureData], str | None]:
    def needs(data: FigureData) -> str | None:
        return None if getattr(data, attr) else what

    return needs


def _need_trajectories(data: FigureData) -> str | None:
    if _draw.with_trajectories(data):
        return None
    return "no task has 2 or more successful baseline runs with actions"


def _need_outcome_consistency(data: FigureData) -> str | None:
    if any(t["C_out"].notna().any() for t in data.per_task.values()):
        return None
    return "no task has 2 or more baseline runs"


def _need_resource(data: FigureData) -> str | None:
    base = baseline_runs(data.runs)
    return None if base["num_actions"].notna().any() else "num_actions is not recorded"


def _need_robustness(data: FigureData) -> str | None:
    return None if not data.robustness.empty else "no fault, structural or prompt runs"


def _need_safety(data: FigureData) -> str | None:
    if data.report["R_saf"].isna().all():
        return "no baseline run was checked for safety (R_saf undefined)"
    if all(table.to_numpy().sum() == 0 for table in data.violations.values()):
        return "safety was checked and no baseline run has a finding (nothing to draw)"
    return None


@dataclass(frozen=True)
class FigureSpec:
    """One figure of the set: its file name, what it shows, how to draw it, when it cannot."""

    name: str
    """File name without suffix (``<name>.pdf``, ``<name>.png``)."""
    what: str
    """One line on what the figure shows."""
    draw: Callable[[FigureData], Figure]
    """Lays out the panels and calls the ``plot_*`` functions."""
    needs: Callable[[FigureData], str | None] = lambda data: None
    """The reason the data cannot support the figure, or None."""


#: The figure set, in the order :func:`save_all` writes it.
FIGURES: tuple[FigureSpec, ...] = (
    FigureSpec(
        "dimensions_dashboard",
        "R_Con, R_Pred, R_Rob, the overall R and R_saf per agent with intervals",
        _draw.dashboard,
    ),
    FigureSpec(
        "dimensions_heatmap", "accuracy, the four dimensions and R: agents × metrics", _draw.heatmap
    ),
    FigureSpec("dimensions_radar", "the four dimensions as a radar chart per agent", _draw.radar),
    *(
        FigureSpec(
            f"intervals_{group}",
            f"{group} metrics with bootstrap intervals",
            _draw.intervals(group),
            _intervals_needs(group),
        )
        for group in INTERVAL_GROUPS
    ),
    FigureSpec("accuracy_vs_R", "accuracy against R with both intervals", _draw.accuracy_vs_r),
    FigureSpec(
        "reliability_diagrams",
        "accuracy per confidence bin with bin counts, per agent",
        _draw.reliability_diagrams,
        _need_agents_with("reliability", "no baseline run has a confidence"),
    ),
    FigureSpec(
        "accuracy_coverage",
        "selective accuracy against coverage, with oracle and random orders, per agent",
        _draw.accuracy_coverage,
        _need_agents_with("risk_coverage", "no baseline run has a confidence"),
    ),
    FigureSpec(
        "risk_coverage",
        "risk against coverage, with oracle and random orders, per agent",
        _draw.risk_coverage,
        _need_agents_with("risk_coverage", "no baseline run has a confidence"),
    ),
    FigureSpec(
        "robustness_by_condition",
        "R_fault, R_struct, R_prompt per agent with intervals",
        _draw.robustness_by_condition,
        _need_robustness,
    ),
    FigureSpec(
        "robustness_by_intensity",
        "robustness R (accuracy kept relative to baseline) by fault rate, structural preset and "
        "paraphrase strength, with bootstrap intervals over tasks",
        _draw.robustness_by_intensity,
        _need_robustness,
    ),
    FigureSpec(
        "safety_violations",
        "findings by constraint and severity, per agent",
        _draw.safety,
        _need_safety,
    ),
    FigureSpec(
        "paired_differences",
        "each agent minus the first, per metric, with paired intervals and Holm p-values",
        _draw.paired_differences,
        _need_comparisons,
    ),
    FigureSpec(
        "outcome_grid", "every baseline run's outcome, task × run, per agent", _draw.outcome_grid
    ),
    FigureSpec("success_rate_histogram", "tasks by success rate, per agent", _draw.histogram),
    FigureSpec("pass_hat_k", "pass^k against k per agent, beside (pass^1)^k", _draw.pass_hat_k),
    FigureSpec(
        "outcome_consistency",
        "per-task C_out against success rate, per agent",
        _draw.outcome_consistency,
        _need_outcome_consistency,
    ),
    FigureSpec(
        "trajectory_consistency",
        "per-task C_traj_s against C_traj_d, per agent",
        _draw.trajectory_consistency,
        _need_trajectories,
    ),
    FigureSpec(
        "resource_spread",
        "actions per run and task, successes and failures, per agent",
        _draw.resource_spread,
        _need_resource,
    ),
    FigureSpec(
        "session_risk",
        "step risk per trace of each agent's riskiest session",
        _draw.sessions,
        _need_agents_with(
            "sessions",
            "no stored per-trace session risks: needs a results directory with session metrics",
        ),
    ),
)


def draw_figure(name: str, data: FigureData) -> Figure:
    """Draw one figure of the set (a name from :data:`FIGURES`) in the house style.

    The figure is a ``matplotlib.figure.Figure`` (not registered with pyplot): show it in a
    notebook with ``display(fig)``, save it with :func:`~reliability_lab.plots.save_figure`.

    Raises
    ------
    ValueError
        An unknown name (the valid ones are listed), or data that cannot support the figure
        (the reason is given).
    """
    specs = {spec.name: spec for spec in FIGURES}
    if name not in specs:
        raise ValueError(f"figure {name!r} is not in the figure set; choose one of {list(specs)}")
    reason = specs[name].needs(data)
    if reason is not None:
        raise ValueError(f"figure {name!r} cannot be drawn from {data.source}: {reason}")
    with paper_style():
        return add_provenance(specs[name].draw(data), data)


@dataclass(frozen=True)
class SavedFigures:
    """What :func:`save_all` wrote and what it left out."""

    directory: Path
    """Where the files are."""
    written: dict[str, list[Path]]
    """Figure name → its files (PDF, PNG)."""
    skipped: dict[str, str]
    """Figure name → why the data cannot support it."""


def save_all(
    source: pd.DataFrame | str | os.PathLike[str] | FigureData,
    out_dir: str | os.PathLike[str],
    *,
    formats: tuple[str, ...] = ("pdf", "png"),
    only: Sequence[str] | None = None,
    **options: Any,
) -> SavedFigures:
    """Write the whole figure set (:data:`FIGURES`) as PDF and PNG into ``out_dir``.

    Parameters
    ----------
    source : path-like, DataFrame or FigureData
        A results directory, a run table, or data from :func:`figure_data`.
    out_dir : path-like
        Created if missing; existing files of the same names are replaced.
    formats : tuple of str
        File formats, default PDF (vector, for papers) and PNG.
    only : sequence of str, optional
        Names of the figures to write (default: all); an unknown name is a ``ValueError``
        listing the valid ones.
    **options
        Passed to :func:`figure_data` (``report``, ``profile``, ``n_boot``, ``seed``).

    Returns
    -------
    SavedFigures
        The files written per figure, and the figures left out with the reason (e.g. no
        reliability diagram when no run has a confidence).
    """
    names = [spec.name for spec in FIGURES]
    unknown = [n for n in only or () if n not in names]
    if unknown:
        raise ValueError(f"figure(s) {unknown} not in the figure set; choose from {names}")
    specs = [spec for spec in FIGURES if only is None or spec.name in only]
    data = source if isinstance(source, FigureData) else figure_data(source, **options)
    out = Path(out_dir)
    written: dict[str, list[Path]] = {}
    skipped: dict[str, str] = {}
    with paper_style():
        for spec in specs:
            reason = spec.needs(data)
            if reason is not None:
                skipped[spec.name] = reason
                _log.info("figure %s skipped: %s", spec.name, reason)
                continue
            fig = add_provenance(spec.draw(data), data)
            written[spec.name] = save_figure(fig, out / spec.name, formats=formats)
    out.mkdir(parents=True, exist_ok=True)
    write_manifest(out, data, specs, written, skipped)
    return SavedFigures(directory=out, written=written, skipped=skipped)
