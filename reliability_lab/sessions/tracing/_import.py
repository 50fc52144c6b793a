"""Import PandaProbe-style trace JSON (a list of traces, ``{"traces": [...]}`` or JSON Lines)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from reliability_lab.sessions.tracing._model import SpanKind, Trace

__all__ = ["TraceImportError", "group_sessions", "load_traces", "traces_from_json"]

_KINDS = ", ".join(k.value for k in SpanKind)


class TraceImportError(ValueError):
    """Trace data failed validation; the message names the source, the field and the value."""


def _field_path(prefix: str, loc: Sequence[int | str]) -> str:
    path = prefix
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


def _describe(exc: ValidationError, source: str, prefix: str) -> str:
    lines = []
    for err in exc.errors()[:5]:
        loc = [p for p in err["loc"] if not (isinstance(p, str) and p.startswith("function-"))]
        value = repr(err.get("input"))
        if len(value) > 80:
            value = value[:77] + "..."
        msg = err["msg"]
        if loc and loc[-1] == "kind":
            msg += f" (valid kinds: {_KINDS})"
        lines.append(f"{source}: {_field_path(prefix, loc)}: {msg}; got {value}")
    more = len(exc.errors()) - 5
    if more > 0:
        lines.append(f"... and {more} more error(s)")
    return "\n".join(lines)


def traces_from_json(data: Any, *, source: str = "<data>") -> list[Trace]:
    """Validate already-parsed trace JSON into :class:`Trace` objects.

    Parameters
    ----------
    data : list, dict
        A list of trace objects, a single trace object, or ``{"traces": [...]}``.
    source : str
        Name used in error messages (usually the file name).

    Raises
    ------
    TraceImportError
        Naming ``source``, the field path (``traces[2].spans[0].kind``) and the bad value.

    Examples
    --------
    >>> [t.id for t in traces_from_json([{"trace_id": "a", "output": "hi"}])]
    ['a']
    """
    if isinstance(data, dict) and "traces" in data:
        items, prefix = data["traces"], "traces"
    elif isinstance(data, dict):
        items, prefix = [data], "trace"
    else:
        items, prefix = data, "traces"
    if not isinstance(items, list):
        raise TraceImportError(
            f"{source}: {prefix}: expected a list of trace objects, got {type(items).__name__}"
        )
    traces: list[Trace] = []
    for i, item in enumerate(items):
        where = f"{prefix}[{i}]" if prefix == "traces" else prefix
        if not isinstance(item, dict):
            raise TraceImportError(f"{source}: {where}: expected a trace object, got {item!r:.80}")
        try:
            traces.append(Trace.model_validate(item))
        except ValidationError as exc:
            raise TraceImportError(_describe(exc, source, where)) from None
    return traces


def load_traces(path: str | os.PathLike[str]) -> list[Trace]:
    """Read PandaProbe-style traces from a ``.json`` or ``.jsonl`` file.

    A ``.json`` file holds a list of traces, one trace, or ``{"traces": [...]}``; a ``.jsonl``
    file holds one trace object per line. Errors name the file, line (JSONL), field and value.
    """
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise TraceImportError(f"{file}: cannot read trace file: {exc.strerror}") from None
    if file.suffix == ".jsonl":
        traces: list[Trace] = []
        for lineno, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise TraceImportError(f"{file}: line {lineno}: invalid JSON: {exc.msg}") from None
            traces.extend(traces_from_json(obj, source=f"{file}: line {lineno}"))
        return traces
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TraceImportError(
            f"{file}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
    return traces_from_json(obj, source=str(file))


def group_sessions(traces: Iterable[Trace]) -> dict[str, list[Trace]]:
    """Group traces by ``session_id`` (first-seen order), each ordered by ``start_time``.

    Traces without a start time keep their input order; mixing traces with and without start
    times in one session is an error, because their order would be a guess.
    """
    sessions: dict[str, list[Trace]] = {}
    for trace in traces:
        if trace.session_id is None:
            raise TraceImportError(f"trace {trace.id!r}: session_id is missing; cannot group it")
        sessions.setdefault(trace.session_id, []).append(trace)
    for sid, members in sessions.items():
        timed = [t.start_time is not None for t in members]
        if all(timed):
            members.sort(key=lambda t: t.start_time)  # type: ignore[arg-type,return-value]
        elif any(timed):
            raise TraceImportError(
                f"session {sid!r}: some traces have start_time and some do not; "
                "cannot order the session"
            )
    return sessions
