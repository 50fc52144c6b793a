"""A results directory in inspect_ai's log format: ``reliability-lab export DIR --to inspect``
(docs/inspect.md, "Exporting to inspect view").

inspect_ai's ``inspect view`` is the field's best-kept log viewer (sample table, filters,
epochs, transcripts); :func:`export_to_inspect` writes one ``.eval`` log per agent ×
condition × variant so it opens a reliability_lab experiment as it is:

===========================  ===============================================================
inspect log                  from the results directory
===========================  ===============================================================
one log (``eval``)           an agent under one condition variant; ``task`` is the bridge's
                             name for it (``customer_service``, ``customer_service__fault__
                             p-0.2``), ``model`` the agent's model; ``metadata.reliability_lab``
                             holds the provenance (experiment, fingerprint, profile, seed, K,
                             package version, simulated, the agent's and condition's config)
sample (``id``, ``epoch``)   a run: ``task_id``, ``run + 1``
``input``                    the instruction as the agent saw it (paraphrased under ``prompt``)
``messages``                 the run's transcript, as ``show DIR --run KEY`` prints it: model
                             turns, tool calls with the (perturbed) arguments sent, results,
                             injected faults marked on the tool message (:mod:`._export_messages`)
``output``                   the final answer
``scores["reliability_lab"]`` ``value`` the graded score, ``answer`` the final answer,
                             ``explanation`` the score's reasons, ``metadata`` success and the
                             pass threshold; no score when the run recorded none
``error``                    the run's ``error`` (``infrastructure:`` or the agent's)
``metadata.reliability_lab`` what the importer reads back (:data:`EXPORTED_FIELDS`: condition,
                             variant, confidence and its source, the perturbation record,
                             success, error) and the rest of the record (violations, safety
                             and session verdicts, resources, seed)
``model_usage``, times       tokens and cost (none when the price is unknown); ``total_time``
                             the run's wall time
===========================  ===============================================================

:func:`reliability_lab.io.load_inspect_log` reads an export back to the run table it came
from (docs/inspect.md lists the columns that differ and why). The results directory is read
only through :mod:`reliability_lab.results` (by way of :func:`reliability_lab.viewer.read_view`).
"""

from __future__ import annotations

import hashlib
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reliability_lab.inspect._export_messages import transcript_messages
from reliability_lab.io._common import import_extra
from reliability_lab.io.inspect_logs import EXPORT_SCORER, SAMPLE_METADATA_KEY
from reliability_lab.runs import is_infrastructure
from reliability_lab.viewer import ViewedResults, read_view, transcript_sections

if TYPE_CHECKING:
    import pandas as pd
    from inspect_ai.log import EvalLog, EvalResults, EvalSample

__all__ = ["DEFAULT_EXPORT_DIR", "InspectExport", "export_to_inspect"]

#: Where the logs go when no output directory is given: ``DIR/inspect-logs``.
DEFAULT_EXPORT_DIR = "inspect-logs"
_GROUP = ["agent", "condition", "variant"]
#: Record fields copied into the sample metadata beside what the importer reads.
_DETAILS = (
    "actions",
    "seed",
    "environment",
    "simulated",
    "violations",
    "safety",
    "session",
    "cost_usd",
    "api_calls",
    "num_actions",
    "num_errors",
    "call_latency_s",
    "confidence_raw",
)


@dataclass(frozen=True)
class InspectExport:
    """What :func:`export_to_inspect` wrote."""

    directory: Path
    """The log directory (``inspect view --log-dir`` it)."""
    files: list[Path]
    """One ``.eval`` log per agent × condition × variant, in the experiment's order."""
    n_runs: int
    """Runs written (each a sample of one log)."""

    def describe(self) -> str:
        """The lines ``reliability-lab export`` prints."""
        lines = [f"  {path.name}" for path in self.files]
        lines += [
            f"{len(self.files)} inspect logs ({self.n_runs} runs) written to {self.directory}",
            f"Open them with: inspect view --log-dir {self.directory}",
        ]
        return "\n".join(lines)


