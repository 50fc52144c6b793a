"""The single litellm boundary: chat completions, embeddings, cost, retries and caching.

Importing this package, or constructing an :class:`LLMClient`, does not import litellm: the
first model call does (:mod:`reliability_lab.llm._litellm` imports and configures it then, and
registers the simulated model as the litellm provider ``sim`` — ``sim/calibrated``,
``sim/inconsistent``, …; see :mod:`reliability_lab.sim`). :func:`register_sim_provider` does
the registration explicitly, for code that calls litellm itself.

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
