"""User agents named in a config (``agent: module:attribute``): import and static checks."""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Callable, Iterator
from typing import Any

from reliability_lab._imports import ImportTargetError, import_target
from reliability_lab.agents._context import CONTEXT_ATTRIBUTES

__all__ = ["AgentCheckError", "check_agent", "resolve_agent"]

#: Callable-typed context members: using them without calling them is a mistake.
_METHODS = frozenset({"call_tool", "acall_tool", "tool"})


class AgentCheckError(ValueError):
    """An agent entry that cannot run: not importable, not callable, or misusing ``ctx``."""


def resolve_agent(entry: str, root: str = "") -> Callable[..., Any]:
    """The ``solve(ctx)`` callable ``entry`` names (``module:attribute``).

    Raises
    ------
    AgentCheckError
        The module or attribute cannot be imported, or the object is not callable.
    """
    try:
        agent = import_target(entry, root)
    except ImportTargetError as exc:
        raise AgentCheckError(str(exc)) from None
    if not callable(agent):
        raise AgentCheckError(f"{entry!r} is a {type(agent).__name__}, not a callable solve(ctx)")
    return agent


def _parameter_name(agent: Callable[..., Any], entry: str) -> str | None:
    try:
        signature = inspect.signature(agent)
    except (TypeError, ValueError):
        return None
    positional = [
        p
        for p in signature.parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
    ]
    required = [
        p
        for p in signature.parameters.values()
        if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    if not positional or len(required) > 1:
        raise AgentCheckError(
            f"{entry}: solve must take exactly one argument (ctx); its signature is {signature}"
        )
    first = positional[0]
    return None if first.kind is first.VAR_POSITIONAL else first.name


def _misuses(tree: ast.AST, name: str) -> Iterator[tuple[int, str]]:
    """``(line, problem)`` of every detectable misuse of the context variable ``name``."""
    called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)):
            continue
        if node.value.id != name:
            continue
        if node.attr not in CONTEXT_ATTRIBUTES:
            yield (
                node.lineno,
                (
                    f"{name}.{node.attr} is not part of the agent context "
                    f"(available: {', '.join(sorted(CONTEXT_ATTRIBUTES))})"
                ),
            )
        elif node.attr in _METHODS and id(node) not in called:
            yield node.lineno, f"{name}.{node.attr} is a method: call it, {name}.{node.attr}(...)"
        elif isinstance(node.ctx, ast.Store):
            yield node.lineno, f"{name}.{node.attr} is read-only: do not assign to it"


def check_agent(entry: str, root: str = "") -> Callable[[Any], Any]:
    """Import ``entry`` and check what can be checked without running it.

    Checks: it is callable with one argument, and (when its source is available) every
    ``ctx.<name>`` it uses is part of the context, methods are called, nothing is assigned.

    Raises
    ------
    AgentCheckError
        The first problem, naming the module or attribute, or the source file and line.
    """
    agent = resolve_agent(entry, root)
    name = _parameter_name(agent, entry)
    target = agent if inspect.isfunction(agent) or inspect.ismethod(agent) else None
    if target is None and callable(agent) and not inspect.isclass(agent):
        target = type(agent).__dict__.get("__call__")  # an object with __call__
    if name is None or target is None:
        return agent
    try:
        source = textwrap.dedent(inspect.getsource(target))
        filename = inspect.getsourcefile(target) or "?"
        first_line = inspect.getsourcelines(target)[1]
    except (OSError, TypeError):
        return agent
    if target is not agent:  # __call__(self, ctx): the context is the second parameter
        params = list(inspect.signature(target).parameters)
        name = params[1] if len(params) > 1 else name
    try:
        tree = ast.parse(source)
    except SyntaxError:  # e.g. a lambda inside a larger expression: nothing to check
        return agent
    for line, problem in _misuses(tree, name):
        raise AgentCheckError(f"{filename}: line {first_line + line - 1}: {problem}")
    return agent
