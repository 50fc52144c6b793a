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
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import ExitStack
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from reliability_lab.errors import ExperimentError
from reliability_lab.experiment.config import ExperimentConfig, load_config, parse_config
from reliability_lab.experiment.plan import build_plan, resolve_tasks
from reliability_lab.experiment.selection import (
    apply_filters,
    check_importable_on_workers,
    config_with_objects,
)
from reliability_lab.results.directory import ResultsDirectory
from reliability_lab.results.lock import DirectoryLock
from reliability_lab.results.outcome import ExperimentOutcome
from reliability_lab.results.store import RESULTS_FILE, ResultsWriter
from reliability_lab.results.summary import summarize_directory
from reliability_lab.results.traces import make_scorer, trace_maker
from reliability_lab.results.write_failure import write_failure
from reliability_lab.runner.adaptive import adaptive_keys, run_adaptive
from reliability_lab.runner.execution import (
    ExecuteFn,
    RunOutput,
    execute_one,
    make_client,
    make_context,
)
from reliability_lab.runner.preflight import check_preflight
from reliability_lab.runner.prepare import attach_prepared, prepare_conditions
from reliability_lab.runner.progress import TalliedProgress, progress_bar
from reliability_lab.runs import RunKey, run_key

if TYPE_CHECKING:
    from reliability_lab.agents import RunSpec
    from reliability_lab.llm import LLMClient

from reliability_lab._sync import run_sync

__all__ = ["ExperimentError", "ExperimentOutcome", "arun_experiment", "run_experiment"]


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

    tasks = [asyncio.ensure_future(one(spec)) for spec in pending]
    if not tasks:
        return failures
    try:  # not gather: a cancelled gather waits for every child, however long it takes
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
    except asyncio.CancelledError:  # Ctrl-C / SIGTERM (cli.py): stop every run, then stop
        await _stop(tasks)
        raise
    errors = [t.exception() for t in tasks if t in done and not t.cancelled() and t.exception()]
    if errors:  # a failure to record (e.g. a full disk) ends the experiment
        await _stop(tasks)
        raise errors[0]  # type: ignore[misc]  # (None was filtered out)
    return failures


#: How many times a run that outlives its cancellation is cancelled again.
_CANCEL_ROUNDS = 20


async def _stop(tasks: Sequence[asyncio.Task[None]]) -> None:
    """Cancel the runs still going and wait until they stopped.

    A run may lose one cancellation inside a library (Python 3.11's ``asyncio.wait_for`` drops
    one that arrives as its inner awaitable completes) and wait on the next request; such a run
    is cancelled again, a bounded number of times, so Ctrl-C never becomes a hang.
    """
    for _ in range(_CANCEL_ROUNDS):
        live = [task for task in tasks if not task.done()]
        if not live:
            return
        for task in live:
            task.cancel()
        await asyncio.wait(live, timeout=0.5)


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
        existing = ResultsDirectory.open(config, tasks, allowed, retry_infra=retry_infra)
        done = existing.done
        pending = [spec for spec in plan if spec.key not in done]
        may_run = pending or config.adaptive is not None  # adaptive rounds may add runs
        if preflight and may_run:  # before anything is written or paid for
            check_preflight(
                config,
                source=source,
                agents={s.agent for s in pending},
                conditions={s.condition for s in pending},
            )
        try:
            return await _run_locked(config, tasks, plan, existing, pending, execute, progress)
        except OSError as exc:  # disk full, an immutable file: say which and what is safe
            failure = write_failure(exc, config.output_dir())
            if failure is None:
                raise
            raise failure from exc


async def _execute_locked(
    config: ExperimentConfig,
    tasks: list[str],
    plan: list[RunSpec],
    existing: ResultsDirectory,
    pending: list[RunSpec],
    llm: LLMClient,
    run_one: RunOne,
    max_concurrent: int,
    progress: bool,
) -> tuple[list[tuple[RunKey, BaseException]], int, list[RunSpec]]:
    """Prepare the conditions, reconcile the traces, execute and record every pending run
    and the adaptive rounds; (failures, adaptive runs executed, the pending runs)."""
    out = config.output_dir()
    pending = await _with_prepared(config, tasks, out, llm, pending)
    existing.reconcile_traces(trace_maker(make_scorer(config, llm)))
    bar = progress_bar(
        total=len(plan),
        initial=len(plan) - len(pending),
        desc=f"Running {config.name}",
        enabled=progress,
    )
    try:
        with existing.writers() as (writer, traces_writer):
            recorder = _Recorder(writer, traces_writer, bar, existing.done)
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
    existing: ResultsDirectory,
    pending: list[RunSpec],
    execute: ExecuteFn,
    progress: bool,
) -> ExperimentOutcome:
    """The experiment, while this process holds the output directory's lock."""
    out = config.output_dir()
    existing.begin(config, tasks)
    may_run = bool(pending) or config.adaptive is not None
    with ExitStack() as stack:
        if config.executor.kind == "ray" and may_run:
            from reliability_lab.runner.ray_executor import RayRuns, ray_connection

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
        failure = write_failure(exc, out) if isinstance(exc, OSError) else None
        if failure is not None:
            raise failure from exc
        raise ExperimentError(
            f"{len(failures)} run(s) raised an unexpected exception and were not recorded "
            f"(first: run {key}: {type(exc).__name__}: {exc}). Finished runs are saved in "
            f"{out / RESULTS_FILE}; rerun the same command to retry the missing ones."
        ) from exc
    summary = summarize_directory(out)
    return ExperimentOutcome(
        output_dir=out,
        n_planned=len(plan),
        n_previous=len(existing.kept),
        n_executed=len(pending) + n_adaptive,
        summary=summary,
        n_retried=len(existing.retry),
    )


