"""Metric profiles: named option sets that reproduce a given version of the metrics exactly.

Which quantity each profile estimates (docs/statistics.md, "Which number each profile
estimates"): ``default``, ``preprint`` and ``hal`` give the plug-in values at the K runs that
were made, the numbers published work reports; ``unbiased`` gives estimates of the K → ∞
per-task values ((2p − 1)² for C_out), comparable between experiments with different K.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["PROFILES", "MetricProfile", "get_profile"]


@dataclass(frozen=True)
class MetricProfile:
    """Conventions behind every number of a report (recorded in each result file).

    Attributes
    ----------
    name : profile name.
    outcome_variant : C_out variant, ``corrected`` ((2p̂−1)²), ``literal`` (page formula) or
        ``unbiased`` (1 − 4s², unbiased for (2p−1)² at every K).
    distribution_variant : C_traj_d variant (see ``DISTRIBUTION_VARIANTS``).
    binning : ECE bin edges, ``floor`` (exact k/10 edges) or ``linspace`` (authors' code).
    n_bins : number of equal-width ECE bins.
    confidence_variant : C_conf variant, ``plug_in`` (exp(−CV)) or ``jackknife``.
    resource_variant : C_res variant, ``plug_in`` (exp(−mean CV)), ``jackknife`` or ``hal``
        (HAL's treatment of zero resources and of tasks without errors).
    rc_variant : P_rc variant, ``exact`` (every coverage n/N) or ``grid`` (HAL's 100-point
        coverage grid and trapezoid rule).
    severity_weights : S_harm severity weights, ``documented`` (docs/safety.md, critical 1.0)
        or ``hal`` (HAL's, critical 0.5 by its fallback).
    """

    name: str
    outcome_variant: str
    distribution_variant: str
    binning: str
    n_bins: int = 10
    confidence_variant: str = "plug_in"
    resource_variant: str = "plug_in"
    rc_variant: str = "exact"
    severity_weights: str = "documented"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


PROFILES: dict[str, MetricProfile] = {
    # The conventions of docs/methodology.md (our reading of the paper's definitions).
    "default": MetricProfile("default", "corrected", "distance_base2", "floor"),
    # The conventions of the code behind the preprint's published numbers.
    "preprint": MetricProfile("preprint", "literal", "distance_ln", "linspace"),
    # HAL's reliability_eval at its current commit, on every metric it computes
    # (docs/importers.md, "The hal profile"): JS divergence, linspace bins, its C_res rule,
    # its P_rc grid and its severity weights.
    "hal": MetricProfile(
        "hal",
        "corrected",
        "divergence_base2",
        "linspace",
        resource_variant="hal",
        rc_variant="grid",
        severity_weights="hal",
    ),
    # K-invariant estimators: unbiased C_out, jackknifed C_conf and C_res (docs/statistics.md).
    "unbiased": MetricProfile(
        "unbiased",
        "unbiased",
        "distance_base2",
        "floor",
        confidence_variant="jackknife",
        resource_variant="jackknife",
    ),
}


def get_profile(profile: str | MetricProfile) -> MetricProfile:
    """Look up a profile by name (or pass a :class:`MetricProfile` through)."""
    if isinstance(profile, MetricProfile):
        return profile
    if profile not in PROFILES:
        raise ValueError(f"profile={profile!r} is not valid; choose one of {list(PROFILES)}")
    return PROFILES[profile]
