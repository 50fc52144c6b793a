"""The agent contract: what ``solve(ctx)`` receives (:class:`AgentContext`) and may return.

Every run — the built-in tool loop's and a user's agent's alike — executes through one
:class:`AgentContext`: the condition's instruction and tool schemas, tool calls through the
harness (:meth:`AgentContext.call_tool`: injected faults, the structural mapping both ways,
argument checking, recording) and model calls through the experiment's LLM boundary
(:class:`AgentLLM`). The harness records the transcript, the actions and the errors from these
calls, so an agent needs to do nothing for its trajectory, ``num_actions``, ``num_errors`` and
safety checks to be recorded (docs/your_agent.md, "The agent contract").
"""

from __future__ import annotations

import asyncio
import copy
import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from reliability_lab.envs import Episode, ToolError
from reliability_lab.perturbations import Perturbation, ToolOutcome

if TYPE_CHECKING:
    from reliability_lab.agents._records import RunSpec
    from reliability_lab.llm import Completion, LLMClient

__all__ = [
    "CONTEXT_ATTRIBUTES",
    "AgentContext",
    "AgentFailure",
    "AgentLLM",
    "AgentOutput",
    "InjectedLLMFault",
    "ToolView",
]

#: The public attributes of :class:`AgentContext` (``validate`` checks an agent's ``ctx.X``
#: uses against this list).
CONTEXT_ATTRIBUTES = frozenset(
    {
        "task_id",
        "run",
        "seed",
        "condition",
        "variant",
        "options",
        "instruction",
        "system_prompt",
        "metadata",
        "tools",
        "tool",
        "call_tool",
        "acall_tool",
        "llm",
        "agent",
        "model",
        "params",
        "max_steps",
        "transcript",
        "actions",
        "errors",
        "llm_calls",
    }
)


@dataclass(frozen=True)
class AgentOutput:
    """What an agent may return instead of a plain answer string.

    Attributes
    ----------
    answer : str or None
        The final answer (scored by the task's checker); None when the agent gave none.
    confidence : float or None
        The agent's own P(success) in [0, 1]; None lets the harness elicit one post hoc
        (``elicit_confidence``). Recorded with ``confidence_source="agent"``.
    metadata : Mapping
        Free-form JSON-serialisable data stored on the run's record (``agent_metadata``).
    """

    answer: str | None
    confidence: float | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)


class AgentFailure(Exception):
    """Raise to end a run as the agent's declared failure; recorded as ``agent: <message>``
    without a traceback (e.g. a step budget exhausted)."""


class InjectedLLMFault(Exception):
    """An injected fault of the agent's own model call (``fault`` condition with LLM faults).

    Escaping the agent, it ends the run as ``agent: injected fault: <description>``.
    """


@dataclass(frozen=True)
class ToolView:
    """One tool as the run's condition presents it to the agent.

    Attributes
    ----------
    name : str
        The (possibly perturbed) function name.
    description : str
        What the tool does.
    parameters : Mapping
        JSON schema of its arguments (perturbed names and formats under ``structural``).
    """

    name: str
    description: str
    parameters: Mapping[str, Any]
    _entry: Mapping[str, Any] = field(repr=False, compare=False, default_factory=dict)

    @classmethod
    def from_schema(cls, entry: Mapping[str, Any]) -> ToolView:
        """A view of one OpenAI ``tools`` entry."""
        function = entry.get("function", {})
        return cls(
            name=str(function.get("name", "")),
            description=str(function.get("description", "")),
            parameters=copy.deepcopy(dict(function.get("parameters", {}))),
            _entry=entry,
        )

    def schema(self) -> dict[str, Any]:
        """The OpenAI ``tools`` entry of this tool (a fresh copy)."""
        return copy.deepcopy(dict(self._entry))


def execute_tool_call(episode: Episode, name: str, raw_arguments: str) -> ToolOutcome:
    """Run one tool call in ``episode``; the text the agent sees and whether it failed.

    Never raises: invalid JSON, a :class:`~reliability_lab.envs.ToolError` and a bug in a
    user-defined tool all become error text the agent can read (counted in ``num_errors``).
    """
    try:
        arguments = json.loads(raw_arguments or "{}")
    except json.JSONDecodeError as exc:
        return ToolOutcome(f"Error: arguments for {name} are not valid JSON ({exc.msg}).", True)
    try:
        return ToolOutcome(episode.call_tool(name, arguments), False)
    except ToolError as exc:
        return ToolOutcome(str(exc), True)
    except Exception as exc:  # a bug in a user-defined tool: shown to the agent, counted
        return ToolOutcome(f"Error: tool {name} failed: {type(exc).__name__}: {exc}", True)


