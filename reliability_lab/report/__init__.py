"""From the run table to a per-agent reliability report.

- :func:`reliability_report` — every metric per agent with task-bootstrap intervals;
- :func:`robustness_by_variant` — accuracy and robustness per perturbation variant;
- :mod:`.profiles` — named metric conventions (``default``, ``preprint``);
- :func:`format_report` — the report as indented text for terminals and logs.

Per-task sufficient statistics (:mod:`._taskstats`) give the point estimate and every bootstrap
replicate from one code path.
"""

from __future__ import annotations

from reliability_lab.report._report import METRICS, reliability_report, robustness_by_variant
from reliability_lab.report._taskstats import R_DIMENSIONS
from reliability_lab.report.profiles import PROFILES, MetricProfile, get_profile
from reliability_lab.report.text import format_report, value_with_ci

__all__ = [
    "METRICS",
    "PROFILES",
    "R_DIMENSIONS",
    "MetricProfile",
    "format_report",
    "get_profile",
    "reliability_report",
    "robustness_by_variant",
    "value_with_ci",
]
