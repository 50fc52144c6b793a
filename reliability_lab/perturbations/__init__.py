"""Conditions and the perturbations that apply them: fault injection, structural, prompt.

A condition is registered together with the code that applies it
(:func:`register_condition`); the experiment runner builds one :class:`Perturbation` per run
(:func:`build_perturbation`) and the agent loop calls its hooks. Built in:

- ``baseline`` — the identity;
- ``fault`` — tool calls (optionally LLM calls) fail at a rate (:mod:`.fault`);
- ``structural`` — the tool interface changes, presets mild/medium/severe (:mod:`.structural`);
- ``prompt`` — the instruction is paraphrased, generated once per experiment (:mod:`.prompt`).

See docs/perturbations.md.
"""

from __future__ import annotations

from reliability_lab.perturbations._base import (
    Perturbation,
    PerturbationContext,
    ToolExecutor,
    ToolOutcome,
    applies,
    substream,
    variant_intensity,
)
from reliability_lab.perturbations._paraphrase import (
    STRENGTHS,
    canonical_words,
    missing_details,
    offline_paraphrase,
)
from reliability_lab.perturbations._registry import (
    ConditionInfo,
    PrepareContext,
    PreparedCondition,
    build_perturbation,
    get_condition,
    list_conditions,
    register_condition,
)
from reliability_lab.perturbations._runrecord import RUN_COLUMNS, run_columns
from reliability_lab.perturbations.fault import (
    DEFAULT_FAULT_RATE,
    DEFAULT_MIX,
    FAULT_TYPES,
    FaultInjection,
    FaultOptions,
    check_fault_environment,
    fault_variants,
)
from reliability_lab.perturbations.prompt import (
    PARAPHRASES_FILE,
    ParaphraseError,
    PromptOptions,
    PromptPerturbation,
    prepare_paraphrases,
    prompt_variants,
)
from reliability_lab.perturbations.structural import (
    PRESETS,
    SchemaMap,
    StructuralPerturbation,
    StructuralPreset,
    detect_preset,
    get_preset,
    register_preset,
    schema_map,
    structural_variants,
)
from reliability_lab.runs import BASELINE

__all__ = [
    "DEFAULT_FAULT_RATE",
    "DEFAULT_MIX",
    "FAULT_TYPES",
    "PARAPHRASES_FILE",
    "PRESETS",
    "RUN_COLUMNS",
    "STRENGTHS",
    "ConditionInfo",
    "FaultInjection",
    "FaultOptions",
    "ParaphraseError",
    "Perturbation",
    "PerturbationContext",
    "PrepareContext",
    "PreparedCondition",
    "PromptOptions",
    "PromptPerturbation",
    "SchemaMap",
    "StructuralPerturbation",
    "StructuralPreset",
    "ToolExecutor",
    "ToolOutcome",
    "applies",
    "build_perturbation",
    "canonical_words",
    "detect_preset",
    "get_condition",
    "get_preset",
    "list_conditions",
    "missing_details",
    "offline_paraphrase",
    "register_condition",
    "register_preset",
    "run_columns",
    "schema_map",
    "substream",
    "variant_intensity",
]

register_condition(
    BASELINE,
    Perturbation,
    default_variants=("",),
    allows_custom_variants=False,
    description="the tasks as written, no perturbation",
)
register_condition(
    "fault",
    FaultInjection,
    default_variants=("p=0.2",),
    description="tool calls (and optionally LLM calls) fail at rate p with a mix of faults",
    options=FaultOptions,
    variants=fault_variants,
    check_environment=check_fault_environment,
)
register_condition(
    "structural",
    StructuralPerturbation,
    default_variants=("medium",),
    description="the tool interface changes (presets mild, medium, severe)",
    variants=structural_variants,
)
register_condition(
    "prompt",
    PromptPerturbation,
    default_variants=("medium",),
    description="the instruction is paraphrased (strengths mild, medium, strong, naturalistic)",
    options=PromptOptions,
    variants=prompt_variants,
    prepare=prepare_paraphrases,
    artifact=PARAPHRASES_FILE,
)
