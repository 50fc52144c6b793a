"""An inspect task, resolved and rebuilt once per condition and variant of an experiment.

:func:`reliability_tasks` returns one inspect ``Task`` per (condition, variant): the
``baseline`` task is the task as written (plus the confidence question); ``prompt`` tasks carry
paraphrased inputs; ``fault`` and ``structural`` tasks run the task's plan with perturbed tools
(:mod:`._solver`). Each task is named ``<task>`` (baseline) or
``<task>__<condition>__<variant>``, so inspect's log directory and ``inspect view`` show every
condition as its own evaluation, and ``eval_set`` can resume each one.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspect_ai import Task, task_with
from inspect_ai.dataset import MemoryDataset, Sample

from reliability_lab.inspect._prompt import paraphrase_samples
from reliability_lab.inspect._solver import TOOL_CONDITIONS, condition_solver
from reliability_lab.perturbations import get_condition
from reliability_lab.runs import BASELINE

__all__ = ["ConditionSpec", "load_task", "reliability_tasks", "task_name"]

_PROMPT = "prompt"
_SUPPORTED = (BASELINE, _PROMPT, *sorted(TOOL_CONDITIONS))


@dataclass(frozen=True)
class ConditionSpec:
    """One condition of the experiment: its name, variants (None = defaults) and options."""

    name: str
    variants: tuple[str, ...] | None = None
    options: Mapping[str, Any] = field(default_factory=dict)


def load_task(spec: Task | str, task_args: Mapping[str, Any] | None = None) -> Task:
    """A fresh inspect task from a ``Task``, ``file.py@name`` or a registry name.

    A ``Task`` object is copied (every condition gets its own); a string is loaded by
    inspect's own task loader (``inspect_evals/gsm8k`` needs the package installed).
    """
    if isinstance(spec, Task):
        if task_args:
            raise ValueError("task_args: only for a task given by name or file, not a Task")
        return copy.copy(spec)
    from inspect_ai._eval.loader import load_tasks  # inspect's loader of `inspect eval` specs

    try:
        tasks = load_tasks([spec], dict(task_args or {}))
    except Exception as exc:
        raise ValueError(
            f"inspect.task: cannot load {spec!r}: {type(exc).__name__}: {exc}"
        ) from None
    if len(tasks) != 1:
        names = [t.name for t in tasks]
        raise ValueError(f"inspect.task: {spec!r} names {len(tasks)} tasks {names}; name one")
    return tasks[0]


def task_name(base: str, condition: str, variant: str) -> str:
    """The inspect task name of a condition's task (module docstring)."""
    if condition == BASELINE:
        return base
    slug = re.sub(r"[^A-Za-z0-9.]+", "-", variant).strip("-")
    return f"{base}__{condition}__{slug}"


def _variants(spec: ConditionSpec) -> tuple[str, ...]:
    if spec.name not in _SUPPORTED:
        raise ValueError(
            f"conditions: {spec.name!r} cannot run on an inspect task; valid: "
            f"{', '.join(_SUPPORTED)}"
        )
    info = get_condition(spec.name)
    options = info.parse_options(dict(spec.options))
    if spec.name == "fault" and getattr(options, "llm_faults", False):
        raise ValueError(
            "conditions: fault: llm_faults is not available for inspect tasks yet (tool "
            "faults are); remove it"
        )
    return info.resolve_variants(spec.variants, options)


def reliability_tasks(
    task: Task | str,
    conditions: Sequence[ConditionSpec | str],
    *,
    task_args: Mapping[str, Any] | None = None,
    seed: int = 0,
    confidence: bool = True,
    directory: str | Path | None = None,
    llm: Any = None,
) -> list[Task]:
    """The inspect tasks of an experiment: one per condition and variant.

    Parameters
    ----------
    task : Task or str
        The task (:func:`load_task`).
    conditions : sequence of ConditionSpec or str
        ``baseline``, ``prompt``, ``fault``, ``structural`` (names take default variants).
    task_args : mapping, optional
        Arguments of a task given by name.
    seed : int
        Master seed: fault draws and paraphrases derive from it (paired across conditions).
    confidence : bool
        Ask the post-hoc confidence question after every run.
    directory : path, optional
        Where ``paraphrases.json`` is stored and reused.
    llm : LLMClient, optional
        The client of an ``llm`` paraphraser.

    Returns
    -------
    list of Task
        Ready for ``inspect_ai.eval`` / ``eval_set`` (docs/inspect.md).
    """
    specs = [ConditionSpec(c) if isinstance(c, str) else c for c in conditions]
    base = load_task(task, task_args)
    name = base.name
    samples = list(base.dataset)
    out: list[Task] = []
    for spec in specs:
        variants = _variants(spec)
        options = dict(spec.options) or None
        datasets: dict[str, list[Sample]] = {}
        if spec.name == _PROMPT:
            datasets = paraphrase_samples(
                samples,
                variants,
                options=options,
                seed=seed,
                task=name,
                directory=Path(directory) if directory is not None else None,
                llm=llm,
            )
        for variant in variants:
            fresh = load_task(task, task_args)
            solver = condition_solver(
                fresh.solver,
                task=name,
                condition=spec.name,
                variant=variant,
                options=options,
                seed=seed,
                confidence=confidence,
            )
            changes: dict[str, Any] = {
                "solver": solver,
                "name": task_name(name, spec.name, variant),
            }
            if variant in datasets:
                changes["dataset"] = MemoryDataset(datasets[variant], name=fresh.dataset.name)
            out.append(task_with(fresh, **changes))
    return out
