"""What a failed write of a running experiment tells the user.

See docs/results.md, "What can go wrong and what you see".

A full disk (``ENOSPC``), an immutable or read-only file (``EPERM``, ``EACCES``, ``EROFS``) or
an exhausted quota (``EDQUOT``) ends the experiment with a
:class:`~reliability_lab.errors.ResultsWriteError` that names the file, says how many runs
``results.jsonl`` safely holds (each one was written and flushed to disk before it counted)
and that running the same command again resumes from there.
"""

from __future__ import annotations

import errno
from pathlib import Path

from reliability_lab.errors import ResultsWriteError
from reliability_lab.results.store import RESULTS_FILE

__all__ = ["WRITE_ERRNOS", "write_failure"]

#: Errors of a write that the user can fix and then resume after.
WRITE_ERRNOS = frozenset(
    {errno.ENOSPC, errno.EPERM, errno.EACCES, errno.EROFS, errno.EDQUOT, errno.EFBIG, errno.EIO}
)


def _recorded(results: Path) -> int:
    """Complete lines of ``results.jsonl`` (0 when it cannot be read)."""
    try:
        return results.read_bytes().count(b"\n")
    except OSError:
        return 0


def write_failure(exc: OSError, directory: Path) -> ResultsWriteError | None:
    """The message for ``exc`` if it is a failed write (:data:`WRITE_ERRNOS`), else None.

    >>> import errno, tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> err = OSError(errno.ENOSPC, "No space left on device", str(d / "results.jsonl"))
    >>> print(str(write_failure(err, d)).replace(str(d), "DIR"))  # doctest: +NORMALIZE_WHITESPACE
    cannot write DIR/results.jsonl: No space left on device; 0 finished run(s) are safely
    recorded in DIR/results.jsonl — free space (or fix the file's permissions) and run the same
    command again to resume
    """
    if exc.errno not in WRITE_ERRNOS:
        return None
    results = directory / RESULTS_FILE
    where = exc.filename or f"a file in {directory}"
    return ResultsWriteError(
        f"cannot write {where}: {exc.strerror or exc}; {_recorded(results)} finished run(s) are "
        f"safely recorded in {results} — free space (or fix the file's permissions) and run "
        "the same command again to resume"
    )
