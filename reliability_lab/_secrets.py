"""The one secret policy: which names, values and URLs carry credentials, and how to hide them.

Every place that checks or writes parameters uses this module (and nothing else): config
validation (a secret in a config file is an error), ``RunSpec`` parameters, ``header.json`` and
``summary.json`` (redacted copies), the LLM response-cache key (secrets dropped), LLM error
messages (secrets replaced) and every string any file of a run holds (:func:`redact_strings`:
results, traces, header, summary, response cache). The rules are documented in
``experiments/README.md``, 'Secrets'; stdlib only, so importing it costs nothing.

Rules
-----
*Names.* A name is split into lower-case words at ``_``, ``-``, ``.``, spaces and camelCase
boundaries (``x-api-key`` → ``x api key``, ``accessToken`` → ``access token``). It names a
secret when one of its words is a credential word — ``key``, ``apikey``, ``token``, ``secret``,
``password``, ``passwd``, ``passphrase``, ``credential(s)``, ``auth``, ``authorization``,
``bearer``, ``cookie``, ``signature``, ``sig`` — and it is not one of the few ordinary model
parameters that contain such a word (:data:`ORDINARY_PARAMS`, e.g. ``prompt_cache_key``).
Plural counts are ordinary: ``max_tokens``, ``max_completion_tokens``, ``top_logprobs``.
Containers such as ``headers`` and ``extra_headers`` are not secrets themselves; their entries
are judged one by one (``Authorization`` is, ``X-Request-Source`` is not).

*Values.* A string is a secret when it contains a provider-key shape (``sk-…``, ``Bearer …``,
``Basic …``, AWS ``AKIA…``/``ASIA…``, GitHub ``ghp_…``/``github_pat_…``, Slack ``xox…-``,
Google ``AIza…``, Hugging Face ``hf_…``, a JWT) or a URL carrying credentials: a userinfo part
(``http://user:pass@host``) or a query parameter whose name is a secret name (``?api-key=…``,
``?key=…``, ``?token=…``).

The redaction marker :data:`REDACTED` is never itself a secret, so redacting twice changes
nothing and a redacted config validates.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import SplitResult, parse_qsl, urlsplit

__all__ = [
    "ORDINARY_PARAMS",
    "REDACTED",
    "SECRET_WORDS",
    "find_secret",
    "is_secret_name",
    "looks_like_secret",
    "public_params",
    "redact",
    "redact_strings",
    "redact_text",
    "secret_values",
]

REDACTED = "<redacted>"

#: Words that make a name a credential (after splitting the name into words).
SECRET_WORDS = frozenset(
    {
        "key",
        "apikey",
        "token",
        "secret",
        "password",
        "passwd",
        "passphrase",
        "credential",
        "credentials",
        "auth",
        "authorization",
        "bearer",
        "cookie",
        "signature",
        "sig",
    }
)

#: Ordinary model parameters whose names contain a credential word.
ORDINARY_PARAMS = frozenset({"prompt_cache_key"})

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_WORD_SPLIT = re.compile(r"[^a-z0-9]+")

# Provider-key shapes. Each needs enough characters after its prefix that ordinary words do
# not match (``sk-learn`` is not a key; ``sk-proj-abc123…`` is).
_KEY_SHAPES = re.compile(
    r"\bsk-[A-Za-z0-9_\-]{8,}"
    # a credential after Bearer/Basic has a digit or symbol, or is too long for a word
    # ("Basic information" is prose)
    r"|\b(?:Bearer|Basic)\s+(?=[A-Za-z0-9._~+/=\-]{8,})"
    r"(?:[A-Za-z]*[0-9._~+/=\-][A-Za-z0-9._~+/=\-]*|[A-Za-z]{20,})"
    r"|\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"
    r"|\bgh[pousr]_[A-Za-z0-9]{20,}"
    r"|\bgithub_pat_[A-Za-z0-9_]{20,}"
    r"|\bxox[abprs]-[A-Za-z0-9\-]{10,}"
    r"|\bAIza[0-9A-Za-z_\-]{30,}"
    r"|\bhf_[A-Za-z0-9]{20,}"
    r"|\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]+"
)
# A URL inside any text (the scheme is required: bare host names carry no userinfo syntax).
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://(?:" + re.escape(REDACTED) + r"|[^\s\"'<>`])+")
# Assignments in free text: ``name=value`` and quoted ``"name": value`` / ``'name': value``.
# (An unquoted ``name: value`` is not one: ``KeyError: 'choices'`` must stay readable.)
_VALUE = r"(?P<value>(?:(?:Bearer|Basic)\s+)?[^\s\"',;}&)\]]+)"
_ASSIGNMENTS = (
    re.compile(r"(?P<name>\b[A-Za-z][A-Za-z0-9_.\-]*)(?P<sep>\s*=\s*[\"']?)" + _VALUE),
    re.compile(
        r"(?P<q>[\"'])(?P<name>[A-Za-z][A-Za-z0-9_.\-]*)(?P=q)(?P<sep>\s*:\s*[\"']?)" + _VALUE
    ),
)
# Shorter values of secret-named environment variables are not searched for in error text.
_MIN_SECRET_LEN = 8


def _words(name: str) -> list[str]:
    return [w for w in _WORD_SPLIT.split(_CAMEL.sub("_", name).lower()) if w]


def is_secret_name(name: str) -> bool:
    """Whether a parameter, header, query or variable name denotes a credential.

    >>> [is_secret_name(n) for n in ("api_key", "X-Api-Key", "Authorization", "accessToken")]
    [True, True, True, True]
    >>> [is_secret_name(n) for n in ("max_tokens", "headers", "prompt_cache_key", "seed")]
    [False, False, False, False]
    """
    if _normal(name) in ORDINARY_PARAMS:
        return False
    return any(word in SECRET_WORDS for word in _words(name))


def _normal(name: str) -> str:
    return "_".join(_words(name))


def _url_secret(url: str) -> str | None:
    """Why ``url`` carries credentials (``userinfo`` / ``query parameter 'x'``), else None."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    userinfo = parts.netloc.rpartition("@")[0] if "@" in parts.netloc else ""
    if userinfo and userinfo != REDACTED:
        return "user:password in the URL"
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        if _hides(name, value):
            return f"query parameter {name!r}"
    return None


