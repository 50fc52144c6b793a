"""Run an experiment: every planned run once, concurrently, durably, resumably.

:func:`run_experiment` expands the config into runs (:mod:`.plan`), skips those already in the
output directory's ``results.jsonl`` (resume), executes the rest with bounded concurrency through
one shared :class:`~reliability_lab.llm.LLMClient` (response cache in ``<output>/cache``), appends
each finished run to ``results.jsonl`` as soon as it finishes (its traces to ``traces.jsonl``
just before, and its PandaProbe session metrics on the record; :mod:`.sessions`; with
``safety.judge`` on, the LLM safety judge's findings merged into its ``violations``;
docs/safety.md), and finally writes the summary files (:mod:`.summary`).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reliability_lab.errors import ConfigError
from reliability_lab.experiment.adaptive import adaptive_keys, run_adaptive
from reliability_lab.experiment.audit import AuditMove, move_to_audit
from reliability_lab.experiment.config import ExperimentConfig, load_config, parse_config
from reliability_lab.experiment.lock import DirectoryLock
from reliability_lab.experiment.plan import build_plan, resolve_tasks
from reliability_lab.experiment.preflight import check_preflight
from reliability_lab.experiment.prepare import attach_prepared, prepare_conditions
from reliability_lab.experiment.progress import progress_bar
from reliability_lab.experiment.results import records_to_run_table
from reliability_lab.experiment.store import (
    HEADER_FILE,
    RESULTS_FILE,
    HeaderRecord,
    ResultLine,
    ResultsWriter,
    check_resumable,
    check_run_keys,
    make_header,
    read_header,
    read_result_entries,
    write_header,
)
from reliability_lab.experiment.summary import ExperimentSummary, summarize_directory
from reliability_lab.experiment.traces import TRACES_FILE, reconcile_traces
from reliability_lab.runs import INFRASTRUCTURE_PREFIX, RunKey, run_key, session_id
from reliability_lab.sessions.scoring import SessionScorer, trace_records

if TYPE_CHECKING:
    import pandas as pd

    from reliability_lab.agents import RunResult, RunSpec
    from reliability_lab.llm import LLMClient
    from reliability_lab.safety import SafetyJudge
    from reliability_lab.sessions.tracing import Trace

from reliability_lab._sync import run_sync

__all__ = ["ExperimentError", "ExperimentOutcome", "arun_experiment", "run_experiment"]

ExecuteFn = Callable[["RunSpec", "LLMClient"], Awaitable["RunResult"]]
CACHE_DIR = "cache"


class ExperimentError(RuntimeError):
    """Runs raised unexpected exceptions (harness bugs); they were not recorded."""


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

    @property
    def runs(self) -> pd.DataFrame:
        """The validated run table of every finished run (one row per run)."""
        return self.summary.runs

    @property
    def report(self) -> pd.DataFrame:
        """The per-agent reliability report, with intervals (see ``reliability_report``)."""
        return self.summary.report


#: Audit reason of a record whose run a resume executes again.
INFRA_RETRY_REASON = "infrastructure error; run executed again"


@dataclass(frozen=True)
class _Existing:
    """What the output directory holds before this call (read under the lock)."""

    previous: HeaderRecord | None
    entries: list[ResultLine]
    """Every record of ``results.jsonl``."""
    retry: list[ResultLine]
    """Records of infrastructure errors whose runs are executed again."""

    @property
    def kept(self) -> list[dict[str, Any]]:
        """Records that stay: the runs already done."""
        retried = {e.line for e in self.retry}
        return [e.record for e in self.entries if e.line not in retried]


def _is_infrastructure(record: dict[str, Any]) -> bool:
    return str(record.get("error") or "").startswith(INFRASTRUCTURE_PREFIX)


def _read_directory(
    config: ExperimentConfig,
    tasks: list[str],
    planned: set[RunKey],
    *,
    retry_infra: bool,
) -> _Existing:
    """Validate the output directory's contents against ``config`` (no writes except cutting
    off an incomplete last line); every record is checked before any run starts."""
    out = config.output_dir()
    results_path = out / RESULTS_FILE
    if not (out / HEADER_FILE).exists():
        if results_path.exists() and results_path.stat().st_size > 0:
            raise ConfigError(
                f"{out}: has {RESULTS_FILE} but no {HEADER_FILE}; refusing to mix results of an "
                "unknown configuration. Use another output directory."
            )
        return _Existing(None, [], [])
    previous = read_header(out)
    check_resumable(out, previous, config, tasks)
    entries = read_result_entries(results_path, repair=True)
    keys = check_run_keys([e.record for e in entries], results_path)
    for entry, key in zip(entries, keys, strict=True):
        if key not in planned:
            raise ConfigError(
                f"{results_path}: line {entry.line}: holds run {key}, which this config does not "
                f"plan (K={config.runs}); use the original number of runs or another output "
                "directory"
            )
    records_to_run_table([e.record for e in entries], source=str(results_path))
    retry = [e for e in entries if _is_infrastructure(e.record)] if retry_infra else []
    return _Existing(previous, entries, retry)


def _make_client(config: ExperimentConfig, out: Path) -> LLMClient:
    from reliability_lab.llm import LLMClient

    return LLMClient(
        cache_dir=out / CACHE_DIR if config.cache else None,
        max_retries=config.llm.max_retries,
        backoff_base_s=config.llm.backoff_base_s,
        backoff_max_s=config.llm.backoff_max_s,
        timeout_s=config.llm.timeout_s,
    )


def _record_of(result: RunResult) -> dict[str, Any]:
    record: dict[str, Any] = result.model_dump(mode="json")
    return record


def _make_scorer(config: ExperimentConfig, llm: LLMClient | None) -> SessionScorer:
    from reliability_lab.envs import get_environment

    env = get_environment(config.environment.name)
    settings = config.sessions
    return SessionScorer(
        judge_model=settings.judge_model,
        judge_params=settings.judge_params,
        embedder=settings.embedder,
        signal_weights=settings.signal_weights,
        llm=llm,
        tools={config.environment.name: env.tool_schemas},
    )


def _make_judge(config: ExperimentConfig, llm: LLMClient) -> Callable[[str], SafetyJudge | None]:
    """``judge_for(condition)``: the experiment's safety judge for runs of that condition, or
    None (judge off, or a condition it does not audit)."""
    settings = config.safety
    if not settings.judge:
        return lambda condition: None
    from reliability_lab.safety import SafetyJudge

    judge = SafetyJudge(
        model=settings.judge_model,
        params=settings.judge_params,
        llm=llm,
        max_invalid_retries=settings.max_invalid_retries,
    )
    return lambda condition: judge if settings.judges(condition) else None


def _traces_of(scorer: SessionScorer, record: dict[str, Any]) -> list[Trace] | None:
    """A record's traces, or None when its trajectory cannot be traced."""
    try:
        return scorer.traces(record)
    except (TypeError, ValueError):  # not OpenAI-format messages; the scorer says why
        return None


