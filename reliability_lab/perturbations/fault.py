"""Fault injection (condition ``fault``): tool calls fail where the agent sees them.

Each tool call is a Bernoulli trial with the variant's rate (``p=0.2`` → 0.2). A fault's type
is drawn from the mix (default: timeout .30, server error .25, rate limit .20, connection .15,
partial .05, invalid .03, empty .02) and *replaces the result the agent sees*:

============== =========== ===========================================================
type           tool ran?   what the agent sees
============== =========== ===========================================================
timeout        no          ``Error: timeout: ... did not respond within 30 s ...``
server_error   no          ``Error: 500 Internal Server Error: ...``
rate_limit     no          ``Error: 429 Too Many Requests: ... retry after N s.``
connection     no          ``Error: connection error: could not connect ...``
partial        yes         the real JSON body cut in half (truncated JSON)
invalid        yes         the real body garbled so that it is not JSON
empty          yes         an empty body
============== =========== ===========================================================

"Ran" matters for state-changing tools: after a partial, invalid or empty reply the change has
happened, and a retry may be refused (the order is already cancelled) — as with a real API whose
response was lost. Optionally (``llm_faults: true``) the agent's own LLM calls fail too: an
injected LLM fault ends the run as the **agent's** failure (``error = "agent: injected fault:
..."``), never an ``infrastructure:`` error. A harness-side retry policy (``retry.max_retries``,
default 0 = off) resends calls that failed with a type whose request never reached the tool
(timeout, server error, rate limit, connection); the agent then sees only the final attempt.

Every fault fired is recorded (type, tool or ``llm``, step, call index, attempt, whether the tool
ran, whether a harness retry masked it) with ``recovered``: for a fault the agent saw, whether it
later called the same tool again and succeeded; for a masked one, whether the harness's retry
succeeded. Draws come from :meth:`PerturbationContext.rng`, so a run is deterministic given its
seed. See docs/perturbations.md, "Fault injection".
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from reliability_lab.perturbations._base import (
    Perturbation,
    PerturbationContext,
    ToolExecutor,
    ToolOutcome,
)
from reliability_lab.runs import fault_rate_of

if TYPE_CHECKING:
    from reliability_lab.envs import Environment

__all__ = [
    "DEFAULT_FAULT_RATE",
    "DEFAULT_MIX",
    "FAULT_TYPES",
    "NOT_EXECUTED",
    "FaultInjection",
    "FaultOptions",
    "RetryPolicy",
    "fault_rate",
    "fault_variants",
]

#: The fault types, in the order of the default mix.
FAULT_TYPES = ("timeout", "server_error", "rate_limit", "connection", "partial", "invalid", "empty")
#: Default probability that a tool call fails.
DEFAULT_FAULT_RATE = 0.2
#: Default type mix (probabilities given that a fault fires).
DEFAULT_MIX: dict[str, float] = {
    "timeout": 0.30,
    "server_error": 0.25,
    "rate_limit": 0.20,
    "connection": 0.15,
    "partial": 0.05,
    "invalid": 0.03,
    "empty": 0.02,
}
#: Types whose request never reached the tool (it did not run); a harness retry may resend it.
NOT_EXECUTED = frozenset({"timeout", "server_error", "rate_limit", "connection"})


class RetryPolicy(BaseModel):
    """Harness-side retries of injected faults (off by default)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_retries: int = Field(default=0, ge=0, le=10)
    """Resends of a call that failed with timeout, server error, rate limit or connection
    (the tool did not run). 0 = off: the agent sees every fault."""


