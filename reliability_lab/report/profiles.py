"""Metric profiles: named option sets that reproduce a given version of the metrics exactly."""

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
    outcome_variant : C_out variant, ``corrected`` ((2p̂−1)²) or ``literal`` (page formula).
    distribution_variant : C_traj_d variant (see ``DISTRIBUTION_VARIANTS``).
    binning : ECE bin edges, ``floor`` (exact k/10 edges) or ``linspace`` (authors' code).
    n_bins : number of equal-width ECE bins.
    """

    name: str
    outcome_variant: str
    distribution_variant: str
    binning: str
    n_bins: int = 10

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


PROFILES: dict[str, MetricProfile] = {
    # The conventions of docs/methodology.md.
    "default": MetricProfile("default", "corrected", "distance_base2", "floor"),
    # The conventions of the code behind the preprint's published numbers.
    "preprint": MetricProfile("preprint", "literal", "distance_ln", "linspace"),
}


def get_profile(profile: str | MetricProfile) -> MetricProfile:
    """Look up a profile by name (or pass a :class:`MetricProfile` through)."""
    if isinstance(profile, MetricProfile):
        return profile
    if profile not in PROFILES:
        raise ValueError(f"profile={profile!r} is not valid; choose one of {list(PROFILES)}")
    return PROFILES[profile]
