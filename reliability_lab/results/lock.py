"""One writer per results directory: an exclusive OS file lock held for a whole run.

Two processes appending to one ``results.jsonl`` would both execute every missing run (and pay
for it) and leave duplicate records. ``reliability-lab run`` and ``reliability-lab repair``
therefore hold an exclusive lock on ``<output>/.reliability-lab.lock`` while they work:
``fcntl.flock`` on POSIX (``msvcrt.locking`` on Windows), taken without waiting. The operating
system releases it when the process ends in any way — including ``kill -9`` — so a crashed run
never leaves a stale lock behind. The holder writes who it is (pid, host, start time, command)
into the file, so a second process exits at once naming it.

The lock file is never deleted: removing it while another process waits to open it would let
two processes lock two different files of the same name.
"""

from __future__ import annotations

import json
import os
import shlex
import socket
import sys
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from reliability_lab._secrets import redact_text
from reliability_lab.errors import ConfigError

__all__ = ["LOCK_FILE", "DirectoryLock", "DirectoryLockedError"]

LOCK_FILE = ".reliability-lab.lock"


class DirectoryLockedError(ConfigError):
    """Another process holds the results directory's lock (the message names it)."""


def _try_lock(fd: int) -> bool:
    """Take the exclusive lock without waiting; False when someone else holds it."""
    try:
        import fcntl
    except ImportError:  # Windows: lock one byte far beyond the holder information
        import msvcrt

        os.lseek(fd, 1 << 20, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined]
        except OSError:
            return False
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _unlock(fd: int) -> None:
    try:
        import fcntl
    except ImportError:
        import msvcrt

        os.lseek(fd, 1 << 20, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)  # type: ignore[attr-defined]
        return
    fcntl.flock(fd, fcntl.LOCK_UN)


def _describe(holder: dict[str, Any]) -> str:
    if not holder:
        return "another process (it is just starting; its details are not written yet)"
    command = f" ({holder['command']})" if holder.get("command") else ""
    return (
        f"pid {holder.get('pid', '?')} on host {holder.get('host', '?')}, started "
        f"{holder.get('started', '?')}{command}"
    )


class DirectoryLock:
    """Exclusive lock on a results directory (a context manager; creates the directory).

    Parameters
    ----------
    directory : path-like
        The results directory.
    command : str, optional
        What the holder is doing, shown to a second process (default: this process's command
        line with the program's base name); credentials are redacted.

    Raises
    ------
    DirectoryLockedError
        On entering, when another process holds the lock: ``<dir> is in use by pid 123 on host
        h, started 2025-01-01T00:00:00Z (reliability-lab run exp.yaml)``.
    """

    def __init__(self, directory: str | os.PathLike[str], *, command: str | None = None) -> None:
        self.directory = Path(directory)
        self.path = self.directory / LOCK_FILE
        if command is None:
            argv = sys.argv or ["python"]
            command = shlex.join([Path(argv[0]).name, *argv[1:]])
        self.command = redact_text(command)
        self._fd = -1

    def holder(self) -> dict[str, Any]:
        """The holder information written in the lock file ({} when none is readable)."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8") or "{}")
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def acquire(self) -> None:
        """Take the lock or raise :class:`DirectoryLockedError` at once."""
        if self._fd >= 0:
            raise RuntimeError(f"{self.path}: already held by this DirectoryLock")
        self.directory.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        if not _try_lock(fd):
            os.close(fd)
            raise DirectoryLockedError(
                f"{self.directory}: in use by {_describe(self.holder())}. Two processes "
                "writing one results directory would execute every run twice; wait for it "
                "to finish, or use another output directory (--output)."
            )
        self._fd = fd
        info = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "started": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
            "command": self.command,
        }
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, (json.dumps(info) + "\n").encode("utf-8"))

    def release(self) -> None:
        """Clear the holder information and release the lock (idempotent)."""
        if self._fd < 0:
            return
        fd, self._fd = self._fd, -1
        try:
            os.ftruncate(fd, 0)  # while still holding it: never wipes a later holder's details
            _unlock(fd)
        finally:
            os.close(fd)

    def __enter__(self) -> DirectoryLock:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()
