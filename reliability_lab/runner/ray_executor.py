"""The Ray executor: runs execute as Ray tasks; the driver stays the single writer.

With ``executor: {kind: ray}`` the experiment's process (the *driver*) does everything the
built-in executor does — lock, plan, seeds, paraphrases, resume, writing ``results.jsonl`` and
``traces.jsonl``, progress, summary — except executing the runs: each run is one Ray task that
returns its record and trace objects (:func:`~reliability_lab.runner.execution.execute_one`),
which the driver writes exactly as if the run had executed in its own process.

- **Worker death.** A task whose worker process dies is executed again by Ray (up to
  :data:`MAX_TASK_RETRIES` times); the driver writes a run only once, by run key.
- **Response cache.** Workers share ``<output>/cache``: one directory on one machine, or on a
  shared filesystem across machines. Entries are written atomically and keyed by content, so
  concurrent workers cannot corrupt them; a worker that cannot see the results directory fails
  its run with a message instead of silently caching elsewhere.
- **Losing the cluster.** When the local Ray node dies (or a remote cluster becomes
  unreachable) a run fails with :class:`~reliability_lab.errors.ExecutorLostError`: the
  command line says so in one line and exits 130, like an interrupted run; finished runs are
  recorded and a rerun resumes.
- **Rate limit.** ``llm.max_calls_per_minute`` is one :class:`~reliability_lab.llm.CallSpacing`
  held by one Ray actor that every worker (and the driver) asks before each provider call.

Ray is imported only here, and only when such an experiment starts (docs/distributed.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from reliability_lab.errors import ConfigError, ExecutorLostError
from reliability_lab.llm._ratelimit import CallSpacing
from reliability_lab.results.store import HEADER_FILE
from reliability_lab.runner.execution import ExecuteFn, RunOutput, execute_one, make_context

if TYPE_CHECKING:
    from reliability_lab.agents import RunSpec
    from reliability_lab.experiment.config import ExecutorSettings, ExperimentConfig
    from reliability_lab.llm import CallLimiter

__all__ = ["MAX_TASK_RETRIES", "RayRuns", "load_ray", "ray_connection"]

#: Times Ray executes a run again after the worker process executing it died.
MAX_TASK_RETRIES = 3
#: How long a local Ray instance's node may take to start its agents (a loaded machine is slow).
_AGENT_START_TIMEOUT_MS = 300_000
_INSTALL_HINT = "install the optional extra: pip install 'reliability-lab[ray]'"


def load_ray() -> ModuleType:
    """Import Ray.

    Raises
    ------
    ConfigError
        Ray is not installed (the message says how to install it).
    """
    try:
        import ray
    except ImportError:
        raise ConfigError(
            f"executor.kind: ray needs the Ray package, which is not installed; {_INSTALL_HINT}"
        ) from None
    return ray


@contextmanager
def ray_connection(settings: ExecutorSettings) -> Iterator[ModuleType]:
    """Ray, connected as ``settings`` says, for the duration of the block.

    A Ray already initialised in this process is used as it is and left running; otherwise
    Ray is initialised here (``local``: a new instance on this machine) and shut down after.

    Raises
    ------
    ConfigError
        Ray is not installed, or the address cannot be reached.
    """
    ray = load_ray()
    if ray.is_initialized():
        yield ray
        return
    address = settings.ray_address
    kwargs: dict[str, Any] = {"log_to_driver": False, "logging_level": logging.ERROR}
    if address == "local":
        kwargs.update(
            num_cpus=settings.num_cpus,
            include_dashboard=False,
            _system_config={"agent_register_timeout_ms": _AGENT_START_TIMEOUT_MS},
        )
    main_thread = threading.current_thread() is threading.main_thread()
    saved_term = signal.getsignal(signal.SIGTERM) if main_thread else None
    try:
        ray.init(address=address, **kwargs)
    except Exception as exc:  # Ray raises ConnectionError, RuntimeError, ValueError, ...
        raise ConfigError(
            f"executor.address: cannot start or reach Ray at {address!r}: "
            f"{type(exc).__name__}: {exc}"
        ) from None
    finally:
        if main_thread:  # ray.init installs its own SIGTERM handler; the CLI's stays
            signal.signal(signal.SIGTERM, saved_term)
    try:
        yield ray
    finally:
        ray.shutdown()


class _RateActor:
    """The cluster's one :class:`CallSpacing` (becomes a Ray actor in :class:`RayRuns`)."""

    def __init__(self, calls_per_minute: int) -> None:
        self._spacing = CallSpacing(calls_per_minute)

    def reserve(self) -> float:
        """Reserve the next start time; the seconds the caller waits."""
        return self._spacing.reserve(time.monotonic())

    def reserved(self) -> int:
        """Calls reserved so far, cluster-wide."""
        return self._spacing.reserved


