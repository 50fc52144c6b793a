"""The one way this package writes files: one permission rule, named failures, atomic replaces.

*Permissions.* Every file is created with mode :data:`FILE_MODE` (``0o666``) less the process
umask — what ``open()`` and the shell do — whether it is appended to (``results.jsonl``) or
replaced atomically (``header.json``, ``summary.json``, cache entries). With the usual umask
``022`` every file is ``0644``: readable by the other users of a shared filesystem
(docs/distributed.md); a user who wants private results sets umask ``077``.

*Failures.* A failed write (disk full, an immutable file, no permission) raises ``OSError``
with the file named in ``filename`` even where the operating system does not name it (a
``write`` on an open descriptor), so a message can say which file could not be written.

Stdlib only, so importing it costs nothing.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["FILE_MODE", "append_durably", "naming", "open_append", "write_text_atomic"]

#: Mode of every file the package creates, before the umask is applied (as ``open()``).
FILE_MODE = 0o666


@contextmanager
def naming(path: str | os.PathLike[str], *, always: bool = False) -> Iterator[None]:
    """Re-raise an ``OSError`` without a file name (or any, when ``always``) naming ``path``."""
    try:
        yield
    except OSError as exc:
        if (always or exc.filename is None) and exc.errno is not None:
            raise OSError(exc.errno, exc.strerror or str(exc), os.fspath(path)) from exc
        raise


def open_append(path: str | os.PathLike[str]) -> int:
    """A descriptor appending to ``path`` (created with :data:`FILE_MODE` less the umask)."""
    with naming(path):
        return os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, FILE_MODE)


def append_durably(fd: int, data: bytes, path: str | os.PathLike[str]) -> None:
    """Write all of ``data`` to ``fd`` and ``fsync`` it; a failure names ``path``."""
    with naming(path):
        written = 0
        while written < len(data):
            written += os.write(fd, data[written:])
        os.fsync(fd)


def write_text_atomic(path: str | os.PathLike[str], text: str, *, durable: bool = True) -> None:
    """Replace ``path`` by ``text`` (UTF-8) atomically: a temporary file, then a rename.

    A reader never sees a partial file and a crash leaves the old one. ``durable`` also
    flushes the data to disk before the rename. A failure names the file and leaves no
    temporary file behind.
    """
    target = Path(path)
    tmp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    with naming(target, always=True):  # the temporary file's name would only confuse
        target.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
                fh.flush()
                if durable:
                    os.fsync(fh.fileno())
            os.replace(tmp, target)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
