"""The single litellm boundary: chat completions, embeddings, cost, retries and caching.

Importing this package registers the simulated model as the litellm provider ``sim``
(``sim/calibrated``, ``sim/inconsistent``, …; see :mod:`reliability_lab.sim`).

OpenAI chat calls whose request is the same either way take litellm's SDK-free HTTP handler:
``EXPERIMENTAL_OPENAI_BASE_LLM_HTTP_HANDLER`` is set only while such a call of ours is in flight,
never when the user has set it (:mod:`reliability_lab.llm._transport`;
``LLMClient(openai_transport="sdk")`` opts out).
"""

from __future__ import annotations

from reliability_lab.llm._client import Completion, LLMClient
from reliability_lab.llm._errors import CATEGORIES, LLMCallError
from reliability_lab.llm._secrets import is_secret_param, public_params, redact_secrets
from reliability_lab.llm._sim_provider import register_sim_provider

__all__ = [
    "CATEGORIES",
    "Completion",
    "LLMCallError",
    "LLMClient",
    "is_secret_param",
    "public_params",
    "redact_secrets",
    "register_sim_provider",
]

register_sim_provider()
