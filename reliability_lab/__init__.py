"""reliability_lab: measure how *reliably* AI agents succeed.

Consistency, predictability, robustness and safety metrics (Rabanser et al., "Towards a
Science of AI Agent Reliability"), PandaProbe's trace and session metrics, and an
experiment runner that produces the run table (docs/run_table.md) every metric consumes, and the
statistics around it: K-invariant estimators, paired agent comparison (:func:`compare_agents`),
run planning (:func:`plan_runs`) and simulated agents (:mod:`reliability_lab.simulate`).

The verbs a notebook needs are here: :func:`run_experiment`, :func:`load_runs` (any log format,
our results directories included), :func:`reliability_report`, :func:`summarize_logs` (the
``reliability-lab report`` command as a function), :func:`compare_agents`, :func:`plan_runs`,
:func:`save_figures` and :func:`export_to_inspect` (a results directory as inspect_ai logs).
How the packages fit together: docs/architecture.md.

Importing the package does not import litellm or matplotlib and changes no process-wide
setting; heavy parts load on first use (litellm on the first model call, see
:mod:`reliability_lab.llm`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from reliability_lab._lazy import lazy_exports
from reliability_lab._providers import register_provider
from reliability_lab._version import __version__
from reliability_lab.errors import ConfigError, RunTableError, UndefinedMetricWarning

if TYPE_CHECKING:
    from reliability_lab.inspect.export import export_to_inspect
    from reliability_lab.io import load_runs, load_tau_bench
    from reliability_lab.io.summarize import summarize_logs
    from reliability_lab.plots.figure_set import save_all as save_figures
    from reliability_lab.report import (
        compare_agents,
        format_report,
        plan_runs,
        reliability_report,
        robustness_by_intensity,
        robustness_by_variant,
    )
    from reliability_lab.results.read import load_results
    from reliability_lab.runner.runner import run_experiment
    from reliability_lab.runs import run_table_from_records, validate_run_table


def _install_sim(litellm: Any) -> None:
    """Plug the simulated model ``sim/<name>`` into the model boundary (see ``_providers``)."""
    from reliability_lab.sim._provider import register

    register()


register_provider(_install_sim)

# Public names loaded on first use: name -> module that defines it.
_getattr, __dir__ = lazy_exports(
    __name__,
    {
        "compare_agents": "reliability_lab.report",
        "export_to_inspect": "reliability_lab.inspect.export",
        "format_report": "reliability_lab.report",
        "load_results": "reliability_lab.results.read",
        "load_runs": "reliability_lab.io",
        "load_tau_bench": "reliability_lab.io",
        "plan_runs": "reliability_lab.report",
        "reliability_report": "reliability_lab.report",
        "robustness_by_intensity": "reliability_lab.report",
        "robustness_by_variant": "reliability_lab.report",
        "run_experiment": "reliability_lab.runner.runner",
        "run_table_from_records": "reliability_lab.runs",
        "summarize_logs": "reliability_lab.io.summarize",
        "validate_run_table": "reliability_lab.runs",
    },
)


def __getattr__(name: str) -> Any:
    if name == "save_figures":  # the figure set's writer, under its notebook name
        from reliability_lab.plots.figure_set import save_all

        return save_all
    return _getattr(name)


__all__ = [
    "ConfigError",
    "RunTableError",
    "UndefinedMetricWarning",
    "__version__",
    "compare_agents",
    "export_to_inspect",
    "format_report",
    "load_results",
    "load_runs",
    "load_tau_bench",
    "plan_runs",
    "reliability_report",
    "robustness_by_intensity",
    "robustness_by_variant",
    "run_experiment",
    "run_table_from_records",
    "save_figures",
    "summarize_logs",
    "validate_run_table",
]
