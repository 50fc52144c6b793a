"""Test doubles for the PandaProbe tests: a scripted judge client and toy embedders."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class FakeCompletion:
    message: dict[str, Any]
    cost_usd: float = float("nan")
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    attempts: int = 1
    cached: bool = False


@dataclass
class ScriptedLLM:
    """Fake ``LLMClient``: answers from a queue (or a responder) and records every call.

    Queue items are reply strings, dicts (sent as JSON) or exceptions (raised).
    """

    replies: list[Any] = field(default_factory=list)
    responder: Callable[[str, list[dict[str, Any]]], Any] | None = None
    calls: list[dict[str, Any]] = field(default_factory=list)

    @property
    def schemas(self) -> list[str]:
        return [c["response_format"]["json_schema"]["name"] for c in self.calls]

    async def acompletion(self, **request: Any) -> FakeCompletion:
        """The ``ChatClient`` call (reliability_lab.llm._protocol), recorded and scripted."""
        params = {k: v for k, v in request.items() if k not in ("tools", "cache_key_extra")}
        self.calls.append(params)
        messages = params["messages"]
        schema = params["response_format"]["json_schema"]["name"]
        if self.responder is not None:
            reply = self.responder(schema, messages)
        else:
            assert self.replies, f"unexpected extra judge call (schema {schema})"
            reply = self.replies.pop(0)
        if isinstance(reply, BaseException):
            raise reply
        content = reply if isinstance(reply, str) else json.dumps(reply)
        return FakeCompletion(message={"role": "assistant", "content": content})


def const_embed(texts: list[str]) -> list[list[float]]:
    """Every text gets the same vector, so every cosine similarity is exactly 1."""
    return [[1.0, 0.0] for _ in texts]


def letter_embed(texts: list[str]) -> list[list[float]]:
    """Vector (count of 'a', count of 'b') — small enough to do cosines by hand."""
    return [[float(t.count("a")), float(t.count("b"))] for t in texts]
