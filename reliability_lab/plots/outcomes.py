"""Outcomes across repeated runs: the task × trial grid, the tasks' success rates and pass^k
against k."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.colors import ListedColormap
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator

from reliability_lab.metrics import PassHatKCurve
from reliability_lab.plots._checks import require_columns, require_single
from reliability_lab.plots.style import (
    OUTCOME_COLORS,
    PALETTE,
    agent_colors,
    metric_label,
    new_axes,
)

__all__ = ["plot_outcome_matrix", "plot_pass_hat_k", "plot_success_rate_histogram"]

_SUCCESS, _FAILURE = OUTCOME_COLORS["success"], OUTCOME_COLORS["failure"]


def _outcome_matrix(
    runs: pd.DataFrame, *, sort: bool = True, tasks: Sequence[str] | None = None
) -> pd.DataFrame:
    """Success (1.0/0.0, NaN = no such run) as a task × run table of one agent and condition.

    Tasks in the order of ``tasks`` when given (tasks without runs are empty columns); else,
    with ``sort``, by their number of successes, most first (ties keep their label order);
    else by label.
    """
    require_columns(runs, ("task_id", "run", "success"))
    require_single(runs, "agent")
    require_single(runs, "condition")
    require_single(runs, "variant")
    dup = runs.duplicated(["task_id", "run"])
    if dup.any():
        first = runs.loc[dup].iloc[0]
        raise ValueError(
            f"runs: task {first['task_id']!r} run {first['run']!r} appears more than once"
        )
    matrix = runs.pivot(index="task_id", columns="run", values="success").astype(float)
    if tasks is not None:
        unknown = sorted(set(map(str, matrix.index)) - set(map(str, tasks)))
        if unknown:
            raise ValueError(f"tasks: does not list task(s) {unknown[:5]} that runs have")
        return matrix.reindex(list(tasks))
    matrix = matrix.sort_index()
    if sort:
        order = np.argsort(-matrix.sum(axis=1).to_numpy(), kind="stable")
        matrix = matrix.iloc[order]
    return matrix


def plot_outcome_matrix(
    runs: pd.DataFrame,
    *,
    ax: Axes | None = None,
    sort: bool = True,
    tasks: Sequence[str] | None = None,
    **kwargs: Any,
) -> Axes:
    """Each run's outcome as a cell: tasks along x (most successes first), trials along y;
    success dark grey, failure light grey (:data:`~reliability_lab.plots.style.OUTCOME_COLORS`).

    ``runs`` is a run table of one agent and one condition (columns ``task_id``, ``run``,
    ``success``). Missing runs are left blank. ``tasks`` fixes the order of the columns (e.g.
    the same for several agents stacked in one figure). Extra ``kwargs`` go to
    ``Axes.imshow``.
    """
    matrix = _outcome_matrix(runs, sort=sort, tasks=tasks)
    n_tasks, n_runs = matrix.shape
    ax = new_axes(ax, size=(min(7.0, max(3.4, 0.12 * n_tasks + 1.0)), 0.25 * n_runs + 1.2))
    kwargs.setdefault("cmap", ListedColormap([_FAILURE, _SUCCESS]))
    kwargs.setdefault("aspect", "auto")
    ax.imshow(matrix.to_numpy().T, vmin=0, vmax=1, interpolation="nearest", **kwargs)
    ax.set_yticks(np.arange(n_runs), [str(r) for r in matrix.columns])
    if n_tasks <= 30:
        ax.set_xticks(np.arange(n_tasks), [str(t) for t in matrix.index], rotation=90)
    else:
        ax.set_xticks([])
    order = "most successes first" if sort and tasks is None else "by label"
    ax.set(xlabel=f"task ({n_tasks}, {order})" if tasks is None else f"task ({n_tasks})")
    ax.set(ylabel="run")
    ax.grid(False)
    handles = [Patch(color=_SUCCESS, label="success"), Patch(color=_FAILURE, label="failure")]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    return ax


def plot_pass_hat_k(
    curve: PassHatKCurve,
    *,
    ax: Axes | None = None,
    label: str | None = None,
    references: bool = True,
    pass_at_k: bool = False,
    **kwargs: Any,
) -> Axes:
    """pass^k against k (solid), with the ``independent`` (dashed) and ``naive`` (dotted)
    reference curves of :func:`~reliability_lab.metrics.pass_hat_k_curve` and, optionally,
    pass@k (dash-dot). Call once per agent with a ``color`` to compare agents on one axes.
    """
    if not isinstance(curve, PassHatKCurve):
        raise TypeError(f"curve: expected a PassHatKCurve, got {type(curve).__name__}")
    if len(curve.k) == 0:
        raise ValueError("curve: no k values to plot")
    ax = new_axes(ax)
    kwargs.setdefault("color", PALETTE[0])
    name = f"{label}: " if label else ""
    hat = metric_label("pass^k")
    ax.plot(curve.k, curve.pass_hat_k, marker="o", ms=4, label=f"{name}{hat}", **kwargs)
    if references:
        ax.plot(
            curve.k,
            curve.independent,
            ls="--",
            lw=1.0,
            label=f"{name}mean of $\\hat{{p}}_t^k$ (per-task rates)",
            **kwargs,
        )
        naive = "(pass$^{1}$)$^k$ (pooled)"
        ax.plot(curve.k, curve.naive, ls=":", lw=1.2, label=f"{name}{naive}", **kwargs)
    if pass_at_k:
        at = metric_label("pass@k")
        ax.plot(curve.k, curve.pass_at_k, ls="-.", lw=1.0, label=f"{name}{at}", **kwargs)
    ax.set_xticks(curve.k)
    ax.set(ylim=(0, 1.02), xlabel="k (runs that must all succeed)", ylabel="probability")
    ax.legend(frameon=False, fontsize="small")
    return ax


def plot_success_rate_histogram(
    tasks: pd.DataFrame, *, ax: Axes | None = None, hue: str | None = "agent", **kwargs: Any
) -> Axes:
    """How many tasks succeed at each rate p̂ₜ: one bar per distinct rate (seaborn
    ``countplot``), side by side per ``hue`` value.

    Tasks at 0 and 1 are decided the same way on every run; tasks in between are where
    repeated runs disagree (what outcome consistency penalises).

    Parameters
    ----------
    tasks : DataFrame
        A :func:`~reliability_lab.metrics.per_task_consistency` table (``success_rate``
        column), or several stacked with a ``hue`` column naming the agent.
    hue : str or None
        Column whose values get side-by-side bars (ignored when absent).
    **kwargs
        Passed to ``seaborn.countplot``.

    Returns
    -------
    Axes
        One ``BarContainer`` per ``hue`` value (one without ``hue``), a bar per distinct rate
        in ascending order (x tick labels: the rates to two decimals).
    """
    import seaborn as sns

    require_columns(tasks, ("success_rate",), name="tasks")
    data = tasks.reset_index(drop=True)
    if data["success_rate"].isna().any():
        raise ValueError("tasks: success_rate has NaN values")
    by = hue if hue is not None and hue in data.columns else None
    rates = sorted(data["success_rate"].unique())
    ax = new_axes(ax, size=(max(3.4, 0.5 * len(rates) + 1.4), 2.6))
    if by is not None:
        data = data.assign(**{by: data[by].astype(str)})
        levels = list(dict.fromkeys(data[by]))  # in the order given
        kwargs.setdefault("hue_order", levels)
        kwargs.setdefault("palette", agent_colors(levels))
    else:
        kwargs.setdefault("color", PALETTE[0])
    kwargs.setdefault("saturation", 1.0)
    sns.countplot(data, x="success_rate", hue=by, order=rates, ax=ax, **kwargs)
    ax.set_xticks(np.arange(len(rates)), [f"{r:.2f}" for r in rates])
    ax.set(xlabel="task success rate $\\hat{p}_t$", ylabel="tasks")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # counts of tasks
    ax.grid(False, axis="x")
    if by is not None:
        ax.legend(frameon=False, fontsize="small", title=None)
    return ax
