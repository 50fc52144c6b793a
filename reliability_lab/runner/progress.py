"""Progress of an experiment: a bar in a terminal or notebook, plain lines in a log.

In a terminal (and in Jupyter) a ``tqdm`` bar redraws itself; written to a file or a CI log,
the same bar becomes thousands of carriage-return updates on one enormous line. When the
stream is not a terminal and no notebook kernel is running, :func:`progress_bar` returns
:class:`LineProgress` instead: one ordinary line every few seconds and a last one at the end.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import IO, Any

__all__ = ["LOG_INTERVAL_S", "LineProgress", "progress_bar"]

#: Seconds between two progress lines in a log.
LOG_INTERVAL_S = 10.0


class LineProgress:
    """A progress "bar" for logs: ``<desc>: 120/360 runs (33%)`` lines, never ``\\r``.

    It has the part of tqdm's interface the runner uses (``update``, ``close``). A line is
    printed at the start, whenever ``interval_s`` seconds have passed since the last one at an
    update, and at the close (when the count changed since the last line).
    """

    def __init__(
        self,
        *,
        total: int,
        initial: int = 0,
        desc: str = "",
        file: IO[str] | None = None,
        interval_s: float = LOG_INTERVAL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total, self.n, self.desc = total, initial, desc
        self._file = file if file is not None else sys.stderr
        self._interval_s = interval_s
        self._clock = clock
        self._shown = -1
        self._last = clock()
        self._emit()

    def _emit(self) -> None:
        percent = f" ({self.n / self.total:.0%})" if self.total else ""
        print(f"{self.desc}: {self.n}/{self.total} runs{percent}", file=self._file, flush=True)
        self._shown = self.n
        self._last = self._clock()

    def update(self, n: int = 1) -> None:
        """Count ``n`` more finished runs; print a line if the interval has passed."""
        self.n += n
        if self._clock() - self._last >= self._interval_s:
            self._emit()

    def close(self) -> None:
        """Print the final count (unless it was just printed)."""
        if self.n != self._shown:
            self._emit()


def _in_notebook() -> bool:
    """Whether a Jupyter kernel runs this code (tqdm then shows a widget)."""
    ipython = sys.modules.get("IPython")
    get = getattr(ipython, "get_ipython", None) if ipython is not None else None
    shell = get() if callable(get) else None
    return shell is not None and "IPKernelApp" in getattr(shell, "config", {})


def progress_bar(
    *, total: int, initial: int, desc: str, enabled: bool, file: IO[str] | None = None
) -> Any:
    """The runner's progress display: ``tqdm`` in a terminal or notebook, lines in a log,
    nothing when not ``enabled``."""
    from tqdm.auto import tqdm

    stream = file if file is not None else sys.stderr
    isatty = getattr(stream, "isatty", None)
    if not enabled or (callable(isatty) and isatty()) or _in_notebook():
        return tqdm(
            total=total,
            initial=initial,
            desc=desc,
            unit="run",
            disable=not enabled,
            file=stream,
            dynamic_ncols=True,
        )
    return LineProgress(total=total, initial=initial, desc=desc, file=stream)
