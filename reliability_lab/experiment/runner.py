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
from contextlib import ExitStack
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from reliability_lab.errors import ConfigError
from reliability_lab.experiment.adaptive import adaptive_keys, run_adaptive
from reliability_lab.experiment.audit import AuditMove, move_to_audit
from reliability_lab.experiment.config import ExperimentConfig, load_config, parse_config
from reliability_lab.experiment.execution import (
    ExecuteFn,
    RunOutput,
    execute_one,
    make_client,
    make_context,
    make_scorer,
    trace_maker,
)
from reliability_lab.experiment.lock import DirectoryLock
from reliability_lab.experiment.plan import build_plan, resolve_tasks
from reliability_lab.experiment.preflight import check_preflight
from reliability_lab.experiment.prepare import attach_prepared, prepare_conditions
from reliability_lab.experiment.progress import TalliedProgress, progress_bar
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

if TYPE_CHECKING:
    import pandas as pd

    from reliability_lab.agents import RunSpec
    from reliability_lab.llm import LLMClient

from reliability_lab._sync import run_sync

__all__ = ["ExperimentError", "ExperimentOutcome", "arun_experiment", "run_experiment"]


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


def make_trace_builder(
    config: ExperimentConfig,
) -> Callable[[Mapping[str, Any]], list[dict[str, Any]]]:
    """The trace JSON objects of a record of ``config``'s experiment (no model is called)."""
    return trace_maker(make_scorer(config, None))


RunOne = Callable[["RunSpec"], Awaitable[RunOutput]]


class _Recorder:
    """The driver's one writer: each finished run's traces, then its record, once per run key."""

    def __init__(
        self, writer: ResultsWriter, traces_writer: ResultsWriter, bar: Any, done: set[RunKey]
    ) -> None:
        self._writer, self._traces_writer, self._bar = writer, traces_writer, bar
        self._written = set(done)

    async def record(self, key: RunKey, output: RunOutput) -> None:
        record, traces = output
        if run_key(record) != key:
            raise RuntimeError(f"run {key} came back as the record of run {run_key(record)}")
        if key in self._written:  # e.g. a run executed again after its worker died: keep one
            return
        self._written.add(key)

        def persist() -> None:  # traces first: a recorded run always has its traces on disk
            self._traces_writer.append_many(traces)
            self._writer.append(record)

        await asyncio.to_thread(persist)
        self._bar.finished(record)


async def _execute_all(
    pending: list[RunSpec], *, run_one: RunOne, recorder: _Recorder, max_concurrent: int
) -> list[tuple[RunKey, BaseException]]:
    """Execute ``pending`` (at most ``max_concurrent`` at a time) and record each as it ends;
    the runs that raised (harness bugs, never recorded)."""
    semaphore = asyncio.Semaphore(max_concurrent)
    failures: list[tuple[RunKey, BaseException]] = []

    async def one(spec: RunSpec) -> None:
        key = spec.key
        async with semaphore:
            try:
                output = await run_one(spec)
            except Exception as exc:  # a harness bug: report, never record as a result
                failures.append((key, exc))
                return
        await recorder.record(key, output)

    await asyncio.gather(*(one(spec) for spec in pending))
    return failures


def _grow(bar: TalliedProgress) -> Callable[[int], None]:
    """Add runs planned on the way (adaptive rounds) to the progress bar's total."""

    return bar.grow


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


async def _execute_locked(
    config: ExperimentConfig,
    tasks: list[str],
    plan: list[RunSpec],
    existing: _Existing,
    pending: list[RunSpec],
    llm: LLMClient,
    run_one: RunOne,
    max_concurrent: int,
    progress: bool,
) -> tuple[list[tuple[RunKey, BaseException]], int, list[RunSpec]]:
    """Prepare the conditions, reconcile the traces, execute and record every pending run
    and the adaptive rounds; (failures, adaptive runs executed, the pending runs)."""
    out = config.output_dir()
    records = existing.kept
    pending = await _with_prepared(config, tasks, out, llm, pending)
    reconcile_traces(
        out / TRACES_FILE,
        records,
        session_id=session_id,
        make_traces=trace_maker(make_scorer(config, llm)),
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
            recorder = _Recorder(writer, traces_writer, bar, {run_key(r) for r in records})
            run_specs = partial(
                _execute_all, run_one=run_one, recorder=recorder, max_concurrent=max_concurrent
            )
            failures = await run_specs(pending)
            n_adaptive = 0
            if not failures:  # adaptive rounds (no-op without an ``adaptive`` block)
                failures, n_adaptive = await run_adaptive(config, tasks, out, run_specs, _grow(bar))
    finally:
        bar.close()
    return failures, n_adaptive, pending


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
    may_run = bool(pending) or config.adaptive is not None
    with ExitStack() as stack:
        if config.executor.kind == "ray" and may_run:
            from reliability_lab.experiment.ray_executor import RayRuns, ray_connection

            ray = stack.enter_context(ray_connection(config.executor))
            cluster = RayRuns(ray, config, out, execute)
            llm = make_client(config, out, cluster.limiter)
            run_one: RunOne = cluster.run_one
            max_concurrent = config.executor.max_in_flight or config.max_concurrent
        else:
            from reliability_lab.llm import RateLimiter

            per_minute = config.llm.max_calls_per_minute
            llm = make_client(config, out, RateLimiter(per_minute) if per_minute else None)
            run_one = partial(execute_one, ctx=make_context(config, out, execute, llm=llm))
            max_concurrent = config.max_concurrent
        failures, n_adaptive, pending = await _execute_locked(
            config, tasks, plan, existing, pending, llm, run_one, max_concurrent, progress
        )
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
    executor: Literal["asyncio", "ray"] | None = None,
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
    executor : {"asyncio", "ray"}, optional
        Override the config's ``executor.kind`` (its other ``executor`` settings are kept for
        ``ray``); the results are the same either way (docs/distributed.md).

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
    With ``executor: {kind: ray}`` the runs execute as Ray tasks and this process stays the
    only writer of the results directory (:mod:`.ray_executor`).
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
    if executor is not None and executor != cfg.executor.kind:
        kept = cfg.executor.model_dump(exclude_none=True) if executor == "ray" else {}
        cfg = parse_config(
            cfg.model_dump(), source=source, overrides={"executor": {**kept, "kind": executor}}
        )
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
