"""The single litellm boundary: chat completions, embeddings, cost, retries and caching.

Importing this package, or constructing an :class:`LLMClient`, does not import litellm: the
first model call does (:mod:`reliability_lab.llm._litellm` imports and configures it then, and
installs the custom providers plugged in through :mod:`reliability_lab._providers` — the
simulated model ``sim/calibrated``, ``sim/inconsistent``, … of :mod:`reliability_lab.sim`,
which this package never imports). :func:`register_sim_provider` does the installation
explicitly, for code that calls litellm itself. :mod:`.judging` is the staged-JSON judge base
the session judges and the safety judge share.

Calls take litellm's default transport; nothing here changes process-wide settings per call.
Secret handling (cache keys, error messages) follows :mod:`reliability_lab._secrets`.
"""

from __future__ import annotations

from reliability_lab.llm._client import Completion, LLMClient
from reliability_lab.llm._errors import CATEGORIES, LLMCallError
from reliability_lab.llm._litellm import register_sim_provider
from reliability_lab.llm._ratelimit import CallLimiter, CallSpacing, RateLimiter

__all__ = [
    "CATEGORIES",
    "CallLimiter",
    "CallSpacing",
    "Completion",
    "LLMCallError",
    "LLMClient",
    "RateLimiter",
    "register_sim_provider",
]
