"""The solver that runs a task's own solver under one condition, then asks for confidence.

:func:`condition_solver` wraps the task's solver (its plan). Before every step of the plan and
before every ``generate`` call, the sample's tools (``TaskState.tools``) are replaced by the
condition's wrapped tools (:class:`~reliability_lab.inspect._tools.SampleRun`), so the model
sees the perturbed schemas and every call goes through the perturbation. After the plan, the
paper's post-hoc confidence question (the one our agent loop asks,
``reliability_lab.agents._confidence``) goes to the same model with the run's history; the
reply is parsed, never replaced by a default. What happened is written to the sample's
metadata under :data:`~reliability_lab.io.inspect_logs.SAMPLE_METADATA_KEY`, where the
importer reads it (docs/inspect.md, "What each sample records").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from inspect_ai.model import ChatMessageUser, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver

from reliability_lab.agents._confidence import CONFIDENCE_QUESTION, parse_confidence
from reliability_lab.inspect._tools import SampleRun
from reliability_lab.io.inspect_logs import SAMPLE_METADATA_KEY
from reliability_lab.perturbations import substream

__all__ = ["TOOL_CONDITIONS", "condition_solver", "run_seed"]

#: Conditions applied through the sample's tools (the others change the dataset or nothing).
TOOL_CONDITIONS = frozenset({"fault", "structural"})
_PROMPT = "prompt"


def run_seed(seed: int, task: str, sample_id: object, epoch: int) -> int:
    """The seed of one run: the same for a sample and epoch under every condition (paired)."""
    return substream(seed, "inspect", task, str(sample_id), epoch).getrandbits(63)


def _steps(plan: Solver) -> list[Solver]:
    """The steps of a (possibly nested) chain of solvers, in order; a single solver as is."""
    if isinstance(plan, Sequence):
        return [step for item in plan for step in _steps(item)]
    return [plan]


async def ask_confidence(state: TaskState) -> dict[str, Any]:
    """Ask the confidence question after the run; the reply never touches ``state.output``."""
    question = ChatMessageUser(content=CONFIDENCE_QUESTION)
    try:
        output = await get_model().generate(
            [*state.messages, question], tools=state.tools, tool_choice="none"
        )
    except Exception as exc:  # the run keeps its outcome; the failure is recorded
        return {
            "confidence": None,
            "confidence_source": "fallback",
            "confidence_raw": None,
            "confidence_error": f"{type(exc).__name__}: {exc}",
        }
    raw = output.completion
    value = parse_confidence(raw)
    return {
        "confidence": None if math.isnan(value) else value,
        "confidence_source": "fallback" if math.isnan(value) else "elicited",
        "confidence_raw": raw,
        "confidence_error": output.error or None,
    }


class _Unwrapped(RuntimeError):
    """The task's agent called tools the bridge could not reach (kept outside TaskState)."""


def condition_solver(
    plan: Solver,
    *,
    task: str,
    condition: str,
    variant: str,
    options: dict[str, Any] | None,
    seed: int,
    confidence: bool,
) -> Solver:
    """The task's ``plan`` under ``condition``/``variant``, then the confidence question."""
    steps = _steps(plan)

    @solver(name="reliability_lab/condition")
    def reliability_condition(condition: str, variant: str, seed: int, confidence: bool) -> Solver:
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            meta = state.metadata.setdefault(SAMPLE_METADATA_KEY, {})
            meta.update({"task": task, "condition": condition, "variant": variant})
            run = None
            if condition in TOOL_CONDITIONS:
                sample_seed = run_seed(seed, task, state.sample_id, state.epoch)
                run = SampleRun(condition, variant, options, sample_seed, state)
                meta["seed"] = sample_seed
            try:
                state = await _run_plan(state, generate, run)
            finally:
                if run is not None:
                    meta["perturbation"] = run.record()
            if confidence:
                meta.update(await ask_confidence(state))
            else:
                meta["confidence_source"] = "none"
            return state

        return solve

    async def _run_plan(state: TaskState, generate: Generate, run: SampleRun | None) -> TaskState:
        if run is None:
            for step in steps:
                state = await step(state, generate)
                if state.completed:
                    break
            return state

        async def wrapped_generate(state: TaskState, *args: Any, **kwargs: Any) -> TaskState:
            state.tools = run.wrap(state.tools)
            return await generate(state, *args, **kwargs)

        for step in steps:
            state.tools = run.wrap(state.tools)
            state = await step(state, wrapped_generate)
            if state.completed:
                break
        if run.n_calls == 0 and any(m.role == "tool" for m in state.messages):
            raise _Unwrapped(
                f"condition {condition!r}: the task's agent called tools that are not in "
                "TaskState.tools (e.g. passed privately to an agent), so they could not be "
                "perturbed; this run is not a perturbed run"
            )
        return state

    return reliability_condition(
        condition=condition, variant=variant, seed=seed, confidence=confidence
    )
