"""Progress of an experiment: a bar in a terminal or notebook, plain lines in a log.

In a terminal (and in Jupyter) a ``tqdm`` bar redraws itself; written to a file or a CI log,
the same bar becomes thousands of carriage-return updates on one enormous line. When the
stream is not a terminal and no notebook kernel is running, :func:`progress_bar` returns
:class:`LineProgress` instead: one ordinary line every few seconds and a last one at the end.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Mapping
from typing import IO, Any

from reliability_lab.results.diagnostics import SIMULATED_PRICE
from reliability_lab.runs import INFRASTRUCTURE_PREFIX

__all__ = ["LOG_INTERVAL_S", "LineProgress", "RunTally", "TalliedProgress", "progress_bar"]

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
        self.postfix = ""
        self._emit()

    def set_postfix_str(self, text: str, refresh: bool = True) -> None:
        """What the next line adds after the count (tqdm's method of the same name)."""
        del refresh
        self.postfix = text

    def _emit(self) -> None:
        percent = f" ({self.n / self.total:.0%})" if self.total else ""
        extra = f"; {self.postfix}" if self.postfix else ""
        print(
            f"{self.desc}: {self.n}/{self.total} runs{percent}{extra}", file=self._file, flush=True
        )
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


def _duration(seconds: float) -> str:
    """``1h02m``, ``3m05s`` or ``42s``."""
    whole = round(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return (
        f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"
    )


class RunTally:
    """What the runs finished in this session say so far: the running success rate (of runs
    without an infrastructure error), the infrastructure errors, the cost, and the time left.

    No time left is estimated before the first run of the session has finished (a resume's
    earlier runs say nothing about this session's speed).
    """

    def __init__(self, *, remaining: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.remaining = remaining
        self.finished = self.succeeded = self.infra = 0
        self.cost = 0.0
        self.simulated = False
        self._clock = clock
        self._start = clock()

    def add(self, record: Mapping[str, Any]) -> None:
        """Count one finished run's result record."""
        self.finished += 1
        self.remaining = max(self.remaining - 1, 0)
        if str(record.get("error") or "").startswith(INFRASTRUCTURE_PREFIX):
            self.infra += 1
        else:
            self.succeeded += bool(record.get("success"))
        cost = record.get("cost_usd")
        self.cost += float(cost) if isinstance(cost, int | float) and cost == cost else 0.0
        self.simulated = self.simulated or bool(record.get("simulated"))

    def text(self) -> str:
        """``success 75% · 0 infra errors · $0.0123 (simulated price) · ETA 1m05s``."""
        if not self.finished:
            return "waiting for the first run"
        attempted = self.finished - self.infra
        rate = f"success {self.succeeded / attempted:.0%}" if attempted else "success n/a"
        price = SIMULATED_PRICE if self.simulated else ""
        per_run = (self._clock() - self._start) / self.finished
        eta = f" · ETA {_duration(per_run * self.remaining)}" if self.remaining else ""
        return f"{rate} · {self.infra} infra errors · ${self.cost:.4f}{price}{eta}"


class TalliedProgress:
    """A progress bar (tqdm or :class:`LineProgress`) that shows a :class:`RunTally`."""

    def __init__(self, bar: Any, tally: RunTally) -> None:
        self.bar, self.tally = bar, tally
        bar.set_postfix_str(tally.text(), refresh=False)

    def finished(self, record: Mapping[str, Any]) -> None:
        """One more run finished with this result record."""
        self.tally.add(record)
        self.bar.set_postfix_str(self.tally.text(), refresh=False)
        self.bar.update(1)

    def grow(self, n: int) -> None:
        """``n`` more runs were planned on the way (adaptive rounds)."""
        self.tally.remaining += n
        self.bar.total = (self.bar.total or 0) + n
        self.bar.refresh()

    def close(self) -> None:
        """Finish the display."""
        self.bar.close()


def _in_notebook() -> bool:
    """Whether a Jupyter kernel runs this code (tqdm then shows a widget)."""
    ipython = sys.modules.get("IPython")
    get = getattr(ipython, "get_ipython", None) if ipython is not None else None
    shell = get() if callable(get) else None
    return shell is not None and "IPKernelApp" in getattr(shell, "config", {})


def progress_bar(
    *, total: int, initial: int, desc: str, enabled: bool, file: IO[str] | None = None
) -> TalliedProgress:
    """The runner's progress display: ``tqdm`` in a terminal or notebook, lines in a log,
    nothing when not ``enabled``; either shows the :class:`RunTally` of this session's runs
    (tqdm's own time estimate is left out: the tally's starts after the first finished run)."""
    tally = RunTally(remaining=total - initial)
    return TalliedProgress(
        _bar(total=total, initial=initial, desc=desc, enabled=enabled, file=file), tally
    )


def _bar(*, total: int, initial: int, desc: str, enabled: bool, file: IO[str] | None) -> Any:
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
            bar_format="{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} runs "
            "[{elapsed}{postfix}]",
        )
    return LineProgress(total=total, initial=initial, desc=desc, file=stream)
