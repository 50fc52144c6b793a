"""The ``summary.json`` record of a results directory: one model to write it and to read it back.

:class:`SummaryRecord` is what :func:`~reliability_lab.results.summary.summarize_directory`
writes (docs/results.md, "summary.json") and what every reader of the file gets from
:func:`read_summary`; :class:`RunIndexSummary` is the same for ``run_k/summary.json``. The
blocks whose layout is the report's own (score metrics, the reliability report, pass^k, gates)
are modelled field by field; the blocks other modules write (sessions, safety, robustness, plan,
diagnostics, audit, adaptive) are JSON objects, described in docs/results.md.

Files written before a field existed still load: every field that was added after the first
release has a default (the first release wrote ``schema_version``, ``suite``, ``simulated``,
``notice``, ``profile``, ``config``, ``metrics``, ``reliability``, ``undefined_metrics``,
``gates`` and ``gates_passed``), and :meth:`SummaryRecord.to_json` writes back only the fields
a record was given, so reading and re-writing an old file changes nothing.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, ValidationError

from reliability_lab.errors import RunTableError
from reliability_lab.experiment.config import format_validation_error
from reliability_lab.results._jsonio import nan_safe, write_json_atomic

__all__ = [
    "SUMMARY_FILE",
    "SUMMARY_SCHEMA_VERSION",
    "AgentScoreMetrics",
    "CostTotals",
    "GateRecord",
    "OverallMetrics",
    "PassKCurve",
    "ReliabilityBlock",
    "RunIndexSummary",
    "ScoreMetrics",
    "SummaryRecord",
    "read_summary",
    "write_summary",
]

#: The summary file of a results directory (docs/results.md, "summary.json").
SUMMARY_FILE = "summary.json"
#: Version of the layout of ``summary.json`` and ``run_k/summary.json``.
SUMMARY_SCHEMA_VERSION = 1

#: A value of the reliability report: a metric, its bounds or count (null when undefined),
#: or a text (``why_undefined``, the ``_terms`` of R_Con and R_Rob).
ReportValue = float | int | bool | str | None


class _Record(BaseModel):
    # Unknown fields are errors: a typo in a hand-edited file is reported, not dropped.
    model_config = ConfigDict(extra="forbid")

    @classmethod
    def from_content(cls, content: Any, *, source: str) -> Self:
        """Validate ``content`` (NaN and numpy values allowed: they are written as JSON).

        Raises
        ------
        RunTableError
            Names ``source`` and each field that does not fit, with its value.
        """
        try:
            return cls.model_validate(nan_safe(content))
        except ValidationError as exc:
            raise RunTableError(
                f"{source}: not a valid summary record (edited by hand, or written by another "
                f"version?):\n{format_validation_error(exc, source)}"
            ) from None

    def to_json(self) -> dict[str, Any]:
        """The file's JSON object: the fields this record was given, in the documented order."""
        return self.model_dump(mode="json", exclude_unset=True)


class CostTotals(_Record):
    """Known cost and tokens of a set of runs (``metrics.cost``)."""

    total_cost: float | None
    """Sum of the known costs in USD; null when no run's cost is known."""
    runs_with_unknown_cost: int
    """Runs whose cost is unknown (not counted as 0)."""
    total_prompt_tokens: int | None
    """Prompt tokens over the runs that report them; null when none does."""
    total_completion_tokens: int | None
    """Completion tokens over the runs that report them; null when none does."""


class ScoreMetrics(_Record):
    """letta-evals' score metrics of a set of runs (docs/results.md, "summary.json")."""

    total: int
    """Every run."""
    total_attempted: int
    """Runs that did not end in an infrastructure error."""
    n_infra_errors: int
    """Runs that ended in an infrastructure error."""
    avg_score_attempted: float | None
    """Mean score over attempted runs (a run without a score counts 0); null without any."""
    avg_score_total: float | None
    """The same sum divided by ``total``; null without runs."""
    accuracy: float | None
    """``passed_attempts / total_attempted``; null without attempted runs."""
    passed_attempts: int
    """Attempted runs that succeeded."""
    failed_attempts: int
    """Attempted runs that did not succeed."""
    cost: CostTotals
    """Known cost and token totals."""


class _AgentName(_Record):
    agent: str
    """The agent's label."""
    model_name: str
    """The model the agent used (as in ``header.json`` ``models``)."""


class AgentScoreMetrics(ScoreMetrics, _AgentName):
    """The score metrics of one agent's runs (``agent`` and ``model_name`` come first)."""


class OverallMetrics(ScoreMetrics):
    """The score metrics of every run, and per agent."""

    per_model: list[AgentScoreMetrics]
    """One entry per agent, in the order of the run table."""


