"""Prompt perturbations (condition ``prompt``): the task instruction is reworded.

Variants name a strength — ``mild``, ``medium``, ``strong``, ``naturalistic`` — and expand to
one variant per paraphrase: ``medium`` → ``medium/1`` … ``medium/J`` (J = ``n_paraphrases``,
default 5); ``medium/3`` names one paraphrase. Paraphrases are generated **once per experiment**
before any run (:func:`prepare_paraphrases`), stored in the results directory as
``paraphrases.json``, given to every agent (so agents are compared on the same wording) and
reused when the experiment is resumed.

Two paraphrasers: ``offline`` (deterministic, :func:`~._paraphrase.offline_paraphrase`) and
``llm`` (any litellm model through the experiment's LLM client). Every paraphrase must keep the
task's details (``Environment.task_details``: IDs, emails, amounts, names, dates, zip codes);
one that drops a detail is rejected and regenerated, up to ``max_attempts`` times; after that
the offline paraphraser supplies it (recorded as ``offline-fallback``). Rejections and
fallbacks are counted in ``paraphrases.json`` and the experiment summary. See
docs/perturbations.md, "Prompt perturbations".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import Levenshtein
from pydantic import BaseModel, ConfigDict, Field, model_validator

from reliability_lab.perturbations._base import (
    INTENSITY_SEPARATOR,
    Perturbation,
    PerturbationContext,
    substream,
)
from reliability_lab.perturbations._paraphrase import (
    STRENGTHS,
    missing_details,
    offline_paraphrase,
)
from reliability_lab.perturbations._registry import PrepareContext, PreparedCondition

__all__ = [
    "PARAPHRASES_FILE",
    "ParaphraseError",
    "PromptOptions",
    "PromptPerturbation",
    "prepare_paraphrases",
    "prompt_variants",
]

PARAPHRASES_FILE = "paraphrases.json"
ARTIFACT_VERSION = 1
_LLM_SYSTEM = (
    "You rewrite a customer's message to a support agent for a robustness test. Keep its "
    "meaning and every detail listed; change only the wording, as instructed. Reply with the "
    "rewritten message only, without quotes or commentary."
)
_LLM_STYLE = {
    "mild": "Change a few words (synonyms); keep the structure.",
    "medium": "Reword it noticeably: synonyms, a different register, perhaps reordered sentences.",
    "strong": "Rewrite it thoroughly: different structure, order, register and vocabulary.",
    "naturalistic": "Rewrite it as a hurried person types: lower case, abbreviations such as "
    "pls/thx/u, a typo or two, little punctuation (never alter the listed details).",
}


class ParaphraseError(RuntimeError):
    """Paraphrases could not be generated (an LLM call failed); the message says why."""


class PromptOptions(BaseModel):
    """Options of the ``prompt`` condition."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    n_paraphrases: int = Field(default=5, ge=1, le=50)
    """J, the paraphrases per task and strength."""
    paraphraser: Literal["offline", "llm"] = "offline"
    """``offline`` (deterministic rewriting) or ``llm`` (``model`` rewrites the instruction)."""
    model: str | None = None
    """litellm model string of the LLM paraphraser (required with ``paraphraser: llm``)."""
    params: dict[str, Any] = Field(default_factory=dict)
    """Extra completion parameters of the paraphraser (temperature, api_base, ...); no keys."""
    max_attempts: int = Field(default=3, ge=1, le=10)
    """Attempts per paraphrase before the offline paraphraser fills in."""

    @model_validator(mode="after")
    def _model_for_llm(self) -> PromptOptions:
        if self.paraphraser == "llm" and not self.model:
            raise ValueError("paraphraser 'llm' needs 'model' (a litellm model string)")
        return self

    def settings(self) -> dict[str, Any]:
        """What makes two sets of paraphrases interchangeable (stored in the artifact)."""
        return {
            "paraphraser": self.paraphraser,
            "model": self.model if self.paraphraser == "llm" else None,
            "params": self.params if self.paraphraser == "llm" else {},
            "max_attempts": self.max_attempts,
        }


