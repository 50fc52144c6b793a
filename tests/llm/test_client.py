"""LLMClient through litellm's real HTTP path against a scripted local server."""

from __future__ import annotations

import math
import socket
from pathlib import Path

import pytest

from reliability_lab.llm import LLMCallError, LLMClient
from reliability_lab.llm._cache import cache_key
from reliability_lab.llm._errors import RETRYABLE, categorize
from tests.fake_openai_server import chat_body

MSGS = [{"role": "user", "content": "hi"}]
KEY = "sk-test-secret-0123456789"


def _client(**kw: object) -> LLMClient:
    # a generous timeout: these calls are answered, however loaded the machine is
    return LLMClient(max_retries=2, backoff_base_s=0.01, backoff_max_s=0.02, timeout_s=120, **kw)  # type: ignore[arg-type]


def _call(client: LLMClient, base: str, **kw: object):  # type: ignore[no-untyped-def]
    return client.completion(
        model="openai/test-model", messages=MSGS, api_base=base, api_key=KEY, **kw
    )


def test_llm_ok_returns_message_tokens_and_unknown_cost_as_nan(chat_server) -> None:
    server, base = chat_server
    out = _call(_client(), base)
    assert out.message == {"role": "assistant", "content": "hello"}
    assert (out.prompt_tokens, out.completion_tokens, out.attempts) == (11, 7, 1)
    assert math.isnan(out.cost_usd)  # "test-model" has no price: unknown, never 0
    assert out.latency_s > 0 and not out.cached
    assert server.requests[0]["messages"] == MSGS


@pytest.mark.parametrize("code", [429, 500, 502, 503])
def test_llm_retryable_status_then_success(chat_server, code: int) -> None:
    server, base = chat_server
    server.script = [("status", code), ("ok", chat_body("fine"))]
    out = _call(_client(), base)
    assert out.message["content"] == "fine"
    assert out.attempts == 2 and len(server.requests) == 2


@pytest.mark.parametrize(
    ("action", "category"),
    [
        (("status", 429), "rate_limit"),
        (("status", 500), "server"),
        (("malformed", None), "bad_response"),
        (("ok", {"foo": 1}), "bad_response"),
    ],
)
def test_llm_retries_exhausted_are_categorised(chat_server, action, category) -> None:
    server, base = chat_server
    server.script = [action]
    with pytest.raises(LLMCallError) as info:
        _call(_client(), base)
    assert info.value.category == category
    assert info.value.attempts == 3 == len(server.requests)  # 1 + max_retries


@pytest.mark.parametrize(
    ("code", "category"), [(401, "auth"), (403, "auth"), (400, "bad_request"), (404, "bad_request")]
)
def test_llm_auth_and_bad_request_not_retried(chat_server, code: int, category: str) -> None:
    server, base = chat_server
    server.script = [("status", code)]
    with pytest.raises(LLMCallError) as info:
        _call(_client(), base)
    assert info.value.category == category
    assert len(server.requests) == 1
    assert KEY not in str(info.value)


def test_llm_timeout_is_retried_then_categorised(chat_server) -> None:
    server, base = chat_server
    server.script = [("hang", None)]  # never answers: the timeout fires whatever the speed
    client = LLMClient(max_retries=1, backoff_base_s=0.0, timeout_s=0.3)
    with pytest.raises(LLMCallError) as info:
        _call(client, base)
    assert info.value.category == "timeout" and info.value.attempts == 2


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def test_llm_connection_refused() -> None:
    with pytest.raises(LLMCallError) as info:
        _call(
            LLMClient(max_retries=1, backoff_base_s=0.0, timeout_s=120),
            f"http://127.0.0.1:{_free_port()}/v1",
        )
    assert info.value.category == "connection" and info.value.attempts == 2


@pytest.mark.parametrize(
    ("template", "categories"),
    [
        # the key rides in the query: the connection is attempted, refused, retried
        ("http://127.0.0.1:{port}/v1?api-key={token}", {"connection"}),
        # credentials in the userinfo as well: litellm < 1.109 connects and is refused
        # ("connection"); later versions' HTTP client refuses to send credentials both in the URL
        # and in the key's header before connecting — a setup no retry can mend ("auth")
        ("http://alice:{password}@127.0.0.1:{port}/v1?api-key={token}", {"connection", "auth"}),
    ],
)
def test_llm_error_never_shows_credentials_of_the_api_base(
    template: str, categories: set[str]
) -> None:
    password, token = "pw-0123456789abc", "qtok-0123456789abc"
    base = template.format(password=password, token=token, port=_free_port())
    with pytest.raises(LLMCallError) as info:
        _call(LLMClient(max_retries=1, backoff_base_s=0.0, timeout_s=120), base)
    error = info.value
    assert error.category in categories, str(error)
    # retried exactly when a retry could help (RETRYABLE is the client's own rule)
    assert error.attempts == (2 if error.category in RETRYABLE else 1)
    assert password not in str(error) and token not in str(error)
    assert KEY not in str(error)


