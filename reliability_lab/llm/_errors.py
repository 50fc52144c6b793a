"""Categorised LLM call failures."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Iterable

from reliability_lab._secrets import redact_text

__all__ = ["CATEGORIES", "RETRYABLE", "LLMCallError", "categorize"]

CATEGORIES = (
    "rate_limit",
    "timeout",
    "server",
    "connection",
    "bad_response",
    "auth",
    "bad_request",
)
#: Categories retried with backoff (bad_response only a limited number of times).
RETRYABLE = frozenset({"rate_limit", "timeout", "server", "connection", "bad_response"})
_MAX_MESSAGE = 300


class LLMCallError(Exception):
    """An LLM call failed after retries, or with a non-retryable error.

    Attributes
    ----------
    category : str
        One of ``rate_limit``, ``timeout``, ``server``, ``connection``, ``bad_response``,
        ``auth``, ``bad_request``.
    attempts : int
        Attempts made (1 + retries).
    status_code : int or None
        HTTP status when known.

    ``str(err)`` is a short cause with secrets redacted.
    """

    def __init__(
        self, category: str, message: str, *, attempts: int = 1, status_code: int | None = None
    ) -> None:
        if category not in CATEGORIES:
            raise ValueError(f"unknown LLMCallError category {category!r}; valid: {CATEGORIES}")
        super().__init__(message)
        self.category = category
        self.attempts = attempts
        self.status_code = status_code


def _status(exc: BaseException) -> int | None:
    code = getattr(exc, "status_code", None)
    return code if isinstance(code, int) else None


def _category_by_name(exc: BaseException) -> str | None:
    litellm = sys.modules.get("litellm")  # not loaded: the exception cannot be one of its own
    if litellm is not None:
        ordered: list[tuple[tuple[type[BaseException], ...], str]] = [
            ((litellm.Timeout,), "timeout"),
            ((litellm.RateLimitError,), "rate_limit"),
            ((litellm.AuthenticationError, litellm.PermissionDeniedError), "auth"),
            (
                (
                    litellm.ContextWindowExceededError,
                    litellm.BadRequestError,
                    litellm.NotFoundError,
                    litellm.UnprocessableEntityError,
                    litellm.UnsupportedParamsError,
                    litellm.ContentPolicyViolationError,
                ),
                "bad_request",
            ),
            (
                (litellm.JSONSchemaValidationError, litellm.APIResponseValidationError),
                "bad_response",
            ),
            (
                (
                    litellm.InternalServerError,
                    litellm.ServiceUnavailableError,
                    litellm.BadGatewayError,
                ),
                "server",
            ),
            ((litellm.APIConnectionError,), "connection"),
        ]
        for types, category in ordered:
            if isinstance(exc, types):
                return category
    if isinstance(exc, asyncio.TimeoutError | TimeoutError):
        return "timeout"
    if isinstance(exc, json.JSONDecodeError):
        return "bad_response"
    if isinstance(exc, ConnectionError):
        return "connection"
    return None


def _category_by_status(code: int | None) -> str | None:
    if code is None:
        return None
    if code == 429:
        return "rate_limit"
    if code in (401, 403):
        return "auth"
    if code in (408, 504):
        return "timeout"
    if code >= 500:
        return "server"
    if 400 <= code < 500:
        return "bad_request"
    return None


_MALFORMED = (
    "expecting value",
    "expecting property name",
    "jsondecodeerror",
    "extra data",
    "unterminated string",
    "invalid control character",
    "invalid response object",
    "returned 'choices'",
    "no 'choices'",
    "malformed",
    "unexpected response",
)

# Credentials that cannot work, whatever the retry: a provider SDK refusing to start without a
# key, a rejected key, or the HTTP client refusing a URL that carries credentials beside the key's
# header (aiohttp under litellm >= 1.109, before any connection; older versions connect as is).
# litellm may wrap each as a 500.
_CREDENTIAL_PROBLEM = (
    "missing credentials",
    "api_key client option must be set",
    "no api key provided",
    "missing api key",
    "api key not found",
    "incorrect api key",
    "invalid api key",
    "invalid x-api-key",
    "credentials encoded in url",
)

_CONNECTION = (
    "connection error",
    "connection refused",
    "connecterror",
    "connection reset",
    "name or service not known",
    "nodename nor servname",
    "cannot connect to host",
    "connect call failed",
)


def _chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and the exceptions it was raised from (cause or context), outermost first."""
    out: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and len(out) < 10 and current not in out:
        out.append(current)
        current = current.__cause__ or current.__context__
    return out


def _connection_in_chain(exc: BaseException) -> bool:
    """A refused/reset connection somewhere in the chain (litellm may report it as a 500)."""
    for inner in _chain(exc)[1:]:
        if isinstance(inner, ConnectionError):
            return True
        module = type(inner).__module__.split(".")[0]
        name = type(inner).__name__
        if module in ("aiohttp", "httpx", "httpcore") and "Connect" in name:
            return True
    return False


def _looks_malformed(text: str) -> bool:
    low = text.lower()
    return any(s in low for s in _MALFORMED)


def categorize(exc: BaseException, *, secrets: Iterable[str] = ()) -> LLMCallError:
    """Map a provider exception to an :class:`LLMCallError` (message redacted, truncated).

    litellm reports an unparseable body as a server or connection error; those whose message
    shows a decoding failure are categorised ``bad_response``.
    """
    if isinstance(exc, LLMCallError):
        return exc
    code = _status(exc)
    text = redact_text(f"{type(exc).__name__}: {exc}", secrets)
    category = _category_by_name(exc) or _category_by_status(code) or "connection"
    if category in ("server", "connection", "bad_request") and any(
        s in text.lower() for s in _CREDENTIAL_PROBLEM
    ):
        category = "auth"  # a key that cannot work: never retried, never "server"
    elif category in ("server", "connection") and _looks_malformed(text):
        category = "bad_response"
    elif category == "server" and (
        any(s in text.lower() for s in _CONNECTION) or _connection_in_chain(exc)
    ):
        category = "connection"  # litellm wraps a refused/reset connection as a 500
    text = " ".join(text.split())
    if len(text) > _MAX_MESSAGE:
        text = text[: _MAX_MESSAGE - 3] + "..."
    return LLMCallError(category, text, status_code=code)
