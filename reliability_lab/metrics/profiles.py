"""Metric profiles: named option sets that reproduce a given version of the metrics exactly.

Which quantity each profile estimates (docs/statistics.md, "Which number each profile
estimates"): ``default``, ``preprint`` and ``hal`` give the plug-in values at the K runs that
were made, the numbers published work reports; ``unbiased`` gives estimates of the K → ∞
per-task values ((2p − 1)² for C_out), comparable between experiments with different K.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from reliability_lab.runs import RESOURCE_COLUMNS

__all__ = [
    "PROFILES",
    "TIME_RESOURCES",
    "MetricProfile",
    "get_profile",
    "resources_used",
    "with_resources",
]

#: Resources that measure elapsed time: they vary with machine load, so a simulated or cached
#: rerun of the same config and seed reproduces every column but these.
TIME_RESOURCES = ("wall_time_s", "call_latency_s")


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
    resources : the resource columns C_res averages over; ``None`` = every recorded column of
        ``RESOURCE_COLUMNS`` (the paper's set). Wall time and per-call latency measure the
        machine's load as much as the agent: leave them out for reruns that must agree.
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
    resources: tuple[str, ...] | None = None

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


def with_resources(profile: MetricProfile, resources: Sequence[str] | None) -> MetricProfile:
    """``profile`` with C_res over ``resources`` (``None``: unchanged).

    Examples
    --------
    >>> with_resources(PROFILES["default"], ["cost_usd", "api_calls"]).resources
    ('cost_usd', 'api_calls')
    """
    if resources is None:
        return profile
    names = [resources] if isinstance(resources, str) else list(resources)
    unknown = [n for n in names if n not in RESOURCE_COLUMNS]
    if unknown or not names or len(set(names)) != len(names):
        raise ValueError(
            f"resources: {names!r} must be distinct names among {list(RESOURCE_COLUMNS)}"
            + (f"; unknown: {unknown}" if unknown else "")
        )
    return replace(profile, resources=tuple(names))


def resources_used(resources: Sequence[str] | None) -> list[str]:
    """The resource columns C_res may average over (each counts only where recorded)."""
    return list(RESOURCE_COLUMNS if resources is None else resources)


def get_profile(profile: str | MetricProfile) -> MetricProfile:
    """Look up a profile by name (or pass a :class:`MetricProfile` through)."""
    if isinstance(profile, MetricProfile):
        return profile
    if profile not in PROFILES:
        raise ValueError(f"profile={profile!r} is not valid; choose one of {list(PROFILES)}")
    return PROFILES[profile]
