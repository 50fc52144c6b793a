"""Declarative structural transforms over JSON schemas and JSON values.

A :class:`StructuralPreset` switches transforms on; a :class:`SchemaMap` compiles a preset
against an environment's tool schemas into name and value maps and applies them in both
directions:

- *forward* on what the agent sees: tool schemas (:meth:`SchemaMap.tools`) and tool results
  (:meth:`SchemaMap.result`);
- *reverse* on what the agent sends: :meth:`SchemaMap.arguments` checks the arguments against
  the perturbed schema (errors in the perturbed vocabulary) and maps them back, so the
  environment executes the original call unchanged.

:meth:`SchemaMap.forward_arguments` and :meth:`SchemaMap.original_result` are the other two
directions (used by the simulated model and the round-trip tests). Nothing here knows any
environment: everything is derived from JSON schemas, so a registered environment gets the
presets for free (docs/perturbations.md, "Structural perturbations").
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from reliability_lab.envs._base import check_arguments

__all__ = ["SchemaMap", "StructuralPreset"]

REQUEST_KEY = "request"
IDS_KEY = "ids"
_ID_SUFFIX = "_id"
_ISO_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
_US_DATE = re.compile(r"^(\d{2})/(\d{2})/(\d{4})$")
_TIME_24 = re.compile(r"^(\d{2}):(\d{2})(:\d{2})?$")
_TIME_12 = re.compile(r"^(\d{1,2}):(\d{2})(:\d{2})? (AM|PM)$")
_DATETIME = re.compile(r"^(\d{4}-\d{2}-\d{2}|\d{2}/\d{2}/\d{4})([T ])(.+)$")
_SNAKE_WORD = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")
_VOWELS = set("aeiou")


@dataclass(frozen=True)
class StructuralPreset:
    """Which structural transforms apply (all off = identity).

    Attributes
    ----------
    name : str
        Preset name (the ``structural`` condition's variant).
    severity : float
        In (0, 1]: how strong the preset is (the simulated model's sensitivity scales with it).
    camel_case : bool
        Result keys and parameter names in camelCase (``order_id`` → ``orderId``).
    wrap_response : bool
        Results wrapped as ``{"status": "ok", "data": <result>}``.
    us_dates : bool
        ISO dates ``2024-05-02`` shown as ``05/02/2024`` (also inside date-times).
    twelve_hour_times : bool
        ``14:05`` shown as ``2:05 PM`` (also inside date-times).
    upper_enums : bool
        Enum values of parameters in upper case, in schemas and wherever they occur in results.
    abbreviate_enums : bool
        Enum values abbreviated to their initials (``store_credit`` → ``SC``); replaces
        ``upper_enums``.
    abbreviate_params : bool
        Parameter names abbreviated word by word (``order_id`` → ``ordr_id``).
    nest_ids : bool
        Result keys ending in ``_id`` grouped under ``"ids"`` (``{"ids": {"order": ...}}``).
    nest_params : bool
        Arguments wrapped in one ``"request"`` object parameter.
    """

    name: str
    severity: float
    camel_case: bool = False
    wrap_response: bool = False
    us_dates: bool = False
    twelve_hour_times: bool = False
    upper_enums: bool = False
    abbreviate_enums: bool = False
    abbreviate_params: bool = False
    nest_ids: bool = False
    nest_params: bool = False

    def __post_init__(self) -> None:
        if not self.name:
            raise ValueError("StructuralPreset.name must be non-empty")
        if not 0 < self.severity <= 1:
            raise ValueError(f"StructuralPreset {self.name!r}: severity must be in (0, 1]")
        if not self.transforms():
            raise ValueError(f"StructuralPreset {self.name!r}: switches no transform on")

    def transforms(self) -> list[str]:
        """Names of the transforms switched on."""
        return [f.name for f in fields(self) if f.type == "bool" and getattr(self, f.name)]


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(w[:1].upper() + w[1:] for w in rest)


def _snake(name: str) -> str:
    return re.sub(r"[A-Z]", lambda m: "_" + m.group(0).lower(), name)


def _abbreviate_word(word: str) -> str:
    if len(word) <= 3:
        return word
    return (word[0] + "".join(c for c in word[1:] if c not in _VOWELS))[:4]


def _initials(value: str) -> str:
    words = [w for w in re.split(r"[\s_\-]+", value) if w]
    if len(words) > 1:
        return "".join(w[0] for w in words).upper()
    return value[:3].upper()


def _unique(mapping: dict[str, str]) -> dict[str, str]:
    """Make the values of ``mapping`` distinct by appending 2, 3, ... to later duplicates."""
    seen: set[str] = set()
    out = {}
    for key, value in mapping.items():
        candidate, n = value, 1
        while candidate in seen:
            n += 1
            candidate = f"{value}{n}"
        seen.add(candidate)
        out[key] = candidate
    return out


def _enum_values(schema: Any) -> Iterable[str]:
    if isinstance(schema, Mapping):
        for value in schema.get("enum") or ():
            if isinstance(value, str):
                yield value
        for item in schema.values():
            yield from _enum_values(item)
    elif isinstance(schema, list):
        for item in schema:
            yield from _enum_values(item)


class SchemaMap:
    """A preset compiled against one environment's tool schemas.

    Parameters
    ----------
    preset : StructuralPreset
        The transforms.
    schemas : sequence of dict
        The environment's OpenAI tool schemas (``{"type": "function", "function": {...}}``).
    """

    def __init__(self, preset: StructuralPreset, schemas: Sequence[Mapping[str, Any]]) -> None:
        self.preset = preset
        self._original = {s["function"]["name"]: s["function"] for s in schemas}
        values = sorted(set(_enum_values([s["function"]["parameters"] for s in schemas])))
        if preset.abbreviate_enums:
            enum_map = _unique({v: _initials(v) for v in values})
        elif preset.upper_enums:
            enum_map = _unique({v: v.upper() for v in values})
        else:
            enum_map = {}
        self._enum = enum_map
        self._enum_back = {v: k for k, v in enum_map.items()}
        self._names: dict[str, dict[str, str]] = {}  # tool -> original param -> shown
        self._perturbed: dict[str, dict[str, Any]] = {}  # tool -> shown parameters schema
        for name, fn in self._original.items():
            params = fn["parameters"]
            names = _unique({p: self._param_name(p) for p in params.get("properties", {})})
            self._names[name] = names
            self._perturbed[name] = self._wrap_params(self._object_schema(params, names))

    # -- names and values ---------------------------------------------------------------
    def _param_name(self, name: str) -> str:
        words = name.split("_")
        if self.preset.abbreviate_params:
            words = [_abbreviate_word(w) for w in words]
        joined = "_".join(words)
        return _camel(joined) if self.preset.camel_case else joined

    def _key(self, key: str) -> str:
        return _camel(key) if self.preset.camel_case else key

    def _key_back(self, key: str) -> str:
        return _snake(key) if self.preset.camel_case else key

    def _value(self, value: str) -> str:
        if value in self._enum:
            return self._enum[value]
        m = _DATETIME.match(value)
        if m:
            return self._value(m.group(1)) + m.group(2) + self._value(m.group(3))
        m = _ISO_DATE.match(value)
        if m and self.preset.us_dates:
            return f"{m.group(2)}/{m.group(3)}/{m.group(1)}"
        m = _TIME_24.match(value)
        if m and self.preset.twelve_hour_times:
            hour = int(m.group(1))
            suffix = "AM" if hour < 12 else "PM"
            return f"{hour % 12 or 12}:{m.group(2)}{m.group(3) or ''} {suffix}"
        return value

    def _value_back(self, value: str) -> str:
        if value in self._enum_back:
            return self._enum_back[value]
        m = _DATETIME.match(value)
        if m:
            return self._value_back(m.group(1)) + m.group(2) + self._value_back(m.group(3))
        m = _US_DATE.match(value)
        if m and self.preset.us_dates:
            return f"{m.group(3)}-{m.group(1)}-{m.group(2)}"
        m = _TIME_12.match(value)
        if m and self.preset.twelve_hour_times:
            hour = int(m.group(1)) % 12 + (12 if m.group(4) == "PM" else 0)
            return f"{hour:02d}:{m.group(2)}{m.group(3) or ''}"
        return value

    def _text(self, text: str) -> str:
        """A description with snake_case identifiers in the shown key style."""
        return _SNAKE_WORD.sub(lambda m: self._key(m.group(0)), text)

    # -- schemas ------------------------------------------------------------------------
    def _object_schema(self, schema: Mapping[str, Any], names: Mapping[str, str]) -> dict:
        out = self._value_schema(schema)
        props = schema.get("properties", {})
        out["properties"] = {names[p]: self._value_schema(s) for p, s in props.items()}
        if "required" in schema:
            out["required"] = [names[p] for p in schema["required"]]
        return out

    def _value_schema(self, schema: Mapping[str, Any]) -> dict[str, Any]:
        out = copy.deepcopy(dict(schema))
        if "enum" in out:
            out["enum"] = [self._value(v) if isinstance(v, str) else v for v in out["enum"]]
        if isinstance(out.get("description"), str):
            out["description"] = self._text(out["description"])
        return out

    def _wrap_params(self, params: dict[str, Any]) -> dict[str, Any]:
        if not self.preset.nest_params:
            return params
        return {
            "type": "object",
            "properties": {REQUEST_KEY: params},
            "required": [REQUEST_KEY],
        }

    def tools(self, schemas: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """The tool schemas the agent sees (tools this map does not know stay unchanged)."""
        out = []
        for schema in schemas:
            name = schema["function"]["name"]
            if name not in self._perturbed:
                out.append(copy.deepcopy(dict(schema)))
                continue
            fn = dict(schema["function"])
            fn["description"] = self._text(str(fn.get("description", "")))
            fn["parameters"] = copy.deepcopy(self._perturbed[name])
            out.append({**schema, "function": fn})
        return out

    # -- arguments ----------------------------------------------------------------------
    def arguments(self, tool: str, shown: Mapping[str, Any]) -> dict[str, Any]:
        """The original arguments of a call the agent made with the perturbed schema.

        Raises
        ------
        ToolError
            The arguments do not fit the perturbed schema (message in its vocabulary).
        """
        if tool not in self._names:
            return dict(shown)
        check_arguments(tool, self._perturbed[tool], shown)
        inner: Mapping[str, Any] = shown
        if self.preset.nest_params:
            inner = shown[REQUEST_KEY]
            params = self._perturbed[tool]["properties"][REQUEST_KEY]
            check_arguments(f"{tool} ({REQUEST_KEY})", params, inner)
        back = {v: k for k, v in self._names[tool].items()}
        return {back[k]: self._walk_values(v, self._value_back) for k, v in inner.items()}

    def forward_arguments(self, tool: str, original: Mapping[str, Any]) -> dict[str, Any]:
        """The arguments an agent using the perturbed schema sends for an original call."""
        if tool not in self._names:
            return dict(original)
        names = self._names[tool]
        shown = {names.get(k, k): self._walk_values(v, self._value) for k, v in original.items()}
        return {REQUEST_KEY: shown} if self.preset.nest_params else shown

    def rewrite_error(self, tool: str, text: str) -> str:
        """An environment error message in the perturbed vocabulary (quoted names, values)."""
        for original, shown in {**self._names.get(tool, {}), **self._enum}.items():
            text = text.replace(repr(original), repr(shown))
        return text

    # -- results ------------------------------------------------------------------------
    def _walk_values(self, value: Any, fn: Any) -> Any:
        if isinstance(value, str):
            return fn(value)
        if isinstance(value, list):
            return [self._walk_values(v, fn) for v in value]
        if isinstance(value, dict):
            return {k: self._walk_values(v, fn) for k, v in value.items()}
        return value

    def _forward(self, value: Any) -> Any:
        if isinstance(value, list):
            return [self._forward(v) for v in value]
        if not isinstance(value, dict):
            return self._walk_values(value, self._value)
        out: dict[str, Any] = {}
        ids: dict[str, Any] = {}
        nest = self.preset.nest_ids and IDS_KEY not in value
        for key, item in value.items():
            shown = self._forward(item)
            if nest and key.endswith(_ID_SUFFIX) and len(key) > len(_ID_SUFFIX):
                ids[self._key(key.removesuffix(_ID_SUFFIX))] = shown
            else:
                out[self._key(key)] = shown
        if ids:
            out[IDS_KEY] = ids
        return out

    def _backward(self, value: Any) -> Any:
        if isinstance(value, list):
            return [self._backward(v) for v in value]
        if not isinstance(value, dict):
            return self._walk_values(value, self._value_back)
        out: dict[str, Any] = {}
        for key, item in value.items():
            if self.preset.nest_ids and key == IDS_KEY and isinstance(item, dict):
                for short, ident in item.items():
                    out[self._key_back(short) + _ID_SUFFIX] = self._backward(ident)
            else:
                out[self._key_back(key)] = self._backward(item)
        return out

    def result(self, value: Any) -> Any:
        """A tool result (decoded JSON) as the agent sees it."""
        shown = self._forward(value)
        return {"status": "ok", "data": shown} if self.preset.wrap_response else shown

    def original_result(self, shown: Any) -> Any:
        """The inverse of :meth:`result` (exact for snake_case keys without an ``ids`` key)."""
        if (
            self.preset.wrap_response
            and isinstance(shown, dict)
            and set(shown)
            == {
                "status",
                "data",
            }
        ):
            shown = shown["data"]
        return self._backward(shown)

    def describe(self) -> dict[str, Any]:
        """The compiled maps (parameter names per tool, enum values), for the run record."""
        return {
            "parameter_names": {
                t: {k: v for k, v in names.items() if k != v} for t, names in self._names.items()
            },
            "enum_values": dict(self._enum),
        }