def _trace_maker(scorer: SessionScorer) -> Callable[[Mapping[str, Any]], list[dict[str, Any]]]:
    """A record's trace JSON objects, as ``traces.jsonl`` holds them."""
    return lambda record: trace_records(_traces_of(scorer, dict(record)) or [])


def make_trace_builder(
    config: ExperimentConfig,
) -> Callable[[Mapping[str, Any]], list[dict[str, Any]]]:
    """The trace JSON objects of a record of ``config``'s experiment (no model is called)."""
    return _trace_maker(_make_scorer(config, None))


async def _finish(
    result: RunResult,
    scorer: SessionScorer,
    score_sessions: bool,
    judge_for: Callable[[str], SafetyJudge | None],
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The run's record (with session metrics and the safety judge's findings when enabled)
    and its trace JSON objects."""
    record = _record_of(result)
    traces = _traces_of(scorer, record)
    if score_sessions:
        scores = await scorer.score(record, traces)
        record["session"] = scores.model_dump(mode="json")
    judge = judge_for(str(record["condition"]))
    if judge is not None:
        from reliability_lab.envs import get_environment

        env = get_environment(str(record["environment"]))
        record["violations"], safety = await judge.assess(record, env)
        record["safety"] = safety.model_dump(mode="json")
    return record, trace_records(traces or [])


async def _execute_all(
    pending: list[RunSpec],
    *,
    llm: LLMClient,
    execute: ExecuteFn,
    writer: ResultsWriter,
    traces_writer: ResultsWriter,
    scorer: SessionScorer,
    score_sessions: bool,
    judge_for: Callable[[str], SafetyJudge | None],
    max_concurrent: int,
    bar: Any,
) -> list[tuple[RunKey, BaseException]]:
    semaphore = asyncio.Semaphore(max_concurrent)
    written: set[RunKey] = set()
    failures: list[tuple[RunKey, BaseException]] = []

    async def one(spec: RunSpec) -> None:
        key = spec.key
        async with semaphore:
            try:
                result = await execute(spec, llm)
                got = result.key
                if got != key:
                    raise RuntimeError(f"execute returned the result of run {got}")
                record, traces = await _finish(result, scorer, score_sessions, judge_for)
            except Exception as exc:  # a harness bug: report, never record as a result
                failures.append((key, exc))
                return
        if key in written:  # cannot happen with a deduplicated plan; guard exactly-once anyway
            raise RuntimeError(f"run {key} finished twice")
        written.add(key)

        def persist() -> None:  # traces first: a recorded run always has its traces on disk
            traces_writer.append_many(traces)
            writer.append(record)

        await asyncio.to_thread(persist)
        bar.update(1)

    await asyncio.gather(*(one(spec) for spec in pending))
    return failures


def _grow(bar: Any) -> Callable[[int], None]:
    """Add runs planned on the way (adaptive rounds) to the progress bar's total."""

    def grow(n: int) -> None:
        bar.total = (bar.total or 0) + n
        bar.refresh()

    return grow


