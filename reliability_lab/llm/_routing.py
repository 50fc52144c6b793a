"""Which provider litellm sends a model string to, and which credentials it needs — decided
without importing litellm.

Importing litellm takes seconds, and ``reliability-lab validate`` must stay fast, so the routing
is read from the files the installed litellm ships (found with :func:`importlib.util.find_spec`,
which does not execute it): its provider list (the ``LlmProviders`` enum in
``litellm/types/utils.py`` and the providers of ``litellm/llms/openai_like/providers.json``) and
its bundled price map (``model_prices_and_context_window_backup.json``, each model's
``litellm_provider``). A model string is routable when

- it starts with ``<provider>/`` for a provider litellm knows (``openai/gpt-4o-mini``,
  ``ollama/llama3``, ``hosted_vllm/my-model``), or
- the whole string is a model of the price map of a provider whose models litellm routes by
  their bare name (``gpt-4o-mini``, ``claude-3-5-haiku-latest``), or
- ``params`` name a known ``custom_llm_provider``;

``sim/<persona>`` is this package's simulated model (a custom provider registered at the first
call). :data:`CREDENTIALS` is our own table of the API-key variables of common providers;
``tests/llm/test_routing.py`` checks both decisions against ``litellm.get_llm_provider`` and
``litellm.validate_environment`` so that neither can drift from the installed litellm.

Local servers: ``ollama``, ``ollama_chat``, ``hosted_vllm``, ``lm_studio`` and ``llamafile``
need no key (:data:`KEYLESS`). ``openai/...`` always needs ``OPENAI_API_KEY`` — the OpenAI
client refuses to start without one even for a local ``api_base`` (any value works there).
Providers with several ways to authenticate (Azure, Bedrock, Vertex AI, ...) or not in the
table are routed but their credentials are not checked.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reliability_lab.runs import SIMULATED_PREFIX

__all__ = [
    "CREDENTIALS",
    "KEYLESS",
    "Route",
    "known_models",
    "litellm_providers",
    "missing_credentials",
    "route_model",
]

#: Provider → environment variables holding its API key (any one suffices; the first is named
#: in messages). Only providers authenticated by exactly such a key.
CREDENTIALS: Mapping[str, tuple[str, ...]] = {
    "openai": ("OPENAI_API_KEY",),
    "anthropic": ("ANTHROPIC_API_KEY",),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "mistral": ("MISTRAL_API_KEY",),
    "groq": ("GROQ_API_KEY",),
    "cohere": ("COHERE_API_KEY",),
    "together_ai": ("TOGETHERAI_API_KEY",),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "xai": ("XAI_API_KEY",),
    "openrouter": ("OPENROUTER_API_KEY",),
    "perplexity": ("PERPLEXITYAI_API_KEY",),
    "fireworks_ai": ("FIREWORKS_AI_API_KEY", "FIREWORKS_API_KEY", "FIREWORKSAI_API_KEY"),
    "huggingface": ("HUGGINGFACE_API_KEY",),
    "deepinfra": ("DEEPINFRA_API_KEY",),
    "cerebras": ("CEREBRAS_API_KEY",),
    "replicate": ("REPLICATE_API_KEY",),
    "nvidia_nim": ("NVIDIA_NIM_API_KEY",),
}
#: Providers of local servers, which need no API key.
KEYLESS = frozenset({"ollama", "ollama_chat", "hosted_vllm", "lm_studio", "llamafile"})
#: Price-map providers whose models litellm routes by their bare name (``gpt-4o-mini``), and
#: the provider it routes them to; other models need ``<provider>/`` in front.
_BARE_NAME_PROVIDERS: Mapping[str, str] = {
    "openai": "openai",
    "text-completion-openai": "text-completion-openai",
    "anthropic": "anthropic",
    "cohere": "cohere",
    "cohere_chat": "cohere_chat",
    "replicate": "replicate",
    "openrouter": "openrouter",
    "maritalk": "maritalk",
    "vertex_ai": "vertex_ai",
    "ai21": "ai21_chat",
    "aleph_alpha": "aleph_alpha",
    "baseten": "baseten",
    "nlp_cloud": "nlp_cloud",
    "petals": "petals",
    "bedrock": "bedrock",
    "bedrock_converse": "bedrock",
    "watsonx": "watsonx",
    "empower": "empower",
    "gradient_ai": "gradient_ai",
}
_SIM = SIMULATED_PREFIX.rstrip("/")
_ENUM_MEMBER = re.compile(r'^\s+[A-Z0-9_]+\s*=\s*"([^"]+)"', re.M)


@dataclass(frozen=True)
class Route:
    """Where litellm sends a model string."""

    model: str
    """The model string."""
    provider: str | None
    """litellm's provider (``sim`` for the simulated model); None when it cannot route it."""
    credentials: tuple[str, ...] = ()
    """Environment variables of which one must be set (empty: none needed or not checked)."""
    checked: bool = False
    """Whether this provider's credentials are checked (:data:`CREDENTIALS`, :data:`KEYLESS`)."""


