"""Experiments: configs, repeated runs of agents, results directories, summaries and gates.

A YAML config (see ``experiments/README.md``) names agents, an environment and its tasks, K
runs, conditions, concurrency, a seed and gates. :func:`run_experiment` executes every
(agent, task, condition, variant, run) once — resuming an interrupted directory — and writes
``header.json``, ``results.jsonl``, ``run_1/ … run_K/``, ``summary.json`` and
``aggregate_stats.json`` (SPEC §4). :func:`load_results` reads the run table back.
"""

from __future__ import annotations

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
from reliability_lab.experiment.summary import ExperimentSummary, score_metrics, summarize_directory
from reliability_lab.perturbations import list_conditions, register_condition

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
