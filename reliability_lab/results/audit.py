"""``results.audit.jsonl``: records taken out of ``results.jsonl``, kept with why and when.

Two operations remove records from ``results.jsonl``: a resume retries runs that ended in an
infrastructure error (their old records leave the run table; :mod:`.runner`), and
``reliability-lab repair`` drops duplicate and unplanned records (:mod:`.repair`). Neither
deletes anything: each removed line goes to the audit file first.

Crash safety of :func:`move_to_audit` — a kill at any moment loses no record and never leaves a
run twice in ``results.jsonl``:

1. the removed records are appended to the audit file in one write, then fsynced;
2. ``results.jsonl`` is replaced atomically by its kept lines, byte for byte
   (:func:`~reliability_lab.results.store.replace_lines`).

Killed before step 2 completes, ``results.jsonl`` is unchanged and the next attempt moves the
same records again; an audit entry already present (same record bytes, same reason) is not
written twice. Killed during step 1, the audit file may end in an incomplete line, which
:func:`read_audit` ignores and the next append starts after.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from reliability_lab._files import append_durably, open_append
from reliability_lab.results._jsonio import dumps
from reliability_lab.results.store import RESULTS_FILE, ResultLine, replace_lines

__all__ = ["AUDIT_FILE", "AuditMove", "audit_counts", "move_to_audit", "read_audit"]

AUDIT_FILE = "results.audit.jsonl"


@dataclass(frozen=True)
class AuditMove:
    """One record to take out of ``results.jsonl``."""

    entry: ResultLine
    """The line as read."""
    reason: str
    """Why, e.g. ``infrastructure error; run executed again`` or ``duplicate``."""
    detail: str = ""
    """More about it (e.g. which line was kept instead)."""


def _digest(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def read_audit(directory: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The audit entries of a results directory ([] when there is no audit file).

    Each entry: ``moved_at`` (ISO time), ``reason``, ``detail``, ``line`` (its line number in
    ``results.jsonl`` then), ``sha256`` of that line, and ``record`` (the record itself).
    Unreadable lines (an append cut short by a kill) are skipped.
    """
    path = Path(directory) / AUDIT_FILE
    if not path.exists():
        return []
    entries = []
    for raw in path.read_bytes().split(b"\n"):
        try:
            obj = json.loads(raw)
        except ValueError:
            continue
        if isinstance(obj, dict):
            entries.append(obj)
    return entries


def audit_counts(directory: str | os.PathLike[str]) -> dict[str, int]:
    """How many audit entries there are per reason."""
    return dict(Counter(str(e.get("reason", "")) for e in read_audit(directory)))


def move_to_audit(
    directory: str | os.PathLike[str],
    entries: Sequence[ResultLine],
    moves: Sequence[AuditMove],
) -> None:
    """Take ``moves`` out of ``results.jsonl`` (which holds ``entries``) into the audit file.

    The caller holds the directory's lock (:class:`~reliability_lab.results.lock.DirectoryLock`)
    and passes every current line of ``results.jsonl`` as ``entries``. Nothing is written when
    ``moves`` is empty. See the module docstring for the order of writes.
    """
    if not moves:
        return
    out = Path(directory)
    moved_lines = {m.entry.line for m in moves}
    done = {(e.get("sha256"), e.get("reason")) for e in read_audit(out)}
    now = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    new = [
        dumps(
            {
                "moved_at": now,
                "reason": m.reason,
                "detail": m.detail,
                "line": m.entry.line,
                "sha256": _digest(m.entry.raw),
                "record": m.entry.record,
            }
        )
        for m in moves
        if (_digest(m.entry.raw), m.reason) not in done
    ]
    audit = out / AUDIT_FILE
    if new:
        fd = open_append(audit)
        try:
            if os.fstat(fd).st_size and not audit.read_bytes().endswith(b"\n"):
                new[0] = "\n" + new[0]  # after a line cut short by a kill
            append_durably(fd, "".join(line + "\n" for line in new).encode("utf-8"), audit)
        finally:
            os.close(fd)
    kept = [e.raw for e in entries if e.line not in moved_lines]
    replace_lines(out / RESULTS_FILE, kept)
