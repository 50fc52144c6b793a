"""Summary files of a results directory (docs/results.md; letta-evals layout).

From ``header.json`` + ``results.jsonl`` this writes:

- ``summary.json`` — letta-style score metrics (overall and per agent), the per-agent
  reliability report with confidence intervals, and the gate results;
- ``run_1/ … run_K/`` — ``header.json``, ``results.jsonl`` and ``summary.json`` restricted to one
  repetition index;
- ``aggregate_stats.json`` — mean and standard deviation (``ddof=1``) across repetition indices.

Everything is recomputed from ``results.jsonl``, so ``reliability-lab report DIR`` reproduces it.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import numpy as np
import pandas as pd

from reliability_lab._files import write_text_atomic
from reliability_lab._secrets import redact
from reliability_lab.errors import ConfigError, RunTableError, UndefinedMetricWarning
from reliability_lab.experiment.config import ExperimentConfig, SessionSettings
from reliability_lab.experiment.gates import SCORE_METRICS, GateConfig, GateResult, evaluate_gates
from reliability_lab.experiment.plan import condition_artifacts
from reliability_lab.metrics.profiles import resources_used
from reliability_lab.report.passk import pass_k_table
from reliability_lab.results._jsonio import dumps, write_json_atomic
from reliability_lab.results.adaptive_block import adaptive_summary
from reliability_lab.results.audit import audit_counts
from reliability_lab.results.coverage import gates_per_agent, header_plan, plan_coverage
from reliability_lab.results.diagnostics import confidence_errors, infra_errors, r_dimensions
from reliability_lab.results.header_config import config_from_header
from reliability_lab.results.imported import (
    ImportConfig,
    import_header,
    write_import,
)
from reliability_lab.results.read import check_outcomes, records_to_run_table
from reliability_lab.results.robustness_block import robustness_summary
from reliability_lab.results.safety_block import safety_summary
from reliability_lab.results.store import (
    RESULTS_FILE,
    HeaderRecord,
    check_run_keys,
    read_header,
    read_result_lines,
)
from reliability_lab.results.summary_record import (
    SUMMARY_FILE,
    SUMMARY_SCHEMA_VERSION,
    RunIndexSummary,
    SummaryRecord,
    write_summary,
)
from reliability_lab.results.traces import TRACES_FILE
from reliability_lab.runs import BASELINE, is_infrastructure_error

__all__ = [
    "HASHING_EMBEDDER_NOTICE",
    "SIMULATED_JUDGE_NOTICE",
    "SIMULATED_NOTICE",
    "ExperimentSummary",
    "score_metrics",
    "summarize_directory",
    "summarize_imported",
]

SIMULATED_NOTICE = (
    "SIMULATED MODEL: results of agents using 'sim/...' come from reliability_lab's simulated "
    "model, not a real LLM; they demonstrate the toolkit, not any model's reliability."
)

SIMULATED_JUDGE_NOTICE = (
    "judge {judge} is the offline SIMULATED judge (a simulation, not an assessment of the agents)"
)
HASHING_EMBEDDER_NOTICE = "embedder 'hashing' is the offline lexical embedder, not a semantic model"


@dataclass(frozen=True)
class ExperimentSummary:
    """Everything computed from a results directory."""

    directory: Path
    """The results directory."""
    header: HeaderRecord
    """Its ``header.json``."""
    runs: pd.DataFrame
    """The validated run table."""
    report: pd.DataFrame
    """Per-agent reliability report (index: agent) with ``_lo``/``_hi`` columns."""
    metrics: dict[str, Any]
    """letta-style score metrics, overall and ``per_model``."""
    gates: list[GateResult]
    """Gate results (one per gate and agent)."""
    content: dict[str, Any]
    """The ``summary.json`` content (:attr:`record` as JSON)."""
    record: SummaryRecord
    """The ``summary.json`` record."""

    @property
    def passed(self) -> bool:
        """Whether every gate passed (true when there are no gates)."""
        return all(g.passed for g in self.gates)

    @property
    def simulated(self) -> bool:
        """Whether any agent used the simulated model."""
        return self.header.simulated


def score_metrics(runs: pd.DataFrame) -> dict[str, Any]:
    """letta-evals style metrics of a set of runs.

    ``total`` counts every run; ``total_attempted`` excludes infrastructure errors
    (docs/run_table.md, "Infrastructure errors").
    ``avg_score_attempted`` is the mean score over attempted runs (an attempted run without a
    score counts 0); ``avg_score_total`` divides the same sum by ``total`` (errors count 0,
    as in letta-evals). ``accuracy`` = passed / attempted. All rates are on the 0–1 scale.

    Examples
    --------
    >>> df = pd.DataFrame({"score": [1.0, 0.5, float("nan")], "success": [True, False, False],
    ...                    "error": [None, None, "infrastructure: timeout: x"],
    ...                    "cost_usd": [0.1, 0.2, float("nan")]})
    >>> m = score_metrics(df)
    >>> m["total"], m["total_attempted"], m["avg_score_attempted"], m["avg_score_total"]
    (3, 2, 0.75, 0.5)
    >>> m["accuracy"], m["n_infra_errors"]
    (0.5, 1)
    """
    infra = is_infrastructure_error(runs["error"])
    attempted = runs.loc[~infra]
    total, n_att = len(runs), len(attempted)
    score_sum = float(attempted["score"].fillna(0.0).sum())
    passed = int(attempted["success"].sum())
    cost = runs["cost_usd"] if "cost_usd" in runs else pd.Series(dtype=float)
    known_cost = cost.dropna()

    def token_sum(col: str) -> int | None:
        if col not in runs:
            return None
        values = runs[col].dropna()
        return int(values.sum()) if len(values) else None

    return {
        "total": total,
        "total_attempted": n_att,
        "n_infra_errors": int(infra.sum()),
        "avg_score_attempted": score_sum / n_att if n_att else math.nan,
        "avg_score_total": score_sum / total if total else math.nan,
        "accuracy": passed / n_att if n_att else math.nan,
        "passed_attempts": passed,
        "failed_attempts": n_att - passed,
        "cost": {
            "total_cost": float(known_cost.sum()) if len(known_cost) else None,
            "runs_with_unknown_cost": int(cost.isna().sum()),
            "total_prompt_tokens": token_sum("prompt_tokens"),
            "total_completion_tokens": token_sum("completion_tokens"),
        },
    }


def _per_agent_metrics(runs: pd.DataFrame, models: Mapping[str, str]) -> list[dict[str, Any]]:
    out = []
    for agent, group in runs.groupby("agent", sort=False):
        entry = {"agent": agent, "model_name": models.get(str(agent), "")}
        entry.update(score_metrics(group))
        out.append(entry)
    return out


def _gate_inputs(
    per_agent: list[dict[str, Any]], report: pd.DataFrame | None
) -> dict[str, dict[str, Any]]:
    inputs: dict[str, dict[str, Any]] = {}
    for entry in per_agent:
        agent = entry["agent"]
        values: dict[str, Any] = {}
        if report is not None and agent in report.index:
            values.update({str(k): v for k, v in report.loc[agent].items()})
        values["avg_score"] = entry["avg_score_attempted"]
        values["avg_score_attempted"] = entry["avg_score_attempted"]
        values["avg_score_total"] = entry["avg_score_total"]
        # accuracy is the report's (baseline runs); without a report row: the pooled rate
        values.setdefault("accuracy", entry["accuracy"] if report is None else math.nan)
        values["n_attempted"] = entry["total_attempted"]
        inputs[agent] = values
    return inputs


def _reliability(
    runs: pd.DataFrame, config: ExperimentConfig | ImportConfig
) -> tuple[pd.DataFrame, list[str]]:
    """The reliability report and the texts of its UndefinedMetricWarnings.

    Undefined metrics (e.g. R_fault without a ``fault`` condition) are NaN in the report and
    their reasons are kept in ``summary.json`` under ``undefined_metrics`` instead of being
    printed as warnings on every run.
    """
    from reliability_lab.report import reliability_report

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UndefinedMetricWarning)
        report = reliability_report(
            runs,
            profile=config.profile,
            n_boot=config.report.n_boot,
            confidence_level=config.report.confidence_level,
            seed=config.seed,
            bootstrap=config.report.bootstrap,
            resources=config.report.resources,
        )
    notes = []
    for w in caught:
        if issubclass(w.category, UndefinedMetricWarning):
            notes.append(str(w.message))
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return report, list(dict.fromkeys(notes))


def _sessions_info(runs: pd.DataFrame, settings: SessionSettings | None) -> dict[str, Any]:
    """How the session metrics were computed, how many runs have them, and notices."""
    if "session_error" not in runs or settings is None:
        return {"enabled": False}
    errors = runs["session_error"]
    scored = runs["agent_reliability"].notna() & runs["agent_consistency"].notna()
    notices = []
    if settings.simulated_judge:
        notices.append(SIMULATED_JUDGE_NOTICE.format(judge=settings.judge_model))
    if settings.offline_embedder:
        notices.append(HASHING_EMBEDDER_NOTICE)
    return {
        "enabled": True,
        "judge_model": settings.judge_model,
        "embedder": settings.embedder,
        "signal_weights": settings.signal_weights,
        "simulated_judge": settings.simulated_judge,
        "offline_embedder": settings.offline_embedder,
        "notices": notices,
        "traces_file": TRACES_FILE,
        "n_scored": int(scored.sum()),
        "n_session_errors": int(errors.notna().sum()),
        "per_agent_session_errors": {
            str(a): int(g.notna().sum()) for a, g in errors.groupby(runs["agent"], sort=False)
        },
        "first_session_errors": list(dict.fromkeys(errors.dropna().astype(str)))[:3],
    }


def _report_dict(report: pd.DataFrame) -> dict[str, dict[str, Any]]:
    return {str(agent): {str(k): v for k, v in row.items()} for agent, row in report.iterrows()}


def _run_index_metrics(
    runs: pd.DataFrame, gates: list[GateConfig], models: Mapping[str, str]
) -> list[dict[str, Any]]:
    """Per repetition index: score metrics overall and per agent, gates on score metrics.

    A gate on ``accuracy`` is checked on the repetition's baseline accuracy, as the aggregate
    gate is on the report's (docs/results.md, "Gates"); the score metrics themselves count
    every condition.
    """
    per_run_gates = [g for g in gates if g.metric in (*SCORE_METRICS, "accuracy")]
    out = []
    for run, group in runs.groupby("run", sort=True):
        per_agent = _per_agent_metrics(group, models)
        entry: dict[str, Any] = {"run": int(cast(int, run)) + 1, **score_metrics(group)}
        entry["per_model"] = per_agent
        if per_run_gates:
            attempted = group.loc[~is_infrastructure_error(group["error"])]
            baseline = attempted.loc[attempted["condition"] == BASELINE]
            accuracy = baseline.groupby("agent")["success"].mean().rename("accuracy")
            inputs = _gate_inputs(per_agent, accuracy.astype(float).to_frame())
            results = evaluate_gates(per_run_gates, inputs)
            entry["gates"] = [g.to_dict() for g in results]
            entry["gates_passed"] = all(g.passed for g in results)
        out.append(entry)
    return out


def _std(values: list[float]) -> float:
    arr = np.asarray(values, dtype=float)
    arr = arr[~np.isnan(arr)]
    return float(np.std(arr, ddof=1)) if arr.size >= 2 else math.nan


def _mean(values: list[float]) -> float:
    arr = np.asarray(values, dtype=float)
    arr = arr[~np.isnan(arr)]
    return float(arr.mean()) if arr.size else math.nan


_AGG_KEYS = ("avg_score_attempted", "avg_score_total", "accuracy")


def _aggregate_stats(per_run: list[dict[str, Any]], gates: list[GateConfig]) -> dict[str, Any]:
    evaluable = all(g.metric in (*SCORE_METRICS, "accuracy") for g in gates)
    agents = sorted({e["agent"] for r in per_run for e in r["per_model"]})
    per_agent: dict[str, Any] = {}
    for agent in agents:
        rows = [e for r in per_run for e in r["per_model"] if e["agent"] == agent]
        per_agent[agent] = {
            "num_runs": len(rows),
            "mean_scores": {k: _mean([e[k] for e in rows]) for k in _AGG_KEYS},
            "std_scores": {k: _std([e[k] for e in rows]) for k in _AGG_KEYS},
        }
    stats: dict[str, Any] = {
        "num_runs": len(per_run),
        "runs_passed": (
            sum(bool(r.get("gates_passed", True)) for r in per_run) if evaluable else None
        ),
        "mean_avg_score_attempted": _mean([r["avg_score_attempted"] for r in per_run]),
        "std_avg_score_attempted": _std([r["avg_score_attempted"] for r in per_run]),
        "mean_avg_score_total": _mean([r["avg_score_total"] for r in per_run]),
        "std_avg_score_total": _std([r["avg_score_total"] for r in per_run]),
        "mean_scores": {"accuracy": _mean([r["accuracy"] for r in per_run])},
        "std_scores": {"accuracy": _std([r["accuracy"] for r in per_run])},
        "per_agent": per_agent,
        "individual_run_metrics": per_run,
    }
    if not evaluable:
        stats["runs_passed_note"] = (
            "null: some gates use multi-run metrics (consistency, predictability, ...) that "
            "are undefined on a single repetition; the suite's gate result is in summary.json"
        )
    return stats


def _write_run_dirs(
    directory: Path,
    header: HeaderRecord,
    records: list[dict[str, Any]],
    per_run: list[dict[str, Any]],
) -> None:
    by_run: dict[int, list[dict[str, Any]]] = {}
    for record in records:
        by_run.setdefault(int(record["run"]), []).append(record)
    for entry in per_run:
        k = int(entry["run"])
        run_dir = directory / f"run_{k}"
        run_dir.mkdir(exist_ok=True)
        run_header = header.model_dump(mode="json")
        run_header["run_index"] = k
        write_json_atomic(run_dir / "header.json", run_header)
        lines = [dumps(r) for r in by_run.get(k - 1, [])]
        write_text_atomic(run_dir / RESULTS_FILE, "".join(line + "\n" for line in lines))
        content = {"schema_version": SUMMARY_SCHEMA_VERSION, "suite": header.suite_name, **entry}
        source = str(run_dir / SUMMARY_FILE)
        write_summary(run_dir / SUMMARY_FILE, RunIndexSummary.from_content(content, source=source))


def summarize_directory(
    directory: str | Path,
    *,
    write: bool = True,
    reanalysis: Mapping[str, Any] | None = None,
) -> ExperimentSummary:
    """The summary of a results directory; with ``write``, its summary files rewritten.

    Parameters
    ----------
    directory : path-like
        A results directory with ``header.json`` and ``results.jsonl`` (written by an
        experiment, or by ``reliability-lab report LOGS --output DIR`` from imported logs).
    write : bool
        Rewrite ``summary.json``, ``run_k/`` and ``aggregate_stats.json`` (what ``run`` and
        ``report DIR --write-summary`` do); False only reads, so a read-only or shared
        directory can be reported.
    reanalysis : mapping, optional
        Config fields to change for this analysis only (``profile``, ``report``, ``gates``,
        ``seed``; ``reliability-lab report DIR --profile/--n-boot/--gate``). With it nothing is
        written: the run's own ``summary.json`` stays the report of record.

    Returns
    -------
    ExperimentSummary

    Raises
    ------
    RunTableError
        Missing/invalid header or results, or a record whose ``success`` contradicts its
        score (:func:`~reliability_lab.results.read.check_outcomes`).
    """
    out = Path(directory)
    header = read_header(out)
    config, notes = config_from_header(header.config, source=out / "header.json")
    for note in notes:
        warnings.warn(f"{out / 'header.json'}: {note}", stacklevel=2)
    if reanalysis:
        try:
            config = type(config).model_validate({**config.model_dump(mode="json"), **reanalysis})
        except ValueError as exc:
            raise ConfigError(f"{out}: invalid re-analysis setting: {exc}") from None
    records = read_result_lines(out / RESULTS_FILE, repair=False)
    keys = check_run_keys(records, out / RESULTS_FILE)
    if isinstance(config, ExperimentConfig):
        thresholds = {a.label: a.pass_threshold for a in config.agents}
        check_outcomes(records, thresholds, source=str(out / RESULTS_FILE))
    plan = header_plan(header, out)
    coverage = plan_coverage(keys, plan, header, out / RESULTS_FILE) if plan is not None else None
    runs = records_to_run_table(records, source=str(out / RESULTS_FILE))
    if runs.empty:
        raise RunTableError(f"{out / RESULTS_FILE}: no finished runs yet; nothing to summarise")
    return _summarize(
        runs,
        header,
        config,
        out,
        None if reanalysis else records,
        coverage,
        write=write and not reanalysis,
        notes=notes,
    )


def summarize_imported(
    runs: pd.DataFrame, config: ImportConfig, *, output: str | Path | None = None
) -> ExperimentSummary:
    """The summary of an imported run table, as for an experiment's results.

    Parameters
    ----------
    runs : DataFrame
        The run table from an importer (``reliability_lab.io``).
    config : ImportConfig
        Where the runs came from, the report settings and gates.
    output : path-like, optional
        Write a results directory there (``header.json``, ``results.jsonl`` with every column
        of every run, ``summary.json``, ``run_k/``, ``aggregate_stats.json``); without it
        nothing is written.

    Returns
    -------
    ExperimentSummary
        ``directory`` is ``output``, or the imported path when nothing is written.
    """
    header = import_header(runs, config)
    if output is not None:
        write_import(runs, header, Path(output))
        return summarize_directory(output)
    return _summarize(runs, header, config, Path(config.imported_from.path), None)


def _pass_k(runs: pd.DataFrame) -> dict[str, dict[str, list[float] | int]]:
    """Agent → pass^k and pass@k for k = 1 … its fewest baseline runs of a task."""
    table = pass_k_table(runs)
    return {
        str(agent): {
            "k": group["k"].tolist(),
            "pass_hat_k": group["pass_hat_k"].tolist(),
            "pass_at_k": group["pass_at_k"].tolist(),
            "n_tasks": int(group["n_tasks"].iloc[0]),
        }
        for agent, group in table.groupby("agent", sort=False)
    }


def _summarize(
    runs: pd.DataFrame,
    header: HeaderRecord,
    config: ExperimentConfig | ImportConfig,
    out: Path,
    records: list[dict[str, Any]] | None,
    coverage: dict[str, Any] | None = None,
    *,
    write: bool = True,
    notes: list[str] | None = None,
) -> ExperimentSummary:
    """Compute the summary; write its files into ``out`` when ``write`` and ``records``.

    ``notes`` say which settings of the header were replaced by defaults (:mod:`.header_config`).

    ``coverage`` is the check against the header's plan (:mod:`.coverage`); with it every gate
    is checked for every planned agent, recorded or not.
    """
    report, undefined = _reliability(runs, config)
    per_agent = _per_agent_metrics(runs, header.models)
    metrics = {**score_metrics(runs), "per_model": per_agent}
    gates = list(config.gates)
    if coverage is not None:
        gates = gates_per_agent(gates, list(header.models))
    gate_results = evaluate_gates(gates, _gate_inputs(per_agent, report))
    sessions = config.sessions  # imported logs: only with ``report --sessions``
    content: dict[str, Any] = {
        "schema_version": SUMMARY_SCHEMA_VERSION,
        "suite": header.suite_name,
        "simulated": header.simulated,
        **({"notice": SIMULATED_NOTICE} if header.simulated else {}),
        "profile": config.profile,
        "config": redact(header.config),  # a hand-edited header must not leak either
        "metrics": metrics,
        "reliability": {
            "profile": config.profile,
            "n_boot": config.report.n_boot,
            "confidence_level": config.report.confidence_level,
            "seed": config.seed,
            "bootstrap": config.report.bootstrap,
            "resources": resources_used(config.report.resources),
            "agents": _report_dict(report),
        },
        "sessions": _sessions_info(runs, sessions),
        "pass_k": _pass_k(runs),
        "safety": safety_summary(
            runs, config.safety if isinstance(config, ExperimentConfig) else None
        ),
        "robustness": robustness_summary(
            runs, out, condition_artifacts(config) if isinstance(config, ExperimentConfig) else {}
        ),
        "plan": coverage,
        "infra_errors": infra_errors(runs),
        "confidence_errors": confidence_errors(runs),
        "r_dimensions": r_dimensions(report),
        "undefined_metrics": undefined,
        "audit": audit_counts(out) if records is not None else {},
        **({"adaptive": adaptive} if (adaptive := adaptive_summary(out, runs)) else {}),
        "gates": [g.to_dict() for g in gate_results],
        "gates_passed": all(g.passed for g in gate_results),
        **({"header_notes": notes} if notes else {}),
    }
    # NaN-safe and redacted as the file is: the record in memory holds no secret either
    record = SummaryRecord.from_content(json.loads(dumps(content)), source=str(out / SUMMARY_FILE))
    if records is not None and write:
        per_run = _run_index_metrics(runs, list(config.gates), header.models)
        _write_run_dirs(out, header, records, per_run)
        stats = _aggregate_stats(per_run, list(config.gates))
        write_json_atomic(out / "aggregate_stats.json", stats)
        write_summary(out / SUMMARY_FILE, record)
    return ExperimentSummary(
        directory=out,
        header=header,
        runs=runs,
        report=report,
        metrics=metrics,
        gates=gate_results,
        content=record.to_json(),
        record=record,
    )
