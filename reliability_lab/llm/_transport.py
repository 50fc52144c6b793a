"""Which litellm HTTP path an OpenAI call takes, and the process-wide switch that selects it.

litellm sends ``openai/...`` chat calls through the openai SDK unless the environment variable
``EXPERIMENTAL_OPENAI_BASE_LLM_HTTP_HANDLER`` is true; then it uses its own SDK-free HTTP
handler (same request transformation, same response parsing, same cost tracking). The SDK's
request validation (``_async_transform_recursive`` over every message and tool) costs about
1.5 ms of CPU per call, which dominates a CPU-bound runner at high concurrency.

litellm reads the variable inside every call, from the process environment. So that the switch
affects *only our own calls*, :class:`FlagGate` sets it while at least one of our eligible calls
is in flight and removes it when the last one ends; a call that must take the SDK path
(a provider the variable would also reroute, or an OpenAI call using settings the SDK-free path
handles differently — organisation, project, custom headers, a custom client) waits until no
SDK-free call is in flight and holds the variable off meanwhile, first come first served.
If the user has set the variable themselves, it is never touched and no call is gated.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections import deque
from collections.abc import Mapping
from typing import Any, Literal

__all__ = ["FLAG", "FlagGate", "Mode", "call_mode"]

FLAG = "EXPERIMENTAL_OPENAI_BASE_LLM_HTTP_HANDLER"
Mode = Literal["direct", "sdk"]

# Providers litellm routes to its OpenAI chat handler (main.py ``_complete_custom_openai``):
# the variable reroutes all of them. Over-inclusion only costs some waiting, never behaviour.
_LISTED_OPENAI_LIKE = frozenset(
    {
        "openai",
        "custom_openai",
        "deepinfra",
        "perplexity",
        "nvidia_nim",
        "cerebras",
        "baseten",
        "sambanova",
        "volcengine",
        "anyscale",
        "nebius",
        "wandb",
        "clarifai",
    }
)
# Per-call settings the openai SDK applies but litellm's SDK-free handler does not (or not the
# same way): such a call keeps the SDK path.
_SDK_ONLY_PARAMS = frozenset(
    {
        "organization",
        "headers",
        "extra_headers",
        "extra_body",
        "extra_query",
        "client",
        "shared_session",
        "stream",
        "api_version",
    }
)
# Environment the openai SDK reads itself (organisation / project / custom headers).
_SDK_ONLY_ENV = (
    "OPENAI_ORGANIZATION",
    "OPENAI_ORG_ID",
    "OPENAI_PROJECT_ID",
    "OPENAI_CUSTOM_HEADERS",
    "OPENAI_ADMIN_KEY",
)


def _affected(litellm: Any, provider: str) -> bool:
    """Whether the variable would reroute a call to ``provider``."""
    if provider in _LISTED_OPENAI_LIKE or provider in litellm.openai_compatible_providers:
        return True
    try:
        from litellm.llms.openai_like.json_loader import JSONProviderRegistry

        return bool(JSONProviderRegistry.exists(provider))
    except Exception:  # layout of a future litellm: be conservative
        return True


def _sdk_free_equivalent(litellm: Any, params: Mapping[str, Any]) -> bool:
    """Whether an ``openai`` call with ``params`` sends the same request on both paths."""
    if any(name in _SDK_ONLY_PARAMS or "workload" in name or "identity" in name for name in params):
        return False
    if any(os.environ.get(name) for name in _SDK_ONLY_ENV):
        return False
    for name in ("organization", "headers", "aclient_session", "client_session"):
        if getattr(litellm, name, None):
            return False
    # without a key the SDK fails before sending; keep its error
    return bool(
        params.get("api_key")
        or getattr(litellm, "api_key", None)
        or getattr(litellm, "openai_key", None)
        or os.environ.get("OPENAI_API_KEY")
    )


def call_mode(litellm: Any, provider: str | None, params: Mapping[str, Any]) -> Mode | None:
    """``direct`` (SDK-free), ``sdk`` (must run with the variable off) or None (unaffected).

    Parameters
    ----------
    litellm : module
        The litellm module.
    provider : str or None
        litellm's provider for the call (None when litellm cannot resolve it).
    params : mapping
        The call's keyword parameters.
    """
    if provider is None or not _affected(litellm, provider):
        return None
    if provider == "openai" and _sdk_free_equivalent(litellm, params):
        return "direct"
    return "sdk"


class FlagGate:
    """Process-wide switch for :data:`FLAG`, shared by every :class:`LLMClient`.

    ``direct`` calls run with the variable set, ``sdk`` calls with it unset; the two modes never
    overlap. Calls are admitted first come first served (a call waits only while the other mode
    is in flight or an earlier call is waiting), so neither mode starves. Safe across threads
    and event loops (a short lock plus polling sleeps while waiting).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._inflight = {"direct": 0, "sdk": 0}
        self._queue: deque[object] = deque()

    def _try_enter(self, mode: Mode, ticket: object) -> bool | None:
        """True: admitted; None: the user owns the variable (no gating); False: wait."""
        other: Mode = "sdk" if mode == "direct" else "direct"
        with self._lock:
            if self._inflight["direct"] == 0 and FLAG in os.environ:
                self._queue.remove(ticket)
                return None
            if self._queue[0] is not ticket or self._inflight[other]:
                return False
            self._queue.popleft()
            if mode == "direct" and self._inflight["direct"] == 0:
                os.environ[FLAG] = "true"
            self._inflight[mode] += 1
            return True

    async def enter(self, mode: Mode) -> bool:
        """Wait until a call of ``mode`` may start; True when :meth:`exit` must follow."""
        ticket = object()
        with self._lock:
            self._queue.append(ticket)
        delay = 0.001
        try:
            while True:
                admitted = self._try_enter(mode, ticket)
                if admitted is not False:
                    return bool(admitted)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 0.02)
        except BaseException:
            with self._lock:
                if ticket in self._queue:
                    self._queue.remove(ticket)
            raise

    def exit(self, mode: Mode) -> None:
        """End a call admitted by :meth:`enter`; the last ``direct`` call removes the variable."""
        with self._lock:
            self._inflight[mode] -= 1
            if mode == "direct" and self._inflight["direct"] == 0:
                os.environ.pop(FLAG, None)

    def state(self) -> tuple[int, int, int]:
        """(direct in flight, sdk in flight, waiting) — for tests and diagnostics."""
        with self._lock:
            return self._inflight["direct"], self._inflight["sdk"], len(self._queue)


GATE = FlagGate()
