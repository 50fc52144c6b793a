"""Shared machinery of the LLM judges: one structured-output call per stage, validated."""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, ValidationError

from reliability_lab.llm._protocol import ChatClient

__all__ = [
    "DEFAULT_JUDGE_MODEL",
    "SYSTEM_PROMPT",
    "CachingLLM",
    "JudgeError",
    "JudgeLLM",
    "LLMWrapper",
    "Stages",
    "check_threshold",
]

#: Offline default judge: E1's simulated model answers structured-output requests with
#: schema-valid JSON. It is a simulation; its scores say nothing about the agent.
DEFAULT_JUDGE_MODEL = "sim/judge"
#: Default parameters of every judge call (overridable per call).
DEFAULT_JUDGE_PARAMS: dict[str, Any] = {"temperature": 0.0}

#: System prompt of the staged judges: evidence-based, one JSON object per stage.
SYSTEM_PROMPT = (
    "You are a strict, impartial evaluator of AI agent behaviour. Base every statement on "
    "evidence in the material you are given. Answer with a single JSON object that matches "
    "the requested schema and nothing else."
)

S = TypeVar("S", bound=BaseModel)


class _CompletionLike(Protocol):
    @property
    def message(self) -> dict[str, Any]: ...


#: What the judges need from a model client: :class:`~reliability_lab.llm._protocol.ChatClient`
#: (``acompletion``), which :class:`~reliability_lab.llm.LLMClient` implements.
JudgeLLM = ChatClient


class JudgeError(RuntimeError):
    """A judge stage kept returning output that is not valid for its schema.

    Attributes
    ----------
    metric, stage : str
        Which judge and which stage failed.
    """

    def __init__(self, metric: str, stage: str, message: str) -> None:
        super().__init__(f"{metric}: stage {stage!r}: {message}")
        self.metric = metric
        self.stage = stage


def check_threshold(threshold: float) -> float:
    """Validate a success threshold in [0, 1] (0 is a valid threshold)."""
    if isinstance(threshold, bool) or not isinstance(threshold, int | float):
        raise TypeError(f"threshold must be a number in [0, 1], got {threshold!r}")
    if not 0.0 <= threshold <= 1.0:
        raise ValueError(f"threshold must be in [0, 1], got {threshold!r}")
    return float(threshold)


def _strip_fences(text: str) -> str:
    text = text.strip()
    if text.startswith("```"):
        text = text.split("\n", 1)[1] if "\n" in text else ""
        text = text.rsplit("```", 1)[0]
    return text.strip()


def _short(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        errs = exc.errors()
        parts = []
        for e in errs[:3]:
            got = e.get("input")
            shown = f" (got {got!r:.40})" if isinstance(got, str | int | float) else ""
            parts.append(f"{'.'.join(map(str, e['loc'])) or '<root>'}: {e['msg']}{shown}")
        return "; ".join(parts)
    return str(exc)[:200]


@functools.cache
def _schema_json(schema: type[BaseModel]) -> str:
    return json.dumps(schema.model_json_schema())


def _response_format(schema: type[BaseModel]) -> dict[str, Any]:
    """``response_format`` of a stage (the JSON schema is generated once per schema class)."""
    return {
        "type": "json_schema",
        "json_schema": {
            "name": schema.__name__,
            "schema": json.loads(_schema_json(schema)),
            "strict": False,
        },
    }


class Stages:
    """Runs the stages of one judge evaluation and keeps each stage's validated output.

    Parameters
    ----------
    metric : str
        Judge name, for error messages.
    llm : JudgeLLM
        The LLM client.
    model : str
        Judge model (any litellm model string).
    max_invalid_retries : int
        How many times a stage is asked again after an invalid reply.
    params : mapping
        Extra completion parameters (temperature, api_base, …).
    system_prompt : str
        The system message of every stage (default: PandaProbe's judge prompt).
    """

    def __init__(
        self,
        metric: str,
        llm: JudgeLLM,
        model: str,
        *,
        max_invalid_retries: int = 2,
        params: Mapping[str, Any] | None = None,
        system_prompt: str = SYSTEM_PROMPT,
    ) -> None:
        if not isinstance(model, str) or not model:
            raise ValueError(f"model must be a non-empty litellm model string, got {model!r}")
        if max_invalid_retries < 0:
            raise ValueError(f"max_invalid_retries must be >= 0, got {max_invalid_retries!r}")
        self.metric = metric
        self.llm = llm
        self.model = model
        self.max_invalid_retries = max_invalid_retries
        self.params = {**DEFAULT_JUDGE_PARAMS, **(params or {})}
        self.system_prompt = system_prompt
        self.outputs: dict[str, dict[str, Any]] = {}

    async def run(self, stage: str, schema: type[S], prompt: str) -> S:
        """One structured-output call; re-asks on invalid JSON, then raises JudgeError."""
        response_format = _response_format(schema)
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": self.system_prompt},
            {"role": "user", "content": prompt},
        ]
        last_error = ""
        for _ in range(self.max_invalid_retries + 1):
            completion = await self.llm.acompletion(
                model=self.model, messages=messages, response_format=response_format, **self.params
            )
            content = completion.message.get("content")
            try:
                if not isinstance(content, str):
                    raise ValueError(f"reply has no text content: {content!r:.80}")
                parsed = schema.model_validate(json.loads(_strip_fences(content)))
            except (ValueError, ValidationError) as exc:  # JSONDecodeError is a ValueError
                last_error = _short(exc)
                messages = [
                    *messages,
                    {"role": "assistant", "content": content if isinstance(content, str) else ""},
                    {
                        "role": "user",
                        "content": f"That reply is not valid ({last_error}). Reply again with "
                        "only a JSON object that matches the schema.",
                    },
                ]
                continue
            self.outputs[stage] = parsed.model_dump(mode="json")
            return parsed
        raise JudgeError(
            self.metric,
            stage,
            f"judge {self.model!r} returned invalid output {self.max_invalid_retries + 1} "
            f"time(s); last error: {last_error}",
        )


class LLMWrapper:
    """A :class:`JudgeLLM` in front of another: the ``acompletion`` signature written once.

    Subclasses override :meth:`call`, which receives the request as the keyword arguments of
    :meth:`JudgeLLM.acompletion` (``model``, ``messages`` and whichever of ``tools``,
    ``cache_key_extra`` and the provider parameters the caller passed).
    """

    def __init__(self, llm: JudgeLLM) -> None:
        self.llm = llm

    async def acompletion(self, **request: Any) -> Any:
        """Like the wrapped client's ``acompletion`` (:class:`JudgeLLM`), through :meth:`call`."""
        return await self.call(request)

    async def call(self, request: dict[str, Any]) -> Any:
        """Forward ``request`` to the wrapped client (override to add behaviour)."""
        return await self.llm.acompletion(**request)


class CachingLLM(LLMWrapper):
    """Wraps an LLM client and memoises identical ``acompletion`` requests in memory.

    The wrapped client's own on-disk cache (if configured) still applies; this layer only
    removes repeated identical judge calls within one process (e.g. across traces or runs).
    """

    def __init__(self, llm: JudgeLLM) -> None:
        super().__init__(llm)
        self._memo: dict[str, Any] = {}

    async def call(self, request: dict[str, Any]) -> Any:
        """Identical requests are answered once."""
        key = json.dumps(request, sort_keys=True, default=str)
        if key not in self._memo:
            self._memo[key] = await self.llm.acompletion(**request)
        return self._memo[key]
