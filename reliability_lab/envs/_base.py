"""Environment API: tools over a mutable state, tasks, oracle plans and a default checker.

An :class:`Environment` is a set of :class:`Tool` functions over a state (a plain, deep-copyable
Python object, usually nested dicts) plus a list of :class:`Task`. Each run gets its own
:class:`Episode` holding a fresh deep copy of the initial state; tools are called through
:meth:`Episode.call_tool`, which validates arguments against the tool's JSON schema and returns
the result as JSON text. A tool signals a failure a user of the real system would see (order not
found, policy forbids it) by raising :class:`ToolError`; the episode returns that message as the
tool-result text and counts it, so a tool error never crashes the agent loop.

Every environment declares its safety constraints and the rule detectors that check them
(docs/safety.md); the episode logs every tool call it executed or refused, so
:meth:`Episode.violations` can show the detectors the whole run.

A task may carry an *oracle*: a scripted plan of tool calls whose arguments are filled from
earlier results (:class:`OracleStep`), plus the answer the agent should give. The default checker
replays the oracle on a fresh state to get the expected final state, then scores a run by how
many changed records match and how many required facts the answer states.
"""

from __future__ import annotations

import copy
import json
import math
import pickle
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from reliability_lab.safety._constraints import DEFAULT_CONSTRAINTS, Constraint, check_constraints
from reliability_lab.safety._findings import Detector, findings_to_dicts, run_detectors
from reliability_lab.safety._rules import rate_limit_detector, unrequested_change_detector
from reliability_lab.safety._view import (
    AgentCall,
    RunView,
    ToolCall,
    agent_calls_from_tool_calls,
    agent_calls_from_trajectory,
)

__all__ = [
    "Environment",
    "Episode",
    "Oracle",
    "OracleOutcome",
    "OracleStep",
    "Task",
    "Tool",
    "ToolError",
    "answer_has_fact",
    "check_arguments",
    "extract_details",
    "render_template",
]

_JSON_TYPES: Mapping[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}
_TEMPLATE = re.compile(r"\{(\w+)\}")
# Details a task instruction carries, in priority order (an earlier kind wins an overlap).
_DETAIL_PATTERNS = (
    re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"),  # email addresses
    re.compile(r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}/\d{2,4}\b"),  # dates
    re.compile(r"\b[A-Z]{1,4}-?\d{2,}[A-Z0-9]*\b"),  # identifiers such as O2003
    re.compile(r"\b[A-Z][a-z]+(?: [A-Z][a-z]+)+\b"),  # capitalised names (Alice Chen)
    re.compile(r"\$?\d[\d,]*(?:\.\d+)?"),  # amounts, zip codes, quantities
)
_NUMBER = re.compile(r"-?\d+(?:,\d{3})*(?:\.\d+)?")


class ToolError(Exception):
    """A tool refused or failed; the message is shown to the agent as the tool result."""


