"""Pre-flight routing and credential decisions agree with the installed litellm.

reliability_lab decides without importing litellm (reliability_lab/llm/_routing.py); these
tests import it and compare, so neither the provider list nor the credential table can drift
from the litellm that is installed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from reliability_lab._secrets import is_secret_name
from reliability_lab.llm._routing import (
    CREDENTIALS,
    KEYLESS,
    known_models,
    litellm_providers,
    missing_credentials,
    route_model,
)

litellm = pytest.importorskip("litellm")

#: Prefixed model strings of many providers (bare names are checked from the price map).
PREFIXED = [
    "openai/gpt-4o-mini",
    "openai/my-local-model",
    "anthropic/claude-3-haiku-20240307",
    "gemini/gemini-1.5-flash",
    "mistral/mistral-small-latest",
    "groq/llama3-8b-8192",
    "cohere/command-r",
    "together_ai/meta-llama/Llama-3-8b-chat-hf",
    "deepseek/deepseek-chat",
    "xai/grok-2",
    "openrouter/anthropic/claude-3.5-sonnet",
    "perplexity/sonar",
    "fireworks_ai/accounts/fireworks/models/llama-v3-8b-instruct",
    "huggingface/meta-llama/Llama-3-8B",
    "deepinfra/meta-llama/Llama-3-8b",
    "cerebras/llama3.1-8b",
    "replicate/meta/llama-2-70b-chat",
    "nvidia_nim/meta/llama3-8b-instruct",
    "ollama/llama3",
    "ollama_chat/llama3",
    "hosted_vllm/my-model",
    "lm_studio/my-model",
    "llamafile/my-model",
    "azure/my-deployment",
    "bedrock/anthropic.claude-3-haiku-20240307-v1:0",
    "vertex_ai/gemini-1.5-pro",
    "publicai/some-model",
    "nosuchprovider/foo",
    "not-a-model-anywhere",
    "gpt-4o-mini",
    "claude-3-5-haiku-latest",
]


def _litellm_provider(model: str) -> str | None:
    try:
        return str(litellm.get_llm_provider(model)[1])
    except Exception:  # litellm raises BadRequestError for unroutable strings
        return None


def test_provider_list_matches_litellm() -> None:
    # less the custom providers registered at run time (this package's "sim")
    custom = {str(p["provider"]) for p in litellm.custom_provider_map}
    theirs = {str(getattr(p, "value", p)) for p in litellm.provider_list} - custom
    from litellm.llms.openai_like.json_loader import JSONProviderRegistry

    JSONProviderRegistry.load()
    theirs |= set(JSONProviderRegistry._providers)
    assert litellm_providers() == theirs


@pytest.mark.parametrize("model", PREFIXED)
def test_routing_matches_litellm(model: str) -> None:
    assert route_model(model).provider == _litellm_provider(model)


def test_bare_names_of_the_price_map_route_like_litellm() -> None:
    bare = sorted(m for m in known_models() if "/" not in m)
    assert len(bare) > 100
    differ = [(m, route_model(m).provider, _litellm_provider(m)) for m in bare]
    assert [d for d in differ if d[1] != d[2]] == []


def test_custom_llm_provider_param_routes() -> None:
    assert route_model("my-model", {"custom_llm_provider": "openai"}).provider == "openai"
    assert (
        _litellm_provider("my-model") is None
        and litellm.get_llm_provider("my-model", custom_llm_provider="openai")[1] == "openai"
    )


@pytest.mark.parametrize("provider", sorted(CREDENTIALS))
def test_credential_table_matches_litellm(provider: str, monkeypatch: pytest.MonkeyPatch) -> None:
    model = next(m for m in PREFIXED if m.startswith(provider + "/"))
    route = route_model(model)
    assert route.provider == provider and route.credentials == CREDENTIALS[provider]
    for name in {n for names in CREDENTIALS.values() for n in names}:
        monkeypatch.delenv(name, raising=False)
    assert missing_credentials(route, os.environ) == CREDENTIALS[provider][0]
    assert CREDENTIALS[provider][0] in litellm.validate_environment(model)["missing_keys"]
    for name in CREDENTIALS[provider]:  # each alternative satisfies litellm as well as us
        monkeypatch.setenv(name, "test-value-123456")
        assert missing_credentials(route, os.environ) is None
        missing = litellm.validate_environment(model)["missing_keys"]
        assert not set(CREDENTIALS[provider]) & set(missing), (name, missing)
        monkeypatch.delenv(name)


@pytest.mark.parametrize("provider", sorted(KEYLESS))
def test_local_providers_need_no_key(provider: str, monkeypatch: pytest.MonkeyPatch) -> None:
    model = f"{provider}/my-model"
    route = route_model(model)
    assert route.checked and route.credentials == ()
    for name in list(os.environ):
        if is_secret_name(name):
            monkeypatch.delenv(name)
    missing = litellm.validate_environment(model)["missing_keys"]
    assert not [m for m in missing if is_secret_name(m)], missing  # e.g. OLLAMA_API_BASE only


def test_routing_does_not_import_litellm() -> None:
    code = (
        "import sys\n"
        "from reliability_lab.llm._routing import route_model\n"
        "assert route_model('gpt-4o-mini').provider == 'openai'\n"
        "assert route_model('nosuchprovider/x').provider is None\n"
        "print('litellm' in sys.modules)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "LITELLM_LOCAL_MODEL_COST_MAP"}
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
        env=env,
        timeout=300,
    )
    assert (done.returncode, done.stdout) == (0, "False\n"), done.stderr


@pytest.mark.parametrize(
    "model", ["ft:gpt-4o-mini-2024-07-18:my-org:custom:abc123", "ft:gpt-3.5-turbo:org:x:1"]
)
def test_openai_fine_tunes_route_like_litellm(model: str) -> None:
    assert route_model(model).provider == _litellm_provider(model) == "openai"
