"""Run the package's coroutines from synchronous code, also inside a running event loop."""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["run_sync"]

T = TypeVar("T")


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to completion and return its result.

    Uses :func:`asyncio.run` when no event loop is running in this thread. Inside a running
    loop (a Jupyter cell) it runs the coroutine on a fresh loop in a worker thread and waits,
    so synchronous wrappers work in notebooks too; exceptions propagate unchanged.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="reliability-lab") as pool:
        return pool.submit(asyncio.run, coro).result()
