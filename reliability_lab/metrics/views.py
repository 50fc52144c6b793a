"""Per-task and per-k views of the metrics, for figures and tables.

The aggregate metrics average per-task values; these functions return the per-task values
themselves (from the same kernels, so the means match the aggregates exactly) and pass^k as
a curve over k beside two reference curves. Nothing here is a new metric.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from reliability_lab.metrics._arrays import (
    as_actions,
    as_groups,
    as_success,
    check_option,
    check_same_length,
    warn_undefined,
)
from reliability_lab.metrics.consistency import (
    OUTCOME_VARIANTS,
    _as_resource,
    outcome_per_task,
    resource_per_task,
)
from reliability_lab.metrics.passk import pass_at_k, pass_hat_k
from reliability_lab.metrics.trajectory import DISTRIBUTION_VARIANTS, trajectory_pairs

__all__ = ["PassHatKCurve", "pass_hat_k_curve", "per_task_consistency"]


def per_task_consistency(
    success: Any,
    task_id: Any,
    *,
    actions: Any = None,
    resources: Mapping[str, Any] | None = None,
    outcome_variant: str = "corrected",
    distribution_variant: str = "distance_base2",
) -> pd.DataFrame:
    """One row per task: its run count, success rate and consistency scores.

    Columns ``n_runs``, ``success_rate`` (p̂_t), ``C_out`` (per-task outcome consistency,
    e.g. (2p̂_t − 1)² for ``outcome_variant="corrected"``), and — when ``actions`` is given —
    ``C_traj_d`` and ``C_traj_s``, and — when ``resources`` is given — ``C_res``. Each is the
    per-task term that :func:`outcome_consistency`, :func:`trajectory_distribution_consistency`,
    :func:`trajectory_sequence_consistency` and :func:`resource_consistency` average, so the
    column mean over defined tasks equals the aggregate metric. A task where a term is
    undefined (fewer than two runs; fewer than two successful runs with actions; no resource
    recorded twice) gets NaN there, announced by one
    :class:`~reliability_lab.UndefinedMetricWarning`.

    Parameters
    ----------
    success : array of bool or 0/1, one per run
    task_id : array of task labels, one per run
    actions : sequence of per-run action-name lists, optional
    resources : mapping of resource name → per-run values (NaN = not recorded), optional
    outcome_variant : {"corrected", "literal"}
    distribution_variant : {"distance_base2", "distance_ln", "divergence_base2"}

    Returns
    -------
    DataFrame
        Indexed by task label (``task_id``), tasks in order of first appearance.

    Examples
    --------
    >>> table = per_task_consistency([1, 1, 1, 0, 0, 0], ["a", "a", "b", "b", "c", "c"])
    >>> table[["n_runs", "success_rate", "C_out"]]
             n_runs  success_rate  C_out
    task_id
    a             2           1.0    1.0
    b             2           0.5    0.0
    c             2           0.0    1.0
    >>> table = per_task_consistency([1, 1], ["t", "t"], actions=[["a", "b"], ["a", "c"]])
    >>> float(table.loc["t", "C_traj_s"])  # one substitution in two actions
    0.5
    """
    check_option(outcome_variant, "outcome_variant", OUTCOME_VARIANTS)
    check_option(distribution_variant, "distribution_variant", DISTRIBUTION_VARIANTS)
    y = as_success(success)
    groups = as_groups(task_id)
    check_same_length(success=y, task_id=groups.codes)
    n = groups.count()
    columns: dict[str, np.ndarray] = {
        "n_runs": n.astype(np.int64),
        "success_rate": groups.sum(y.astype(float)) / n,
        "C_out": outcome_per_task(y, groups, outcome_variant),
    }
    if actions is not None:
        acts = as_actions(actions)
        check_same_length(actions=acts, task_id=groups.codes)
        pairs = trajectory_pairs(acts, y, groups, distribution_variant=distribution_variant)
        columns["C_traj_d"], columns["C_traj_s"] = pairs.per_task()
    if resources is not None:
        if not isinstance(resources, Mapping):
            raise TypeError(
                f"resources: expected a mapping of resource name -> values, "
                f"got {type(resources).__name__}"
            )
        arrays = {name: _as_resource(v, name, len(groups.codes)) for name, v in resources.items()}
        columns["C_res"] = resource_per_task(arrays, groups)
    table = pd.DataFrame(columns, index=pd.Index(groups.labels, name="task_id"))
    undefined = {name: int(np.isnan(v).sum()) for name, v in columns.items() if name != "n_runs"}
    listed = ", ".join(f"{name} for {count} task(s)" for name, count in undefined.items() if count)
    if listed:
        warn_undefined(f"per_task_consistency: undefined (NaN): {listed}")
    return table


@dataclass(frozen=True)
class PassHatKCurve:
    """pass^k and pass@k for k = 1 … max_k, beside two reference curves.

    Attributes
    ----------
    k : ndarray of int
        1, 2, …, max_k.
    pass_hat_k : ndarray
        τ-bench pass^k, mean over tasks of C(c, k)/C(n, k).
    pass_at_k : ndarray
        pass@k, mean over tasks of 1 − C(n − c, k)/C(n, k).
    independent : ndarray
        Mean over tasks of p̂_t^k: k independent draws, with replacement, at each task's own
        observed success rate (the plug-in value; ≥ pass^k, equal for k = 1).
    naive : ndarray
        (pass^1)^k: every run an independent draw at the overall success rate, as if all
        tasks were equally hard.
    """

    k: np.ndarray
    pass_hat_k: np.ndarray
    pass_at_k: np.ndarray
    independent: np.ndarray
    naive: np.ndarray


def pass_hat_k_curve(success: Any, task_id: Any, *, max_k: int | None = None) -> PassHatKCurve:
    """pass^k over k = 1 … ``max_k`` with the references it is usually compared to.

    How fast pass^k falls with k is the reliability story: if every task were equally hard,
    pass^k would follow (pass^1)^k (``naive``); when success concentrates on some tasks
    (failures repeat on the same tasks) it falls much more slowly. ``independent`` is the
    mean of p̂_t^k over the tasks with at least k runs, the plug-in counterpart of pass^k.

    Parameters
    ----------
    success : array of bool or 0/1, one per run
    task_id : array of task labels, one per run
    max_k : int, optional
        Largest k; default the smallest number of runs of any task (so every point uses
        every task). Tasks with fewer than k runs are skipped with a warning, as in
        :func:`pass_hat_k`.

    Examples
    --------
    >>> curve = pass_hat_k_curve([1, 1, 1, 0, 0, 0], ["a", "a", "b", "b", "c", "c"])
    >>> curve.k.tolist(), curve.pass_hat_k.tolist()  # task b: C(1,2)/C(2,2) = 0
    ([1, 2], [0.5, 0.3333333333333333])
    >>> curve.independent.tolist(), curve.naive.tolist()  # (1 + 0.25 + 0)/3, 0.5²
    ([0.5, 0.4166666666666667], [0.5, 0.25])
    """
    y = as_success(success)
    groups = as_groups(task_id)
    check_same_length(success=y, task_id=groups.codes)
    n = groups.count()
    if max_k is None:
        max_k = int(n.min())
    if isinstance(max_k, bool) or not isinstance(max_k, int | np.integer) or max_k < 1:
        raise ValueError(f"max_k must be a positive integer, got {max_k!r}")
    ks = np.arange(1, int(max_k) + 1)
    rate = groups.sum(y.astype(float)) / n
    hat = np.array([pass_hat_k(y, groups.codes, int(k)) for k in ks])
    at = np.array([pass_at_k(y, groups.codes, int(k)) for k in ks])
    independent = np.array([np.mean(rate[n >= k] ** k) if (n >= k).any() else np.nan for k in ks])
    return PassHatKCurve(
        k=ks, pass_hat_k=hat, pass_at_k=at, independent=independent, naive=hat[0] ** ks
    )