def _hides(name: str, value: str) -> bool:
    """Whether ``name=value`` holds a credential not yet redacted."""
    return bool(value) and value != REDACTED and is_secret_name(name)


def _redact_url(url: str) -> str:
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{REDACTED}@{netloc.rpartition('@')[2]}"
    query = re.sub(
        r"(?P<name>[^&=;]+)=(?P<value>[^&;]*)",
        lambda m: f"{m['name']}={REDACTED}" if _hides(m["name"], m["value"]) else m[0],
        parts.query,
    )
    if (netloc, query) == (parts.netloc, parts.query):
        return url
    return SplitResult(parts.scheme, netloc, parts.path, query, parts.fragment).geturl()


def looks_like_secret(value: str) -> bool:
    """Whether a string contains a provider-key shape or a URL with credentials.

    >>> looks_like_secret("sk-proj-abcdefgh1234"), looks_like_secret("http://u:p@host/v1")
    (True, True)
    >>> looks_like_secret("https://api.example.com/v1"), looks_like_secret("gpt-4o-mini")
    (False, False)
    """
    return _value_secret(value) is not None


def _value_secret(value: str) -> str | None:
    if _KEY_SHAPES.search(value):
        return "an API key or bearer token"
    for match in _URL.finditer(value):
        why = _url_secret(match[0])
        if why is not None:
            return why
    return None


def find_secret(obj: Any, path: str = "") -> str | None:
    """Where ``obj`` (nested mappings, lists, strings) carries a credential, else None.

    The answer names the field path and the reason but never the secret itself, e.g.
    ``"'params.headers.Authorization' is a credential name"``.

    >>> find_secret({"temperature": 0.2, "headers": {"X-Source": "lab"}}) is None
    True
    >>> find_secret({"headers": {"Authorization": "x"}}, "params")
    "'params.headers.Authorization' is a credential name"
    >>> find_secret({"api_base": "http://me:pw@localhost:4000"}, "params")
    "'params.api_base' holds credentials (user:password in the URL)"
    """
    if isinstance(obj, Mapping):
        for key, item in obj.items():
            sub = f"{path}.{key}" if path else str(key)
            if is_secret_name(str(key)):
                return f"{sub!r} is a credential name"
            found = find_secret(item, sub)
            if found is not None:
                return found
    elif isinstance(obj, list | tuple):
        for i, item in enumerate(obj):
            found = find_secret(item, f"{path}[{i}]")
            if found is not None:
                return found
    elif isinstance(obj, str):
        why = _value_secret(obj)
        if why is not None:
            return f"{(path or '<value>')!r} holds credentials ({why})"
    return None


def redact(obj: Any, *, drop: bool = False) -> Any:
    """Copy of ``obj`` with every credential replaced by :data:`REDACTED`.

    Entries with a secret name get the marker as value (or are left out when ``drop``);
    strings have key shapes and URL credentials replaced (:func:`redact_text`). Mappings,
    lists and tuples are copied (tuples become lists); other values are returned as they are.

    >>> redact({"api_key": "x", "api_base": "https://u:p@h/v1?api-key=k&v=2", "n": 1})
    {'api_key': '<redacted>', 'api_base': 'https://<redacted>@h/v1?api-key=<redacted>&v=2', 'n': 1}
    """
    if isinstance(obj, Mapping):
        out: dict[Any, Any] = {}
        for key, item in obj.items():
            if is_secret_name(str(key)):
                if not drop:
                    out[key] = REDACTED
            else:
                out[key] = redact(item, drop=drop)
        return out
    if isinstance(obj, list | tuple):
        return [redact(item, drop=drop) for item in obj]
    if isinstance(obj, str):
        return _redact_shapes(obj)
    return obj