def test_llm_credentials_refused_by_the_http_client_are_auth_never_retried() -> None:
    # The message aiohttp gives (wrapped by litellm >= 1.109 as a 500) for a URL with userinfo
    # beside an Authorization header; independent of the installed litellm version.
    exc = RuntimeError(
        "litellm.InternalServerError: OpenAIException - Cannot combine AUTHORIZATION header "
        "with AUTH argument or credentials encoded in URL"
    )
    exc.status_code = 500  # type: ignore[attr-defined]
    assert categorize(exc).category == "auth"


def test_llm_cache_key_ignores_credentials_in_params() -> None:
    def key(**params: object) -> str:
        return cache_key("openai/m", MSGS, None, params, "run=0")

    plain = key(api_base="http://h/v1", temperature=0.5)
    assert plain == key(api_base="http://h/v1", temperature=0.5, api_key=KEY)
    headed = key(api_base="http://h/v1", extra_headers={"X-Api-Key": KEY, "X-Source": "lab"})
    assert headed == key(
        api_base="http://h/v1", extra_headers={"X-Api-Key": "other", "X-Source": "lab"}
    )
    assert headed != key(api_base="http://h/v1", extra_headers={"X-Api-Key": KEY, "X-Source": "ci"})
    assert plain != key(api_base="http://h/v1", temperature=0.6)
    with_user = key(api_base="http://u:p1@h/v1?key=k1")
    assert with_user == key(api_base="http://u:p2@h/v1?key=k2")
    assert with_user != key(api_base="http://u:p1@other/v1?key=k1")  # the host still counts


def test_llm_tool_calls_are_normalised(chat_server) -> None:
    server, base = chat_server
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "get_user", "arguments": '{"user_id": "U1"}'},
    }
    server.script = [("ok", chat_body(None, [call]))]
    tools = [
        {
            "type": "function",
            "function": {
                "name": "get_user",
                "parameters": {"type": "object", "properties": {"user_id": {"type": "string"}}},
            },
        }
    ]
    out = _call(_client(), base, tools=tools)
    assert out.message == {"role": "assistant", "content": None, "tool_calls": [call]}
    assert server.requests[0]["tools"] == tools


def test_llm_cache_hit_rerun_and_run_identity(chat_server, tmp_path: Path) -> None:
    server, base = chat_server
    client = _client(cache_dir=tmp_path)
    first = _call(client, base, cache_key_extra="run=0", temperature=0.5)
    again = _call(client, base, cache_key_extra="run=0", temperature=0.5)
    other_run = _call(client, base, cache_key_extra="run=1", temperature=0.5)
    other_key = client.completion(
        model="openai/test-model",
        messages=MSGS,
        api_base=base,
        api_key="sk-another-key-987654321",
        cache_key_extra="run=0",
        temperature=0.5,
    )
    assert len(server.requests) == 2  # first and other_run; the key is not part of the key
    assert again.cached and not first.cached and not other_run.cached and other_key.cached
    assert again.message == first.message and again.prompt_tokens == first.prompt_tokens
    stored = "".join(p.read_text() for p in tmp_path.rglob("*.json"))
    assert KEY not in stored and "api_key" not in stored and "sk-" not in stored


def test_llm_cache_ignores_corrupt_entries(chat_server, tmp_path: Path) -> None:
    server, base = chat_server
    client = _client(cache_dir=tmp_path)
    _call(client, base)
    for path in tmp_path.rglob("*.json"):
        path.write_text("{truncated")
    assert not _call(client, base).cached
    assert len(server.requests) == 2


def test_llm_mock_response_path_and_known_cost() -> None:
    out = LLMClient().completion(model="openai/gpt-4o-mini", messages=MSGS, mock_response="mocked")
    assert out.message["content"] == "mocked"
    # litellm's bundled price for gpt-4o-mini: $0.15/M input, $0.60/M output tokens
    expected = out.prompt_tokens * 0.15e-6 + out.completion_tokens * 0.60e-6
    assert out.cost_usd == pytest.approx(expected)


def test_llm_backoff_is_exponential_with_jitter() -> None:
    client = LLMClient(backoff_base_s=0.5, backoff_max_s=8.0)
    for retry, full in [(0, 0.5), (1, 1.0), (3, 4.0), (6, 8.0)]:
        delays = [client.backoff_delay(retry) for _ in range(50)]
        assert all(full / 2 <= d <= full for d in delays)
        assert len(set(delays)) > 1


def test_llm_sim_embeddings_are_deterministic_unit_vectors() -> None:
    client = LLMClient()
    a, b, c = client.embedding(
        model="sim/embed", texts=["refund my order", "refund my order", "weather today"]
    )
    assert a == b and a != c
    assert sum(x * x for x in a) == pytest.approx(1.0)
