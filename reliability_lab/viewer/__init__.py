"""Look at the runs of a results directory: the run list and one run's transcript
(``reliability-lab show``; docs/results.md, "Looking at runs"), and the per-agent table as a
paper prints it (``reliability-lab table``)."""

from reliability_lab.viewer.runs import (
    RunFilter,
    ViewedResults,
    filter_runs,
    format_run_list,
    read_view,
)
from reliability_lab.viewer.transcript import Transcript, format_transcript, transcript_sections

__all__ = [
    "RunFilter",
    "Transcript",
    "ViewedResults",
    "filter_runs",
    "format_run_list",
    "format_transcript",
    "read_view",
    "transcript_sections",
]
