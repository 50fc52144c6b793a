"""Keep secrets out of cache keys, error messages and logs."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["is_secret_param", "public_params", "redact_secrets"]

_SECRET_NAMES = frozenset(
    {
        "api_key",
        "key",
        "token",
        "secret",
        "password",
        "authorization",
        "headers",
        "extra_headers",
        "azure_ad_token",
        "vertex_credentials",
        "client_secret",
        "aws_access_key_id",
        "aws_secret_access_key",
        "aws_session_token",
    }
)
_PATTERNS = (
    re.compile(r"sk-[A-Za-z0-9_\-]{6,}"),
    re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=\-]{6,}"),
    re.compile(
        r"(?i)((?:api[_-]?key|x-api-key|authorization|access[_-]?token|secret|password)"
        r"[\"']?\s*[:=]\s*[\"']?)([^\s\"',}&]{4,})"
    ),
    re.compile(r"(?i)([?&](?:key|api_key|token)=)([^&\s\"']+)"),
)
_ENV_MARKERS = ("KEY", "TOKEN", "SECRET", "PASSWORD")
REDACTED = "[REDACTED]"


def is_secret_param(name: str) -> bool:
    """Whether a call parameter may hold a credential (never hashed, stored or logged).

    >>> is_secret_param("api_key"), is_secret_param("max_tokens"), is_secret_param("aws_secret")
    (True, False, True)
    """
    low = name.lower()
    return (
        low in _SECRET_NAMES
        or low.endswith(("_key", "_token", "_secret", "_password", "_credentials"))
        or "secret" in low
        or "password" in low
    )


def public_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` without secret-bearing entries."""
    return {k: v for k, v in params.items() if not is_secret_param(k)}


def _env_secrets() -> list[str]:
    return [
        value
        for name, value in os.environ.items()
        if any(m in name.upper() for m in _ENV_MARKERS) and len(value) >= 8
    ]


def redact_secrets(text: str, extra: Iterable[str] = ()) -> str:
    """Replace API keys and bearer tokens in ``text`` by ``[REDACTED]``.

    Removes the given ``extra`` values, the values of environment variables whose names contain
    KEY/TOKEN/SECRET/PASSWORD, and anything shaped like a key (``sk-...``, ``Bearer ...``,
    ``api_key=...``).

    >>> redact_secrets("401: Incorrect API key provided: sk-abc123456789")
    '401: Incorrect API key provided: [REDACTED]'
    >>> redact_secrets("headers {'Authorization': 'Bearer xyz987654'}")
    "headers {'Authorization': '[REDACTED]'}"
    """
    for value in sorted({*extra, *_env_secrets()}, key=len, reverse=True):
        if value and len(value) >= 4:
            text = text.replace(value, REDACTED)
    text = _PATTERNS[0].sub(REDACTED, text)
    text = _PATTERNS[1].sub(REDACTED, text)
    text = _PATTERNS[2].sub(lambda m: m.group(1) + REDACTED, text)
    return _PATTERNS[3].sub(lambda m: m.group(1) + REDACTED, text)


def secret_values(params: Mapping[str, Any]) -> list[str]:
    """String values of secret parameters (to redact from error text)."""
    out: list[str] = []
    for k, v in params.items():
        if is_secret_param(k):
            if isinstance(v, str):
                out.append(v)
            elif isinstance(v, Mapping):
                out.extend(str(x) for x in v.values())
    return out
