"""The one secret policy (reliability_lab._secrets): every decision as a table."""

from __future__ import annotations

import json
from typing import Any

import pytest

from reliability_lab._secrets import (
    REDACTED,
    find_secret,
    is_secret_name,
    looks_like_secret,
    public_params,
    redact,
    redact_text,
    secret_values,
)

# The two former implementations disagreed on headers/token/key (and auth/bearer/api-key);
# those names are here with the decision taken.
SECRET_NAMES = [
    "api_key",
    "API_KEY",
    "api-key",
    "apiKey",
    "apikey",
    "x-api-key",
    "X-API-Key",
    "x-goog-api-key",
    "OPENAI_API_KEY",
    "key",
    "private_key",
    "aws_access_key_id",
    "aws_secret_access_key",
    "token",
    "access_token",
    "accessToken",
    "refresh_token",
    "azure_ad_token",
    "aws_session_token",
    "HF_TOKEN",
    "secret",
    "client_secret",
    "password",
    "db_password",
    "passwd",
    "passphrase",
    "credentials",
    "vertex_credentials",
    "auth",
    "Authorization",
    "Proxy-Authorization",
    "bearer",
    "Cookie",
    "sig",
    "signature",
]
ORDINARY_NAMES = [
    "max_tokens",
    "max_completion_tokens",
    "max_new_tokens",
    "top_logprobs",
    "logprobs",
    "temperature",
    "seed",
    "model",
    "api_base",
    "base_url",
    "api_version",
    "headers",
    "extra_headers",
    "extra_body",
    "response_format",
    "tool_choice",
    "prompt_cache_key",
    "prompt-cache-key",
    "keywords",
    "tokenizer",
    "author",
    "monkey",
    "signal_weights",
    "pass_threshold",
    "organization",
    "user",
]


@pytest.mark.parametrize("name", SECRET_NAMES)
def test_secret_names(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize("name", ORDINARY_NAMES)
def test_ordinary_names(name: str) -> None:
    assert not is_secret_name(name)


SECRET_VALUES = [
    "sk-proj-abcdefghijklmnop",
    "sk-ant-api03-abcdefgh12",
    "my key is sk-abcdefghijkl, keep it",
    "Bearer abcdefgh12345",
    "Bearer abcdefghijklmnopqrstuvwxyz",
    "Basic dXNlcjpwYXNzd29yZA==",
    "AKIAIOSFODNN7EXAMPLE",
    "ghp_" + "a1" * 18,
    "github_pat_11ABCDEFG0123456789_abcdef",
    "xoxb-123456789012-abcdef",
    "AIza" + "B" * 35,
    "hf_" + "c" * 30,
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJl",
    # credentials in URLs
    "http://user:pass@host/v1",
    "https://tok123@host/v1",
    "https://h/v1?api-key=abc",
    "https://h/v1?key=abc",
    "https://h/v1?token=abc",
    "https://h/v1?x=1&access_token=abc",
    "https://acct.blob.core.windows.net/c?sv=2020-01-01&sig=abc",
    "see http://u:p@localhost:4000/v1 for details",
]
ORDINARY_VALUES = [
    "gpt-4o-mini",
    "openai/gpt-4o-mini",
    "https://api.openai.com/v1",
    "http://localhost:4000/v1?api-version=2024-02-01",
    "http://h/v1?key=",  # no value, nothing to leak
    "sk-learn",
    "sklearn",
    "Bearer",
    "Bearer bonds are risky",
    "Basic information about the task",
    "the key to success",
    "task-specific",
    "user@example.com",
    "mailto:user@example.com",
    REDACTED,
    f"http://{REDACTED}@h/v1?key={REDACTED}",
]


@pytest.mark.parametrize("value", SECRET_VALUES)
def test_secret_values_are_recognised_and_redacted(value: str) -> None:
    assert looks_like_secret(value)
    assert find_secret({"p": value}) is not None
    out = redact(value)
    assert REDACTED in out and not looks_like_secret(out)
    assert redact(out) == out  # idempotent


@pytest.mark.parametrize("value", ORDINARY_VALUES)
def test_ordinary_values_are_kept(value: str) -> None:
    assert not looks_like_secret(value)
    assert find_secret({"p": value}) is None
    assert redact(value) == value


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://user:pass@host:8080/v1", f"http://{REDACTED}@host:8080/v1"),
        ("https://h/v1?api-key=abc&v=2", f"https://h/v1?api-key={REDACTED}&v=2"),
        ("https://h/v1?v=2&key=abc#frag", f"https://h/v1?v=2&key={REDACTED}#frag"),
        (
            "https://u:p@h/v1?token=t&api-version=1",
            f"https://{REDACTED}@h/v1?token={REDACTED}&api-version=1",
        ),
    ],
)
def test_url_credentials_are_replaced_and_the_rest_kept(url: str, expected: str) -> None:
    assert redact(url) == expected
    assert redact_text(f"cannot reach {url}: refused") == f"cannot reach {expected}: refused"


