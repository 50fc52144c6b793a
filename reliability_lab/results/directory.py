"""Where the runner and the results directory meet: one object, three questions.

:class:`ResultsDirectory` answers what the engine (:mod:`reliability_lab.runner`) asks of an
experiment's output directory, and nothing else reaches into its files:

- **what is done** — :meth:`ResultsDirectory.open` validates ``header.json`` and every line of
  ``results.jsonl`` against the config before any run starts (an incomplete last line is cut
  off), and :attr:`~ResultsDirectory.done` holds the run keys recorded;
- **what must be redone** — :attr:`~ResultsDirectory.retry`, the records of infrastructure
  errors a resume executes again; :meth:`~ResultsDirectory.begin` moves them to the audit file
  and writes the header;
- **give me a writer** — :meth:`~ResultsDirectory.writers`, the appenders of
  ``results.jsonl`` and ``traces.jsonl`` (fsync per append).

Use it under the directory's lock (:class:`~reliability_lab.results.lock.DirectoryLock`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reliability_lab.errors import ConfigError
from reliability_lab.results.audit import AuditMove, move_to_audit
from reliability_lab.results.read import check_outcomes, records_to_run_table
from reliability_lab.results.store import (
    HEADER_FILE,
    RESULTS_FILE,
    HeaderRecord,
    ResultLine,
    ResultsWriter,
    check_resumable,
    check_run_keys,
    make_header,
    read_header,
    read_result_entries,
    write_header,
)
from reliability_lab.results.traces import TRACES_FILE, reconcile_traces
from reliability_lab.runs import RunKey, is_infrastructure, run_key, session_id

if TYPE_CHECKING:
    from reliability_lab.experiment.config import ExperimentConfig

__all__ = ["INFRA_RETRY_REASON", "ResultsDirectory"]

#: Audit reason of a record whose run a resume executes again.
INFRA_RETRY_REASON = "infrastructure error; run executed again"


@dataclass(frozen=True)
class ResultsDirectory:
    """An experiment's output directory as read before any run starts (see the module doc)."""

    path: Path
    """The directory."""
    previous: HeaderRecord | None
    """Its ``header.json`` (None for a new directory)."""
    entries: list[ResultLine]
    """Every record of ``results.jsonl``."""
    retry: list[ResultLine]
    """Records of infrastructure errors whose runs are executed again."""

    @classmethod
    def open(
        cls,
        config: ExperimentConfig,
        tasks: list[str],
        allowed: Collection[RunKey],
        *,
        retry_infra: bool,
    ) -> ResultsDirectory:
        """Validate ``config``'s output directory (no writes except cutting off an incomplete
        last line); every record is checked before any run starts.

        Raises
        ------
        ConfigError
            Results without a header, a header of another configuration, or a record of a
            run ``allowed`` does not hold.
        """
        out = config.output_dir()
        results_path = out / RESULTS_FILE
        if not (out / HEADER_FILE).exists():
            if results_path.exists() and results_path.stat().st_size > 0:
                raise ConfigError(
                    f"{out}: has {RESULTS_FILE} but no {HEADER_FILE}; refusing to mix results "
                    "of an unknown configuration. Use another output directory."
                )
            return cls(out, None, [], [])
        previous = read_header(out)
        check_resumable(out, previous, config, tasks)
        entries = read_result_entries(results_path, repair=True)
        keys = check_run_keys([e.record for e in entries], results_path)
        for entry, key in zip(entries, keys, strict=True):
            if key not in allowed:
                raise ConfigError(
                    f"{results_path}: line {entry.line}: holds run {key}, which this config does "
                    f"not plan (K={config.runs}); use the original number of runs or another "
                    "output directory"
                )
        records = [e.record for e in entries]
        thresholds = {a.label: a.pass_threshold for a in config.agents}
        check_outcomes(records, thresholds, source=str(results_path))
        records_to_run_table(records, source=str(results_path))
        retry = [e for e in entries if retry_infra and is_infrastructure(e.record.get("error"))]
        return cls(out, previous, entries, retry)

    @property
    def kept(self) -> list[dict[str, Any]]:
        """Records that stay: the runs already done."""
        retried = {e.line for e in self.retry}
        return [e.record for e in self.entries if e.line not in retried]

    @property
    def done(self) -> set[RunKey]:
        """The run keys already done (:attr:`kept`)."""
        return {run_key(r) for r in self.kept}

    def begin(self, config: ExperimentConfig, tasks: list[str]) -> None:
        """Move the records to redo to the audit file, then write the header of ``config``."""
        if self.retry:  # the old records leave the run table for the audit file first
            moves = [
                AuditMove(e, INFRA_RETRY_REASON, str(e.record.get("error"))) for e in self.retry
            ]
            move_to_audit(self.path, self.entries, moves)
        write_header(self.path, make_header(config, tasks, previous=self.previous))

    def reconcile_traces(
        self, make_traces: Callable[[Mapping[str, Any]], list[dict[str, Any]]]
    ) -> None:
        """Make ``traces.jsonl`` hold exactly the traces of the kept records (see ``traces``)."""
        reconcile_traces(
            self.path / TRACES_FILE,
            self.kept,
            session_id=session_id,
            make_traces=make_traces,
            retired={session_id(e.record) for e in self.retry},
        )

    @contextmanager
    def writers(self) -> Iterator[tuple[ResultsWriter, ResultsWriter]]:
        """The appenders of ``results.jsonl`` and ``traces.jsonl``, closed on exit."""
        with (
            ResultsWriter(self.path / RESULTS_FILE) as results,
            ResultsWriter(self.path / TRACES_FILE) as traces,
        ):
            yield results, traces