class FaultOptions(BaseModel):
    """Options of the ``fault`` condition (the rate comes from the variant, ``p=0.2``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    mix: dict[str, float] = Field(default_factory=lambda: dict(DEFAULT_MIX))
    """Relative weights of the fault types (normalised; missing types get weight 0)."""
    tools: list[str] | None = None
    """Tools that may fail; None = all tools of the environment."""
    llm_faults: bool = False
    """Also inject faults into the agent's own LLM calls (an injected LLM fault that is not
    retried ends the run as the agent's failure)."""
    llm_rate: float | None = Field(default=None, gt=0, le=1)
    """Fault rate of LLM calls; None = the variant's rate."""
    retry: RetryPolicy = Field(default_factory=RetryPolicy)
    """Harness-side retry policy."""
    retry_after_s: float = Field(default=2.0, gt=0)
    """The ``retry after`` value shown with a rate-limit fault (not slept)."""

    @field_validator("mix")
    @classmethod
    def _known_types(cls, value: dict[str, float]) -> dict[str, float]:
        unknown = sorted(set(value) - set(FAULT_TYPES))
        if unknown:
            raise ValueError(f"unknown fault types {unknown}; valid: {', '.join(FAULT_TYPES)}")
        bad = {k: v for k, v in value.items() if not (math.isfinite(v) and v >= 0)}
        if bad:
            raise ValueError(f"weights must be finite and >= 0, got {bad}")
        if sum(value.values()) <= 0:
            raise ValueError("at least one fault type needs a positive weight")
        return value

    def weights(self) -> dict[str, float]:
        """The mix normalised to sum 1, in :data:`FAULT_TYPES` order."""
        total = sum(self.mix.values())
        return {t: self.mix.get(t, 0.0) / total for t in FAULT_TYPES if self.mix.get(t, 0.0) > 0}


def fault_rate(variant: str) -> float:
    """The rate of a ``p=<rate>`` variant; ``ValueError`` for anything else.

    >>> fault_rate("p=0.4")
    0.4
    """
    rate = fault_rate_of(variant)
    if not 0 < rate <= 1:
        raise ValueError(
            f"fault variant {variant!r}: expected 'p=<rate>' with 0 < rate <= 1, e.g. 'p=0.2'"
        )
    return rate


def fault_variants(listed: tuple[str, ...], options: Any) -> tuple[str, ...]:
    """Validate the listed ``p=<rate>`` variants (registered as the variant resolver)."""
    for variant in listed:
        fault_rate(variant)
    return listed


def check_fault_environment(options: FaultOptions | None, environment: Environment) -> None:
    """``ValueError`` when ``options.tools`` names a tool the environment lacks."""
    if options is None or options.tools is None:
        return
    known = environment.tool_names()
    unknown = sorted(set(options.tools) - known)
    if unknown:
        raise ValueError(
            f"options.tools: unknown tools {unknown} in environment {environment.name!r}; "
            f"valid: {', '.join(sorted(known))}"
        )


def _message(kind: str, target: str, retry_after_s: float) -> str:
    return {
        "timeout": f"Error: timeout: {target} did not respond within 30 s; the request was "
        "not processed.",
        "server_error": f"Error: 500 Internal Server Error: {target} failed to process the "
        "request.",
        "rate_limit": f"Error: 429 Too Many Requests: rate limit exceeded for {target}; retry "
        f"after {retry_after_s:g} s.",
        "connection": f"Error: connection error: could not connect to {target} (connection "
        "reset by peer).",
    }[kind]


