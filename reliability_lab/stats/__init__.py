"""Deprecated: ``reliability_lab.stats`` was folded into :mod:`reliability_lab.report`.

Paired comparison, run planning and adaptive allocation are :mod:`reliability_lab.report`
(``compare_agents``, ``plan_runs``, ``AdaptiveAllocator``); simulated run tables are
:mod:`reliability_lab.simulate`. The old names import from here with a DeprecationWarning
until the next release (docs/architecture.md).
"""

from __future__ import annotations

from reliability_lab._moved import deprecated_exports

_WHERE = {
    "AdaptiveAllocator": "reliability_lab.report.allocation",
    "AdaptiveStep": "reliability_lab.report.allocation",
    "compare_agents": "reliability_lab.report.compare",
    "RunPlan": "reliability_lab.report.planning",
    "plan_runs": "reliability_lab.report.planning",
    "SimulatedAgent": "reliability_lab.simulate",
    "Simulation": "reliability_lab.simulate",
    "simulate_runs": "reliability_lab.simulate",
}
__getattr__, __dir__ = deprecated_exports(__name__, _WHERE)

__all__: list[str] = []  # nothing new is exported from a deprecated package
