"""``traces.jsonl``: every run's traces, PandaProbe-style, one trace JSON object per line.

The runner appends a run's traces (one ``write``, then ``fsync``) *before* the run's line in
``results.jsonl``, so a run recorded in ``results.jsonl`` always has its traces on disk. A
process killed in between leaves traces of a run that is not recorded (and maybe an
incomplete last line); that run is executed again on resume and would write its traces a
second time. :func:`reconcile_traces` therefore runs before every resume: it keeps exactly
the traces of the recorded runs (each trace id once), drops the rest, and rebuilds from
``results.jsonl`` the traces of any recorded run that has none (e.g. a deleted file) — the
traces are a function of the recorded trajectory. Read them back with
:func:`reliability_lab.sessions.tracing.load_traces`.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reliability_lab._files import write_text_atomic
from reliability_lab.results._jsonio import dumps
from reliability_lab.sessions.scoring import SessionScorer, trace_records

if TYPE_CHECKING:
    from reliability_lab.experiment.config import ExperimentConfig
    from reliability_lab.llm import LLMClient
    from reliability_lab.sessions.tracing import Trace

__all__ = [
    "TRACES_FILE",
    "make_scorer",
    "make_trace_builder",
    "reconcile_traces",
    "trace_maker",
    "traces_of",
]

TRACES_FILE = "traces.jsonl"


def _read_lines(path: Path) -> tuple[list[tuple[str, str, str]], int]:
    """``(session_id, trace_id, line)`` of each parseable line, and the count of bad lines."""
    if not path.exists():
        return [], 0
    out: list[tuple[str, str, str]] = []
    bad = 0
    for raw in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
            sid, tid = obj["session_id"], obj["trace_id"]
        except (ValueError, TypeError, KeyError):
            bad += 1  # an append cut short by a kill (or a damaged line)
            continue
        out.append((str(sid), str(tid), raw))
    return out, bad


def reconcile_traces(
    path: Path,
    recorded: Sequence[Mapping[str, Any]],
    *,
    session_id: Callable[[Mapping[str, Any]], str],
    make_traces: Callable[[Mapping[str, Any]], list[dict[str, Any]]],
    rebuild: Collection[str] = (),
    retired: Collection[str] = (),
) -> int:
    """Make ``traces.jsonl`` hold exactly the traces of the recorded runs, each once.

    Parameters
    ----------
    path : Path
        The ``traces.jsonl`` file (may be missing).
    recorded : sequence of mapping
        The ``results.jsonl`` records (runs that count as done).
    session_id : callable
        Session id of a record.
    make_traces : callable
        A record's trace JSON objects (used for recorded runs whose traces are missing).
    rebuild : collection of str
        Session ids whose traces are replaced by ``make_traces`` of their record (a repaired
        run whose kept record is not the one whose traces came first).
    retired : collection of str
        Session ids no longer recorded on purpose (records moved to the audit file); their
        traces are removed without a warning.

    Returns
    -------
    int
        Lines removed (traces of unrecorded runs, duplicates, incomplete or damaged lines).
        The file is rewritten atomically only when something changes.
    """
    wanted = {session_id(r): r for r in recorded}
    lines, bad = _read_lines(path)
    kept: list[str] = []
    seen_ids: set[tuple[str, str]] = set()
    have: set[str] = set()
    expected = 0  # removals asked for (rebuilt or retired sessions)
    for sid, tid, raw in lines:
        if sid in rebuild or (sid in retired and sid not in wanted):
            expected += 1
            continue
        if sid not in wanted or (sid, tid) in seen_ids:
            continue
        seen_ids.add((sid, tid))
        have.add(sid)
        kept.append(raw)
    removed = len(lines) - len(kept) + bad
    rebuilt = [
        dumps(obj) for sid, rec in wanted.items() if sid not in have for obj in make_traces(rec)
    ]
    if removed == 0 and not rebuilt:
        return 0
    write_text_atomic(path, "".join(line + "\n" for line in [*kept, *rebuilt]))
    if removed > expected:
        warnings.warn(
            f"{path}: removed {removed - expected} line(s) of traces of runs that were not "
            "recorded in results.jsonl (interrupted run), duplicates or incomplete lines",
            stacklevel=2,
        )
    return removed


def make_scorer(config: ExperimentConfig, llm: LLMClient | None) -> SessionScorer:
    """The session scorer of ``config``'s experiment (``llm`` None: traces only)."""
    from reliability_lab.experiment.plan import config_environment

    env = config_environment(config)  # registered, or built from a factory / task set
    settings = config.sessions
    return SessionScorer(
        judge_model=settings.judge_model,
        judge_params=settings.judge_params,
        embedder=settings.embedder,
        signal_weights=settings.signal_weights,
        llm=llm,
        tools={config.environment.name: env.tool_schemas},
    )


def traces_of(scorer: SessionScorer, record: dict[str, Any]) -> list[Trace] | None:
    """A record's traces, or None when its trajectory cannot be traced."""
    try:
        return scorer.traces(record)
    except (TypeError, ValueError):  # not OpenAI-format messages; the scorer says why
        return None


def trace_maker(scorer: SessionScorer) -> Callable[[Mapping[str, Any]], list[dict[str, Any]]]:
    """A record's trace JSON objects, as ``traces.jsonl`` holds them."""
    return lambda record: trace_records(traces_of(scorer, dict(record)) or [])


def make_trace_builder(
    config: ExperimentConfig,
) -> Callable[[Mapping[str, Any]], list[dict[str, Any]]]:
    """The trace JSON objects of a record of ``config``'s experiment (no model is called)."""
    return trace_maker(make_scorer(config, None))
