"""The results directory (docs/results.md), like inspect_ai's ``log/``: write it, read it back.

- :mod:`.store` — the record models (``header.json``, a ``results.jsonl`` line) used to write
  and read, append with fsync, the directory lock, the audit trail and repair;
- :class:`~.directory.ResultsDirectory` — where the runner meets the directory: what is done,
  what must be redone, the writers;
- :func:`load_results` — the run table of a results directory; :func:`read_results` the table
  and the result records (trajectories, sessions, perturbations) it was built from;
- :func:`summarize_directory` — ``summary.json`` / ``aggregate_stats.json`` of a directory,
  with gates, plan coverage and diagnostics; :func:`format_summary` the console block;
  :class:`SummaryRecord` the model ``summary.json`` is written and read with
  (:func:`read_summary`);
- :mod:`.compare_dirs` — two results directories side by side; :mod:`.imported` — a results
  directory written from imported logs.

Everything that reads a results directory (``io.load_runs``, the figures, the CLI, notebooks)
reads it through this package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reliability_lab._lazy import lazy_exports

if TYPE_CHECKING:
    from reliability_lab.results.console import format_summary
    from reliability_lab.results.read import load_results, read_results
    from reliability_lab.results.summary import (
        ExperimentSummary,
        score_metrics,
        summarize_directory,
    )
    from reliability_lab.results.summary_record import SummaryRecord, read_summary

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "ExperimentSummary": "reliability_lab.results.summary",
        "format_summary": "reliability_lab.results.console",
        "load_results": "reliability_lab.results.read",
        "read_results": "reliability_lab.results.read",
        "read_summary": "reliability_lab.results.summary_record",
        "score_metrics": "reliability_lab.results.summary",
        "summarize_directory": "reliability_lab.results.summary",
        "SummaryRecord": "reliability_lab.results.summary_record",
    },
)

__all__ = [
    "ExperimentSummary",
    "SummaryRecord",
    "format_summary",
    "load_results",
    "read_results",
    "read_summary",
    "score_metrics",
    "summarize_directory",
]
