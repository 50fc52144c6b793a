"""Reliability experiments on inspect_ai tasks (the optional extra ``reliability-lab[inspect]``).

inspect_ai runs the task (datasets, solvers, agents, scorers, sandboxes, its log viewer);
reliability_lab adds the conditions (fault, structural, prompt), the post-hoc confidence
question, and the reliability report over the logs. See docs/inspect.md.
"""

from __future__ import annotations

from reliability_lab.inspect._build import (
    ConditionSpec,
    load_task,
    reliability_tasks,
    task_name,
)
from reliability_lab.inspect._experiment import run_inspect_experiment
from reliability_lab.inspect._solver import condition_solver, run_seed
from reliability_lab.inspect._tools import SampleRun

__all__ = [
    "ConditionSpec",
    "SampleRun",
    "condition_solver",
    "load_task",
    "reliability_tasks",
    "run_inspect_experiment",
    "run_seed",
    "task_name",
]
