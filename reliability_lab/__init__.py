"""reliability_lab: measure how *reliably* AI agents succeed.

Consistency, predictability, robustness and safety metrics (Rabanser et al., "Towards a
Science of AI Agent Reliability"), PandaProbe's trace and session metrics, and an
experiment runner that produces the run table (docs/run_table.md) every metric consumes, and the
statistics around it: K-invariant estimators, paired agent comparison (:func:`compare_agents`),
run planning (:func:`plan_runs`) and simulated agents (:mod:`reliability_lab.simulate`).

Importing the package does not import litellm or matplotlib and changes no process-wide
setting; heavy parts load on first use (litellm on the first model call, see
:mod:`reliability_lab.llm`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reliability_lab._lazy import lazy_exports
from reliability_lab.errors import ConfigError, RunTableError, UndefinedMetricWarning

if TYPE_CHECKING:
    from reliability_lab.experiment.results import load_results
    from reliability_lab.experiment.runner import run_experiment
    from reliability_lab.io import load_tau_bench
    from reliability_lab.report import (
        format_report,
        reliability_report,
        robustness_by_intensity,
        robustness_by_variant,
    )
    from reliability_lab.runs import run_table_from_records, validate_run_table
    from reliability_lab.stats import compare_agents, plan_runs

__version__ = "0.1.0"

# Public names loaded on first use: name -> module that defines it.
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "format_report": "reliability_lab.report",
        "load_results": "reliability_lab.experiment.results",
        "compare_agents": "reliability_lab.stats",
        "load_tau_bench": "reliability_lab.io",
        "reliability_report": "reliability_lab.report",
        "robustness_by_intensity": "reliability_lab.report",
        "robustness_by_variant": "reliability_lab.report",
        "run_experiment": "reliability_lab.experiment.runner",
        "plan_runs": "reliability_lab.stats",
        "run_table_from_records": "reliability_lab.runs",
        "validate_run_table": "reliability_lab.runs",
    },
)

__all__ = [
    "ConfigError",
    "RunTableError",
    "UndefinedMetricWarning",
    "__version__",
    "compare_agents",
    "format_report",
    "load_results",
    "load_tau_bench",
    "plan_runs",
    "reliability_report",
    "robustness_by_intensity",
    "robustness_by_variant",
    "run_experiment",
    "run_table_from_records",
    "validate_run_table",
]
