"""``reliability-lab repair DIR``: one record per run again, nothing deleted.

A directory written by two processes at once (possible before results directories were
locked, or after copying results together by hand) holds some runs twice; the runner and
``report`` then refuse it. :func:`repair_directory` takes the directory's lock and

- keeps, for every run key, **the first record in file order that is not an infrastructure
  error** — or the first record when all are. The choice never looks at success or score:
  keeping whichever copy did better would bias every metric upwards. An infrastructure error
  says nothing about the agent, so a finished copy is preferred to it (a resume would retry
  it anyway);
- drops records of runs that are not in the plan of ``header.json`` (an agent, task,
  condition, variant or repetition it does not list); imported logs have no plan;
- moves every dropped line to ``results.audit.jsonl`` with the reason (crash-safe, see
  :mod:`.audit`), rewrites ``results.jsonl`` with the kept lines byte for byte, and makes
  ``traces.jsonl`` agree: the traces of a duplicated run are rebuilt from its kept record,
  those of dropped runs removed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from reliability_lab.results.audit import AUDIT_FILE, AuditMove, move_to_audit
from reliability_lab.results.coverage import header_plan
from reliability_lab.results.lock import DirectoryLock
from reliability_lab.results.store import (
    RESULTS_FILE,
    ResultLine,
    read_header,
    read_result_entries,
    record_key,
)
from reliability_lab.results.traces import TRACES_FILE, reconcile_traces
from reliability_lab.runs import RunKey, is_infrastructure, session_id

__all__ = ["DUPLICATE", "UNPLANNED", "RepairOutcome", "repair_directory"]

#: Audit reason of a second record of one run.
DUPLICATE = "duplicate"
#: Audit reason of a record of a run the header's plan does not list.
UNPLANNED = "not in the plan"


@dataclass(frozen=True)
class RepairOutcome:
    """What :func:`repair_directory` did."""

    directory: Path
    """The results directory."""
    n_records: int
    """Records in ``results.jsonl`` before."""
    moved: list[AuditMove] = field(default_factory=list)
    """Records moved to ``results.audit.jsonl``, in file order."""

    @property
    def n_kept(self) -> int:
        """Records left in ``results.jsonl``."""
        return self.n_records - len(self.moved)

    def describe(self) -> str:
        """A few lines for the console: counts, then one line per moved record."""
        if not self.moved:
            return f"{self.directory}: nothing to repair ({self.n_records} records, one per run)."
        lines = [
            f"Repaired {self.directory}: kept {self.n_kept} of {self.n_records} records; "
            f"moved {len(self.moved)} to {AUDIT_FILE}:"
        ]
        for move in self.moved:
            key = record_key(move.entry.record, source=RESULTS_FILE, line=move.entry.line)
            lines.append(f"  line {move.entry.line}: {move.detail} (run {key})")
        return "\n".join(lines)


def _moves(entries: list[ResultLine], planned: set[RunKey] | None, path: Path) -> list[AuditMove]:
    groups: dict[RunKey, list[ResultLine]] = {}
    moves: list[AuditMove] = []
    for entry in entries:
        key = record_key(entry.record, source=path, line=entry.line)
        if planned is not None and key not in planned:
            moves.append(AuditMove(entry, UNPLANNED, "not in the plan in header.json"))
        else:
            groups.setdefault(key, []).append(entry)
    for group in groups.values():
        keeper = next((e for e in group if not is_infrastructure(e.record.get("error"))), group[0])
        moves += [
            AuditMove(e, DUPLICATE, f"duplicate of line {keeper.line}")
            for e in group
            if e is not keeper
        ]
    return sorted(moves, key=lambda m: m.entry.line)


def repair_directory(directory: str | os.PathLike[str]) -> RepairOutcome:
    """Keep one record per planned run in a results directory (see the module docstring).

    Returns
    -------
    RepairOutcome
        Counts and the moved records; nothing is written when there is nothing to repair.

    Raises
    ------
    RunTableError
        Not a results directory, or a damaged record (named by file, line and field).
    DirectoryLockedError
        Another process is writing the directory.
    """
    out = Path(directory)
    read_header(out)  # not a results directory: fail before creating anything
    with DirectoryLock(out):
        header = read_header(out)
        results_path = out / RESULTS_FILE
        entries = read_result_entries(results_path, repair=True)
        plan = header_plan(header, out)
        moves = _moves(entries, set(plan) if plan is not None else None, results_path)
        if moves:
            move_to_audit(out, entries, moves)
            _fix_traces(out, header.config if plan is not None else None, entries, moves)
    return RepairOutcome(out, len(entries), moves)


def _fix_traces(
    out: Path, config: dict[str, object] | None, entries: list[ResultLine], moves: list[AuditMove]
) -> None:
    """Rebuild the traces of duplicated runs from their kept record; drop the others'."""
    path = out / TRACES_FILE
    if config is None or not path.exists():  # imported logs have no traces file
        return
    from reliability_lab.experiment.config import ExperimentConfig
    from reliability_lab.results.traces import make_trace_builder

    moved = {m.entry.line for m in moves}
    kept = [e.record for e in entries if e.line not in moved]
    reconcile_traces(
        path,
        kept,
        session_id=session_id,
        make_traces=make_trace_builder(ExperimentConfig.model_validate(config)),
        rebuild={session_id(m.entry.record) for m in moves if m.reason == DUPLICATE},
        retired={session_id(m.entry.record) for m in moves if m.reason == UNPLANNED},
    )
