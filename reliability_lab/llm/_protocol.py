"""The one chat-completion contract: what code that asks a model needs from a client.

:class:`~reliability_lab.llm.LLMClient` implements it (and declares so, so a type checker
holds the two together); the session judges, the safety judge and their wrappers
(:mod:`reliability_lab.llm.judging`) accept any object that has it, such as a scripted fake in
a test.
"""

from __future__ import annotations

from typing import Any, Protocol

__all__ = ["ChatClient"]


class ChatClient(Protocol):
    """An object with ``acompletion``: one OpenAI-format chat completion per call."""

    async def acompletion(
        self,
        *,
        model: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        cache_key_extra: str = "",
        **params: Any,
    ) -> Any:
        """One chat completion.

        Parameters
        ----------
        model : str
            A litellm model string (``openai/gpt-4o-mini``, ``sim/calibrated`` …).
        messages : list of dict
            OpenAI-format messages.
        tools : list of dict, optional
            OpenAI-format tool schemas the model may call.
        cache_key_extra : str
            Text added to the response-cache key (e.g. which repetition asks), so that
            otherwise identical requests can get their own answers.
        **params
            Provider parameters (temperature, max_tokens, seed, response_format …).

        Returns
        -------
        object
            Has ``.message``: the OpenAI-format assistant message.
        """
        ...
