"""Exceptions and warnings shared by the whole package."""

from __future__ import annotations

__all__ = [
    "ConfigError",
    "ExecutorLostError",
    "ExperimentError",
    "ResultsWriteError",
    "RunTableError",
    "UndefinedMetricWarning",
]


class UndefinedMetricWarning(UserWarning):
    """A metric is undefined for the given data and was returned as NaN.

    Raised as a warning (never an exception) when, for example, AUROC sees a single
    class, pass^k sees a task with fewer than k runs, or robustness has a baseline
    accuracy of zero.
    """


class RunTableError(ValueError):
    """A run table (docs/run_table.md) failed validation.

    The message names the source (file or argument), the column, and shows the
    offending rows.
    """


class ConfigError(ValueError):
    """An experiment configuration file is invalid; the message names file and field."""


class ExperimentError(RuntimeError):
    """An experiment could not finish: runs raised unexpected exceptions (harness bugs; they
    were not recorded), or a result could not be written (:class:`ResultsWriteError`)."""


class ResultsWriteError(ExperimentError):
    """Writing a results file failed (disk full, no permission, an immutable file).

    The message names the file and the reason, says how many runs are safely recorded and
    that running the same command again resumes
    (docs/results.md, "What can go wrong and what you see").
    """


class ExecutorLostError(ExperimentError):
    """The executor's cluster went away mid-experiment (the local Ray node died, its
    dashboard agent was killed, the cluster became unreachable).

    The command line reports it in one line and exits with the status of an interrupted run
    (130): every finished run is recorded, and running the same command again resumes.
    """