def _split(variant: str) -> tuple[str, int | None]:
    strength, sep, index = variant.partition(INTENSITY_SEPARATOR)
    if strength not in STRENGTHS:
        raise ValueError(
            f"prompt variant {variant!r}: unknown strength {strength!r}; valid: "
            f"{', '.join(STRENGTHS)} (optionally '/<paraphrase number>')"
        )
    if not sep:
        return strength, None
    if not index.isdigit() or int(index) < 1:
        raise ValueError(f"prompt variant {variant!r}: expected '{strength}/<n>' with n >= 1")
    return strength, int(index)


def prompt_variants(listed: tuple[str, ...], options: PromptOptions | None) -> tuple[str, ...]:
    """Expand strengths to one variant per paraphrase (``medium`` → ``medium/1`` … ``/J``)."""
    n = (options or PromptOptions()).n_paraphrases
    out: list[str] = []
    for variant in listed:
        strength, index = _split(variant)
        if index is None:
            out += [f"{strength}{INTENSITY_SEPARATOR}{j}" for j in range(1, n + 1)]
        elif index > n:
            raise ValueError(f"prompt variant {variant!r}: only {n} paraphrases (n_paraphrases)")
        else:
            out.append(variant)
    return tuple(out)


def _clean(reply: Any) -> str:
    text = str(reply or "").strip()
    for tag in ("<message>", "</message>"):
        text = text.replace(tag, "")
    return text.strip().strip('"').strip()


async def _llm_paraphrase(
    ctx: PrepareContext,
    options: PromptOptions,
    instruction: str,
    details: list[str],
    strength: str,
    key: str,
    seed: int,
) -> str:
    from reliability_lab.llm import LLMCallError

    listed = "; ".join(details) if details else "(none)"
    user = (
        f"{_LLM_STYLE[strength]}\nKeep these details exactly as written: {listed}\n"
        f"<message>\n{instruction}\n</message>"
    )
    messages = [{"role": "system", "content": _LLM_SYSTEM}, {"role": "user", "content": user}]
    try:
        completion = await ctx.llm.acompletion(
            model=options.model,
            messages=messages,
            cache_key_extra=f"paraphrase|{key}",
            **{"seed": seed, **options.params},
        )
    except LLMCallError as exc:
        raise ParaphraseError(
            f"prompt: paraphrasing {key} with {options.model} failed: {exc.category}: {exc}"
        ) from None
    return _clean(completion.message.get("content"))


async def _one(
    ctx: PrepareContext,
    options: PromptOptions,
    task_id: str,
    instruction: str,
    details: list[str],
    variant: str,
    taken: set[str],
) -> dict[str, Any]:
    """Generate one paraphrase with the detail check and bounded regeneration."""
    strength, _ = _split(variant)
    rejected: list[dict[str, Any]] = []
    for attempt in range(options.max_attempts):
        seed = substream(ctx.seed, "paraphrase", task_id, variant, attempt).getrandbits(31)
        if options.paraphraser == "llm":
            key = f"{task_id}|{variant}|{attempt}"
            text = await _llm_paraphrase(ctx, options, instruction, details, strength, key, seed)
        else:
            rng = substream(ctx.seed, "paraphrase", task_id, variant, attempt)
            text = offline_paraphrase(instruction, details, strength, rng)
        missing = missing_details(text, details)
        problem = (
            "empty"
            if not text
            else "missing details"
            if missing
            else "unchanged"
            if text == instruction
            else "duplicate"
            if text in taken
            else None
        )
        if problem is None:
            return {
                "id": variant,
                "text": text,
                "source": options.paraphraser,
                "attempts": attempt + 1,
                "rejected": rejected,
            }
        rejected.append({"attempt": attempt, "reason": problem, "missing": missing, "text": text})
    rng = substream(ctx.seed, "paraphrase-fallback", task_id, variant)
    text = offline_paraphrase(instruction, details, strength, rng)
    return {
        "id": variant,
        "text": text,
        "source": "offline-fallback",
        "attempts": options.max_attempts,
        "rejected": rejected,
    }


