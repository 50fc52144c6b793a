"""Structural perturbations (condition ``structural``): the environment's interface changes.

Variants are preset names; the built-in presets grow in severity:

- ``mild`` — camelCase result keys and parameter names;
- ``medium`` — mild + a ``{"status", "data"}`` response wrapper, US dates (MM/DD/YYYY),
  12-hour times and upper-case enum values;
- ``severe`` — medium + ``_id`` keys nested under ``"ids"``, arguments nested in a ``"request"``
  object, abbreviated enum values (initials) and abbreviated parameter names.

The agent sees perturbed tool schemas and results; its arguments are checked against the
perturbed schema and mapped back, so the environment executes the original call unchanged.
Tool *names* are kept, so trajectories stay comparable with the baseline's. Register your own
preset with :func:`register_preset`. See docs/perturbations.md, "Structural perturbations".
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from reliability_lab.envs import ToolError
from reliability_lab.perturbations._base import (
    Perturbation,
    PerturbationContext,
    ToolExecutor,
    ToolOutcome,
)
from reliability_lab.perturbations._structure import SchemaMap, StructuralPreset

if TYPE_CHECKING:
    from reliability_lab.envs import Environment

__all__ = [
    "PRESETS",
    "SchemaMap",
    "StructuralPerturbation",
    "StructuralPreset",
    "detect_preset",
    "get_preset",
    "register_preset",
    "schema_map",
    "structural_variants",
]

PRESETS: dict[str, StructuralPreset] = {}


def register_preset(preset: StructuralPreset, *, overwrite: bool = False) -> None:
    """Make ``preset.name`` usable as a ``structural`` variant (and known to ``sim/...``)."""
    if preset.name in PRESETS and not overwrite:
        raise ValueError(f"structural preset {preset.name!r} exists (pass overwrite=True)")
    PRESETS[preset.name] = preset
    schema_map.cache_clear()
    _shown_tools.cache_clear()


def get_preset(name: str) -> StructuralPreset:
    """The preset called ``name``; ``ValueError`` listing the valid names otherwise."""
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(
            f"unknown structural preset {name!r}; valid: {', '.join(PRESETS)}"
        ) from None


def structural_variants(listed: tuple[str, ...], options: Any) -> tuple[str, ...]:
    """Validate that every listed variant names a preset (the variant resolver)."""
    for name in listed:
        get_preset(name)
    return listed


@lru_cache(maxsize=64)
def schema_map(environment: Environment, preset: StructuralPreset) -> SchemaMap:
    """The preset compiled against ``environment``'s tool schemas (memoised)."""
    return SchemaMap(preset, environment.tool_schemas)


@lru_cache(maxsize=256)
def _shown_tools(environment: Environment, preset: StructuralPreset) -> str:
    shown = schema_map(environment, preset).tools(environment.tool_schemas)
    return json.dumps(shown, sort_keys=True)


def detect_preset(environment: Environment, tools_json: str) -> StructuralPreset | None:
    """The registered preset whose perturbed schemas equal ``tools_json``, or None.

    ``tools_json`` is ``json.dumps(tools, sort_keys=True)`` of the tool schemas a request
    carried. The simulated model uses this to recognise (and invert) a structural
    perturbation, as a real model would read the schemas it is given.
    """
    for preset in PRESETS.values():
        if _shown_tools(environment, preset) == tools_json:
            return preset
    return None


class StructuralPerturbation(Perturbation):
    """The perturbation of one ``structural`` run (see the module docstring)."""

    def __init__(self, context: PerturbationContext) -> None:
        super().__init__(context)
        self.preset = get_preset(context.variant)
        self.map = schema_map(context.environment, self.preset)
        self.n_calls = 0
        self.n_rejected = 0
        self.n_results = 0

    def tools(self, schemas: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The perturbed tool schemas."""
        return self.map.tools(schemas)

    def call_tool(self, name: str, arguments: str, step: int, execute: ToolExecutor) -> ToolOutcome:
        """Reverse-map the arguments, run the call, forward-map its result."""
        self.n_calls += 1
        try:
            shown = json.loads(arguments or "{}")
        except json.JSONDecodeError:
            return execute(name, arguments)  # the environment reports the bad JSON
        if not isinstance(shown, dict):
            return execute(name, arguments)
        try:
            original = self.map.arguments(name, shown)
        except ToolError as exc:
            self.n_rejected += 1
            self.events.append({"step": step, "tool": name, "rejected": str(exc)})
            return ToolOutcome(str(exc), True)
        outcome = execute(name, json.dumps(original))
        if outcome.is_error:
            return ToolOutcome(self.map.rewrite_error(name, outcome.text), True)
        try:
            value = json.loads(outcome.text)
        except json.JSONDecodeError:
            return outcome
        self.n_results += 1
        return ToolOutcome(json.dumps(self.map.result(value), sort_keys=True), False)

    def parameters(self) -> dict[str, Any]:
        """Preset name, severity, transforms and the compiled name/value maps."""
        return {
            "preset": self.preset.name,
            "severity": self.preset.severity,
            "transforms": self.preset.transforms(),
            **self.map.describe(),
        }

    def summary(self) -> dict[str, Any]:
        """Calls seen, calls rejected by the perturbed schema, results transformed."""
        return {
            "n_tool_calls": self.n_calls,
            "n_rejected_calls": self.n_rejected,
            "n_results_transformed": self.n_results,
        }


for _preset in (
    StructuralPreset("mild", severity=1 / 3, camel_case=True),
    StructuralPreset(
        "medium",
        severity=2 / 3,
        camel_case=True,
        wrap_response=True,
        us_dates=True,
        twelve_hour_times=True,
        upper_enums=True,
    ),
    StructuralPreset(
        "severe",
        severity=1.0,
        camel_case=True,
        wrap_response=True,
        us_dates=True,
        twelve_hour_times=True,
        abbreviate_enums=True,
        abbreviate_params=True,
        nest_ids=True,
        nest_params=True,
    ),
):
    register_preset(_preset)
