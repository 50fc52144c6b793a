"""NaN-safe JSON helpers shared by the result writers.

JSON has no NaN or infinity; every file this package writes stores them as ``null`` (the
run-table reader turns ``null`` back into NaN for numeric columns). Writes of whole files
are atomic (temporary file + :func:`os.replace`) so a crash never leaves half a file, and
every string written passes the secret redaction.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from typing import Any

import numpy as np

from reliability_lab._files import write_text_atomic
from reliability_lab._secrets import redact_strings

__all__ = [
    "dumps",
    "nan_safe",
    "write_json_atomic",
]


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
    """Strict JSON text of ``obj`` after :func:`nan_safe` (never emits ``NaN``), with every
    string redacted (:func:`reliability_lab._secrets.redact_strings`): whatever a run writes
    passes the same secret policy as error messages."""
    safe = redact_strings(nan_safe(obj))
    return json.dumps(safe, indent=indent, ensure_ascii=False, allow_nan=False)


def write_json_atomic(path: str | os.PathLike[str], obj: Any) -> None:
    """Write ``obj`` as indented NaN-safe JSON to ``path`` atomically and durably.

    Every string passes the secret redaction first (:func:`dumps`); the file gets the
    package's one permission rule (:mod:`reliability_lab._files`).
    """
    write_text_atomic(path, dumps(obj, indent=2) + "\n")