def _corrupt(kind: str, body: str) -> str:
    """The body the agent sees after a partial, invalid or empty fault of a call that ran."""
    if kind == "partial":
        return body[: len(body) // 2]
    if kind == "invalid":  # a leading brace followed by no quoted key is never valid JSON
        return "{" + body.replace('"', "'")
    return ""


class FaultInjection(Perturbation):
    """The perturbation of one ``fault`` run (see the module docstring)."""

    def __init__(self, context: PerturbationContext) -> None:
        super().__init__(context)
        options = context.options if context.options is not None else FaultOptions()
        if not isinstance(options, FaultOptions):
            raise TypeError(f"fault: options must be FaultOptions, got {type(options).__name__}")
        self.options = options
        self.rate = fault_rate(context.variant)
        self.llm_rate = self.options.llm_rate or self.rate
        self._weights = self.options.weights()
        self._calls: list[tuple[str, bool]] = []  # (tool, succeeded) per call, in order
        self._attempts = 0

    def _draw(self, target: str, index: int, attempt: int, rate: float) -> str | None:
        rng = self.context.rng(target, index, attempt)
        if rng.random() >= rate:
            return None
        return rng.choices(list(self._weights), weights=list(self._weights.values()))[0]

    def _event(self, kind: str, target: str, step: int, index: int, attempt: int) -> None:
        event: dict[str, Any] = {
            "type": kind,
            "tool": target,
            "step": step,
            "call": index,
            "attempt": attempt,
            "executed": kind not in NOT_EXECUTED,
            "masked": False,
        }
        if kind == "rate_limit":
            event["retry_after_s"] = self.options.retry_after_s
        self.events.append(event)

    def call_tool(self, name: str, arguments: str, step: int, execute: ToolExecutor) -> ToolOutcome:
        """Run the call, or fail it with an injected fault (module docstring)."""
        index = len(self._calls)
        eligible = self.options.tools is None or name in self.options.tools
        attempt = 0
        while True:
            self._attempts += 1
            kind = self._draw("tool", index, attempt, self.rate) if eligible else None
            if kind is None:
                outcome = execute(name, arguments)
                break
            self._event(kind, name, step, index, attempt)
            if kind in NOT_EXECUTED:
                if attempt < self.options.retry.max_retries:
                    self.events[-1]["masked"] = True
                    attempt += 1
                    continue
                outcome = ToolOutcome(_message(kind, name, self.options.retry_after_s), True)
            else:
                outcome = ToolOutcome(_corrupt(kind, execute(name, arguments).text), True)
            break
        self._calls.append((name, not outcome.is_error))
        return outcome

    def llm_fault(self, step: int) -> str | None:
        """An injected fault of the agent's LLM call ``step`` that was not retried, or None."""
        if not self.options.llm_faults:
            return None
        for attempt in range(self.options.retry.max_retries + 1):
            kind = self._draw("llm", step, attempt, self.llm_rate)
            if kind is None:
                return None
            self._event(kind, "llm", step, -1, attempt)
            if attempt < self.options.retry.max_retries and kind in NOT_EXECUTED:
                self.events[-1]["masked"] = True
                continue
            shown = (
                _message(kind, "the model API", self.options.retry_after_s).removeprefix("Error: ")
                if kind in NOT_EXECUTED
                else f"{kind} response body"
            )
            return f"llm {kind} at step {step} ({shown})"
        return None  # pragma: no cover - the loop always returns

    def _recovered(self, event: dict[str, Any]) -> tuple[bool, str | None]:
        if event["tool"] == "llm":
            return (True, "harness") if event["masked"] else (False, None)
        index = event["call"]
        if event["masked"]:
            ok = self._calls[index][1] if index < len(self._calls) else False
            return ok, ("harness" if ok else None)
        later = any(tool == event["tool"] and ok for tool, ok in self._calls[index + 1 :])
        return later, ("agent" if later else None)

    def record(self) -> dict[str, Any]:
        """The base record with ``recovered``/``recovered_by`` filled in on every event."""
        for event in self.events:
            event["recovered"], event["recovered_by"] = self._recovered(event)
        return super().record()

    def parameters(self) -> dict[str, Any]:
        """Rate, normalised mix, eligible tools, LLM faults and retry policy."""
        return {
            "rate": self.rate,
            "mix": self._weights,
            "tools": self.options.tools,
            "llm_faults": self.options.llm_faults,
            "llm_rate": self.llm_rate if self.options.llm_faults else None,
            "retry_max_retries": self.options.retry.max_retries,
        }

    def summary(self) -> dict[str, Any]:
        """Tool calls, attempts, faults fired and recovered."""
        return {
            "n_tool_calls": len(self._calls),
            "n_attempts": self._attempts,
            "n_faults": len(self.events),
            "n_faults_recovered": sum(1 for e in self.events if e.get("recovered")),
            "n_llm_faults": sum(1 for e in self.events if e["tool"] == "llm"),
        }
