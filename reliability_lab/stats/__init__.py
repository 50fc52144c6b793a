"""Statistics on top of the report: paired agent comparison, run planning, simulation.

- :func:`compare_agents` — two agents on their common tasks: differences with paired
  bootstrap intervals, paired tests and Holm-adjusted p-values (docs/statistics.md);
- :func:`plan_runs` — from a pilot, the tasks and runs per task a target interval
  half-width needs, with the reasoning;
- :mod:`.simulate` — run tables from agents with known parameters
  (:class:`SimulatedAgent`, :class:`Simulation`, :func:`simulate_runs`);
- :class:`AdaptiveAllocator` — which tasks get the next runs of an adaptive experiment.

Built on :mod:`reliability_lab.report`; nothing in ``report`` imports this package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reliability_lab._lazy import lazy_exports

if TYPE_CHECKING:
    from reliability_lab.stats.adaptive import AdaptiveAllocator, AdaptiveStep
    from reliability_lab.stats.compare import compare_agents
    from reliability_lab.stats.planning import RunPlan, plan_runs
    from reliability_lab.stats.simulate import SimulatedAgent, Simulation, simulate_runs

_WHERE = {
    "adaptive": ("AdaptiveAllocator", "AdaptiveStep"),
    "compare": ("compare_agents",),
    "planning": ("RunPlan", "plan_runs"),
    "simulate": ("SimulatedAgent", "Simulation", "simulate_runs"),
}
__getattr__, __dir__ = lazy_exports(
    __name__,
    {name: f"{__name__}.{module}" for module, names in _WHERE.items() for name in names},
)

__all__ = [
    "AdaptiveAllocator",
    "AdaptiveStep",
    "RunPlan",
    "SimulatedAgent",
    "Simulation",
    "compare_agents",
    "plan_runs",
    "simulate_runs",
]