def _clean(value: Any) -> Any:
    """JSON-safe metadata: NaN and infinities become None, containers recursively."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Mapping):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def _number(value: Any) -> float | None:
    return None if value is None or not math.isfinite(float(value)) else float(value)


def _config_entry(entries: Any, name_key: str, name: str) -> dict[str, Any]:
    return next((dict(e) for e in entries or [] if e.get(name_key) == name), {})


def _ident(*parts: str) -> str:
    """A stable id (22 characters, like inspect's own) for one log of one experiment."""
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:22]


def _sample_metadata(record: Mapping[str, Any], task: str) -> dict[str, Any]:
    ours = {
        "task": task,
        "condition": record.get("condition"),
        "variant": record.get("variant") or "",
        "run": record.get("run"),
        "success": bool(record.get("success")),
        "error": record.get("error"),
        "confidence": _number(record.get("confidence")),
        "confidence_source": record.get("confidence_source") or "none",
        "confidence_error": record.get("confidence_error"),
        "perturbation": record.get("perturbation"),
        **{name: record.get(name) for name in _DETAILS if name in record},
    }
    return {SAMPLE_METADATA_KEY: _clean(ours)}


def _sample(view: ViewedResults, key: str, model: str, task: str, threshold: float) -> EvalSample:
    from inspect_ai.log import EvalError, EvalSample
    from inspect_ai.model import ModelOutput, ModelUsage
    from inspect_ai.scorer import Score

    record = view.records[key]
    transcript = transcript_sections(view, key)
    answer = str(record.get("final_answer") or "")
    score = _number(record.get("score"))
    usage = ModelUsage(
        input_tokens=int(record.get("prompt_tokens") or 0),
        output_tokens=int(record.get("completion_tokens") or 0),
        total_tokens=int(record.get("prompt_tokens") or 0)
        + int(record.get("completion_tokens") or 0),
        total_cost=_number(record.get("cost_usd")),
    )
    error = record.get("error")
    return EvalSample(
        id=str(record["task_id"]),
        epoch=int(record["run"]) + 1,
        input=next((s.text for s in transcript.steps if s.kind == "user"), ""),
        target="",
        messages=transcript_messages(transcript.steps, model),
        output=ModelOutput.from_content(model, answer),
        scores=None
        if score is None
        else {
            EXPORT_SCORER: Score(
                value=score,
                answer=answer,
                explanation="\n".join(transcript.why),
                metadata={"success": bool(record.get("success")), "pass_threshold": threshold},
            )
        },
        metadata=_sample_metadata(record, task),
        model_usage={model: usage},
        total_time=_number(record.get("wall_time_s")),
        error=EvalError(message=str(error), traceback="", traceback_ansi="") if error else None,
    )


def _results(runs: pd.DataFrame) -> EvalResults:
    """inspect's results block: accuracy without infrastructure errors, the mean score."""
    from inspect_ai.log import EvalMetric, EvalResults, EvalScore

    counted = runs[[not is_infrastructure(e) for e in runs["error"]]]
    scored = runs["score"].dropna()
    metrics = {}
    if len(counted):
        accuracy = float(counted["success"].mean())
        metrics["accuracy"] = EvalMetric(name="accuracy", value=accuracy)
    if len(scored):
        metrics["mean"] = EvalMetric(name="mean", value=float(scored.mean()))
    score = EvalScore(
        name=EXPORT_SCORER,
        scorer=EXPORT_SCORER,
        scored_samples=len(scored),
        unscored_samples=len(runs) - len(scored),
        metrics=metrics,
    )
    return EvalResults(total_samples=len(runs), completed_samples=len(runs), scores=[score])


def _provenance(view: ViewedResults, agent: str, condition: str, variant: str) -> dict[str, Any]:
    header, config = view.header, view.header.get("config", {})
    return {
        "agent": agent,
        "condition": condition,
        "variant": variant,
        "experiment": header.get("suite_name"),
        "description": config.get("description") or "",
        "fingerprint": header.get("fingerprint"),
        "profile": header.get("profile"),
        "seed": header.get("seed"),
        "runs": config.get("runs"),
        "tasks": header.get("tasks", []),
        "environment": config.get("environment"),
        "simulated": bool(header.get("simulated")),
        "version": header.get("version"),
        "started": header.get("timestamp"),
        "updated": header.get("updated"),
        "results_directory": str(view.directory),
        "agent_config": _config_entry(config.get("agents"), "label", agent),
        "condition_config": _config_entry(config.get("conditions"), "name", condition),
    }