def public_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` without secret-named entries and with credentials in values redacted.

    What may enter a cache key: the same request with or without an ``api_key`` argument
    gets the same key.

    >>> public_params({"api_key": "k", "max_tokens": 5, "headers": {"Authorization": "a"}})
    {'max_tokens': 5, 'headers': {}}
    """
    result: dict[str, Any] = redact(params, drop=True)
    return result


def _redact_shapes(text: str) -> str:
    text = _URL.sub(lambda m: _redact_url(m[0]), text)
    return _KEY_SHAPES.sub(REDACTED, text)


def secret_values(obj: Any) -> list[str]:
    """The credential strings inside ``obj``: values under secret names, URL passwords and
    secret query values (to remove from error text, :func:`redact_text`).

    >>> secret_values({"api_key": "abc", "headers": {"X-Api-Key": "def"}, "model": "m"})
    ['abc', 'def']
    """
    out: list[str] = []
    if isinstance(obj, Mapping):
        for key, item in obj.items():
            if is_secret_name(str(key)):
                out.extend(_strings(item))
            else:
                out.extend(secret_values(item))
    elif isinstance(obj, list | tuple):
        for item in obj:
            out.extend(secret_values(item))
    elif isinstance(obj, str):
        for match in _URL.finditer(obj):
            out.extend(_url_secret_values(match[0]))
    return out


def _strings(obj: Any) -> list[str]:
    if isinstance(obj, Mapping):
        return [s for item in obj.values() for s in _strings(item)]
    if isinstance(obj, list | tuple):
        return [s for item in obj for s in _strings(item)]
    return [str(obj)] if obj is not None and str(obj) else []


def _url_secret_values(url: str) -> list[str]:
    try:
        parts = urlsplit(url)
    except ValueError:
        return []
    out = [parts.password] if parts.password else []
    out += [v for n, v in parse_qsl(parts.query) if _hides(n, v)]
    return out


def _env_secrets() -> list[str]:
    """Values of environment variables with secret names (``OPENAI_API_KEY``, …)."""
    return [
        value
        for name, value in os.environ.items()
        if is_secret_name(name) and len(value) >= _MIN_SECRET_LEN
    ]


def redact_text(text: str, extra: Iterable[str] = ()) -> str:
    """``text`` (an error message, a log line) with every credential replaced.

    Removes the ``extra`` values (e.g. :func:`secret_values` of the call's parameters), the
    values of environment variables with secret names, key shapes, URL credentials and the
    values of ``name=value`` / ``"name": "value"`` assignments whose name is a secret name.

    >>> redact_text("401: Incorrect API key provided: sk-abc123456789")
    '401: Incorrect API key provided: <redacted>'
    >>> redact_text("headers {'Authorization': 'Bearer xyz987654'}")
    "headers {'Authorization': '<redacted>'}"
    """
    return _redact_text(text, _known_values(extra))


def _known_values(extra: Iterable[str] = ()) -> list[str]:
    """Secret values to remove from text, longest first (so a value's prefix goes last)."""
    values = {*extra, *_env_secrets()}
    return [v for v in sorted(values, key=len, reverse=True) if len(v) >= 4 and v != REDACTED]


def _redact_text(text: str, values: list[str]) -> str:
    for value in values:
        text = text.replace(value, REDACTED)
    text = _redact_shapes(text)
    for pattern in _ASSIGNMENTS:
        text = pattern.sub(_redact_assignment, text)
    return text


def redact_strings(obj: Any) -> Any:
    """Copy of ``obj`` with every string passed through :func:`redact_text`.

    What every file the package writes goes through (results, traces, header, summary,
    response cache): the values of secret-named environment variables, key shapes, URL
    credentials and ``name=value`` credentials are replaced wherever they appear — in a
    model's reply that echoes a key, in free text such as ``description``. Mapping keys are
    redacted as text too; mappings, lists and tuples are copied (tuples become lists).

    >>> redact_strings({"description": "uses token=abc123xyz", "n": [1, "sk-abcdefgh12345"]})
    {'description': 'uses token=<redacted>', 'n': [1, '<redacted>']}
    """
    return _redact_each(obj, _known_values())


def _redact_each(obj: Any, values: list[str]) -> Any:
    if isinstance(obj, str):
        return _redact_text(obj, values)
    if isinstance(obj, Mapping):
        return {_redact_each(k, values): _redact_each(v, values) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_redact_each(item, values) for item in obj]
    return obj


def _redact_assignment(match: re.Match[str]) -> str:
    if not _hides(match["name"], match["value"]) or match["value"].startswith(REDACTED):
        return match[0]
    return match[0][: match.start("value") - match.start()] + REDACTED
