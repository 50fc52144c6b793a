"""Reliability experiments on inspect_ai tasks (the optional extra ``reliability-lab[inspect]``).

inspect_ai runs the task (datasets, solvers, agents, scorers, sandboxes, its log viewer);
reliability_lab adds the conditions (fault, structural, prompt), the post-hoc confidence
question, and the reliability report over the logs. :func:`export_to_inspect` goes the
other way: a results directory of ours as inspect logs for ``inspect view``. See
docs/inspect.md.

The names load on first use, so importing this package needs no inspect-ai; a name that
needs it raises :class:`~reliability_lab.io.MissingExtraError` (or ImportError) when used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reliability_lab._lazy import lazy_exports

if TYPE_CHECKING:
    from reliability_lab.inspect._build import (
        ConditionSpec,
        load_task,
        reliability_tasks,
        task_name,
    )
    from reliability_lab.inspect._experiment import run_inspect_experiment
    from reliability_lab.inspect._solver import condition_solver, run_seed
    from reliability_lab.inspect._tools import SampleRun
    from reliability_lab.inspect.export import InspectExport, export_to_inspect

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "ConditionSpec": "reliability_lab.inspect._build",
        "InspectExport": "reliability_lab.inspect.export",
        "SampleRun": "reliability_lab.inspect._tools",
        "condition_solver": "reliability_lab.inspect._solver",
        "export_to_inspect": "reliability_lab.inspect.export",
        "load_task": "reliability_lab.inspect._build",
        "reliability_tasks": "reliability_lab.inspect._build",
        "run_inspect_experiment": "reliability_lab.inspect._experiment",
        "run_seed": "reliability_lab.inspect._solver",
        "task_name": "reliability_lab.inspect._build",
    },
)

__all__ = [
    "ConditionSpec",
    "InspectExport",
    "SampleRun",
    "condition_solver",
    "export_to_inspect",
    "load_task",
    "reliability_tasks",
    "run_inspect_experiment",
    "run_seed",
    "task_name",
]
