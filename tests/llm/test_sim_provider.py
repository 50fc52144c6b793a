"""The simulated model reached through litellm itself (custom provider ``sim``)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from reliability_lab.envs import get_environment
from reliability_lab.llm import register_sim_provider


@pytest.fixture(scope="module")
def litellm() -> Any:
    """litellm with the ``sim`` provider registered (as code calling litellm itself does)."""
    register_sim_provider()
    import litellm as module

    return module


def _request(seed: int) -> dict:
    env = get_environment("customer_service")
    task = env.task("cs_01")
    return {
        "model": "sim/calibrated",
        "seed": seed,
        "tools": env.tools(),
        "messages": [
            {"role": "system", "content": env.system_prompt},
            {"role": "user", "content": task.instruction},
        ],
    }


def test_llm_sim_via_litellm_acompletion_returns_tool_call(litellm: Any) -> None:
    response = asyncio.run(litellm.acompletion(**_request(3)))
    call = response.choices[0].message.tool_calls[0]
    assert call.function.name == "find_user_by_email"
    assert json.loads(call.function.arguments) == {"email": "alice.chen@example.com"}
    # cost from the profile's registered simulated prices, via litellm's cost tracking
    usage = response.usage
    assert response._hidden_params["response_cost"] == (
        usage.prompt_tokens * 0.15e-6 + usage.completion_tokens * 0.60e-6
    )


def test_llm_sim_sync_completion_matches_async(litellm: Any) -> None:
    sync = litellm.completion(**_request(5)).choices[0].message
    asyn = asyncio.run(litellm.acompletion(**_request(5))).choices[0].message
    assert sync.tool_calls[0].function.arguments == asyn.tool_calls[0].function.arguments
    assert sync.tool_calls[0].id == asyn.tool_calls[0].id


def test_llm_profile_added_after_the_first_call_is_priced(monkeypatch: pytest.MonkeyPatch) -> None:
    from reliability_lab.llm import LLMClient
    from reliability_lab.sim import PERSONAS, SimPersona

    llm = LLMClient()
    messages = [{"role": "user", "content": "hi"}]
    llm.completion(model="sim/calibrated", messages=messages)  # litellm loaded and set up
    late = SimPersona(
        "late-test", "added later", input_cost_per_token=1e-6, output_cost_per_token=3e-6
    )
    monkeypatch.setitem(PERSONAS, late.name, late)
    out = llm.completion(model="sim/late-test", messages=messages)
    assert out.prompt_tokens > 0
    assert out.cost_usd == pytest.approx(out.prompt_tokens * 1e-6 + out.completion_tokens * 3e-6)
