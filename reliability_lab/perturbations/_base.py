"""The per-run perturbation object and the hooks the agent loop calls.

A :class:`Perturbation` is built for one run from its condition, variant, options, run seed,
environment and task (a :class:`PerturbationContext`). The agent loop
(:func:`reliability_lab.agents.execute_run`) calls, in this order:

1. :meth:`Perturbation.instruction` on the task instruction (prompt perturbations);
2. :meth:`Perturbation.tools` on the tool schemas shown to the agent (structural);
3. :meth:`Perturbation.llm_fault` before each of the agent's own LLM calls (fault injection,
   off by default) — a returned description ends the run as the *agent's* failure;
4. :meth:`Perturbation.call_tool` for every tool call: it may rewrite the arguments, run the
   tool through the ``execute`` callback (or not), and rewrite or replace the result;
5. :meth:`Perturbation.record` at the end: the parameters and what the perturbation did,
   stored on the run's ``results.jsonl`` line (``perturbation``).

The base class is the identity (the ``baseline`` condition). Every other condition must
override at least one hook; :func:`applies` tells the two apart, so a condition that changes
nothing can never masquerade as a perturbation (docs/perturbations.md, "Registry").
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from pydantic import BaseModel

    from reliability_lab.envs import Environment, Task

__all__ = [
    "HOOKS",
    "Perturbation",
    "PerturbationContext",
    "ToolExecutor",
    "ToolOutcome",
    "applies",
    "substream",
    "variant_intensity",
]

#: Separator between a variant's intensity and its instance (``medium/3``: paraphrase 3 of
#: strength ``medium``). A variant without it is its own intensity (``p=0.2``, ``severe``).
INTENSITY_SEPARATOR = "/"
#: The hooks a perturbation may override (:func:`applies` checks that one of them is).
HOOKS = ("instruction", "tools", "call_tool", "llm_fault")


class ToolOutcome(NamedTuple):
    """What the agent sees of one tool call."""

    text: str
    """The tool message content."""
    is_error: bool
    """Whether the call failed (counted in the run's ``num_errors``)."""


#: ``execute(name, arguments_json) -> ToolOutcome``: runs a tool in the environment.
ToolExecutor = Callable[[str, str], ToolOutcome]


def variant_intensity(variant: str) -> str:
    """The intensity a variant belongs to: the part before ``/`` (the whole name otherwise).

    >>> variant_intensity("medium/3"), variant_intensity("p=0.2"), variant_intensity("")
    ('medium', 'p=0.2', '')
    """
    return variant.split(INTENSITY_SEPARATOR, 1)[0]


def substream(seed: int, *parts: object) -> random.Random:
    """An independent generator for one purpose of one run: SHA-256 of (seed, parts).

    Perturbations draw from ``substream(run_seed, condition, variant, purpose, index)`` so
    their randomness is a function of the run seed (shared by the baseline and perturbed runs
    of a task) and of what is being decided, never of the order of other draws.

    >>> substream(7, "fault", "p=0.2", 3).random() == substream(7, "fault", "p=0.2", 3).random()
    True
    """
    key = json.dumps([int(seed), *map(str, parts)]).encode("utf-8")
    return random.Random(int.from_bytes(hashlib.sha256(key).digest()[:8], "big"))


@dataclass(frozen=True)
class PerturbationContext:
    """Everything a condition's factory needs to build the perturbation of one run.

    Attributes
    ----------
    condition, variant : str
        The run's condition and variant.
    options : BaseModel or None
        The condition's validated options (its registered options model), or None.
    seed : int
        The run seed (shared with the baseline run of the same agent, task and repetition).
    environment : Environment
        The environment the run acts in.
    task : Task
        The task of the run.
    data : Mapping
        Per-run data prepared once per experiment (e.g. the paraphrase this run receives).
    """

    condition: str
    variant: str
    options: BaseModel | None
    seed: int
    environment: Environment
    task: Task
    data: Mapping[str, Any] = field(default_factory=dict)

    @property
    def intensity(self) -> str:
        """The variant's intensity (:func:`variant_intensity`)."""
        return variant_intensity(self.variant)

    def rng(self, *parts: object) -> random.Random:
        """:func:`substream` of this run's seed, condition and variant."""
        return substream(self.seed, self.condition, self.variant, *parts)


class Perturbation:
    """The identity perturbation (``baseline``); conditions subclass it and override hooks.

    Parameters
    ----------
    context : PerturbationContext
        The run this perturbation applies to.
    """

    def __init__(self, context: PerturbationContext) -> None:
        self.context = context
        self.events: list[dict[str, Any]] = []

    def instruction(self, text: str) -> str:
        """The task instruction the agent receives."""
        return text

    def tools(self, schemas: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The OpenAI tool schemas the agent sees."""
        return schemas

    def call_tool(self, name: str, arguments: str, step: int, execute: ToolExecutor) -> ToolOutcome:
        """One tool call of the agent at ``step`` (0-based agent LLM turn).

        ``arguments`` is the JSON text the agent sent; ``execute`` runs the tool in the
        environment and never raises.
        """
        return execute(name, arguments)

    def llm_fault(self, step: int) -> str | None:
        """A description of an injected fault that ends the run before LLM call ``step``."""
        return None

    def parameters(self) -> dict[str, Any]:
        """The perturbation's parameters (recorded on the run)."""
        return {}

    def summary(self) -> dict[str, Any]:
        """Counts of what the perturbation did (recorded on the run)."""
        return {}

    def record(self) -> dict[str, Any]:
        """The run's ``perturbation`` record: identity, parameters, summary and events."""
        return {
            "condition": self.context.condition,
            "variant": self.context.variant,
            "intensity": self.context.intensity,
            "parameters": self.parameters(),
            "summary": self.summary(),
            "events": list(self.events),
        }


def applies(perturbation: type[Perturbation] | Perturbation) -> bool:
    """Whether a perturbation (class or instance) overrides at least one hook.

    >>> applies(Perturbation)
    False
    """
    cls = perturbation if isinstance(perturbation, type) else type(perturbation)
    return any(getattr(cls, hook) is not getattr(Perturbation, hook) for hook in HOOKS)
