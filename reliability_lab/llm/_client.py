"""``LLMClient``: the single place that calls litellm (chat completions and embeddings).

litellm is imported on the client's first call (:func:`reliability_lab.llm._litellm.load_litellm`),
not when the client is constructed; every call takes litellm's own transport for the model.
"""

from __future__ import annotations

import asyncio
import math
import os
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from reliability_lab._secrets import secret_values
from reliability_lab._sync import run_sync
from reliability_lab.llm._cache import ResponseCache, cache_key
from reliability_lab.llm._errors import RETRYABLE, LLMCallError, categorize
from reliability_lab.llm._litellm import load_litellm
from reliability_lab.llm._protocol import ChatClient
from reliability_lab.llm._ratelimit import CallLimiter

__all__ = ["Completion", "LLMClient"]

T = TypeVar("T")
_MAX_BAD_RESPONSE_RETRIES = 2


@dataclass(frozen=True)
class Completion:
    """One successful chat completion.

    Attributes
    ----------
    message : dict
        OpenAI-format assistant message: ``role``, ``content`` (str or None) and, when the
        model called tools, ``tool_calls`` (``id``, ``type``, ``function{name, arguments}``).
    cost_usd : float
        litellm's cost tracking; NaN when the model's price is unknown (never 0 for unknown).
    prompt_tokens, completion_tokens : int
        Token usage reported by the provider (0 when not reported).
    latency_s : float
        Wall time of the successful attempt.
    attempts : int
        1 + retries.
    cached : bool
        Served from the on-disk cache (cost, tokens, latency and attempts are the original's).
    """

    message: dict[str, Any]
    cost_usd: float
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    attempts: int
    cached: bool


def _message_dict(response: Any) -> dict[str, Any]:
    try:
        raw = response.choices[0].message
    except (AttributeError, IndexError, TypeError) as exc:
        raise LLMCallError("bad_response", f"response has no choices[0].message: {exc}") from None
    content = getattr(raw, "content", None)
    message: dict[str, Any] = {"role": "assistant", "content": content}
    calls = getattr(raw, "tool_calls", None) or []
    if calls:
        message["tool_calls"] = []
        for call in calls:
            fn = getattr(call, "function", None)
            name = getattr(fn, "name", None)
            if not name:
                raise LLMCallError("bad_response", "tool call without a function name")
            message["tool_calls"].append(
                {
                    "id": str(getattr(call, "id", None) or f"call_{len(message['tool_calls'])}"),
                    "type": "function",
                    "function": {"name": name, "arguments": getattr(fn, "arguments", None) or "{}"},
                }
            )
    elif content is None:
        raise LLMCallError("bad_response", "assistant message has neither content nor tool calls")
    return message


def _cost(litellm: Any, response: Any) -> float:
    cost = (getattr(response, "_hidden_params", None) or {}).get("response_cost")
    if cost is None:
        try:
            cost = litellm.completion_cost(completion_response=response)
        except Exception:  # unknown model price: litellm raises various errors
            return math.nan
    try:
        value = float(cost)
    except (TypeError, ValueError):
        return math.nan
    return value if math.isfinite(value) and value >= 0 else math.nan


def _usage(response: Any) -> tuple[int, int]:
    usage = getattr(response, "usage", None)
    prompt = getattr(usage, "prompt_tokens", None) or 0
    completion = getattr(usage, "completion_tokens", None) or 0
    return int(prompt), int(completion)


