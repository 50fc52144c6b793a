"""The ``prompt`` condition on an inspect dataset: each sample's input, paraphrased.

The paraphrases are made by the same preparation our runner uses
(:func:`reliability_lab.perturbations.prepare_paraphrases`): generated once per experiment,
checked to keep the input's details (IDs, emails, amounts, names, dates, numbers —
``extract_details``), regenerated or replaced by the offline paraphraser when they do not,
stored as ``paraphrases.json`` and reused on a rerun, and shared by every model (the same
inspect task runs for every model). A sample keeps its id, so its runs pair with the
baseline's.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from inspect_ai.dataset import Sample

from reliability_lab._sync import run_sync
from reliability_lab.envs._base import extract_details
from reliability_lab.io.inspect_logs import SAMPLE_METADATA_KEY
from reliability_lab.perturbations import (
    PARAPHRASES_FILE,
    PrepareContext,
    PromptOptions,
    build_perturbation,
    prepare_paraphrases,
)

__all__ = ["input_text", "paraphrase_samples"]


class _Details:
    """The details a paraphrase of an inspect input must keep (no environment to ask)."""

    name = "inspect"

    def task_details(self, task: Any) -> tuple[str, ...]:
        return extract_details(task.instruction)


def input_text(sample: Sample, where: str) -> str:
    """The text a paraphrase replaces: a string input, or the last user message's text."""
    if isinstance(sample.input, str):
        return sample.input
    users = [m for m in sample.input if m.role == "user" and isinstance(m.content, str)]
    if not users:
        raise ValueError(
            f"{where}: sample {sample.id!r}: the prompt condition needs a text input or a "
            "user message with text content"
        )
    return str(users[-1].content)


def _with_input(sample: Sample, text: str) -> Any:
    if isinstance(sample.input, str):
        return text
    messages = list(sample.input)
    last = max(i for i, m in enumerate(messages) if m.role == "user")
    messages[last] = messages[last].model_copy(update={"content": text})
    return messages


def _previous(directory: Path | None) -> dict[str, Any] | None:
    path = directory / PARAPHRASES_FILE if directory is not None else None
    if path is None or not path.exists():
        return None
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def paraphrase_samples(
    samples: Sequence[Sample],
    variants: Sequence[str],
    *,
    options: dict[str, Any] | None,
    seed: int,
    task: str,
    directory: Path | None,
    llm: Any = None,
) -> dict[str, list[Sample]]:
    """Variant → the samples with paraphrased inputs (ids kept, metadata records the paraphrase).

    ``paraphrases.json`` is read from and written to ``directory`` (when given), so a rerun
    reuses the stored paraphrases and every model gets the same ones.
    """
    for sample in samples:
        if sample.id is None:
            raise ValueError(f"{task}: the prompt condition needs sample ids (to pair runs)")
    tasks = [SimpleNamespace(task_id=str(s.id), instruction=input_text(s, task)) for s in samples]
    context = PrepareContext(
        condition="prompt",
        variants=tuple(variants),
        options=PromptOptions.model_validate(options or {}),
        environment=_Details(),  # type: ignore[arg-type]
        tasks=tasks,  # type: ignore[arg-type]
        seed=seed,
        previous=_previous(directory),
        llm=llm,
    )
    prepared = run_sync(prepare_paraphrases(context))
    if directory is not None:
        directory.mkdir(parents=True, exist_ok=True)
        text = json.dumps(prepared.artifact, indent=2, sort_keys=True)
        (directory / PARAPHRASES_FILE).write_text(text, encoding="utf-8")
    out: dict[str, list[Sample]] = {}
    for variant in variants:
        out[variant] = []
        for sample, original in zip(samples, tasks, strict=True):
            data = prepared.per_run[(original.task_id, variant)]
            record = build_perturbation(
                "prompt",
                variant,
                options=options,
                seed=seed,
                environment=_Details(),  # type: ignore[arg-type]
                task=original,  # type: ignore[arg-type]
                data=data,
            ).record()
            out[variant].append(
                sample.model_copy(
                    update={
                        "input": _with_input(sample, data["instruction"]),
                        "metadata": {
                            **(sample.metadata or {}),
                            SAMPLE_METADATA_KEY: {"perturbation": record},
                        },
                    }
                )
            )
    return out
