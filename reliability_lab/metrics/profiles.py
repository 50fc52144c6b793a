"""Metric profiles: named option sets that reproduce a given version of the metrics exactly.

Which quantity each profile estimates (docs/statistics.md, "Which number each profile
estimates"): ``default`` and ``preprint`` give the plug-in values at the K runs that were made,
the numbers published work reports; ``unbiased`` gives estimates of the K → ∞ per-task values
((2p − 1)² for C_out), comparable between experiments with different K.
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
    resource_variant : C_res variant, ``plug_in`` (exp(−mean CV)) or ``jackknife``.
    """

    name: str
    outcome_variant: str
    distribution_variant: str
    binning: str
    n_bins: int = 10
    confidence_variant: str = "plug_in"
    resource_variant: str = "plug_in"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


PROFILES: dict[str, MetricProfile] = {
    # The conventions of docs/methodology.md; reproduces the authors' current numbers.
    "default": MetricProfile("default", "corrected", "distance_base2", "floor"),
    # The conventions of the code behind the preprint's published numbers.
    "preprint": MetricProfile("preprint", "literal", "distance_ln", "linspace"),
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
