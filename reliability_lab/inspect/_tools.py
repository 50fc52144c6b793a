"""A condition's perturbation applied to one inspect sample: its tools and what they return.

inspect runs a sample's tools asynchronously; the perturbations (docs/perturbations.md) are
the same objects our own agent loop calls, with a synchronous ``call_tool(name, arguments,
step, execute)`` hook. :class:`SampleRun` bridges the two without a second implementation:
the hook runs in a worker thread (``anyio.to_thread``) and its ``execute`` callback runs the
real inspect tool back on the event loop (``anyio.from_thread``). Calls of one sample are
serialised (a lock), so the perturbation sees them in order; the worker thread comes from a
limiter of the sample's own, so waiting hooks never starve inspect's thread pool.

What the model sees of an outcome:

- the tool's own result object, when the perturbation passed it through unchanged;
- an inspect tool error (``ToolError``: the model reads ``Error: ...``) when the real tool did
  not run (an injected timeout, server error, rate limit or connection fault; arguments the
  perturbed schema rejects) or failed;
- otherwise the text the perturbation made of a result (a truncated, garbled or empty body;
  a structurally transformed result).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import anyio
import anyio.from_thread
import anyio.to_thread
from inspect_ai.tool import Tool, ToolDef, ToolError, ToolParams

from reliability_lab.perturbations import Perturbation, ToolOutcome, build_perturbation

if TYPE_CHECKING:
    from inspect_ai.solver import TaskState

__all__ = ["InspectTools", "SampleRun", "tool_schema"]

_ERROR_PREFIX = "Error: "


@dataclass(eq=False)
class InspectTools:
    """The environment a perturbation sees: the OpenAI schemas of the sample's tools.

    Hashable by identity (structural presets memoise their compiled maps per environment).
    """

    name: str
    tool_schemas: list[dict[str, Any]]


def tool_schema(definition: ToolDef) -> dict[str, Any]:
    """The OpenAI function schema of an inspect tool definition."""
    return {
        "type": "function",
        "function": {
            "name": definition.name,
            "description": definition.description,
            "parameters": definition.parameters.model_dump(exclude_none=True),
        },
    }


def _text(result: Any) -> str:
    if isinstance(result, str):
        return result
    if isinstance(result, list):
        return "\n".join(_text(item) for item in result)
    return str(getattr(result, "text", result))


class _Call:
    """One real tool call made on behalf of the perturbation (kept to hand its result back)."""

    def __init__(self, tool: Tool) -> None:
        self.tool = tool
        self.result: Any = None
        self.outcome: ToolOutcome | None = None

    async def run(self, arguments: str) -> ToolOutcome:
        try:
            kwargs = json.loads(arguments or "{}")
        except json.JSONDecodeError as exc:
            return ToolOutcome(f"Error: arguments are not valid JSON ({exc})", True)
        try:
            self.result = await self.tool(**kwargs)
        except ToolError as exc:
            self.outcome = ToolOutcome(_ERROR_PREFIX + exc.message, True)
        else:
            self.outcome = ToolOutcome(_text(self.result), False)
        return self.outcome


class SampleRun:
    """The perturbation of one sample and epoch, and the wrapped tools it hands to inspect.

    Parameters
    ----------
    condition, variant : str
        The run's condition and variant.
    options : mapping or None
        The condition's options (validated by its registered options model).
    seed : int
        The run seed (shared by the baseline and perturbed runs of the sample and epoch).
    state : TaskState
        The sample's state (its messages give the step of each tool call).
    """

    def __init__(
        self,
        condition: str,
        variant: str,
        options: dict[str, Any] | None,
        seed: int,
        state: TaskState,
    ) -> None:
        self.condition, self.variant, self.options, self.seed = condition, variant, options, seed
        self.state = state
        self.environment = InspectTools(f"inspect:{state.sample_id}", [])
        self.perturbation = self._build()
        self._lock = anyio.Lock()
        self._limiter: anyio.CapacityLimiter | None = None
        self._wrapped: dict[int, Tool] = {}  # id(wrapped tool) -> itself
        self._originals: dict[str, Tool] = {}
        self.n_calls = 0

    def _build(self) -> Perturbation:
        task = SimpleNamespace(task_id=str(self.state.sample_id), instruction=self.state.input_text)
        return build_perturbation(
            self.condition,
            self.variant,
            options=self.options,
            seed=self.seed,
            environment=self.environment,  # type: ignore[arg-type]
            task=task,  # type: ignore[arg-type]
        )

    def wrap(self, tools: list[Tool]) -> list[Tool]:
        """The tools as the model sees them under this condition (idempotent; a new list,
        as ``TaskState.tools``' setter clears its list before reading the new one)."""
        fresh = [t for t in tools if id(t) not in self._wrapped]
        if not fresh:
            return list(tools)
        for tool in fresh:
            definition = ToolDef(tool)
            self._originals[definition.name] = tool
        definitions = {name: ToolDef(tool) for name, tool in self._originals.items()}
        # a new environment object: structural presets memoise their map per environment
        self.environment = InspectTools(
            self.environment.name, [tool_schema(d) for d in definitions.values()]
        )
        if self.condition == "structural":  # the preset compiles against every tool seen
            self.perturbation = self._rebuilt_structural()
        shown = {
            s["function"]["name"]: s for s in self.perturbation.tools(self.environment.tool_schemas)
        }
        out: list[Tool] = []
        for tool in tools:
            if id(tool) in self._wrapped:
                out.append(tool)
                continue
            definition = ToolDef(tool)
            wrapped = self._wrapped_tool(definition, shown[definition.name]["function"])
            self._wrapped[id(wrapped)] = wrapped
            out.append(wrapped)
        return out

    def _rebuilt_structural(self) -> Perturbation:
        old = self.perturbation
        new = self._build()
        for name in ("n_calls", "n_rejected", "n_results"):
            setattr(new, name, getattr(old, name))
        new.events = old.events
        return new

    def _wrapped_tool(self, definition: ToolDef, shown: dict[str, Any]) -> Tool:
        name, tool = definition.name, definition.tool

        async def execute(**kwargs: Any) -> Any:
            return await self.call(name, tool, kwargs)

        parameters = ToolParams.model_validate(shown["parameters"])
        for key, param in parameters.properties.items():  # inspect requires a description
            param.description = param.description or f"the {key} object"
        return ToolDef(
            execute,
            name=name,
            description=str(shown.get("description") or definition.description),
            parameters=parameters,
            parallel=definition.parallel,
            viewer=definition.viewer,
        ).as_tool()

    def _step(self) -> int:
        return max(0, sum(m.role == "assistant" for m in self.state.messages) - 1)

    async def call(self, name: str, tool: Tool, kwargs: dict[str, Any]) -> Any:
        """Run one call the model made through the perturbation (module docstring)."""
        call = _Call(tool)
        self.n_calls += 1

        def execute(_: str, arguments: str) -> ToolOutcome:
            return anyio.from_thread.run(call.run, arguments)

        async with self._lock:
            # a limiter of its own: a hook waiting on its tool never holds one of the default
            # worker threads the tool itself (or inspect) may need
            self._limiter = self._limiter or anyio.CapacityLimiter(1)
            outcome = await anyio.to_thread.run_sync(
                self.perturbation.call_tool,
                name,
                json.dumps(kwargs),
                self._step(),
                execute,
                limiter=self._limiter,
            )
        if call.outcome is not None and outcome is call.outcome and not outcome.is_error:
            return call.result
        if outcome.is_error and (call.outcome is None or call.outcome.is_error):
            raise ToolError(outcome.text.removeprefix(_ERROR_PREFIX))
        return outcome.text

    def record(self) -> dict[str, Any]:
        """The run's ``perturbation`` record (as our runner stores it)."""
        return self.perturbation.record()
