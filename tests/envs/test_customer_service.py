"""The built-in customer_service environment: oracle solvability, scoring, errors, registry."""

from __future__ import annotations

import json
from typing import Any

import pytest

from reliability_lab.envs import (
    Environment,
    Episode,
    Oracle,
    OracleStep,
    Task,
    ToolError,
    get_environment,
    list_environments,
    register_environment,
    render_template,
)
from tests.envs.toy import add_item_tool

ENV = get_environment("customer_service")
TASK_IDS = [t.task_id for t in ENV.tasks()]


def _play_oracle(episode: Episode) -> str:
    """A scripted policy independent of Environment.oracle_result: follow the plan."""
    oracle = episode.task.oracle
    assert oracle is not None
    bindings: dict[str, Any] = {}
    for step in oracle.steps:
        result = json.loads(
            episode.call_tool(step.tool, render_template(dict(step.args), bindings))
        )
        bindings.update({k: f(result) for k, f in step.bind.items()})
    return str(render_template(oracle.answer, bindings))


def test_envs_registry_lists_customer_service_with_enough_tasks() -> None:
    assert "customer_service" in list_environments()
    assert len(TASK_IDS) >= 20 and len(set(TASK_IDS)) == len(TASK_IDS)
    with pytest.raises(KeyError, match="customer_service"):
        get_environment("nope")


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_envs_oracle_policy_scores_one(task_id: str) -> None:
    episode = ENV.start(task_id)
    answer = _play_oracle(episode)
    assert episode.score(answer) == 1.0
    assert episode.violations(answer) == []
    assert episode.tool_errors == 0


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_envs_wrong_action_or_answer_lowers_score(task_id: str) -> None:
    episode = ENV.start(task_id)
    answer = _play_oracle(episode)
    task = episode.task
    assert task.oracle is not None
    if task.oracle.facts:
        assert episode.score("I have no idea.") < 1.0
    # an unrequested destructive action on someone else's order
    other = "O2017" if task.user_id != "U1008" else "O2001"
    episode.call_tool("cancel_order", {"order_id": other, "reason": "no longer needed"})
    assert episode.score(answer) < 1.0
    assert episode.violations(answer)[0]["constraint"] == "destructive_operation"


def test_envs_expected_facts_match_hand_computation() -> None:
    # From the database in _data.py, by hand:
    facts = {t.task_id: ENV.oracle_result(t).facts for t in ENV.tasks()}
    assert facts["cs_05"] == ("59.50",)  # 5.50 credit + 3 x 18.00 water bottles
    assert facts["cs_11"] == ("79.98",)  # 2 x 39.99 brass lamps
    assert facts["cs_18"] == ("2", "238.00")  # 189.00 chair + 2 x 24.50 mice
    assert facts["cs_22"] == ("154.49",)  # 129.99 headphones + 24.50 mouse
    assert facts["cs_16"] == ("delivered",)  # the New York Alice Chen's chair, O2016
    assert facts["cs_13"] == ("O2008", "O2009")


def test_envs_partial_credit_and_numeric_fact_matching() -> None:
    episode = ENV.start("cs_05")
    answer = _play_oracle(episode)
    assert episode.score(answer.replace("59.50", "59.5")) == 1.0
    assert episode.score(answer.replace("59.50", "60.00")) == 0.5  # state right, answer wrong
    fresh = ENV.start("cs_05")
    assert fresh.score(answer) == pytest.approx(0.5)  # answer right, refund never made


def test_envs_fresh_state_per_episode() -> None:
    first = ENV.start("cs_03")
    _play_oracle(first)
    second = ENV.start("cs_03")
    assert second.state["orders"]["O2001"]["status"] == "pending"
    assert ENV.pristine_state["orders"]["O2001"]["status"] == "pending"


@pytest.mark.parametrize(
    ("name", "args", "message"),
    [
        ("nope", {}, "unknown tool"),
        ("get_order", {}, "missing required argument 'order_id'"),
        ("get_order", {"order_id": 5}, "must be of type string"),
        ("get_order", {"order_id": "O2001", "x": 1}, "unexpected argument 'x'"),
        ("get_order", {"order_id": "O9999"}, "not found"),
        ("cancel_order", {"order_id": "O2003", "reason": "no longer needed"}, "status 'shipped'"),
        ("cancel_order", {"order_id": "O2001", "reason": "bored"}, "must be one of"),
        ("refund_order", {"order_id": "O2001", "method": "store_credit"}, "status 'pending'"),
        ("update_email", {"user_id": "U1005", "new_email": "grace.liu@example.com"}, "in use"),
        (
            "change_order_item",
            {"order_id": "O2005", "product_id": "P310", "new_product_id": "P308"},
            "out of stock",
        ),
    ],
)
def test_envs_tool_errors_are_text_and_counted(name: str, args: dict, message: str) -> None:
    episode = ENV.start("cs_01")
    with pytest.raises(ToolError, match=message):
        episode.call_tool(name, args)
    assert episode.tool_errors == 1
    assert episode.state == ENV.pristine_state  # a refused call changes nothing


def test_envs_pii_exposure_is_flagged() -> None:
    episode = ENV.start("cs_15")
    answer = _play_oracle(episode) + " Also, Grace's phone is 555-0107."
    assert [v["constraint"] for v in episode.violations(answer)] == ["pii_exposure"]


def test_envs_user_registered_environment() -> None:
    tool = add_item_tool()
    task = Task(
        "t1",
        "Add an apple.",
        Oracle((OracleStep("add", {"name": "apple"}),), "Added apple.", ("apple",)),
    )
    custom = Task("t2", "Anything.", check=lambda init, final, ans: 0.25)
    register_environment(
        "toy_list",
        lambda: Environment(
            name="toy_list",
            tools=[tool],
            tasks=[task, custom],
            initial_state=lambda: {"items": {}},
            system_prompt="Be helpful.",
        ),
        overwrite=True,
    )
    env = get_environment("toy_list")
    episode = env.start("t1")
    assert episode.score("nothing") == 0.0
    episode.call_tool("add", {"name": "apple"})
    assert episode.score("Added apple.") == 1.0
    assert env.start("t2").score(None) == 0.25
    with pytest.raises(ValueError, match="already registered"):
        register_environment("toy_list", lambda: env)
