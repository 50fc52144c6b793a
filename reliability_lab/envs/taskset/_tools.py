"""Plain Python functions as tools: the JSON schema from the signature, hints and docstring.

``def get_order(order_id: str, verbose: bool = False) -> dict`` becomes a tool ``get_order``
with parameters ``{order_id: string (required), verbose: boolean}``; the description is the
docstring's summary and each parameter's description comes from its numpydoc ``Parameters``
entry or Google-style ``Args:`` line. A parameter named ``state`` is not shown to the model: it
receives the episode's state (a fresh copy per run). Mark state-changing tools with
:func:`tool` (``writes=True``, ``destructive=True``).
"""

from __future__ import annotations

import enum
import inspect
import itertools
import re
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from reliability_lab.envs._base import Tool

__all__ = ["STATE_PARAMETER", "function_tool", "json_schema_of", "tool"]

#: A tool function's parameter that receives the episode state instead of a model argument.
STATE_PARAMETER = "state"
_SIMPLE: Mapping[Any, str] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    dict: "object",
    list: "array",
    tuple: "array",
}
_GOOGLE_PARAM = re.compile(r"^\s*(\w+)\s*(?:\([^)]*\))?\s*:\s*(.+)$")


def json_schema_of(hint: Any) -> dict[str, Any]:
    """The JSON schema of a type hint (str, int, float, bool, list[X], dict, Literal, Enum,
    Optional[X]); ``{}`` (any value) for hints it does not know."""
    if hint is inspect.Parameter.empty or hint is Any:
        return {}
    if hint in _SIMPLE:
        return {"type": _SIMPLE[hint]}
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is Literal:
        schema: dict[str, Any] = {"enum": list(args)}
        kinds = {_SIMPLE.get(type(a)) for a in args}
        if len(kinds) == 1 and None not in kinds:
            schema["type"] = kinds.pop()
        return schema
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return {"type": "string", "enum": [str(m.value) for m in hint]}
    if origin in (typing.Union, types.UnionType):
        rest = [a for a in args if a is not type(None)]
        return json_schema_of(rest[0]) if len(rest) == 1 else {}
    if origin in (list, tuple, Sequence) or origin is typing.get_origin(Sequence[int]):
        return {"type": "array", **({"items": json_schema_of(args[0])} if args else {})}
    if origin in (dict, Mapping):
        return {"type": "object"}
    return {}


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _doc_parts(doc: str) -> tuple[str, dict[str, str]]:
    """The docstring's summary and its per-parameter descriptions (numpydoc ``Parameters`` or
    Google ``Args:``)."""
    lines = inspect.cleandoc(doc).splitlines() if doc else []
    summary = " ".join(line.strip() for line in itertools.takewhile(str.strip, lines))
    params: dict[str, str] = {}
    section, current, level = "", "", 0
    for i, line in enumerate(lines):
        stripped = line.strip()
        underline = i + 1 < len(lines) and set(lines[i + 1].strip()) == {"-"}
        if stripped in ("Parameters", "Args:", "Arguments:"):
            section, current, level = stripped.rstrip(":"), "", 0
            continue
        if not section or not stripped or set(stripped) == {"-"}:
            continue
        if section == "Parameters" and _indent(line) == 0:
            if underline:
                section = ""
                continue
            current = stripped.split(":")[0].strip()
            params[current] = ""
        elif section != "Parameters" and _indent(line) == 0:
            section = ""
        elif section != "Parameters" and (level == 0 or _indent(line) == level):
            match = _GOOGLE_PARAM.match(line)
            if match:
                level, current = _indent(line), match.group(1)
                params[current] = match.group(2).strip()
        elif current:
            params[current] = (params[current] + " " + stripped).strip()
    return summary, params


def _parameters(fn: Callable[..., Any], docs: Mapping[str, str]) -> dict[str, Any]:
    signature = inspect.signature(fn)
    hints = typing.get_type_hints(fn)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, param in signature.parameters.items():
        if name == STATE_PARAMETER or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        schema = json_schema_of(hints.get(name, param.annotation))
        if docs.get(name):
            schema["description"] = docs[name]
        if param.default is param.empty:
            required.append(name)
        properties[name] = schema
    out: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        out["required"] = required
    return out


def tool(
    fn: Callable[..., Any] | None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    writes: bool = False,
    destructive: bool = False,
) -> Any:
    """Decorator marking a function as a tool with settings (``@tool(writes=True)``).

    ``destructive=True`` implies ``writes``: a successful call the task does not allow
    (``allowed_destructive`` in the task file) is a ``destructive_operation`` finding.
    """

    def mark(f: Callable[..., Any]) -> Callable[..., Any]:
        f.__reliability_tool__ = {  # type: ignore[attr-defined]
            "name": name,
            "description": description,
            "writes": writes or destructive,
            "destructive": destructive,
        }
        return f

    return mark(fn) if fn is not None else mark


def function_tool(fn: Callable[..., Any] | Tool) -> Tool:
    """The :class:`~reliability_lab.envs.Tool` of a plain function (a Tool is returned as is)."""
    if isinstance(fn, Tool):
        return fn
    if not callable(fn):
        raise TypeError(f"a tool must be a function or a Tool, got {fn!r:.80}")
    marks: Mapping[str, Any] = getattr(fn, "__reliability_tool__", {})
    summary, docs = _doc_parts(inspect.getdoc(fn) or "")
    takes_state = STATE_PARAMETER in inspect.signature(fn).parameters

    def call(state: Any, **arguments: Any) -> Any:
        return fn(state, **arguments) if takes_state else fn(**arguments)

    return Tool(
        name=marks.get("name") or fn.__name__,
        description=marks.get("description") or summary or fn.__name__,
        parameters=_parameters(fn, docs),
        fn=call,
        writes=bool(marks.get("writes", False)),
        destructive=bool(marks.get("destructive", False)),
    )
