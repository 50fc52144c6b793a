"""Which HTTP path OpenAI calls take, and that the process-wide switch stays scoped to our calls."""

from __future__ import annotations

import asyncio
import os
import random
from typing import Any, Literal

import pytest

import reliability_lab  # noqa: F401  (sets the offline cost map before litellm loads)
from reliability_lab.llm import LLMClient
from reliability_lab.llm._transport import FLAG, GATE, FlagGate, Mode

KEY = "sk-test-secret-0123456789"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_order",
            "description": "Look up an order.",
            "parameters": {
                "type": "object",
                "properties": {"order_id": {"type": "string", "pattern": "^O[0-9]+$"}},
                "required": ["order_id"],
            },
        },
    }
]
CONVERSATION = [
    {"role": "system", "content": "You are a support agent."},
    {"role": "user", "content": "Where is O1001?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "get_order", "arguments": '{"order_id": "O1001"}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": '{"status": "shipped"}'},
]


def _sdk_sent(headers: dict[str, str]) -> bool:
    """The openai SDK marks its requests with x-stainless-* headers; litellm's handler does not."""
    return any(k.lower().startswith("x-stainless") for k in headers)


def _header(headers: dict[str, str], name: str) -> str | None:
    return next((v for k, v in headers.items() if k.lower() == name.lower()), None)


@pytest.fixture(autouse=True)
def _no_user_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(FLAG, raising=False)


def _call(transport: Literal["auto", "sdk"], base: str, **params: object) -> None:
    LLMClient(timeout_s=5.0, openai_transport=transport).completion(
        model="openai/gpt-4o-mini",
        messages=CONVERSATION,
        tools=TOOLS,
        api_base=base,
        api_key=KEY,
        **params,
    )


def test_llm_transport_sdk_free_sends_the_same_body_and_unsets_the_switch(chat_server: Any) -> None:
    server, base = chat_server
    params = {
        "seed": 7,
        "temperature": 0.3,
        "max_tokens": 64,
        "tool_choice": "auto",
        "response_format": {"type": "json_object"},
    }
    _call("sdk", base, **params)
    _call("auto", base, **params)
    assert _sdk_sent(server.headers[0]) and not _sdk_sent(server.headers[1])
    assert server.requests[0] == server.requests[1]  # identical JSON request bodies
    assert len(server.requests[1]["messages"]) == 4 and server.requests[1]["tools"] == TOOLS
    assert all(_header(h, "Authorization") == f"Bearer {KEY}" for h in server.headers)
    assert FLAG not in os.environ  # only set while our call was in flight
    assert GATE.state() == (0, 0, 0)


def test_llm_transport_organization_keeps_the_sdk(chat_server: Any) -> None:
    server, base = chat_server
    _call("auto", base, organization="org-test")
    assert _sdk_sent(server.headers[0])
    assert _header(server.headers[0], "OpenAI-Organization") == "org-test"


def test_llm_transport_env_project_keeps_the_sdk(
    chat_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    server, base = chat_server
    monkeypatch.setenv("OPENAI_PROJECT_ID", "proj-test")
    _call("auto", base)
    assert _sdk_sent(server.headers[0])
    assert _header(server.headers[0], "OpenAI-Project") == "proj-test"


@pytest.mark.parametrize(("value", "sdk"), [("false", True), ("true", False)])
def test_llm_transport_user_setting_wins(
    chat_server: Any, monkeypatch: pytest.MonkeyPatch, value: str, sdk: bool
) -> None:
    server, base = chat_server
    monkeypatch.setenv(FLAG, value)
    _call("auto", base)
    assert _sdk_sent(server.headers[0]) is sdk
    assert os.environ[FLAG] == value  # untouched


def test_llm_transport_gate_modes_never_overlap_and_all_finish() -> None:
    gate = FlagGate()
    rng = random.Random(0)
    modes: list[Mode] = ["direct", "sdk"]
    plan = [rng.choice(modes) for _ in range(60)]
    seen: list[tuple[str, str | None]] = []

    async def one(mode: Mode, delay: float) -> None:
        assert await gate.enter(mode)
        try:
            for _ in range(3):
                seen.append((mode, os.environ.get(FLAG)))
                direct, sdk, _ = gate.state()
                assert not (direct and sdk)
                await asyncio.sleep(delay)
        finally:
            gate.exit(mode)

    async def main() -> None:
        await asyncio.wait_for(
            asyncio.gather(*(one(m, rng.uniform(0, 0.004)) for m in plan)), timeout=20
        )

    asyncio.run(main())
    assert len(seen) == 3 * len(plan)
    assert all((flag == "true") == (mode == "direct") for mode, flag in seen)
    assert FLAG not in os.environ and gate.state() == (0, 0, 0)


def test_llm_transport_cancelled_waiter_leaves_no_ticket() -> None:
    gate = FlagGate()

    async def main() -> None:
        assert await gate.enter("direct")
        waiter = asyncio.ensure_future(gate.enter("sdk"))
        await asyncio.sleep(0.01)
        assert gate.state() == (1, 0, 1)
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiter
        gate.exit("direct")

    asyncio.run(main())
    assert gate.state() == (0, 0, 0) and FLAG not in os.environ