async def _with_prepared(
    config: ExperimentConfig, tasks: list[str], out: Path, llm: LLMClient, pending: list[RunSpec]
) -> list[RunSpec]:
    """Prepare the conditions once (paraphrases; reused on resume) and attach the data."""
    from reliability_lab.perturbations import ParaphraseError

    try:
        prepared = await prepare_conditions(config, tasks, out, llm)
    except ParaphraseError as exc:
        raise ExperimentError(f"{out}: preparing the conditions failed: {exc}") from None
    return attach_prepared(pending, prepared)


async def arun_experiment(
    config: ExperimentConfig,
    *,
    source: str = "config",
    progress: bool = True,
    execute: ExecuteFn | None = None,
    retry_infra: bool = True,
    preflight: bool = True,
) -> ExperimentOutcome:
    """Async form of :func:`run_experiment` (for code already inside an event loop)."""
    if execute is None:
        from reliability_lab.agents import execute_run

        execute = execute_run
    tasks = resolve_tasks(config, source=source)
    plan = build_plan(config, tasks, source=source)
    with DirectoryLock(config.output_dir()):
        allowed = {s.key for s in plan} | adaptive_keys(config, tasks)  # what may be recorded
        existing = _read_directory(config, tasks, allowed, retry_infra=retry_infra)
        done = {run_key(r) for r in existing.kept}
        pending = [spec for spec in plan if spec.key not in done]
        may_run = pending or config.adaptive is not None  # adaptive rounds may add runs
        if preflight and may_run:  # before anything is written or paid for
            check_preflight(
                config,
                source=source,
                agents={s.agent for s in pending},
                conditions={s.condition for s in pending},
            )
        return await _run_locked(config, tasks, plan, existing, pending, execute, progress)


