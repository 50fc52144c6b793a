"""pass^k and pass@k per agent, for every k the runs allow.

Conventions: docs/methodology.md, "pass^k and pass@k".

The report's metrics are single numbers; pass^k is a curve in k. :func:`pass_k_table` gives
it per agent from the baseline runs that were attempted (infrastructure errors left out, as
everywhere), for k = 1 … the fewest runs any of the agent's tasks has, so that every point
uses every task. It is what ``summary.json`` (``pass_k``) and the console print, for our own
experiments and for imported logs alike.
"""

from __future__ import annotations

import pandas as pd

from reliability_lab.metrics.views import pass_hat_k_curve
from reliability_lab.runs import BASELINE, is_infrastructure_error, validate_run_table

__all__ = ["pass_k_table"]


def pass_k_table(runs: pd.DataFrame) -> pd.DataFrame:
    """pass^k and pass@k per agent and k on the attempted baseline runs.

    Parameters
    ----------
    runs : DataFrame
        A run table (docs/run_table.md).

    Returns
    -------
    DataFrame
        Columns ``agent``, ``k``, ``pass_hat_k``, ``pass_at_k``, ``n_tasks``: one row per agent
        and k = 1 … K_min, K_min being the fewest attempted baseline runs of any of the agent's
        tasks. An agent without attempted baseline runs has no rows.

    Examples
    --------
    >>> runs = pd.DataFrame({"agent": "a", "task_id": list("xxxyyy"), "run": [0, 1, 2] * 2,
    ...                      "success": [1, 1, 0, 1, 1, 1]})
    >>> pass_k_table(runs)[["k", "pass_hat_k"]].round(4).values.tolist()  # task x: C(2,k)/C(3,k)
    [[1.0, 0.8333], [2.0, 0.6667], [3.0, 0.5]]
    """
    table = validate_run_table(runs, source="pass_k_table")
    attempted = ~is_infrastructure_error(table["error"]) if "error" in table else True
    base = table.loc[attempted & (table["condition"] == BASELINE)]
    rows = []
    for agent, group in base.groupby("agent", sort=False):
        curve = pass_hat_k_curve(group["success"].to_numpy(), group["task_id"].to_numpy())
        n_tasks = group["task_id"].nunique()
        rows += [
            {
                "agent": agent,
                "k": int(k),
                "pass_hat_k": float(hat),
                "pass_at_k": float(at),
                "n_tasks": n_tasks,
            }
            for k, hat, at in zip(curve.k, curve.pass_hat_k, curve.pass_at_k, strict=True)
        ]
    return pd.DataFrame(rows, columns=["agent", "k", "pass_hat_k", "pass_at_k", "n_tasks"])
