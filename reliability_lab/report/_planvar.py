"""Variance at each K and the pilot-noise allowance of :func:`~reliability_lab.plan_runs`.

**Exact C_out variance.** A task's C_out estimate is a polynomial of degree ≤ 4 in its success
count X ~ Binomial(K, p) (corrected: (2X/K − 1)²; unbiased: 1 − 4X(K − X)/(K(K − 1))), so its
mean and second moment given p are polynomials of degree ≤ 4 in p, and their averages over the
task population need only E[p^j], j ≤ 4. Each E[p^j] has an unbiased estimate from a pilot task
with K₀ ≥ 4 runs: the falling factorial X^(j)/K₀^(j). The per-task variance of the estimate at
K, Var_K = E[θ̂²] − E[θ̂]², is then exact at every K (the σ_b² + σ_w²/K model misses the
1/K² terms: 15 % at K = 3 for the unbiased C_out).

**Allowance for noise.** A plan from a pilot of T₀ tasks uses an estimated variance V̂; the
experiment then run reports its own interval, from its own estimated variance. Under a normal
approximation V̂ ~ V·χ²(T₀ − 1)/(T₀ − 1) and the new estimate S² ~ V·χ²(T − 1)/(T − 1), so the
new half-width z·S/√T meets the target h with probability ``assurance`` when
T = z²·V̂·c/h² with c the ``assurance`` quantile of F(T − 1, T₀ − 1) (solved by fixed-point
iteration since c depends on T).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

__all__ = ["allowance_tasks", "boundary_tasks", "outcome_variance_at"]

_NODES = np.linspace(0.1, 0.9, 5)


def _kernel(variant: str, k: int) -> Callable[[np.ndarray], np.ndarray] | None:
    if variant == "corrected":
        return lambda x: (2 * x / k - 1) ** 2
    if variant == "unbiased":
        return lambda x: 1 - 4 * x * (k - x) / (k * (k - 1))
    return None


def _poly(g: Callable[[np.ndarray], np.ndarray], k: int) -> np.ndarray:
    """Coefficients (p⁰ … p⁴) of E[g(X)], X ~ Binomial(k, p), for g of degree ≤ 4 in X."""
    from scipy.stats import binom  # loaded on first use

    x = np.arange(k + 1)
    values = [float(np.sum(binom.pmf(x, k, p) * g(x))) for p in _NODES]
    return np.linalg.solve(np.vander(_NODES, 5, increasing=True), values)


def _moments(successes: np.ndarray, runs: np.ndarray) -> np.ndarray | None:
    """Unbiased E[p^j], j = 0 … 4, over tasks (None unless every task has ≥ 4 runs)."""
    if runs.size == 0 or runs.min() < 4:
        return None
    out = np.ones(5)
    num = np.ones_like(successes, dtype=float)
    den = np.ones_like(runs, dtype=float)
    for j in range(1, 5):
        num = num * (successes - j + 1)
        den = den * (runs - j + 1)
        out[j] = float(np.mean(num / den))
    return out


def outcome_variance_at(
    variant: str, k: int, successes: np.ndarray, runs: np.ndarray
) -> float | None:
    """Per-task variance of the C_out estimate at K = ``k`` over the pilot's task population
    (None when not available: another variant, or a pilot task with fewer than 4 runs)."""
    kernel = _kernel(variant, k)
    moments = _moments(np.asarray(successes, dtype=float), np.asarray(runs, dtype=float))
    if kernel is None or moments is None or k < 2:
        return None
    mean = float(_poly(kernel, k) @ moments)
    second = float(_poly(lambda x: kernel(x) ** 2, k) @ moments)
    return max(second - mean**2, 0.0)


def allowance_tasks(
    variance: float, t0: int, z: float, halfwidth: float, assurance: float
) -> tuple[int, float]:
    """Tasks T and factor c with T = ⌈z²·variance·c/h²⌉, c the F(T − 1, T₀ − 1) quantile."""
    from scipy.stats import f  # loaded on first use

    base = z**2 * variance / halfwidth**2
    t, c = max(2, math.ceil(base)), 1.0
    for _ in range(50):
        c = float(f.ppf(assurance, max(t - 1, 1), max(t0 - 1, 1)))
        new = max(2, math.ceil(base * c))
        if new == t:
            break
        t = new
    return t, c


def boundary_tasks(level: float, halfwidth: float) -> int:
    """Tasks for a Clopper–Pearson interval of T boundary tasks out of T to be ±h wide:
    (1 − (α/2)^(1/T))/2 ≤ h (the interval a report gives when every task is at 0 or 1).

    Examples
    --------
    >>> boundary_tasks(0.95, 0.05)  # (1 − 0.025^(1/T)) ≤ 0.1
    36
    """
    if halfwidth >= 0.5:
        return 1
    return math.ceil(math.log((1 - level) / 2) / math.log(1 - 2 * halfwidth))