@dataclass
class Meter:
    """Resource totals over a run's LLM calls."""

    cost: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latencies: list[float] = field(default_factory=list)

    def add(self, completion: Completion) -> None:
        """Count one returned completion."""
        self.cost += completion.cost_usd  # NaN (unknown price) propagates: total unknown
        self.prompt_tokens += completion.prompt_tokens
        self.completion_tokens += completion.completion_tokens
        self.latencies.append(completion.latency_s)


class AgentLLM:
    """The agent's model behind the experiment's LLM boundary (``ctx.llm``).

    Cache, retries, rate limit, cost and token accounting and infrastructure-error
    classification are the :class:`~reliability_lab.llm.LLMClient`'s; an injected LLM fault
    of the run's condition raises :class:`InjectedLLMFault` before the call.
    """

    def __init__(self, ctx: AgentContext, client: LLMClient) -> None:
        self._ctx = ctx
        self._client = client
        self._loop: asyncio.AbstractEventLoop | None = None

    async def acomplete(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None = None,
        **params: Any,
    ) -> dict[str, Any]:
        """One chat completion; the OpenAI-format assistant message.

        ``params`` override the agent's configured ``params`` for this call. Raises
        :class:`~reliability_lab.llm.LLMCallError` after the retries are exhausted (an
        infrastructure error if it escapes the agent).
        """
        ctx = self._ctx
        if not ctx.model:
            raise RuntimeError(
                f"agent {ctx.agent!r} has no model: set `model:` in its config entry to use ctx.llm"
            )
        if isinstance(messages, str | bytes) or not isinstance(messages, Sequence):
            raise TypeError(f"ctx.llm: messages must be a list of dicts, got {messages!r:.80}")
        fault = ctx.perturbation.llm_fault(ctx.llm_calls)
        if fault is not None:
            raise InjectedLLMFault(fault)
        ctx.llm_calls += 1
        completion = await self._client.acompletion(
            model=ctx.model,
            messages=[dict(m) for m in messages],
            tools=[dict(t) for t in tools] if tools else None,
            cache_key_extra=ctx.identity,
            **{"seed": ctx.seed, **ctx.params, **params},
        )
        ctx.meter.add(completion)
        ctx.record_assistant(completion.message)
        return completion.message

    def bind_loop(self, loop: asyncio.AbstractEventLoop) -> None:
        """The event loop :meth:`complete` submits to from an agent's worker thread."""
        self._loop = loop

    def complete(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None = None,
        **params: Any,
    ) -> dict[str, Any]:
        """Blocking form of :meth:`acomplete`, for a plain (non-async) ``solve``."""
        loop = self._loop
        try:
            asyncio.get_running_loop()
            in_loop = True
        except RuntimeError:
            in_loop = False
        if in_loop or loop is None:
            raise RuntimeError(
                "ctx.llm.complete was called from inside the event loop (an async agent): "
                "use `await ctx.llm.acomplete(...)` there"
            )
        future = asyncio.run_coroutine_threadsafe(self.acomplete(messages, tools, **params), loop)
        return future.result()


