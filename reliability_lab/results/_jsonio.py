"""NaN-safe JSON helpers shared by the result writers.

JSON has no NaN or infinity; every file this package writes stores them as ``null`` (the
run-table reader turns ``null`` back into NaN for numeric columns). Writes of whole files
are atomic (temporary file + :func:`os.replace`) so a crash never leaves half a file.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

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
