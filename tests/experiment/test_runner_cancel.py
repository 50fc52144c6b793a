"""Ctrl-C stops every run even when a library loses a cancellation (failing test first).

A fresh-clone CI run hung in ``test_ctrl_c_exits_130_with_resume_hint``: after SIGINT the
experiment's main task stayed in ``asyncio.gather`` for minutes, its threads idle — a run task
had taken the cancellation and kept waiting on a request the server held. Python 3.11's
``asyncio.wait_for`` (which HTTP clients use for timeouts) can swallow a cancellation that
arrives as its inner awaitable completes; whatever the library, one lost cancel must not turn
Ctrl-C into a hang.
"""

from __future__ import annotations

import asyncio
from typing import Any

from reliability_lab.runner.runner import _execute_all


class _Spec:
    def __init__(self, key: str) -> None:
        self.key = key


class _Recorder:
    def __init__(self) -> None:
        self.recorded: list[str] = []

    async def record(self, key: Any, output: Any) -> None:
        self.recorded.append(key)


def _swallows_first_cancel(started: asyncio.Event) -> Any:
    async def run_one(spec: _Spec) -> Any:
        started.set()
        try:
            await asyncio.Event().wait()  # a request the server holds
        except asyncio.CancelledError:
            pass  # the lost cancellation: carry on as if the wait had returned
        await asyncio.Event().wait()  # the next request, held too
        return spec.key

    return run_one


async def _cancelled_execute_all() -> tuple[bool, list[str]]:
    started = asyncio.Event()
    recorder = _Recorder()
    job = asyncio.ensure_future(
        _execute_all(
            [_Spec("a"), _Spec("b")],  # type: ignore[list-item]
            run_one=_swallows_first_cancel(started),
            recorder=recorder,  # type: ignore[arg-type]
            max_concurrent=2,
        )
    )
    await started.wait()
    job.cancel()
    # a hang guard, not a speed check: a correct runner stops at once, a stuck one never does
    done, _ = await asyncio.wait({job}, timeout=30)
    stopped = bool(done) and job.cancelled()
    if not done:  # leave no task behind for the test's event loop
        for task in asyncio.all_tasks() - {asyncio.current_task()}:
            task.cancel()
    return stopped, recorder.recorded


def test_ctrl_c_stops_runs_that_swallow_one_cancellation() -> None:
    stopped, recorded = asyncio.run(_cancelled_execute_all())
    assert stopped, "the experiment kept waiting for a run that lost its cancellation"
    assert recorded == []  # nothing that did not finish is recorded


async def _failing_recorder() -> BaseException | None:
    class Broken(_Recorder):
        async def record(self, key: Any, output: Any) -> None:
            raise OSError(28, "No space left on device")

    async def run_one(spec: _Spec) -> Any:
        if spec.key == "slow":
            await asyncio.Event().wait()
        return spec.key

    try:
        await asyncio.wait_for(
            _execute_all(
                [_Spec("fast"), _Spec("slow")],  # type: ignore[list-item]
                run_one=run_one,
                recorder=Broken(),  # type: ignore[arg-type]
                max_concurrent=2,
            ),
            timeout=60,
        )
    except OSError as exc:
        return exc
    return None


def test_a_failure_to_record_ends_the_experiment_with_its_error() -> None:
    exc = asyncio.run(_failing_recorder())
    assert isinstance(exc, OSError) and exc.errno == 28
