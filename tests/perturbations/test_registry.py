"""The condition registry: a condition is registered with the code that applies it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from reliability_lab.envs import get_environment
from reliability_lab.errors import ConfigError
from reliability_lab.experiment.config import parse_config
from reliability_lab.experiment.plan import build_plan
from reliability_lab.perturbations import (
    Perturbation,
    PerturbationContext,
    _registry,
    applies,
    build_perturbation,
    get_condition,
    list_conditions,
    register_condition,
)

BASE: dict[str, Any] = {
    "name": "x",
    "runs": 1,
    "environment": {"limit": 2},
    "agents": [{"label": "a", "model": "sim/perfect"}],
}


@pytest.fixture
def registry() -> Iterator[None]:
    """Restore the registry after a test registers conditions."""
    saved = dict(_registry._REGISTRY)
    yield
    _registry._REGISTRY.clear()
    _registry._REGISTRY.update(saved)


class Shout(Perturbation):
    def instruction(self, text: str) -> str:
        return text.upper()


def _context(condition: str = "shout", variant: str = "loud") -> PerturbationContext:
    env = get_environment("customer_service")
    return PerturbationContext(condition, variant, None, 1, env, env.tasks()[0])


def test_builtin_conditions_are_registered_with_appliers() -> None:
    assert list_conditions() == ["baseline", "fault", "prompt", "structural"]
    assert not applies(get_condition("baseline").factory)  # the identity, and only baseline
    for name in ("fault", "prompt", "structural"):
        assert applies(get_condition(name).factory)


@pytest.mark.usefixtures("registry")
def test_condition_without_applier_is_an_error() -> None:
    with pytest.raises(TypeError, match="factory must be a callable building the Perturbation"):
        register_condition("shout", None, default_variants=("loud",))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="overrides none of the perturbation hooks"):
        register_condition("shout", Perturbation, default_variants=("loud",))
    with pytest.raises(TypeError, match="default_variants"):
        register_condition("shout", Shout)  # type: ignore[call-arg]
    assert "shout" not in list_conditions()


@pytest.mark.usefixtures("registry")
def test_factory_returning_the_identity_fails_at_run_time() -> None:
    register_condition("sneaky", lambda ctx: Perturbation(ctx), default_variants=("v",))
    env = get_environment("customer_service")
    with pytest.raises(ValueError, match="overrides no hook; nothing applies it"):
        build_perturbation(
            "sneaky", "v", options=None, seed=1, environment=env, task=env.tasks()[0]
        )
    register_condition("wrong", lambda ctx: "not a perturbation", default_variants=("v",))
    with pytest.raises(TypeError, match="expected a Perturbation"):
        build_perturbation("wrong", "v", options=None, seed=1, environment=env, task=env.tasks()[0])


@pytest.mark.usefixtures("registry")
def test_user_condition_is_applied_not_relabelled() -> None:
    register_condition("shout", Shout, default_variants=("loud",))
    config = parse_config({**BASE, "conditions": ["baseline", "shout"]})
    specs = [s for s in build_plan(config) if s.condition == "shout"]
    assert [s.variant for s in specs] == ["loud", "loud"]
    perturbation = build_perturbation(
        "shout",
        "loud",
        options=None,
        seed=1,
        environment=_context().environment,
        task=_context().task,
    )
    assert perturbation.instruction("hi there") == "HI THERE"
    record = perturbation.record()
    assert record["condition"] == "shout" and record["intensity"] == "loud"


def test_prepare_requires_an_artifact() -> None:
    async def prepare(ctx: Any) -> Any:
        return None

    with pytest.raises(ValueError, match="prepare and artifact go together"):
        register_condition("p2", Shout, default_variants=("v",), prepare=prepare)


def test_unregistered_condition_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"conditions\[0\]: unknown condition 'chaos'"):
        parse_config({**BASE, "conditions": ["chaos"]})


@pytest.mark.parametrize(
    ("condition", "message"),
    [
        ({"name": "fault", "variants": ["p=1.5"]}, "expected 'p=<rate>' with 0 < rate <= 1"),
        ({"name": "fault", "variants": ["heavy"]}, "fault variant 'heavy'"),
        (
            {"name": "fault", "options": {"mix": {"meteor": 1}}},
            "options.mix: Value error, unknown fault types ['meteor']",
        ),
        ({"name": "fault", "options": {"rate": 0.3}}, "options.rate: Extra inputs"),
        (
            {"name": "structural", "variants": ["extreme"]},
            "unknown structural preset 'extreme'; valid: mild, medium, severe",
        ),
        ({"name": "prompt", "variants": ["wild"]}, "unknown strength 'wild'"),
        ({"name": "prompt", "variants": ["mild/6"]}, "only 5 paraphrases"),
        ({"name": "prompt", "options": {"paraphraser": "llm"}}, "paraphraser 'llm' needs 'model'"),
        ({"name": "prompt", "options": {"params": {"api_key": "x"}}}, "looks like a secret"),
        ({"name": "baseline", "variants": ["x"]}, "takes no variants"),
        ({"name": "baseline", "options": {"x": 1}}, "takes no options"),
    ],
)
def test_bad_variants_and_options_name_the_field(condition: dict, message: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_config({**BASE, "conditions": ["baseline", condition]})
    assert "conditions[1]" in str(err.value)
    assert message in str(err.value)


def test_fault_tools_are_checked_against_the_environment() -> None:
    config = parse_config(
        {**BASE, "conditions": [{"name": "fault", "options": {"tools": ["get_order", "nuke"]}}]}
    )
    with pytest.raises(ConfigError, match=r"conditions\[0\]: options.tools: unknown tools"):
        build_plan(config)


def test_prompt_variants_expand_to_one_per_paraphrase() -> None:
    config = parse_config(
        {
            **BASE,
            "conditions": [
                {
                    "name": "prompt",
                    "variants": ["mild", "strong/2"],
                    "options": {"n_paraphrases": 3},
                }
            ],
        }
    )
    assert config.conditions[0].resolved_variants() == ("mild/1", "mild/2", "mild/3", "strong/2")