def _eval_log(view: ViewedResults, runs: pd.DataFrame) -> EvalLog:
    from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalPlan, EvalSpec, EvalStats

    from reliability_lab.inspect._build import task_name

    agent, condition, variant = (str(runs[c].iloc[0]) for c in _GROUP)
    header, config = view.header, view.header.get("config", {})
    environment = str((config.get("environment") or {}).get("name") or "tasks")
    model = str(header.get("models", {}).get(agent) or "none/none")
    provenance = _provenance(view, agent, condition, variant)
    threshold = float(provenance["agent_config"].get("pass_threshold", 1.0))
    samples = [_sample(view, k, model, environment, threshold) for k in runs["key"]]
    fingerprint = str(header.get("fingerprint") or view.directory)
    task_ids = list(dict.fromkeys(str(t) for t in runs["task_id"]))
    created = str(header.get("timestamp"))
    spec = EvalSpec(
        eval_id=_ident(fingerprint, agent, condition, variant, "eval"),
        run_id=_ident(fingerprint, "run"),
        created=created,
        task=task_name(environment, condition, variant),
        task_id=_ident(fingerprint, agent, condition, variant),
        task_display_name=f"{task_name(environment, condition, variant)} [{agent}]",
        tags=[agent, condition if not variant else f"{condition} {variant}"],
        dataset=EvalDataset(name=environment, samples=len(task_ids), sample_ids=task_ids),
        model=model,
        config=EvalConfig(epochs=int(runs["run"].max()) + 1),
        packages={"reliability-lab": str(header.get("version"))},
        metadata={SAMPLE_METADATA_KEY: _clean(provenance)},
    )
    usage = [u for s in samples for u in s.model_usage.values()]
    return EvalLog(
        status="success",
        eval=spec,
        plan=EvalPlan(name=str(provenance["agent_config"].get("agent") or "tool_loop")),
        results=_results(runs),
        stats=EvalStats(
            started_at=created,
            completed_at=str(header.get("updated") or created),
            model_usage={model: sum(usage[1:], usage[0])} if usage else {},
        ),
        samples=samples,
    )


def _file_name(log: EvalLog) -> str:
    """inspect's own naming, ``<created>_<task>_<task id>.eval``, the agent added to the task
    part; the ids are stable, so a second export replaces the first."""
    stamp = log.eval.created.replace(":", "-").replace("Z", "+00-00")
    task = re.sub(r"[^A-Za-z0-9.-]+", "-", log.eval.task_display_name or log.eval.task)
    return f"{stamp}_{task.strip('-')}_{log.eval.task_id}.eval"


def export_to_inspect(
    directory: str | os.PathLike[str], output: str | os.PathLike[str] | None = None
) -> InspectExport:
    """Write a results directory as inspect_ai ``.eval`` logs that ``inspect view`` opens.

    Parameters
    ----------
    directory : path-like
        A reliability_lab results directory.
    output : path-like, optional
        The log directory to write (created if needed); default ``DIRECTORY/inspect-logs``.
        A log already there for the same agent, condition variant and experiment is
        replaced (file names are stable), so exporting again after a resume is safe.

    Returns
    -------
    InspectExport
        The directory, the files (one per agent × condition × variant) and the run count.

    Raises
    ------
    MissingExtraError
        inspect-ai is not installed (``pip install 'reliability-lab[inspect]'``).
    RunTableError
        ``directory`` is not a readable results directory (the message names the file).

    Examples
    --------
    >>> from reliability_lab.inspect.export import export_to_inspect
    >>> export_to_inspect("results/demo").files  # doctest: +SKIP
    """
    inspect_log = import_extra("inspect_ai.log", "exporting to inspect_ai's log format")
    view = read_view(directory)
    out = Path(output) if output is not None else view.directory / DEFAULT_EXPORT_DIR
    out.mkdir(parents=True, exist_ok=True)
    files = []
    for _, runs in view.runs.groupby(_GROUP, sort=False):
        log = _eval_log(view, runs)
        path = out / _file_name(log)
        inspect_log.write_eval_log(log, str(path))
        files.append(path)
    return InspectExport(directory=out, files=files, n_runs=len(view.runs))