def _reusable(
    previous: Mapping[str, Any] | None, options: PromptOptions, seed: int
) -> dict[str, Any]:
    """The stored paraphrases of an earlier run of this experiment (same settings) or {}."""
    if not previous:
        return {}
    wanted = {**options.settings(), "seed": seed}
    if previous.get("schema_version") != ARTIFACT_VERSION or previous.get("settings") != wanted:
        raise ValueError(
            f"{PARAPHRASES_FILE} in the results directory was generated with other settings "
            f"({previous.get('settings')!r}, now {wanted!r}); use another output directory"
        )
    return dict(previous.get("tasks", {}))


async def prepare_paraphrases(ctx: PrepareContext) -> PreparedCondition:
    """Generate (or reuse) the experiment's paraphrases: the ``prompt`` condition's prepare."""
    options: PromptOptions = ctx.options or PromptOptions()
    tasks_out: dict[str, Any] = {}
    previous = _reusable(ctx.previous, options, ctx.seed)
    if options.paraphraser == "llm" and ctx.llm is None:
        raise ValueError("prompt: the llm paraphraser needs the experiment's LLM client")
    per_run: dict[tuple[str, str], dict[str, Any]] = {}
    for task in ctx.tasks:
        details = list(ctx.environment.task_details(task))
        old = previous.get(task.task_id, {})
        stored = dict(old.get("paraphrases", {})) if old.get("original") == task.instruction else {}
        taken: set[str] = {p["text"] for p in stored.values()}
        for variant in ctx.variants:
            if variant not in stored:
                stored[variant] = await _one(
                    ctx, options, task.task_id, task.instruction, details, variant, taken
                )
                taken.add(stored[variant]["text"])
            entry = stored[variant]
            per_run[(task.task_id, variant)] = {
                "paraphrase_id": variant,
                "instruction": entry["text"],
                "source": entry["source"],
            }
        tasks_out[task.task_id] = {
            "original": task.instruction,
            "details": details,
            "paraphrases": dict(sorted(stored.items())),
        }
    entries = [p for t in tasks_out.values() for p in t["paraphrases"].values()]
    counts = {
        "paraphrases": len(entries),
        "rejected": sum(len(p["rejected"]) for p in entries),
        "fallbacks": sum(p["source"] == "offline-fallback" for p in entries),
    }
    artifact = {
        "schema_version": ARTIFACT_VERSION,
        "settings": {**options.settings(), "seed": ctx.seed},
        "counts": counts,
        "tasks": tasks_out,
    }
    return PreparedCondition(artifact=artifact, per_run=per_run, notes=counts)


class PromptPerturbation(Perturbation):
    """The perturbation of one ``prompt`` run: the instruction is the prepared paraphrase."""

    def __init__(self, context: PerturbationContext) -> None:
        super().__init__(context)
        if "instruction" not in context.data:
            raise ValueError(
                f"prompt run of task {context.task.task_id!r} variant {context.variant!r} has "
                "no paraphrase: paraphrases are prepared by the experiment runner "
                "(reliability_lab.run_experiment)"
            )
        self.text = str(context.data["instruction"])

    def instruction(self, text: str) -> str:
        """The prepared paraphrase."""
        return self.text

    def parameters(self) -> dict[str, Any]:
        """Strength, paraphrase id, its source and its similarity to the original."""
        return {
            "strength": self.context.intensity,
            "paraphrase_id": self.context.data.get("paraphrase_id", self.context.variant),
            "source": self.context.data.get("source"),
            "similarity": round(Levenshtein.ratio(self.context.task.instruction, self.text), 4),
        }
