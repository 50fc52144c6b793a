"""From the run table to a per-agent reliability report.

- :func:`reliability_report` — every metric per agent with task-bootstrap intervals;
- :data:`METRIC_REGISTRY` — every metric: symbol, function, dimension, variants, when undefined;
- :func:`robustness_by_variant` — accuracy and robustness per perturbation variant;
- :func:`pass_k_table` — pass^k and pass@k per agent for every k the runs allow;
- :func:`robustness_by_intensity` — the same pooled per intensity (fault rate, preset, strength);
- :func:`safety_findings`, :func:`violation_counts` — safety findings by constraint and severity;
- :data:`PROFILES` — named metric conventions (``default``, ``preprint``; defined with the
  registry in :mod:`reliability_lab.metrics`);
- :func:`format_report` — the report as indented text for terminals and logs;
- :func:`compare_agents` — two agents on their common tasks: paired bootstrap differences,
  paired tests, Holm-adjusted p-values (docs/statistics.md);
- :func:`plan_runs` — from a pilot, the tasks and runs per task a target half-width needs;
- :class:`AdaptiveAllocator` — which tasks get the next runs of an adaptive experiment.

Per-task sufficient statistics (:mod:`._taskstats`) give the point estimate and every bootstrap
replicate from one code path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reliability_lab._lazy import lazy_exports
from reliability_lab.metrics.profiles import PROFILES, MetricProfile, get_profile
from reliability_lab.metrics.registry import (
    DIMENSIONS,
    METRIC_REGISTRY,
    METRICS,
    REPORT_METRICS,
    MetricInfo,
    Variants,
    explain_undefined,
    metric_table_markdown,
)
from reliability_lab.report._report import (
    UNDEFINED_SHARE_WARN,
    reliability_report,
    robustness_by_variant,
)
from reliability_lab.report.passk import pass_k_table
from reliability_lab.report.robustness import robustness_by_intensity
from reliability_lab.report.robustness_intervals import robustness_intervals_by_intensity
from reliability_lab.report.safety import safety_findings, safety_scope, violation_counts
from reliability_lab.report.text import format_report, value_with_ci

if TYPE_CHECKING:
    from reliability_lab.report.allocation import AdaptiveAllocator, AdaptiveStep
    from reliability_lab.report.compare import compare_agents
    from reliability_lab.report.planning import RunPlan, plan_runs

# The statistics on top of the report load on first use.
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "AdaptiveAllocator": "reliability_lab.report.allocation",
        "AdaptiveStep": "reliability_lab.report.allocation",
        "RunPlan": "reliability_lab.report.planning",
        "compare_agents": "reliability_lab.report.compare",
        "plan_runs": "reliability_lab.report.planning",
    },
)

__all__ = [
    "DIMENSIONS",
    "METRICS",
    "METRIC_REGISTRY",
    "PROFILES",
    "REPORT_METRICS",
    "UNDEFINED_SHARE_WARN",
    "AdaptiveAllocator",
    "AdaptiveStep",
    "MetricInfo",
    "MetricProfile",
    "RunPlan",
    "Variants",
    "compare_agents",
    "explain_undefined",
    "format_report",
    "get_profile",
    "metric_table_markdown",
    "pass_k_table",
    "plan_runs",
    "reliability_report",
    "robustness_by_intensity",
    "robustness_by_variant",
    "robustness_intervals_by_intensity",
    "safety_findings",
    "safety_scope",
    "value_with_ci",
    "violation_counts",
]
