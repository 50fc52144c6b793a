"""The experiment spec: config models (adaptive settings and gates included), YAML, plan, seeds.

A YAML config (see ``experiments/README.md``) names agents, an environment and its tasks, K
runs, conditions, concurrency, a seed and gates; :func:`load_config` validates it,
:func:`build_plan` expands it into the runs to execute and :func:`run_seed` gives each run its
seed. Executing the plan is :mod:`reliability_lab.runner` (:func:`~reliability_lab.run_experiment`);
the results directory it writes is :mod:`reliability_lab.results` (docs/architecture.md).

The names that lived here before (``run_experiment``, ``load_results``, ``summarize_directory``,
``format_summary``, …) still import from this package, with a DeprecationWarning, until the
next release; so does the old submodule ``reliability_lab.experiment.store`` (see
:mod:`reliability_lab._moved`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from reliability_lab._lazy import lazy_exports
from reliability_lab._moved import deprecated_exports

if TYPE_CHECKING:
    from reliability_lab.experiment.config import (
        AdaptiveSettings,
        AgentConfig,
        ConditionConfig,
        EnvironmentConfig,
        ExperimentConfig,
        load_config,
        parse_config,
    )
    from reliability_lab.experiment.gates import GateConfig, GateResult, evaluate_gates
    from reliability_lab.experiment.plan import build_plan, resolve_tasks
    from reliability_lab.experiment.seeds import run_seed
    from reliability_lab.perturbations import list_conditions, register_condition

# Public names loaded on first use (importing a submodule such as ``.seeds`` stays cheap).
_spec_getattr, _spec_dir = lazy_exports(
    __name__,
    {
        "AdaptiveSettings": "reliability_lab.experiment.config",
        "AgentConfig": "reliability_lab.experiment.config",
        "ConditionConfig": "reliability_lab.experiment.config",
        "EnvironmentConfig": "reliability_lab.experiment.config",
        "ExperimentConfig": "reliability_lab.experiment.config",
        "GateConfig": "reliability_lab.experiment.gates",
        "GateResult": "reliability_lab.experiment.gates",
        "build_plan": "reliability_lab.experiment.plan",
        "evaluate_gates": "reliability_lab.experiment.gates",
        "list_conditions": "reliability_lab.perturbations",
        "load_config": "reliability_lab.experiment.config",
        "parse_config": "reliability_lab.experiment.config",
        "register_condition": "reliability_lab.perturbations",
        "resolve_tasks": "reliability_lab.experiment.plan",
        "run_seed": "reliability_lab.experiment.seeds",
    },
)
# Deprecated: the engine and the results directory moved out of this package.
_old_getattr, _old_dir = deprecated_exports(
    __name__,
    {
        "ExperimentError": "reliability_lab.runner.runner",
        "ExperimentOutcome": "reliability_lab.runner.runner",
        "ExperimentSummary": "reliability_lab.results.summary",
        "arun_experiment": "reliability_lab.runner.runner",
        "format_summary": "reliability_lab.results.console",
        "load_results": "reliability_lab.results.read",
        "run_experiment": "reliability_lab.runner.runner",
        "score_metrics": "reliability_lab.results.summary",
        "summarize_directory": "reliability_lab.results.summary",
    },
    depth=1,
)


def __getattr__(name: str) -> Any:
    try:
        return _spec_getattr(name)
    except AttributeError:
        return _old_getattr(name)


__dir__: Callable[[], list[str]] = _spec_dir

__all__ = [
    "AdaptiveSettings",
    "AgentConfig",
    "ConditionConfig",
    "EnvironmentConfig",
    "ExperimentConfig",
    "GateConfig",
    "GateResult",
    "build_plan",
    "evaluate_gates",
    "list_conditions",
    "load_config",
    "parse_config",
    "register_condition",
    "resolve_tasks",
    "run_seed",
]