class LLMClient(ChatClient):
    """Async LLM access through litellm with retries, categorised errors, cost and a cache.

    Parameters
    ----------
    cache_dir : path, optional
        Directory of the on-disk response cache; None disables caching.
    max_retries : int
        Retries after the first attempt for rate limits, timeouts, connection errors and 5xx
        (malformed responses are retried at most twice). Auth and bad-request errors are not
        retried.
    backoff_base_s, backoff_max_s : float
        Delay before retry *n* (0-based) is ``d = min(backoff_max_s, backoff_base_s * 2**n)``
        with equal jitter: uniform in ``[d/2, d]``.
    timeout_s : float
        Per-attempt timeout passed to litellm.
    rng : random.Random, optional
        Source of the backoff jitter (seed it for reproducible timings).
    limiter : CallLimiter, optional
        Awaited before every attempt that reaches the provider (retries included; cache hits
        are free): a provider rate limit for this process or a whole cluster
        (docs/distributed.md, "Rate limits").

    Notes
    -----
    Constructing a client does not import litellm; its first call does.
    """

    def __init__(
        self,
        *,
        cache_dir: str | os.PathLike[str] | None = None,
        max_retries: int = 4,
        backoff_base_s: float = 0.5,
        backoff_max_s: float = 8.0,
        timeout_s: float = 60.0,
        rng: random.Random | None = None,
        limiter: CallLimiter | None = None,
    ) -> None:
        if max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, got {max_retries}")
        if backoff_base_s < 0 or backoff_max_s < 0 or timeout_s <= 0:
            raise ValueError("backoff_base_s and backoff_max_s must be >= 0 and timeout_s > 0")
        self.cache = ResponseCache(cache_dir) if cache_dir is not None else None
        self.max_retries = max_retries
        self.backoff_base_s = backoff_base_s
        self.backoff_max_s = backoff_max_s
        self.timeout_s = timeout_s
        self._rng = rng or random.Random()
        self.limiter = limiter

    def backoff_delay(self, retry: int) -> float:
        """Delay before retry number ``retry`` (0-based), with jitter."""
        delay = min(self.backoff_max_s, self.backoff_base_s * 2.0**retry)
        return delay / 2 + self._rng.uniform(0, delay / 2)

    async def _with_retries(
        self, call: Callable[[], Awaitable[T]], secrets: list[str]
    ) -> tuple[T, float, int]:
        attempt, bad_responses = 0, 0
        while True:
            attempt += 1
            if self.limiter is not None:
                await self.limiter.wait()
            start = time.perf_counter()
            try:
                result = await call()
                return result, time.perf_counter() - start, attempt
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # every provider failure is categorised below
                err = categorize(exc, secrets=secrets)
            if err.category == "bad_response":
                bad_responses += 1
            retry = attempt - 1
            give_up = (
                err.category not in RETRYABLE
                or retry >= self.max_retries
                or bad_responses > _MAX_BAD_RESPONSE_RETRIES
            )
            if give_up:
                raise LLMCallError(
                    err.category, str(err), attempts=attempt, status_code=err.status_code
                )
            await asyncio.sleep(self.backoff_delay(retry))

    async def acompletion(
        self,
        *,
        model: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        cache_key_extra: str = "",
        **params: Any,
    ) -> Completion:
        """One chat completion (see the class docstring for retries and caching).

        ``params`` are passed to ``litellm.acompletion`` (temperature, max_tokens, seed,
        api_base, response_format, api_key …); secret ones never enter the cache key, the cache
        or an error message. Unsupported parameters are dropped by litellm (``drop_params``).

        Raises
        ------
        LLMCallError
            After the retries, or at once for auth and bad-request errors.
        """
        key = None
        if self.cache is not None:
            key = cache_key(model, messages, tools, params, cache_key_extra)
            hit = self.cache.get(key)
            if hit is not None:
                return Completion(
                    hit["message"],
                    float(hit["cost_usd"]),
                    int(hit["prompt_tokens"]),
                    int(hit["completion_tokens"]),
                    float(hit["latency_s"]),
                    int(hit["attempts"]),
                    cached=True,
                )
        litellm = load_litellm()
        kwargs: dict[str, Any] = {"drop_params": True, "timeout": self.timeout_s, **params}
        kwargs.setdefault("max_retries", 0)
        if tools:
            kwargs["tools"] = tools

        async def call() -> tuple[dict[str, Any], Any]:
            response = await litellm.acompletion(model=model, messages=messages, **kwargs)
            return _message_dict(response), response

        (message, response), latency, attempts = await self._with_retries(
            call, secret_values(params)
        )
        prompt, completion = _usage(response)
        result = Completion(
            message, _cost(litellm, response), prompt, completion, latency, attempts, cached=False
        )
        if self.cache is not None and key is not None:
            self.cache.put(
                key,
                {
                    "message": message,
                    "cost_usd": result.cost_usd,
                    "prompt_tokens": prompt,
                    "completion_tokens": completion,
                    "latency_s": latency,
                    "attempts": attempts,
                },
            )
        return result

    def completion(self, **kwargs: Any) -> Completion:
        """Synchronous :meth:`acompletion` (also works inside a running loop, e.g. Jupyter)."""
        return run_sync(self.acompletion(**kwargs))

    async def aembedding(self, *, model: str, texts: list[str], **params: Any) -> list[list[float]]:
        """Embed ``texts`` (one vector each, in order), with the same retries as completions."""
        litellm = load_litellm()
        kwargs: dict[str, Any] = {"timeout": self.timeout_s, **params}

        async def call() -> list[list[float]]:
            response = await litellm.aembedding(model=model, input=texts, **kwargs)
            data = sorted(response.data, key=lambda d: _get(d, "index", 0))
            vectors = [[float(x) for x in _get(d, "embedding", [])] for d in data]
            if len(vectors) != len(texts) or any(not v for v in vectors):
                raise LLMCallError("bad_response", "embedding response has missing vectors")
            return vectors

        vectors, _, _ = await self._with_retries(call, secret_values(params))
        return vectors

    def embedding(self, *, model: str, texts: list[str], **params: Any) -> list[list[float]]:
        """Synchronous :meth:`aembedding`."""
        return run_sync(self.aembedding(model=model, texts=texts, **params))


def _get(obj: Any, name: str, default: Any) -> Any:
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)
