"""The simulated model: an offline stand-in for an LLM agent, reached as ``sim/<persona>``.

It is a simulation. It solves the tasks of registered environments by following each task's
oracle plan, reading tool results from the conversation it receives, with profile-controlled
slips, detours, malformed calls, error recovery and confidence reports; see
``docs/simulated_model.md``. It is plugged into the model boundary as the litellm custom
provider ``sim`` (:mod:`reliability_lab._providers`; :mod:`._provider` is the handler) so it goes
through the same call path as a real model. Only that handler imports litellm, and only once
the boundary has loaded it.

Each simulated model is a :class:`SimPersona` (:data:`PERSONAS`, :func:`register_persona`);
"profile" names only the metric conventions (:mod:`reliability_lab.metrics.profiles`). The 0.1
names ``SimProfile``, ``PROFILES``, ``get_profile`` and ``register_profile`` still import from
here with a DeprecationWarning until the next release.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from reliability_lab._moved import deprecated_exports
from reliability_lab.sim._judge import structured_reply
from reliability_lab.sim._policy import SimReply, sim_respond
from reliability_lab.sim._profiles import PERSONAS, SimPersona, get_persona, register_persona

__all__ = [
    "PERSONAS",
    "SimPersona",
    "SimReply",
    "get_persona",
    "register_persona",
    "simulate",
]

__getattr__, _ = deprecated_exports(
    __name__,
    {
        "PROFILES": "reliability_lab.sim._profiles:PERSONAS",
        "SimProfile": "reliability_lab.sim._profiles:SimPersona",
        "get_profile": "reliability_lab.sim._profiles:get_persona",
        "register_profile": "reliability_lab.sim._profiles:register_persona",
    },
)

register_persona(SimPersona("judge", "Default model for offline LLM judges (structured output)."))


def _tokens(text: str) -> int:
    return max(1, (len(text) + 3) // 4)


def simulate(
    profile: str,
    messages: Sequence[Mapping[str, Any]],
    *,
    tools: Sequence[Mapping[str, Any]] | None = None,
    seed: int | None = None,
    response_format: Mapping[str, Any] | None = None,
) -> SimReply:
    """The simulated model's reply to a chat request.

    Parameters
    ----------
    profile : str
        Profile name (``calibrated``, ``inconsistent``, ``overconfident``, ``brittle``,
        ``perfect``, ``judge`` or a registered one).
    messages : sequence of dict
        OpenAI-format conversation.
    tools : sequence of dict, optional
        OpenAI tool schemas of the request (narrows which environment the task is from).
    seed : int, optional
        Request seed; the reply is a deterministic function of profile, seed and messages.
    response_format : dict, optional
        ``{"type": "json_schema", ...}`` or ``{"type": "json_object"}`` → a JSON object valid
        for the schema (structured-output mode, for judges).

    Returns
    -------
    SimReply
        Assistant message and token counts (≈ 4 characters per token, simulated).
    """
    spec = get_persona(profile)
    if response_format is not None and response_format.get("type") in (
        "json_schema",
        "json_object",
    ):
        message: dict[str, Any] = {
            "role": "assistant",
            "content": structured_reply(response_format, messages, seed),
        }
    else:
        message = sim_respond(spec, messages, tools, seed)
    prompt = json.dumps([list(messages), list(tools or ())], default=str)
    reply = json.dumps(message, default=str)
    return SimReply(message, _tokens(prompt), _tokens(reply))