class ReliabilityBlock(_Record):
    """The reliability report of record and the settings behind it."""

    profile: str
    """Metric profile (docs/methodology.md, "Profiles")."""
    n_boot: int
    """Bootstrap replicates of the intervals."""
    confidence_level: float
    """Level of the intervals."""
    seed: int
    """Seed of the bootstrap."""
    bootstrap: str | None = None
    """Resampling scheme (docs/statistics.md); absent in files written before it existed."""
    resources: list[str] | None = None
    """Resource columns behind the efficiency metrics; absent in files written before."""
    agents: dict[str, dict[str, ReportValue]]
    """Agent → metric → value (the columns of :func:`~reliability_lab.reliability_report`)."""


class PassKCurve(_Record):
    """pass^k and pass@k of one agent for k = 1 … its fewest baseline runs of a task."""

    k: list[int]
    """The values of k."""
    pass_hat_k: list[float | None]
    """pass^k per k (all runs succeed)."""
    pass_at_k: list[float | None]
    """pass@k per k (at least one succeeds)."""
    n_tasks: int
    """Tasks behind the curve."""


class GateRecord(_Record):
    """One gate checked for one agent (docs/results.md, "Gates")."""

    gate: str
    """The gate as text (``R >= 0.7``)."""
    agent: str
    """The agent it was checked on."""
    value: float | int | None
    """The agent's value of the metric; null when undefined."""
    n_runs: int
    """Attempted runs behind the value."""
    passed: bool
    """Whether the gate holds."""
    reason: str
    """Why it passed or failed."""


class SummaryRecord(_Record):
    """Contents of ``summary.json`` (docs/results.md, "summary.json")."""

    schema_version: int = SUMMARY_SCHEMA_VERSION
    """Version of this record's layout."""
    suite: str
    """The experiment's name."""
    simulated: bool
    """Whether any agent used the simulated model."""
    notice: str | None = None
    """The simulated-model notice (only when ``simulated``)."""
    profile: str
    """Metric profile of the report."""
    config: dict[str, Any]
    """The configuration of ``header.json``, secrets redacted."""
    metrics: OverallMetrics
    """Score metrics over all runs and per agent."""
    reliability: ReliabilityBlock
    """The reliability report of record."""
    sessions: dict[str, Any] = {"enabled": False}
    """How session metrics were computed (docs/pandaprobe.md)."""
    pass_k: dict[str, PassKCurve] = {}
    """Agent → pass^k and pass@k."""
    safety: dict[str, Any] = {}
    """Findings by constraint, severity and source (docs/safety.md)."""
    robustness: dict[str, Any] = {}
    """Robustness by condition, variant and intensity (docs/perturbations.md)."""
    plan: dict[str, Any] | None = None
    """Planned, recorded and missing runs; null for imported logs."""
    infra_errors: dict[str, Any] = {}
    """Infrastructure errors by category, overall and per agent."""
    confidence_errors: dict[str, Any] = {}
    """Failed confidence questions by category, overall and per agent."""
    r_dimensions: dict[str, list[str]] = {}
    """Agent → the dimensions of R that are defined."""
    undefined_metrics: list[str]
    """Why each undefined metric is NaN."""
    audit: dict[str, int] = {}
    """Records of ``results.audit.jsonl`` by reason."""
    adaptive: dict[str, Any] | None = None
    """The adaptive allocation (only with an ``adaptive`` block in the config)."""
    gates: list[GateRecord]
    """One result per gate and agent."""
    gates_passed: bool
    """Whether every gate passed."""
    header_notes: list[str] | None = None
    """Settings of ``header.json`` replaced by defaults (only when there are some)."""


class RunIndexSummary(OverallMetrics):
    """Contents of ``run_k/summary.json``: one repetition index's score metrics and gates."""

    schema_version: int = SUMMARY_SCHEMA_VERSION
    """Version of this record's layout."""
    suite: str
    """The experiment's name."""
    run: int
    """The repetition index, from 1."""
    gates: list[GateRecord] | None = None
    """The gates on score metrics and accuracy checked on this repetition (when any)."""
    gates_passed: bool | None = None
    """Whether they all passed (when there are any)."""

    def to_json(self) -> dict[str, Any]:
        """The file's JSON object (``schema_version``, ``suite`` and ``run`` first)."""
        data = super().to_json()
        first = ("schema_version", "suite", "run")
        head: dict[str, Any] = {key: data.pop(key) for key in first if key in data}
        return {**head, **data}


def write_summary(path: str | os.PathLike[str], record: SummaryRecord | RunIndexSummary) -> None:
    """Write ``record`` to ``path`` atomically (NaN-safe, secrets redacted)."""
    write_json_atomic(path, record.to_json())


def read_summary(directory: str | os.PathLike[str]) -> SummaryRecord:
    """The validated ``summary.json`` of a results directory.

    Raises
    ------
    RunTableError
        No ``summary.json`` (``reliability-lab report DIR --write-summary`` writes it), a file
        that is not JSON, or a field that does not fit the record (file, field and value named).
    """
    path = Path(directory) / SUMMARY_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RunTableError(
            f"{path}: file not found; run `reliability-lab report {Path(directory)} "
            "--write-summary` to write it"
        ) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RunTableError(f"{path}: cannot read the summary: {exc}") from None
    return SummaryRecord.from_content(data, source=str(path))
