"""Run the package's coroutines from synchronous code, also inside a running event loop."""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
from collections.abc import Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

__all__ = ["blocking", "run_sync"]

T = TypeVar("T")
P = ParamSpec("P")


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


def blocking(afn: Callable[P, Coroutine[Any, Any, T]], name: str) -> Callable[P, T]:
    """The synchronous twin ``name`` of coroutine function ``afn``: same parameters, same
    documentation, run with :func:`run_sync` (so it works inside a notebook's loop too).

    Examples
    --------
    >>> async def adouble(x: int) -> int:
    ...     return 2 * x
    >>> double = blocking(adouble, "double")
    >>> double(21), double.__name__
    (42, 'double')
    """

    @functools.wraps(afn)
    def twin(*args: P.args, **kwargs: P.kwargs) -> T:
        return run_sync(afn(*args, **kwargs))

    twin.__name__ = name
    twin.__qualname__ = afn.__qualname__.replace(afn.__name__, name)
    return twin
