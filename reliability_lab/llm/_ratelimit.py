"""A provider rate limit: at most ``calls_per_minute`` model calls started per minute.

:class:`CallSpacing` is the rule (one call every ``60 / calls_per_minute`` seconds, each call
reserving the next free start time); it holds no clock and no lock, so the same rule serves one
process (:class:`RateLimiter`) and a whole Ray cluster (one shared actor holding a
:class:`CallSpacing`; :mod:`reliability_lab.runner.ray_executor`). docs/distributed.md,
"Rate limits".
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable
from typing import Protocol

__all__ = ["CallLimiter", "CallSpacing", "RateLimiter"]


class CallLimiter(Protocol):
    """What :class:`~reliability_lab.llm.LLMClient` awaits before every attempt of a call."""

    async def wait(self) -> None:
        """Return once the caller may start its call."""


class CallSpacing:
    """Start times of calls spaced ``60 / calls_per_minute`` seconds apart.

    Parameters
    ----------
    calls_per_minute : int
        The limit (at least 1).

    Examples
    --------
    >>> spacing = CallSpacing(60)  # one call a second
    >>> [spacing.reserve(now=10.0) for _ in range(3)]  # three callers at t = 10 s
    [0.0, 1.0, 2.0]
    >>> spacing.reserve(now=20.0)  # idle since: no wait
    0.0
    """

    def __init__(self, calls_per_minute: int) -> None:
        if calls_per_minute < 1:
            raise ValueError(f"calls_per_minute must be >= 1, got {calls_per_minute}")
        self.interval_s = 60.0 / calls_per_minute
        self._next = -math.inf
        self.reserved = 0
        """Calls reserved so far."""

    def reserve(self, now: float) -> float:
        """Reserve the next start time for a caller arriving at ``now``; the seconds to wait."""
        start = max(now, self._next)
        self._next = start + self.interval_s
        self.reserved += 1
        return start - now


class RateLimiter:
    """The limit within one process (the built-in asyncio executor).

    Parameters
    ----------
    calls_per_minute : int
        The limit.
    clock : callable
        Monotonic clock in seconds.
    """

    def __init__(
        self, calls_per_minute: int, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.spacing = CallSpacing(calls_per_minute)
        self._clock = clock

    async def wait(self) -> None:
        """Sleep until this caller's reserved start time."""
        delay = self.spacing.reserve(self._clock())
        if delay > 0:
            await asyncio.sleep(delay)
