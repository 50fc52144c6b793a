"""What one call of the runner (or the inspect bridge) did, and the resulting summary."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from reliability_lab.results.summary import ExperimentSummary

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ExperimentOutcome"]


@dataclass(frozen=True)
class ExperimentOutcome:
    """What :func:`run_experiment` did and the resulting summary."""

    output_dir: Path
    """The results directory."""
    n_planned: int
    """Runs in the plan (agents × tasks × conditions × variants × K)."""
    n_previous: int
    """Runs already present before this call (resumed)."""
    n_executed: int
    """Runs executed and recorded by this call (adaptive runs included)."""
    summary: ExperimentSummary
    """Run table, reliability report, gate results and file contents."""
    n_retried: int = 0
    """Runs recorded as infrastructure errors that this call executed again (their old
    records are in ``results.audit.jsonl``); included in ``n_executed``."""

    @property
    def passed(self) -> bool:
        """Whether every gate passed."""
        return self.summary.passed

    def summary_text(self) -> str:
        """The block ``reliability-lab run`` prints: resume counts, the summary, the folder."""
        from reliability_lab.results.console import format_summary

        lines = []
        if self.n_previous or self.n_retried:
            retried = (
                f"retried {self.n_retried} infrastructure failure(s); " if self.n_retried else ""
            )
            lines.append(
                f"Resumed: {self.n_previous} of {self.n_planned} runs were already done; "
                f"{retried}executed {self.n_executed}."
            )
        lines.append(format_summary(self.summary))
        lines.append(f"\nResults written to {self.output_dir}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary_text()

    @property
    def runs(self) -> pd.DataFrame:
        """The validated run table of every finished run (one row per run)."""
        return self.summary.runs

    @property
    def report(self) -> pd.DataFrame:
        """The per-agent reliability report, with intervals (see ``reliability_report``)."""
        return self.summary.report