@functools.cache
def _litellm_dir() -> Path:
    spec = importlib.util.find_spec("litellm")  # locates the package without executing it
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("litellm is not installed (it is a dependency of reliability_lab)")
    return Path(next(iter(spec.submodule_search_locations)))


@functools.cache
def litellm_providers() -> frozenset[str]:
    """Provider names the installed litellm routes by prefix (read from its sources)."""
    root = _litellm_dir()
    text = (root / "types" / "utils.py").read_text(encoding="utf-8")
    start = text.index("class LlmProviders(")
    end = text.find("\nclass ", start + 1)
    names = set(_ENUM_MEMBER.findall(text[start : end if end > 0 else len(text)]))
    extra = root / "llms" / "openai_like" / "providers.json"
    if extra.exists():
        names.update(json.loads(extra.read_text(encoding="utf-8")))
    return frozenset(names)


@functools.cache
def known_models() -> Mapping[str, str]:
    """Model name → provider, from the installed litellm's bundled price map."""
    path = _litellm_dir() / "model_prices_and_context_window_backup.json"
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return {
        name: str(entry["litellm_provider"])
        for name, entry in data.items()
        if isinstance(entry, dict) and entry.get("litellm_provider")
    }


def _provider_of(model: str, params: Mapping[str, Any]) -> str | None:
    if model.startswith(SIMULATED_PREFIX):
        return _SIM
    custom = params.get("custom_llm_provider")
    if isinstance(custom, str) and custom in litellm_providers():
        return custom
    prefix, slash, rest = model.partition("/")
    if slash and rest and prefix in litellm_providers():
        return prefix
    if "ft:gpt-3.5-turbo" in model or "ft:gpt-4" in model:  # OpenAI fine-tunes, by pattern
        return "openai"
    listed = known_models().get(model, "")
    if listed == "openai" and model.startswith("ft:") and model.count(":") == 1:
        return None  # other fine-tune entries of the price map are there for pricing only
    family = listed.split("-", 1)[0]  # vertex_ai-language-models -> vertex_ai
    return _BARE_NAME_PROVIDERS.get(listed) or _BARE_NAME_PROVIDERS.get(family)


def route_model(model: str, params: Mapping[str, Any] | None = None) -> Route:
    """The provider litellm uses for ``model`` (with the call ``params``) and its key variables.

    >>> route_model("openai/gpt-4o-mini").credentials
    ('OPENAI_API_KEY',)
    >>> route_model("ollama/llama3").checked, route_model("nosuchprovider/foo").provider
    (True, None)
    """
    provider = _provider_of(model, params or {})
    if provider is None or provider == _SIM or provider in KEYLESS:
        return Route(model, provider, (), checked=provider is not None)
    if provider in CREDENTIALS:
        return Route(model, provider, CREDENTIALS[provider], checked=True)
    return Route(model, provider)


def missing_credentials(route: Route, environ: Mapping[str, str]) -> str | None:
    """The variable to set when none of ``route.credentials`` is set (non-empty) in
    ``environ``; None when the credentials are present, not needed or not checked."""
    if not route.credentials:
        return None
    if any(environ.get(name, "").strip() for name in route.credentials):
        return None
    return route.credentials[0]