@dataclass(frozen=True)
class Tool:
    """One tool the agent can call.

    Attributes
    ----------
    name : str
        Function name shown to the model.
    description : str
        What the tool does, shown to the model.
    parameters : Mapping[str, Any]
        JSON schema (``type: object``) of the keyword arguments.
    fn : Callable[..., Any]
        ``fn(state, **arguments)``; returns a JSON-serialisable result, may mutate ``state``,
        raises :class:`ToolError` for failures the agent should see.
    writes : bool
        Whether the tool may change the state (used by the simulated model and safety checks).
    destructive : bool
        Whether a call is an irreversible operation (delete, cancel, pay); task sets flag a
        successful call the task does not allow as ``destructive_operation``.
    """

    name: str
    description: str
    parameters: Mapping[str, Any]
    fn: Callable[..., Any]
    writes: bool = False
    destructive: bool = False

    def schema(self) -> dict[str, Any]:
        """The OpenAI ``tools`` entry for this tool."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": copy.deepcopy(dict(self.parameters)),
            },
        }


@dataclass(frozen=True)
class OracleStep:
    """One scripted tool call of an oracle plan.

    Attributes
    ----------
    tool : str
        Tool name.
    args : Mapping[str, Any]
        Arguments; a string value ``"{var}"`` is replaced by the bound value (any type), other
        strings containing ``{var}`` are formatted with the bindings.
    bind : Mapping[str, Callable[[Any], Any]]
        Variable name → extractor applied to this step's (JSON-decoded) result.
    """

    tool: str
    args: Mapping[str, Any] = field(default_factory=dict)
    bind: Mapping[str, Callable[[Any], Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class Oracle:
    """A scripted solution: tool calls, then a final answer stating the required facts.

    Attributes
    ----------
    steps : tuple of OracleStep
        Calls in order.
    answer : str
        Template of the final answer.
    facts : tuple of str
        Templates of the facts a correct answer must state. A fact that renders as a number is
        matched numerically against the numbers in the answer (tolerance 0.005); any other fact
        is matched as a case-insensitive substring.
    """

    steps: tuple[OracleStep, ...]
    answer: str
    facts: tuple[str, ...] = ()


@dataclass(frozen=True)
class Task:
    """A task: the instruction the agent receives and how its run is scored.

    Attributes
    ----------
    task_id : str
        Unique within the environment.
    instruction : str
        The user's request, sent as the first user message.
    oracle : Oracle or None
        Scripted solution; required by the default checker and by the simulated model.
    check : Callable or None
        Custom checker ``check(initial_state, final_state, answer) -> float`` in [0, 1]; when
        given it replaces the default oracle-based checker.
    user_id : str or None
        The customer the task is about (safety checks use it).
    difficulty : int
        1 (easy) to 3 (hard); scales the simulated model's slip rate.
    metadata : Mapping
        Free-form data of the task (task sets: the file's extra fields); agents see it as
        ``ctx.metadata``.
    """

    task_id: str
    instruction: str
    oracle: Oracle | None = None
    check: Callable[[Any, Any, str | None], float] | None = None
    user_id: str | None = None
    difficulty: int = 1
    metadata: Mapping[str, Any] = field(default_factory=dict)


def render_template(value: Any, bindings: Mapping[str, Any]) -> Any:
    """Fill ``{var}`` placeholders of an oracle argument or answer from ``bindings``.

    >>> render_template("{oid}", {"oid": 7})
    7
    >>> render_template("order {oid}", {"oid": "O1"})
    'order O1'
    """
    if isinstance(value, str):
        whole = _TEMPLATE.fullmatch(value)
        if whole:
            return bindings[whole.group(1)]
        return _TEMPLATE.sub(lambda m: _fmt(bindings[m.group(1)]), value)
    if isinstance(value, list):
        return [render_template(v, bindings) for v in value]
    if isinstance(value, dict):
        return {k: render_template(v, bindings) for k, v in value.items()}
    return value


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def clone(value: Any) -> Any:
    """Deep copy via pickle (several times faster than ``copy.deepcopy`` for plain data)."""
    try:
        return pickle.loads(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
    except (pickle.PicklingError, TypeError, AttributeError):
        return copy.deepcopy(value)


def check_arguments(
    tool_name: str, parameters: Mapping[str, Any], arguments: Mapping[str, Any]
) -> None:
    """Check call arguments against a tool's JSON schema (required, unknown, type, enum).

    Raises
    ------
    ToolError
        With the message the agent sees, e.g. ``Error: missing required argument 'email' for
        find_user_by_email.``
    """
    props: Mapping[str, Any] = parameters.get("properties", {})
    for name in parameters.get("required", ()):
        if name not in arguments:
            raise ToolError(f"Error: missing required argument {name!r} for {tool_name}.")
    for name, value in arguments.items():
        if name not in props:
            raise ToolError(
                f"Error: unexpected argument {name!r} for {tool_name}; valid: {sorted(props)}."
            )
        want = props[name].get("type")
        types = _JSON_TYPES.get(want, (object,)) if isinstance(want, str) else (object,)
        if not isinstance(value, types) or (want != "boolean" and isinstance(value, bool)):
            raise ToolError(f"Error: argument {name!r} must be of type {want}, got {value!r}.")
        allowed = props[name].get("enum")
        if allowed is not None and value not in allowed:
            raise ToolError(f"Error: argument {name!r} must be one of {allowed}, got {value!r}.")


def answer_has_fact(answer: str, fact: str) -> bool:
    """Whether ``answer`` states ``fact`` (numbers compared numerically, text case-insensitively).

    >>> answer_has_fact("Your total was $1,054.2.", "1054.20")
    True
    >>> answer_has_fact("Status: Shipped", "shipped")
    True
    """
    try:
        target = float(fact)
    except ValueError:
        return fact.lower() in answer.lower()
    numbers = (float(n.replace(",", "")) for n in _NUMBER.findall(answer))
    return any(math.isclose(n, target, abs_tol=0.005) for n in numbers)


def extract_details(text: str, literals: Sequence[str] = ()) -> tuple[str, ...]:
    """The details of an instruction a correct reading must keep, in order of appearance.

    ``literals`` (e.g. the oracle's literal string arguments) are taken first where they occur
    in ``text`` (case-insensitively); then email addresses, dates, identifiers, capitalised
    names and numbers (amounts, zip codes), skipping anything inside an earlier detail.

    >>> extract_details("I'm Bob Martinez (bob@example.com): ship order O2005 to 82502.")
    ('Bob Martinez', 'bob@example.com', 'O2005', '82502')
    """
    spans: list[tuple[int, int]] = []

    def free(start: int, end: int) -> bool:
        return all(end <= a or start >= b for a, b in spans)

    lowered = text.lower()
    for literal in sorted({x for x in literals if x.strip()}, key=len, reverse=True):
        at = lowered.find(literal.lower())
        if at >= 0 and free(at, at + len(literal)):
            spans.append((at, at + len(literal)))
    for pattern in _DETAIL_PATTERNS:
        for m in pattern.finditer(text):
            if free(m.start(), m.end()):
                spans.append((m.start(), m.end()))
    return tuple(dict.fromkeys(text[a:b] for a, b in sorted(spans)))


@dataclass(frozen=True)
class OracleOutcome:
    """What the oracle of a task produces on a fresh state.

    Attributes
    ----------
    state : Any
        Expected final state.
    answer : str
        The oracle's final answer.
    facts : tuple of str
        Rendered facts a correct answer must state.
    actions : tuple of str
        Tool names called, in order.
    """

    state: Any
    answer: str
    facts: tuple[str, ...]
    actions: tuple[str, ...]


class Episode:
    """One run's private copy of an environment's state."""

    def __init__(self, env: Environment, task: Task) -> None:
        self.env = env
        self.task = task
        self.initial_state = env.pristine_state
        self.state = clone(self.initial_state)
        self.tool_errors = 0
        self.calls: list[ToolCall] = []

    def call_tool(self, name: str, arguments: Mapping[str, Any]) -> str:
        """Run a tool; return its result as JSON text. Every call is logged in :attr:`calls`.

        Raises
        ------
        ToolError
            Unknown tool, invalid arguments, or the tool refused; ``str(err)`` is the text to
            return to the agent. The error is counted in :attr:`tool_errors`.
        """
        args = dict(arguments) if isinstance(arguments, Mapping) else {}
        writes = name in self.env.tool_names() and self.env.tool(name).writes
        try:
            tool = self.env.tool(name)
            if not isinstance(arguments, Mapping):
                raise ToolError(f"Error: arguments for {name} must be a JSON object.")
            check_arguments(tool.name, tool.parameters, arguments)
            result = tool.fn(self.state, **arguments)
        except ToolError as exc:
            self.tool_errors += 1
            self.calls.append(ToolCall(name, args, False, str(exc), writes))
            raise
        except Exception as exc:  # a bug in a user-defined tool: logged, then re-raised
            self.calls.append(ToolCall(name, args, False, f"{type(exc).__name__}: {exc}", writes))
            raise
        text = json.dumps(result, sort_keys=True)
        self.calls.append(ToolCall(name, args, True, text, writes))
        return text

    def score(self, answer: str | None) -> float:
        """Score the final state and answer in [0, 1] (see :meth:`Environment.score`)."""
        return self.env.score(self.task, self.initial_state, self.state, answer)

    async def ascore(self, answer: str | None, llm: Any) -> float:
        """:meth:`score`, for checkers that call a model (see :meth:`Environment.ascore`)."""
        return await self.env.ascore(self.task, self.initial_state, self.state, answer, llm)

    def violations(
        self, answer: str | None, trajectory: Sequence[Mapping[str, Any]] | None = None
    ) -> list[dict[str, Any]]:
        """Safety violations of this run (see :meth:`Environment.violations`).

        Parameters
        ----------
        answer : str or None
            The agent's final answer.
        trajectory : sequence of dict, optional
            The OpenAI-format conversation; rate-limit detectors read its turns. Without it,
            each logged tool call counts as its own turn.
        """
        agent_calls = (
            agent_calls_from_trajectory(trajectory)
            if trajectory is not None
            else agent_calls_from_tool_calls(self.calls)
        )
        view = self.env.run_view(
            self.task, self.initial_state, self.state, answer, tuple(self.calls), agent_calls
        )
        return self.env.violations(view)


class Environment:
    """A tool environment with tasks. Subclass it, or instantiate it with the pieces.

    Parameters
    ----------
    name : str
        Registry name.
    tools : sequence of Tool
        The tools; names must be unique.
    tasks : sequence of Task
        The tasks; ids must be unique.
    initial_state : Callable[[], Any]
        Returns the starting state; each episode deep-copies it.
    system_prompt : str
        Policy text sent as the system message.
    constraints : sequence of Constraint, optional
        Safety constraints of the environment (default: the four default constraints).
    detectors : sequence of Detector, optional
        Rule detectors; each must check a declared constraint. Default: the rate-limit
        detector and the unrequested-change detector (``destructive_operation``).
    """

    def __init__(
        self,
        *,
        name: str,
        tools: Sequence[Tool],
        tasks: Sequence[Task],
        initial_state: Callable[[], Any],
        system_prompt: str,
        constraints: Sequence[Constraint] | None = None,
        detectors: Sequence[Detector] | None = None,
    ) -> None:
        self.name = name
        self.constraints = check_constraints(
            DEFAULT_CONSTRAINTS if constraints is None else constraints,
            where=f"environment {name!r}: constraints",
        )
        self.detectors = tuple(
            (rate_limit_detector(), unrequested_change_detector())
            if detectors is None
            else detectors
        )
        declared = {c.name for c in self.constraints}
        for d in self.detectors:
            if not isinstance(d, Detector):
                raise TypeError(f"environment {name!r}: detectors: expected Detector, got {d!r}")
            if d.constraint.name not in declared:
                raise ValueError(
                    f"environment {name!r}: detector {d.name!r} checks undeclared constraint "
                    f"{d.constraint.name!r}; declared: {', '.join(sorted(declared))}"
                )
        self.system_prompt = system_prompt
        self._tools = {t.name: t for t in tools}
        self._tasks = {t.task_id: t for t in tasks}
        if len(self._tools) != len(tools):
            raise ValueError(f"environment {name!r}: duplicate tool names")
        if len(self._tasks) != len(tasks):
            raise ValueError(f"environment {name!r}: duplicate task ids")
        self._initial = initial_state()
        self._schemas = tuple(t.schema() for t in tools)
        self._expected: dict[str, OracleOutcome] = {}

    def initial_state(self) -> Any:
        """A fresh deep copy of the starting state."""
        return clone(self._initial)

    @property
    def pristine_state(self) -> Any:
        """The starting state itself, shared: read it, never mutate it."""
        return self._initial

    @property
    def tool_schemas(self) -> tuple[dict[str, Any], ...]:
        """The tool schemas, shared and read-only (:meth:`tools` returns a private copy)."""
        return self._schemas

    def tasks(self) -> list[Task]:
        """All tasks, in definition order."""
        return list(self._tasks.values())

    def task(self, task_id: str) -> Task:
        """The task with this id; ``KeyError`` naming the valid ids otherwise."""
        try:
            return self._tasks[task_id]
        except KeyError:
            raise KeyError(
                f"environment {self.name!r} has no task {task_id!r}; "
                f"valid: {', '.join(self._tasks)}"
            ) from None

    def tools(self) -> list[dict[str, Any]]:
        """OpenAI-format tool schemas (a fresh list each call)."""
        return copy.deepcopy(list(self._schemas))

    def tool_names(self) -> frozenset[str]:
        """Names of the environment's tools."""
        return frozenset(self._tools)

    def tool(self, name: str) -> Tool:
        """The tool called ``name``; :class:`ToolError` (agent-visible) if unknown."""
        try:
            return self._tools[name]
        except KeyError:
            raise ToolError(
                f"Error: unknown tool {name!r}; available: {', '.join(self._tools)}."
            ) from None

    def start(self, task_id: str) -> Episode:
        """A new episode for ``task_id`` with a fresh state."""
        return Episode(self, self.task(task_id))

    def oracle_result(self, task: Task) -> OracleOutcome:
        """Run the task's oracle on a fresh state (memoised); ``ValueError`` if it has none."""
        if task.task_id not in self._expected:
            if task.oracle is None:
                raise ValueError(f"task {task.task_id!r} has no oracle and no custom checker")
            episode = Episode(self, task)
            bindings: dict[str, Any] = {}
            actions = []
            for step in task.oracle.steps:
                text = episode.call_tool(step.tool, render_template(dict(step.args), bindings))
                actions.append(step.tool)
                result = json.loads(text)
                bindings.update({k: f(result) for k, f in step.bind.items()})
            self._expected[task.task_id] = OracleOutcome(
                state=episode.state,
                answer=render_template(task.oracle.answer, bindings),
                facts=tuple(_fmt(render_template(f, bindings)) for f in task.oracle.facts),
                actions=tuple(actions),
            )
        return self._expected[task.task_id]

    def score(self, task: Task, initial: Any, final: Any, answer: str | None) -> float:
        """Score in [0, 1]: the mean of a state component and an answer component.

        State component: over the records that differ from the initial state in the expected
        (oracle) or the actual final state, the share where actual equals expected (omitted when
        no record changed either way). Answer component: the share of the oracle's facts the
        answer states (omitted when the task has none). No answer → answer component 0.
        """
        if task.check is not None:
            return float(task.check(initial, final, answer))
        outcome = self.oracle_result(task)
        expected, facts = outcome.state, outcome.facts
        parts = []
        changed = self.changed_records(initial, expected) | self.changed_records(initial, final)
        if changed:
            same = sum(self.record(final, k) == self.record(expected, k) for k in changed)
            parts.append(same / len(changed))
        if facts:
            text = answer or ""
            parts.append(sum(answer_has_fact(text, f) for f in facts) / len(facts))
        return sum(parts) / len(parts) if parts else 1.0

    async def ascore(
        self, task: Task, initial: Any, final: Any, answer: str | None, llm: Any
    ) -> float:
        """The score of a run where checking may call a model through ``llm`` (the run's
        :class:`~reliability_lab.llm.LLMClient`); default :meth:`score`."""
        return self.score(task, initial, final, answer)

    def changed_records(self, before: Any, after: Any) -> set[tuple[str, str]]:
        """Keys ``(table, id)`` of records that differ; the state must be ``{table: {id: rec}}``."""
        keys: set[tuple[str, str]] = set()
        for table in set(before) | set(after):
            rows_a, rows_b = before.get(table, {}), after.get(table, {})
            for rid in set(rows_a) | set(rows_b):
                if rows_a.get(rid) != rows_b.get(rid):
                    keys.add((table, rid))
        return keys

    @staticmethod
    def record(state: Any, key: tuple[str, str]) -> Any:
        """The record ``key = (table, id)`` of ``state`` or None."""
        return state.get(key[0], {}).get(key[1])

    def run_view(
        self,
        task: Task,
        initial: Any,
        final: Any,
        answer: str | None,
        calls: Sequence[ToolCall],
        agent_calls: Sequence[AgentCall],
    ) -> RunView:
        """What the rule detectors see of a run (adds the oracle's expected state and answer)."""
        outcome = self.oracle_result(task) if task.oracle is not None else None
        return RunView(
            env=self,
            task=task,
            initial=initial,
            final=final,
            answer=answer,
            calls=tuple(calls),
            agent_calls=tuple(agent_calls),
            expected=outcome.state if outcome is not None else None,
            oracle_answer=outcome.answer if outcome is not None else None,
        )

    def violations(self, view: RunView) -> list[dict[str, Any]]:
        """Rule findings ``{constraint, severity, evidence, source="rule", detector}``.

        Runs every detector of the environment on ``view``; findings are ordered by the
        declared constraints (docs/safety.md, "Rule detectors").
        """
        return findings_to_dicts(run_detectors(view, self.detectors, self.constraints))

    def task_metadata(self, task: Task) -> dict[str, Any]:
        """Properties of ``task`` that become run-table columns (docs/run_table.md, "Extra
        columns"), so an analysis can group by them: ``{"difficulty": task.difficulty}`` by
        default. Override to declare more (a category, a domain, the number of oracle steps)."""
        return {"difficulty": task.difficulty}

    def task_details(self, task: Task) -> tuple[str, ...]:
        """The details of ``task``'s instruction that a reworded instruction must keep.

        Default: :func:`extract_details` of the instruction, with the oracle's literal string
        arguments (street names, cities, new email addresses) as known details. Prompt
        perturbations reject a paraphrase that drops one; override to add or remove details.
        """
        literals = [
            str(value)
            for step in (task.oracle.steps if task.oracle is not None else ())
            for value in step.args.values()
            if isinstance(value, str) and "{" not in value
        ]
        return extract_details(task.instruction, literals)
