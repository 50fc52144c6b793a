"""Outcomes across repeated runs: the task × trial matrix and pass^k against k."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.colors import ListedColormap
from matplotlib.patches import Patch

from reliability_lab.metrics import PassHatKCurve
from reliability_lab.plots._checks import require_columns, require_single
from reliability_lab.plots.style import PALETTE, new_axes

__all__ = ["plot_outcome_matrix", "plot_pass_hat_k"]

_SUCCESS, _FAILURE = PALETTE[0], PALETTE[1]


def _outcome_matrix(runs: pd.DataFrame, *, sort: bool = True) -> pd.DataFrame:
    """Success (1.0/0.0, NaN = no such run) as a task × run table of one agent and condition.

    With ``sort`` tasks are ordered by their number of successes, most first (ties keep
    their label order); otherwise by label.
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
    matrix = matrix.sort_index()
    if sort:
        order = np.argsort(-matrix.sum(axis=1).to_numpy(), kind="stable")
        matrix = matrix.iloc[order]
    return matrix


def plot_outcome_matrix(
    runs: pd.DataFrame, *, ax: Axes | None = None, sort: bool = True, **kwargs: Any
) -> Axes:
    """Each run's outcome as a cell: tasks along x (most successes first), trials along y.

    ``runs`` is a run table of one agent and one condition (columns ``task_id``, ``run``,
    ``success``). Missing runs are left blank. Extra ``kwargs`` go to ``Axes.imshow``.
    """
    matrix = _outcome_matrix(runs, sort=sort)
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
    ax.set(xlabel=f"task ({n_tasks}, most successes first)" if sort else "task", ylabel="run")
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
    ax.plot(curve.k, curve.pass_hat_k, marker="o", ms=4, label=f"{name}pass^k", **kwargs)
    if references:
        ax.plot(
            curve.k,
            curve.independent,
            ls="--",
            lw=1.0,
            label=f"{name}mean of p̂ₜᵏ (per-task rates)",
            **kwargs,
        )
        ax.plot(curve.k, curve.naive, ls=":", lw=1.2, label=f"{name}(pass^1)ᵏ (pooled)", **kwargs)
    if pass_at_k:
        ax.plot(curve.k, curve.pass_at_k, ls="-.", lw=1.0, label=f"{name}pass@k", **kwargs)
    ax.set_xticks(curve.k)
    ax.set(ylim=(0, 1.02), xlabel="k (runs that must all succeed)", ylabel="probability")
    ax.legend(frameon=False, fontsize="small")
    return ax