def run_experiment(
    config: ExperimentConfig | Mapping[str, Any] | str | os.PathLike[str],
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
    tasks: str | Sequence[str] | None = None,
    agents: str | Sequence[str] | None = None,
    limit: int | None = None,
    print_summary: bool = False,
) -> ExperimentOutcome:
    """Run (or resume) an experiment and write its results directory.

    Parameters
    ----------
    config : ExperimentConfig, mapping or path
        A validated config, a config mapping, or the path of a YAML config file. A mapping
        may hold Python objects: an agent's ``solve`` callable as ``agents[i].agent`` and an
        ``Environment`` as ``environment`` (docs/your_agent.md, "From Python").
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
    tasks, agents : str or sequence of str, optional
        Only these task ids / agent labels (``"a,b"`` or a list), as the CLI's ``--tasks`` and
        ``--agents``.
    limit : int, optional
        Only the first ``limit`` selected tasks (CLI ``--limit``).
    print_summary : bool
        Print the summary block the CLI prints (``str(outcome)`` returns it too).

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
        (:class:`~reliability_lab.results.lock.DirectoryLockedError`).
    RunTableError
        A damaged or duplicate record in ``results.jsonl`` (nothing is executed).
    ExperimentError
        Some runs raised unexpected exceptions (they are not recorded; rerun to retry).
    ResultsWriteError
        A results file could not be written (disk full, an immutable file): the message names
        it and the runs safely recorded; rerun to resume.

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
    source, cfg = load_filtered(
        config, overrides=overrides, tasks=tasks, agents=agents, limit=limit
    )
    if cfg.inspect is not None:  # inspect's eval_set executes (docs/inspect.md)
        from reliability_lab.inspect._experiment import run_inspect_experiment

        return run_inspect_experiment(cfg, progress=progress)  # a layer below the runner
    if executor is not None and executor != cfg.executor.kind:
        kept = cfg.executor.model_dump(exclude_none=True) if executor == "ray" else {}
        cfg = parse_config(
            cfg.model_dump(), source=source, overrides={"executor": {**kept, "kind": executor}}
        )
    if cfg.executor.kind == "ray":
        check_importable_on_workers(cfg, source)
    outcome = run_sync(
        arun_experiment(
            cfg,
            source=source,
            progress=progress,
            execute=execute,
            retry_infra=retry_infra,
            preflight=preflight,
        )
    )
    if print_summary:
        print(outcome)
    return outcome


def load_filtered(
    config: ExperimentConfig | Mapping[str, Any] | str | os.PathLike[str],
    *,
    overrides: Mapping[str, Any] | None = None,
    tasks: str | Sequence[str] | None = None,
    agents: str | Sequence[str] | None = None,
    limit: int | None = None,
) -> tuple[str, ExperimentConfig]:
    """``(source, config)``: a config object, mapping or YAML path validated with top-level
    ``overrides`` and the ``tasks`` / ``agents`` / ``limit`` filters applied.

    Raises
    ------
    ConfigError
        Invalid config, an unknown agent label in ``agents``.
    """
    if isinstance(config, ExperimentConfig | Mapping):
        source = "config"
        data = config.model_dump() if isinstance(config, ExperimentConfig) else config
        data = config_with_objects(data)
        filtered = apply_filters(data, tasks=tasks, agents=agents, limit=limit, source=source)
        return source, parse_config(filtered, source=source, overrides=overrides)
    source = str(config)
    cfg = load_config(config, overrides=overrides)
    if tasks is None and agents is None and limit is None:
        return source, cfg
    filtered = apply_filters(
        cfg.model_dump(), tasks=tasks, agents=agents, limit=limit, source=source
    )
    return source, parse_config(filtered, source=source)
