"""Experiments: configs, repeated runs of agents, results directories, summaries and gates.

A YAML config (see ``experiments/README.md``) names agents, an environment and its tasks, K
runs, conditions, concurrency, a seed and gates. :func:`run_experiment` executes every
(agent, task, condition, variant, run) once — resuming an interrupted directory — and writes
``header.json``, ``results.jsonl``, ``run_1/ … run_K/``, ``summary.json`` and
``aggregate_stats.json`` (docs/results.md). :func:`load_results` reads the run table back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reliability_lab._lazy import lazy_exports

if TYPE_CHECKING:
    from reliability_lab.experiment.config import (
        AgentConfig,
        ConditionConfig,
        EnvironmentConfig,
        ExperimentConfig,
        load_config,
        parse_config,
    )
    from reliability_lab.experiment.console import format_summary
    from reliability_lab.experiment.gates import GateConfig, GateResult, evaluate_gates
    from reliability_lab.experiment.plan import build_plan, resolve_tasks
    from reliability_lab.experiment.results import load_results
    from reliability_lab.experiment.runner import (
        ExperimentError,
        ExperimentOutcome,
        arun_experiment,
        run_experiment,
    )
    from reliability_lab.experiment.seeds import run_seed
    from reliability_lab.experiment.summary import (
        ExperimentSummary,
        score_metrics,
        summarize_directory,
    )
    from reliability_lab.perturbations import list_conditions, register_condition

# Public names loaded on first use (importing a submodule such as ``.seeds`` stays cheap).
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "AgentConfig": "reliability_lab.experiment.config",
        "ConditionConfig": "reliability_lab.experiment.config",
        "EnvironmentConfig": "reliability_lab.experiment.config",
        "ExperimentConfig": "reliability_lab.experiment.config",
        "ExperimentError": "reliability_lab.experiment.runner",
        "ExperimentOutcome": "reliability_lab.experiment.runner",
        "ExperimentSummary": "reliability_lab.experiment.summary",
        "GateConfig": "reliability_lab.experiment.gates",
        "GateResult": "reliability_lab.experiment.gates",
        "arun_experiment": "reliability_lab.experiment.runner",
        "build_plan": "reliability_lab.experiment.plan",
        "evaluate_gates": "reliability_lab.experiment.gates",
        "format_summary": "reliability_lab.experiment.console",
        "list_conditions": "reliability_lab.perturbations",
        "load_config": "reliability_lab.experiment.config",
        "load_results": "reliability_lab.experiment.results",
        "parse_config": "reliability_lab.experiment.config",
        "register_condition": "reliability_lab.perturbations",
        "resolve_tasks": "reliability_lab.experiment.plan",
        "run_experiment": "reliability_lab.experiment.runner",
        "run_seed": "reliability_lab.experiment.seeds",
        "score_metrics": "reliability_lab.experiment.summary",
        "summarize_directory": "reliability_lab.experiment.summary",
    },
)

__all__ = [
    "AgentConfig",
    "ConditionConfig",
    "EnvironmentConfig",
    "ExperimentConfig",
    "ExperimentError",
    "ExperimentOutcome",
    "ExperimentSummary",
    "GateConfig",
    "GateResult",
    "arun_experiment",
    "build_plan",
    "evaluate_gates",
    "format_summary",
    "list_conditions",
    "load_config",
    "load_results",
    "parse_config",
    "register_condition",
    "resolve_tasks",
    "run_experiment",
    "run_seed",
    "score_metrics",
    "summarize_directory",
]