class ActorLimiter:
    """A :class:`~reliability_lab.llm.CallLimiter` asking the cluster's rate actor."""

    def __init__(self, actor: Any) -> None:
        self.actor = actor

    async def wait(self) -> None:
        """Sleep until the start time the actor reserved for this call."""
        delay = await self.actor.reserve.remote()
        if delay > 0:
            await asyncio.sleep(delay)


def _run_task(shared: tuple[ExperimentConfig, str, ExecuteFn, Any], spec: RunSpec) -> RunOutput:
    """The body of one Ray task: execute ``spec`` in this worker; its record and traces."""
    config, directory, execute, actor = shared
    out = Path(directory)
    if config.cache and not (out / HEADER_FILE).is_file():
        raise RuntimeError(
            f"Ray worker on {socket.gethostname()} cannot see the results directory {out} "
            "(its response cache lives there); put the output directory on a filesystem "
            "every node mounts at the same path, or set cache: false"
        )
    limiter = ActorLimiter(actor) if actor is not None else None
    ctx = make_context(config, out, execute, limiter=limiter)
    return asyncio.run(execute_one(spec, ctx))


class RayRuns:
    """Executes runs of one experiment as Ray tasks.

    Parameters
    ----------
    ray : module
        Ray, connected (:func:`ray_connection`).
    config : ExperimentConfig
        The experiment.
    out : Path
        Its results directory (the driver's path; workers must see the same path).
    execute : callable
        ``async execute(spec, llm) -> RunResult``, pickled to the workers.
    """

    def __init__(self, ray: ModuleType, config: ExperimentConfig, out: Path, execute: ExecuteFn):
        self._ray = ray
        per_minute = config.llm.max_calls_per_minute
        self.rate_actor: Any = None
        if per_minute is not None:
            actor_class = ray.remote(num_cpus=0, max_restarts=-1, max_task_retries=-1)(_RateActor)
            self.rate_actor = actor_class.remote(per_minute)
        self._task = ray.remote(num_cpus=1, max_retries=MAX_TASK_RETRIES)(_run_task)
        self._shared = ray.put((config, str(out.resolve()), execute, self.rate_actor))

    @property
    def limiter(self) -> CallLimiter | None:
        """The cluster's rate limit for the driver's own calls (paraphrases), or None."""
        return ActorLimiter(self.rate_actor) if self.rate_actor is not None else None

    async def run_one(self, spec: RunSpec) -> RunOutput:
        """Execute ``spec`` on the cluster; its record and traces.

        Raises
        ------
        Exception
            What the run raised in the worker (a harness bug), or Ray's error when the run's
            worker died more than :data:`MAX_TASK_RETRIES` times.
        """
        errors = self._ray.exceptions
        try:
            ref = self._task.remote(self._shared, spec)
            output: RunOutput = await ref
        except asyncio.CancelledError:  # Ctrl-C / SIGTERM: stop the cluster's work too
            with contextlib.suppress(Exception):  # a lost cluster cannot cancel anything
                self._ray.cancel(ref)
            raise
        except errors.RayTaskError as exc:
            cause = getattr(exc, "cause", None)
            if isinstance(cause, Exception):
                raise cause from None
            raise
        except _lost_errors(errors) as exc:
            raise ExecutorLostError(_lost_message(exc)) from exc
        return output


def _lost_errors(errors: ModuleType) -> tuple[type[BaseException], ...]:
    """Ray's exceptions meaning the node or cluster itself went away (not one run's worker)."""
    names = ("LocalRayletDiedError", "NodeDiedError", "RaySystemError", "ObjectLostError")
    return (*(getattr(errors, n) for n in names if hasattr(errors, n)), ConnectionError)


def _lost_message(exc: BaseException) -> str:
    """One line: what was lost and what to do."""
    first = (str(exc).strip().splitlines() or [""])[0][:160]
    return (
        f"the Ray cluster running the experiment was lost ({type(exc).__name__}: {first}); "
        "finished runs are saved — run the same command again to resume"
    )
