"""On-disk response cache: one JSON file per request hash, written atomically.

The key hashes the model, messages, tools, the parameters without credentials
(:func:`reliability_lab._secrets.public_params`) and ``cache_key_extra`` (the run identity).
Entries hold only the response (assistant message, cost, tokens, latency, attempts) — never a
parameter, header or key; a key the provider echoes in its reply is redacted like every
string the package writes (:func:`reliability_lab._secrets.redact_strings`).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from reliability_lab._files import write_text_atomic
from reliability_lab._secrets import public_params, redact_strings

__all__ = ["ResponseCache", "cache_key"]

_VERSION = 1


def cache_key(
    model: str,
    messages: Any,
    tools: Any,
    params: Mapping[str, Any],
    extra: str,
) -> str:
    """SHA-256 hex digest identifying a request (secrets excluded)."""
    payload = {
        "v": _VERSION,
        "model": model,
        "messages": messages,
        "tools": tools,
        "params": public_params(params),
        "extra": extra,
    }
    text = json.dumps(payload, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


class ResponseCache:
    """A directory of cached responses; safe for concurrent writers (atomic replace).

    A reader never sees a partial file: entries are written to a temporary file in the same
    directory and renamed into place. (No fsync: a killed process loses nothing; a power cut may
    lose recent entries, which are then simply recomputed.)
    """

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored entry, or None when absent or unreadable (then it is recomputed)."""
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("version") != _VERSION:
            return None
        if data.get("cost_usd") is None:
            data["cost_usd"] = math.nan
        return data

    def put(self, key: str, entry: Mapping[str, Any]) -> None:
        """Store ``entry`` (JSON-serialisable; NaN cost stored as null) atomically."""
        record = dict(entry, version=_VERSION)
        cost = record.get("cost_usd")
        if isinstance(cost, float) and math.isnan(cost):
            record["cost_usd"] = None
        text = json.dumps(redact_strings(record), allow_nan=False, sort_keys=True)
        write_text_atomic(self._path(key), text, durable=False)
