"""Once-per-experiment preparation of conditions (e.g. the prompt paraphrases).

Before any run, every condition registered with a ``prepare`` step gets it run once; its
artifact is stored in the results directory (``paraphrases.json`` for ``prompt``) and reused
when the experiment is resumed, and each run receives its share of the prepared data on its
:class:`~reliability_lab.agents.RunSpec` (``condition_data``). Every agent therefore sees the
same paraphrases.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reliability_lab.errors import ConfigError
from reliability_lab.experiment.config import ExperimentConfig
from reliability_lab.experiment.plan import condition_artifacts
from reliability_lab.perturbations import PrepareContext, PreparedCondition, get_condition
from reliability_lab.results._jsonio import write_json_atomic

if TYPE_CHECKING:
    from reliability_lab.agents import RunSpec

__all__ = ["attach_prepared", "prepare_conditions"]


def _read(path: Path) -> dict[str, Any] | None:
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the prepared artifact: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a JSON object")
    return data


async def prepare_conditions(
    config: ExperimentConfig, tasks: list[str], directory: Path, llm: Any
) -> dict[str, PreparedCondition]:
    """Run (or reuse) every condition's ``prepare`` step; write its artifact to ``directory``.

    Raises
    ------
    ConfigError
        An unreadable artifact, or one made with other settings.
    reliability_lab.perturbations.ParaphraseError
        Generating paraphrases failed (an LLM call failed after its retries).
    """
    from reliability_lab.experiment.plan import config_environment

    env = config_environment(config)
    selected = [env.task(t) for t in tasks]
    artifacts = condition_artifacts(config)
    prepared: dict[str, PreparedCondition] = {}
    for condition in config.conditions:
        info = get_condition(condition.name)
        if info.prepare is None:
            continue
        path = directory / artifacts[condition.name]
        context = PrepareContext(
            condition=condition.name,
            variants=condition.resolved_variants(),
            options=condition.parsed_options(),
            environment=env,
            tasks=selected,
            seed=config.seed,
            previous=_read(path),
            llm=llm,
        )
        try:
            result = await info.prepare(context)
        except ValueError as exc:
            raise ConfigError(f"{path}: {exc}") from None
        write_json_atomic(path, result.artifact)
        prepared[condition.name] = result
    return prepared


def attach_prepared(
    specs: list[RunSpec], prepared: Mapping[str, PreparedCondition]
) -> list[RunSpec]:
    """The specs with each run's prepared data (``condition_data``) filled in."""
    out = []
    for spec in specs:
        entry = prepared.get(spec.condition)
        if entry is not None:
            spec = replace(spec, condition_data=dict(entry.per_run[(spec.task_id, spec.variant)]))
        out.append(spec)
    return out