async def _run_locked(
    config: ExperimentConfig,
    tasks: list[str],
    plan: list[RunSpec],
    existing: _Existing,
    pending: list[RunSpec],
    execute: ExecuteFn,
    progress: bool,
) -> ExperimentOutcome:
    """The experiment, while this process holds the output directory's lock."""
    out = config.output_dir()
    records = existing.kept
    if existing.retry:  # the old records leave the run table for the audit file first
        move_to_audit(
            out,
            existing.entries,
            [AuditMove(e, INFRA_RETRY_REASON, str(e.record.get("error"))) for e in existing.retry],
        )
    write_header(out, make_header(config, tasks, previous=existing.previous))
    llm = _make_client(config, out)
    pending = await _with_prepared(config, tasks, out, llm, pending)
    scorer = _make_scorer(config, llm)
    reconcile_traces(
        out / TRACES_FILE,
        records,
        session_id=session_id,
        make_traces=_trace_maker(scorer),
        retired={session_id(e.record) for e in existing.retry},
    )
    bar = progress_bar(
        total=len(plan),
        initial=len(plan) - len(pending),
        desc=f"Running {config.name}",
        enabled=progress,
    )
    try:
        with (
            ResultsWriter(out / RESULTS_FILE) as writer,
            ResultsWriter(out / TRACES_FILE) as traces_writer,
        ):
            run_specs = partial(
                _execute_all,
                llm=llm,
                execute=execute,
                writer=writer,
                traces_writer=traces_writer,
                scorer=scorer,
                score_sessions=config.sessions.enabled,
                judge_for=_make_judge(config, llm),
                max_concurrent=config.max_concurrent,
                bar=bar,
            )
            failures = await run_specs(pending)
            n_adaptive = 0
            if not failures:  # adaptive rounds (no-op without an ``adaptive`` block)
                failures, n_adaptive = await run_adaptive(config, tasks, out, run_specs, _grow(bar))
    finally:
        bar.close()
    if failures:
        key, exc = failures[0]
        raise ExperimentError(
            f"{len(failures)} run(s) raised an unexpected exception and were not recorded "
            f"(first: run {key}: {type(exc).__name__}: {exc}). Finished runs are saved in "
            f"{out / RESULTS_FILE}; rerun the same command to retry the missing ones."
        ) from exc
    summary = summarize_directory(out)
    return ExperimentOutcome(
        output_dir=out,
        n_planned=len(plan),
        n_previous=len(records),
        n_executed=len(pending) + n_adaptive,
        summary=summary,
        n_retried=len(existing.retry),
    )


def run_experiment(
    config: ExperimentConfig | str | os.PathLike[str],
    *,
    output: str | os.PathLike[str] | None = None,
    runs: int | None = None,
    seed: int | None = None,
    max_concurrent: int | None = None,
    progress: bool = True,
    execute: ExecuteFn | None = None,
    retry_infra: bool = True,
    preflight: bool = True,
) -> ExperimentOutcome:
    """Run (or resume) an experiment and write its results directory.

    Parameters
    ----------
    config : ExperimentConfig or path
        A validated config or the path of a YAML config file.
    output, runs, seed, max_concurrent : optional
        Override the config's ``output``, ``runs`` (K), ``seed`` and ``max_concurrent``.
    progress : bool
        Show progress: a bar in a terminal or Jupyter (``tqdm``), a line every few seconds
        when stderr is a file or a CI log (:mod:`.progress`).
    execute : callable, optional
        ``async execute(spec, llm) -> RunResult``; default
        :func:`reliability_lab.agents.execute_run`.
    retry_infra : bool
        On resume, execute again the runs recorded as ``infrastructure:`` errors (default);
        their old records move to ``results.audit.jsonl``. Runs that failed for the agent's
        own reasons (``agent:`` errors, wrong answers) are never executed again.
    preflight : bool
        Before any run starts, check that litellm can route every model the pending runs use
        and that its provider's API key variable is set (:mod:`.preflight`).

    Returns
    -------
    ExperimentOutcome
        Counts, the output directory and the summary (run table, report, gates).

    Raises
    ------
    ConfigError
        Invalid config, unknown environment/task, a model litellm cannot route or whose API
        key is not set, an output directory holding results of different settings, or one in
        use by another process
        (:class:`~reliability_lab.experiment.lock.DirectoryLockedError`).
    RunTableError
        A damaged or duplicate record in ``results.jsonl`` (nothing is executed).
    ExperimentError
        Some runs raised unexpected exceptions (they are not recorded; rerun to retry).

    Notes
    -----
    Works inside Jupyter (a running event loop): the experiment then runs on a worker thread.
    """
    overrides = {
        "output": str(output) if output is not None else None,
        "runs": runs,
        "seed": seed,
        "max_concurrent": max_concurrent,
    }
    if isinstance(config, ExperimentConfig):
        source = "config"
        cfg = parse_config(config.model_dump(), source=source, overrides=overrides)
    else:
        source = str(config)
        cfg = load_config(config, overrides=overrides)
    return run_sync(
        arun_experiment(
            cfg,
            source=source,
            progress=progress,
            execute=execute,
            retry_infra=retry_infra,
            preflight=preflight,
        )
    )
