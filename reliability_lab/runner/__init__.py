"""The engine: execute an experiment's plan concurrently, durably and resumably.

:func:`run_experiment` expands a config (:mod:`reliability_lab.experiment`) into runs, skips
those its results directory already holds, executes the rest (asyncio, or Ray with
``executor.kind: ray``), runs the adaptive rounds and writes the results directory through
:mod:`reliability_lab.results`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reliability_lab._lazy import lazy_exports

if TYPE_CHECKING:
    from reliability_lab.runner.runner import (
        ExperimentError,
        ExperimentOutcome,
        arun_experiment,
        run_experiment,
    )

__getattr__, __dir__ = lazy_exports(
    __name__,
    dict.fromkeys(
        ("ExperimentError", "ExperimentOutcome", "arun_experiment", "run_experiment"),
        "reliability_lab.runner.runner",
    ),
)

__all__ = ["ExperimentError", "ExperimentOutcome", "arun_experiment", "run_experiment"]
