"""A section of the simulation study: estimators of exp(−CV) tried for the ``unbiased`` C_res
and C_conf (issue 24, item 1; see tools/simulation_study.py).

Each estimator sees a task's K positive values; its per-task bias and standard deviation are
measured under log-normal and gamma values (the families the target names) and under Weibull
values (a family no estimator was built for):

- ``jackknife``: the project's (``resource_per_task(..., "jackknife")``);
- ``log-normal fit``: CV = √(exp(s²) − 1) from the unbiased variance s² of the logs — right
  when the values are log-normal;
- ``calibrated``: a linear combination of statistics of the sample (powers of the sample CV
  and of the standard deviation of the logs), its weights chosen by least squares so that
  its expectation matches exp(−CV) on a grid of CVs under both log-normal and gamma values
  (a small variance penalty keeps it stable). It is what "unbiased for both families" can
  buy: the fitted families only.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from reliability_lab.metrics._arrays import Groups
from reliability_lab.metrics.consistency import resource_per_task

FAMILIES = ("log-normal", "gamma", "Weibull")
FIT_GRID = tuple(np.linspace(0.05, 2.0, 14))
PENALTY = 1e-3


def _weibull_shape(cv: float) -> float:
    """Weibull shape with coefficient of variation ``cv`` (bisection on log-shape)."""
    lo, hi = math.log(0.1), math.log(50.0)
    for _ in range(80):
        mid = (lo + hi) / 2
        k = math.exp(mid)
        ratio = math.exp(math.lgamma(1 + 2 / k) - 2 * math.lgamma(1 + 1 / k)) - 1
        lo, hi = (mid, hi) if math.sqrt(ratio) > cv else (lo, mid)
    return math.exp((lo + hi) / 2)


def draw(family: str, cv: float, shape: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    """Positive values of mean 1 and coefficient of variation ``cv``."""
    if family == "log-normal":
        sigma = math.sqrt(math.log1p(cv**2))
        return np.exp(sigma * rng.standard_normal(shape) - sigma**2 / 2)
    if family == "gamma":
        return rng.gamma(1 / cv**2, cv**2, shape)
    k = _weibull_shape(cv)
    return rng.weibull(k, shape) / math.exp(math.lgamma(1 + 1 / k))


def _features(x: np.ndarray) -> np.ndarray:
    c = x.std(axis=1, ddof=1) / x.mean(axis=1)
    s = np.log(x).std(axis=1, ddof=1)
    ones = np.ones_like(c)
    return np.column_stack([ones, c, c**2, c**3, s, s**2, s**3, c * s, np.exp(-c), np.exp(-s)])


def fit_calibrated(k: int, n_tasks: int, rng: np.random.Generator) -> np.ndarray:
    """Weights of the calibrated estimator at K = ``k`` (log-normal and gamma, FIT_GRID)."""
    means, covariances, targets = [], [], []
    for family in ("log-normal", "gamma"):
        for cv in FIT_GRID:
            f = _features(draw(family, float(cv), (n_tasks, k), rng))
            means.append(f.mean(axis=0))
            covariances.append(np.cov(f.T))
            targets.append(math.exp(-cv))
    m = np.array(means)
    penalty = PENALTY * np.mean(covariances, axis=0)
    return np.asarray(np.linalg.solve(m.T @ m + penalty, m.T @ np.array(targets)))


def _estimates(x: np.ndarray, weights: np.ndarray) -> dict[str, np.ndarray]:
    n, k = x.shape
    groups = Groups(codes=np.repeat(np.arange(n), k), labels=np.arange(n))
    s2 = np.log(x).var(axis=1, ddof=1)
    return {
        "jackknife": resource_per_task({"v": x.ravel()}, groups, "jackknife"),
        "log-normal fit": np.exp(-np.sqrt(np.expm1(s2))),
        "calibrated": _features(x) @ weights,
    }


def spread_alternatives_table(n_tasks: int, ks: tuple[int, ...] = (3, 5, 10, 20)) -> pd.DataFrame:
    """Per family, CV and estimator: per-task bias (and SD) of exp(−CV) at each K."""
    rng = np.random.default_rng(2024)
    weights = {k: fit_calibrated(k, n_tasks, rng) for k in ks}
    cells: dict[tuple[str, float, str], dict[str, str]] = {}
    for family in FAMILIES:
        for cv in (0.25, 0.5, 1.0, 1.5):
            for k in ks:
                x = draw(family, cv, (n_tasks, k), rng)
                for name, value in _estimates(x, weights[k]).items():
                    err = value - math.exp(-cv)
                    row = cells.setdefault((family, cv, name), {})
                    row[f"K={k}"] = f"{err.mean():+.3f} ({err.std():.2f})"
    return pd.DataFrame(
        [{"values": f, "CV": cv, "estimator": e, **row} for (f, cv, e), row in cells.items()]
    )
