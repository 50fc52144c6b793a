"""Structured-output replies of the simulated model (used by LLM judges offline).

Given a JSON schema, build an object valid for it. Heuristic, documented in
``docs/simulated_model.md``: a base score in [0.55, 0.95] drawn from the request's hash, minus 0.4
when the messages contain a tool error (``Error:``) or an apology for failing (``I'm sorry``,
``could not complete``); numbers take that score scaled to their
bounds, booleans and yes/no enums are "yes"/true when the score ≥ 0.6, other enums pick the first
value when the score ≥ 0.6 and the last otherwise, strings get a short explanation.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from reliability_lab.sim._policy import rng_for

__all__ = ["structured_reply"]

_NEGATIVE = re.compile(r"Error:|I'm sorry|could not complete")
_MAX_DEPTH = 6


def _schema_of(response_format: Mapping[str, Any]) -> Mapping[str, Any]:
    spec = response_format.get("json_schema")
    if isinstance(spec, Mapping):
        schema = spec.get("schema", spec)
        return schema if isinstance(schema, Mapping) else {}
    return {"type": "object"}


def _resolve(schema: Mapping[str, Any], root: Mapping[str, Any]) -> Mapping[str, Any]:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        node: Any = root
        for part in ref[2:].split("/"):
            node = node.get(part, {}) if isinstance(node, Mapping) else {}
        return node if isinstance(node, Mapping) else {}
    for key in ("anyOf", "oneOf", "allOf"):
        options = schema.get(key)
        if isinstance(options, list) and options:
            first = next((o for o in options if o.get("type") != "null"), options[0])
            return _resolve(first, root)
    return schema


def _value(
    schema: Mapping[str, Any], root: Mapping[str, Any], score: float, name: str, depth: int
) -> Any:
    schema = _resolve(schema, root)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        values = list(schema["enum"])
        lowered = [str(v).lower() for v in values]
        if "yes" in lowered and "no" in lowered:
            return values[lowered.index("yes" if score >= 0.6 else "no")]
        return values[0] if score >= 0.6 else values[-1]
    kind = schema.get("type", "object")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if kind == "object" and depth < _MAX_DEPTH:
        props: Mapping[str, Any] = schema.get("properties", {})
        return {k: _value(v, root, score, k, depth + 1) for k, v in props.items()}
    if kind == "array" and depth < _MAX_DEPTH:
        count = max(1, int(schema.get("minItems", 1)))
        return [_value(schema.get("items", {}), root, score, name, depth + 1) for _ in range(count)]
    if kind in ("number", "integer"):
        low = float(schema.get("minimum", 0.0))
        high = float(schema.get("maximum", 1.0 if kind == "number" else 10.0))
        number = low + score * (high - low)
        return round(number) if kind == "integer" else round(number, 4)
    if kind == "boolean":
        return score >= 0.6
    if kind == "null":
        return None
    return f"Simulated judgement for {name or 'value'} (score {score:.2f})."


def structured_reply(
    response_format: Mapping[str, Any], messages: Sequence[Mapping[str, Any]], seed: int | None
) -> str:
    """JSON text of an object valid for the request's schema (see the module docstring)."""
    text = json.dumps([m.get("content") for m in messages], default=str)
    score = rng_for("judge", seed, text).uniform(0.55, 0.95)
    if _NEGATIVE.search(text):
        score -= 0.4
    schema = _schema_of(response_format)
    return json.dumps(_value(schema, schema, score, "", 0))