class AgentContext:
    """What ``solve(ctx)`` receives for one run (docs/your_agent.md, "The agent contract").

    Attributes
    ----------
    task_id, run, seed, condition, variant : the run's identity and seed.
    options : dict
        The agent's free-form ``options`` from the config.
    instruction : str
        The task instruction as this condition presents it (reworded under ``prompt``).
    system_prompt : str
        The environment's policy text ("" if none).
    metadata : dict
        The task's metadata (task sets; empty otherwise).
    tools : tuple of ToolView
        The tools as this condition presents them.
    llm : AgentLLM
        The agent's model (``ctx.llm.complete`` / ``await ctx.llm.acomplete``).
    transcript : list of dict
        What the harness recorded so far (OpenAI format); read it, do not change it.
    actions, errors, llm_calls : list of str, int, int
        Tool calls made, how many returned an error, and ``ctx.llm`` calls made so far.
    """

    def __init__(
        self,
        spec: RunSpec,
        episode: Episode,
        perturbation: Perturbation,
        client: LLMClient,
    ) -> None:
        self.agent = spec.agent
        self.task_id = spec.task_id
        self.run = spec.run
        self.seed = spec.seed
        self.condition = spec.condition
        self.variant = spec.variant
        self.model = spec.model
        self.params: dict[str, Any] = dict(spec.params)
        self.options: dict[str, Any] = copy.deepcopy(dict(spec.options))
        self.max_steps = spec.max_steps
        self.identity = spec.identity
        self.perturbation = perturbation
        self.system_prompt: str = episode.env.system_prompt
        self.metadata: dict[str, Any] = dict(getattr(episode.task, "metadata", None) or {})
        self.instruction: str = perturbation.instruction(episode.task.instruction)
        schemas = perturbation.tools(list(episode.env.tool_schemas))
        self.tools: tuple[ToolView, ...] = tuple(ToolView.from_schema(s) for s in schemas)
        self.llm = AgentLLM(self, client)
        self.meter = Meter()
        self.llm_calls = 0
        self.actions: list[str] = []
        self.errors = 0
        self._episode = episode
        self._lock = threading.Lock()
        self._pending: dict[str, str] = {}  # unanswered tool-call id -> tool name
        self._synthetic = 0
        first = [{"role": "user", "content": self.instruction}]
        system = [{"role": "system", "content": self.system_prompt}] if self.system_prompt else []
        self.transcript: list[dict[str, Any]] = [*system, *first]

    def tool(self, name: str) -> ToolView:
        """The tool called ``name`` as presented; ``KeyError`` naming the available ones."""
        for view in self.tools:
            if view.name == name:
                return view
        raise KeyError(f"no tool {name!r}; available: {', '.join(t.name for t in self.tools)}")

    def record_assistant(self, message: Mapping[str, Any]) -> None:
        """Append a model reply to the transcript; its tool calls await their results."""
        with self._lock:
            self.transcript.append(dict(message))
            for call in message.get("tool_calls") or ():
                self._pending[str(call.get("id"))] = str(call.get("function", {}).get("name"))

    def _tool_call_id(self, name: str, arguments: str, call_id: str | None) -> str:
        if call_id is not None and call_id in self._pending:
            del self._pending[call_id]
            return call_id
        for pending_id, pending_name in self._pending.items():
            if pending_name == name and call_id is None:
                del self._pending[pending_id]
                return pending_id
        self._synthetic += 1
        new_id = call_id or f"call_{self._synthetic}"
        function = {"name": name, "arguments": arguments}
        call = {"id": new_id, "type": "function", "function": function}
        self.transcript.append({"role": "assistant", "content": None, "tool_calls": [call]})
        return new_id

    def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | str | None = None,
        *,
        call_id: str | None = None,
    ) -> str:
        """Run one tool call through the harness; the result text the agent sees.

        Parameters
        ----------
        name : str
            The tool's name as presented (``ctx.tools``).
        arguments : mapping or JSON str, optional
            The call's arguments (as presented: perturbed names under ``structural``).
        call_id : str, optional
            The model's tool-call id, when the call answers one of its ``tool_calls``.

        Returns
        -------
        str
            The tool result, or the error text (unknown tool, invalid arguments, an injected
            fault, a refusal); errors never raise.
        """
        if not isinstance(name, str) or not name:
            raise TypeError(f"ctx.call_tool: name must be a tool name (str), got {name!r:.80}")
        if arguments is None:
            text = "{}"
        elif isinstance(arguments, str):
            text = arguments
        elif isinstance(arguments, Mapping):
            text = json.dumps(dict(arguments))
        else:
            raise TypeError(
                f"ctx.call_tool({name!r}): arguments must be a dict or a JSON string, "
                f"got {type(arguments).__name__}"
            )
        with self._lock:
            step = max(self.llm_calls - 1, 0)
            self.actions.append(name)
            outcome = self.perturbation.call_tool(name, text, step, self._execute)
            self.errors += outcome.is_error
            tool_call_id = self._tool_call_id(name, text, call_id)
            self.transcript.append(
                {"role": "tool", "tool_call_id": tool_call_id, "content": outcome.text}
            )
        return outcome.text

    async def acall_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | str | None = None,
        *,
        call_id: str | None = None,
    ) -> str:
        """Async form of :meth:`call_tool`."""
        return self.call_tool(name, arguments, call_id=call_id)

    def _execute(self, name: str, arguments: str) -> ToolOutcome:
        return execute_tool_call(self._episode, name, arguments)

    def finish(self, answer: str | None) -> None:
        """Record the final answer as the transcript's last assistant message (once)."""
        if answer is None:
            return
        last = self.transcript[-1] if self.transcript else {}
        if (
            last.get("role") == "assistant"
            and not last.get("tool_calls")
            and (last.get("content") or "") == answer
        ):
            return
        self.transcript.append({"role": "assistant", "content": answer})
