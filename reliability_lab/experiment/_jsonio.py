"""NaN-safe JSON helpers and secret redaction shared by the result writers.

JSON has no NaN or infinity; every file this package writes stores them as ``null`` (the
run-table reader turns ``null`` back into NaN for numeric columns). Writes of whole files
are atomic (temporary file + :func:`os.replace`) so a crash never leaves half a file.
"""

from __future__ import annotations

import json
import math
import os
import re
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "REDACTED",
    "dumps",
    "is_secret_key",
    "looks_like_secret",
    "nan_safe",
    "redact",
    "write_json_atomic",
]

REDACTED = "<redacted>"

# Parameter names that carry credentials. ``max_tokens`` is *not* a secret, so bare "token"
# is not matched; only the credential-shaped compounds are.
_SECRET_KEY = re.compile(
    r"(^|[_-])(api[_-]?key|apikey|secret|password|passwd|authorization|auth|bearer|"
    r"access[_-]?token|auth[_-]?token|refresh[_-]?token|session[_-]?token|credentials?)($|[_-])",
    re.IGNORECASE,
)
# Values that look like provider keys or bearer credentials.
_SECRET_VALUE = re.compile(
    r"(\bsk-[A-Za-z0-9_\-]{6,}|\bBearer\s+\S{6,}|\b(?:xox[abp]|ghp|gho|AKIA)[A-Za-z0-9_\-]{8,})"
)


def is_secret_key(name: str) -> bool:
    """Whether a mapping key names a credential (``api_key``, ``Authorization``, ...)."""
    return bool(_SECRET_KEY.search(name))


def looks_like_secret(value: str) -> bool:
    """Whether a string looks like a provider key (``sk-...``) or a bearer credential."""
    return bool(_SECRET_VALUE.search(value))


def redact(obj: Any) -> Any:
    """Copy of ``obj`` with credential-named keys and key-like strings as ``<redacted>``."""
    if isinstance(obj, Mapping):
        return {k: (REDACTED if is_secret_key(str(k)) else redact(v)) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [redact(v) for v in obj]
    if isinstance(obj, str) and looks_like_secret(obj):
        return _SECRET_VALUE.sub(REDACTED, obj)
    return obj


def nan_safe(obj: Any) -> Any:
    """Copy of ``obj`` with NaN/±inf as ``None`` and numpy scalars/arrays as Python values."""
    if isinstance(obj, float | np.floating):
        value = float(obj)
        return value if math.isfinite(value) else None
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.bool_):
        return bool(obj)
    if isinstance(obj, np.ndarray):
        return [nan_safe(v) for v in obj.tolist()]
    if isinstance(obj, Mapping):
        return {str(k): nan_safe(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple | set | frozenset):
        return [nan_safe(v) for v in obj]
    return obj


def dumps(obj: Any, *, indent: int | None = None) -> str:
    """Strict JSON text of ``obj`` after :func:`nan_safe` (never emits ``NaN``)."""
    return json.dumps(nan_safe(obj), indent=indent, ensure_ascii=False, allow_nan=False)


def write_json_atomic(path: str | os.PathLike[str], obj: Any) -> None:
    """Write ``obj`` as indented NaN-safe JSON to ``path`` atomically."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    text = dumps(obj, indent=2) + "\n"
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
