"""Expose :mod:`reliability_lab.sim` to litellm as the custom provider ``sim``.

``litellm.completion(model="sim/calibrated", ...)`` and ``acompletion`` reach
:func:`reliability_lab.sim.simulate`; prices come from each profile and go through litellm's
cost tracking (``litellm.register_model``). Embeddings (``sim/<anything>``) are deterministic
hashed bag-of-words vectors.

Imported only by the installer the package root plugs into :mod:`reliability_lab._providers`,
which the model boundary runs after litellm itself has been imported and configured there.
"""

from __future__ import annotations

import hashlib
import math
import re
from typing import Any

import litellm
from litellm import CustomLLM
from litellm.types.utils import (
    ChatCompletionMessageToolCall,
    EmbeddingResponse,
    Function,
    Message,
    ModelResponse,
    Usage,
)

from reliability_lab.sim import PERSONAS, simulate

__all__ = ["EMBEDDING_DIM", "SimProvider", "register"]

EMBEDDING_DIM = 256
_TOKEN = re.compile(r"\w+")
_registered_prices: set[str] = set()


def _embed(text: str) -> list[float]:
    vec = [0.0] * EMBEDDING_DIM
    for token in _TOKEN.findall(text.lower()):
        h = int.from_bytes(hashlib.blake2b(token.encode(), digest_size=8).digest(), "big")
        vec[h % EMBEDDING_DIM] += 1.0 if (h >> 32) & 1 else -1.0
    norm = math.sqrt(sum(x * x for x in vec))
    return [x / norm for x in vec] if norm else vec


class SimProvider(CustomLLM):
    """litellm handler for ``sim/<persona>`` models (a simulation, not a real LLM)."""

    def completion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> ModelResponse:
        optional: dict[str, Any] = kwargs.get("optional_params") or (
            args[8] if len(args) > 8 else {}
        )
        response: ModelResponse = kwargs.get("model_response") or args[2]
        reply = simulate(
            model,
            messages,
            tools=optional.get("tools"),
            seed=optional.get("seed"),
            response_format=optional.get("response_format"),
        )
        calls = reply.message.get("tool_calls")
        message = Message(
            content=reply.message.get("content"),
            tool_calls=[
                ChatCompletionMessageToolCall(
                    id=c["id"],
                    type="function",
                    function=Function(
                        name=c["function"]["name"], arguments=c["function"]["arguments"]
                    ),
                )
                for c in calls
            ]
            if calls
            else None,
        )
        response.choices[0].message = message
        response.choices[0].finish_reason = "tool_calls" if calls else "stop"
        response.model = f"sim/{model}"
        response.usage = Usage(  # type: ignore[attr-defined]
            prompt_tokens=reply.prompt_tokens,
            completion_tokens=reply.completion_tokens,
            total_tokens=reply.prompt_tokens + reply.completion_tokens,
        )
        return response

    def acompletion(  # type: ignore[override]
        self, model: str, messages: list, *args: Any, **kwargs: Any
    ) -> ModelResponse:
        """The reply itself, not a coroutine.

        litellm calls this on a worker thread (``run_in_executor``) and awaits a coroutine it
        returns only afterwards; a coroutine made there and abandoned when the run is
        cancelled (Ctrl-C) would warn "coroutine ... was never awaited" at exit. The
        simulation is pure computation, so the reply is made on that thread and returned.
        """
        return self.completion(model, messages, *args, **kwargs)

    def embedding(
        self, model: str, input: list, model_response: EmbeddingResponse, *args: Any, **kwargs: Any
    ) -> EmbeddingResponse:
        model_response.data = [
            {"object": "embedding", "index": i, "embedding": _embed(str(t))}
            for i, t in enumerate(input)
        ]
        model_response.model = f"sim/{model}"
        return model_response

    async def aembedding(
        self, model: str, input: list, model_response: EmbeddingResponse, *args: Any, **kwargs: Any
    ) -> EmbeddingResponse:
        return self.embedding(model, input, model_response, *args, **kwargs)


_HANDLER = SimProvider()


def register() -> None:
    """Register the ``sim`` provider and the profiles' prices with litellm (idempotent)."""
    if not any(item.get("provider") == "sim" for item in litellm.custom_provider_map):
        litellm.custom_provider_map.append({"provider": "sim", "custom_handler": _HANDLER})
        from litellm.utils import custom_llm_setup

        custom_llm_setup()
    new = {name: p for name, p in PERSONAS.items() if name not in _registered_prices}
    if new:
        litellm.register_model(
            {
                f"sim/{name}": {
                    "input_cost_per_token": p.input_cost_per_token,
                    "output_cost_per_token": p.output_cost_per_token,
                    "cache_creation_input_token_cost": 0.0,
                    "cache_read_input_token_cost": 0.0,
                    "litellm_provider": "sim",
                    "mode": "chat",
                }
                for name, p in new.items()
            }
        )
        _registered_prices.update(new)
