"""Honest intervals where the bootstrap has nothing to resample (docs/statistics.md, "Intervals").

- **One task**: resampling one task returns it every time, so every task-bootstrap interval
  has zero width whatever the data; the report leaves the intervals undefined (NaN) and warns.
- **A metric at its boundary on every task** (all runs succeeded: accuracy 1 and C_out 1; all
  failed: accuracy 0): every replicate repeats the point estimate and the percentile interval
  is [1, 1] or [0, 0]. The report then gives the task-level Clopper–Pearson interval of T
  boundary tasks out of T — [(α/2)^(1/T), 1] at 1, [0, 1 − (α/2)^(1/T)] at 0 — the exact
  interval for the share of tasks at the boundary, which bounds a [0, 1] metric that sits at
  the boundary on every observed task.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["boundary_interval", "degenerate_at_boundary"]

_TOL = 1e-12


def boundary_interval(value: float, n_tasks: int, alpha: float) -> tuple[float, float]:
    """Clopper–Pearson interval of ``n_tasks`` boundary tasks out of ``n_tasks``.

    Examples
    --------
    >>> lo, hi = boundary_interval(1.0, 20, 0.05)
    >>> round(lo, 4), hi  # 0.025 ** (1 / 20)
    (0.8316, 1.0)
    >>> boundary_interval(0.0, 20, 0.05)[1] == 1 - 0.025 ** (1 / 20)
    True
    """
    edge = (alpha / 2) ** (1 / n_tasks)
    return (edge, 1.0) if value >= 0.5 else (0.0, 1.0 - edge)


def degenerate_at_boundary(value: float, replicates: np.ndarray) -> bool:
    """True when the point estimate is 0 or 1 and every defined replicate repeats it."""
    if math.isnan(value) or min(abs(value), abs(value - 1.0)) > _TOL:
        return False
    defined = replicates[~np.isnan(replicates)]
    return bool(defined.size and np.all(np.abs(defined - value) <= _TOL))