@pytest.mark.parametrize(
    ("obj", "where"),
    [
        ({"api_key": "x"}, "'params.api_key' is a credential name"),
        ({"headers": {"Authorization": "x"}}, "'params.headers.Authorization' is a credential"),
        ({"extra_headers": {"X-Api-Key": "x"}}, "'params.extra_headers.X-Api-Key' is"),
        ({"stop": ["a", "sk-abcdefghijkl"]}, "'params.stop[1]' holds credentials (an API key"),
        ({"api_base": "http://u:p@h/v1"}, "'params.api_base' holds credentials (user:password"),
        ({"api_base": "https://h/v1?key=k"}, "'params.api_base' holds credentials (query param"),
    ],
)
def test_find_secret_names_the_path_never_the_secret(obj: dict[str, Any], where: str) -> None:
    found = find_secret(obj, "params")
    assert found is not None and found.startswith(where)
    assert "sk-abcdefghijkl" not in found and "u:p" not in found


def test_headers_are_judged_entry_by_entry() -> None:
    params = {"extra_headers": {"X-Request-Source": "lab", "Authorization": "Bearer abcdefgh123"}}
    assert find_secret({"extra_headers": {"X-Request-Source": "lab"}}) is None
    assert redact(params) == {
        "extra_headers": {"X-Request-Source": "lab", "Authorization": REDACTED}
    }
    assert public_params(params) == {"extra_headers": {"X-Request-Source": "lab"}}


def test_redaction_covers_nesting_and_leaves_no_secret() -> None:
    data = {
        "api_key": "sk-abcdefghijkl",
        "max_tokens": 5,
        "agents": [{"params": {"api_base": "http://u:pw@h/v1", "temperature": 0.2}}],
        "note": ("Bearer abcdefgh1234", 3),
    }
    out = redact(data)
    assert out == {
        "api_key": REDACTED,
        "max_tokens": 5,
        "agents": [{"params": {"api_base": f"http://{REDACTED}@h/v1", "temperature": 0.2}}],
        "note": [REDACTED, 3],
    }
    assert find_secret(out) == "'api_key' is a credential name"  # the name stays, not its value
    text = json.dumps(out)
    assert "sk-abcdefghijkl" not in text and "pw" not in text and "abcdefgh1234" not in text
    assert data["api_key"] == "sk-abcdefghijkl"  # the input is not modified


def test_public_params_drops_secret_entries_so_cache_keys_ignore_them() -> None:
    params = {"api_key": "k", "temperature": 0.1, "api_base": "https://u:p@h/v1?key=z"}
    assert public_params(params) == {
        "temperature": 0.1,
        "api_base": f"https://{REDACTED}@h/v1?key={REDACTED}",
    }


def test_secret_values_lists_what_error_text_must_not_show() -> None:
    params = {
        "api_key": "k-123456",
        "headers": {"X-Api-Key": "h-123456", "Accept": "json"},
        "api_base": "https://u:pw-123456@h/v1?token=t-123456&v=1",
        "model": "m",
    }
    assert sorted(secret_values(params)) == ["h-123456", "k-123456", "pw-123456", "t-123456"]


@pytest.mark.parametrize(
    ("text", "gone", "kept"),
    [
        ('api_key="abcd1234efgh" rest', "abcd1234efgh", "rest"),
        ("{'Authorization': 'Bearer tok_9876543210'}", "tok_9876543210", "Authorization"),
        ('{"x-api-key": "zzzz9999yyyy"}', "zzzz9999yyyy", "x-api-key"),
        ("token=abc123def&n=1", "abc123def", "n=1"),
        ("Incorrect API key provided: sk-proj-XYZ123456", "XYZ123456", "Incorrect API key"),
        ("Connection to http://me:hunter22@h/v1 refused", "hunter22", "refused"),
    ],
)
def test_redact_text_removes_credentials(text: str, gone: str, kept: str) -> None:
    out = redact_text(text)
    assert gone not in out and kept in out and REDACTED in out


@pytest.mark.parametrize(
    "text",
    [
        "KeyError: 'choices'",
        "max_tokens=5 is too large",
        "Expecting value: line 1 column 1 (char 0)",
        "404 page not found at https://h/v1/chat/completions",
    ],
)
def test_redact_text_keeps_ordinary_messages(text: str) -> None:
    assert redact_text(text) == text


def test_redact_text_removes_given_values_and_secret_environment_values(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MY_SERVICE_TOKEN", "zz-very-private-value")
    monkeypatch.setenv("MY_SERVICE_REGION", "eu-west-private-ish")  # not a secret name
    text = "failed with zz-very-private-value and opaque-123456 in eu-west-private-ish"
    out = redact_text(text, ["opaque-123456"])
    assert out == f"failed with {REDACTED} and {REDACTED} in eu-west-private-ish"


def test_shipped_configs_have_nothing_to_redact() -> None:
    """No false positive on real settings: the written copy of a config equals the config."""
    from pathlib import Path

    from reliability_lab.experiment.config import load_config

    configs = sorted((Path(__file__).resolve().parents[1] / "experiments").glob("*.yaml"))
    assert configs
    for path in configs:
        dumped = load_config(path).model_dump(mode="json")
        assert redact(dumped) == dumped, path
        assert find_secret(dumped) is None, path
