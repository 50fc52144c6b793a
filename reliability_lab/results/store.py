"""The results directory on disk: ``header.json`` and the append-only ``results.jsonl``.

Crash safety: each finished run is one line written with a single ``write`` on a file opened
with ``O_APPEND``, then flushed to disk (``fsync``) before the run counts as done. A process
killed at any moment leaves at most one incomplete *last* line; :func:`read_result_lines` with
``repair=True`` cuts it off (that run is simply executed again on resume). A damaged line in the
middle of the file cannot come from an interrupted append and is reported as an error instead.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import warnings
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

import orjson
from pydantic import BaseModel, ConfigDict, Field

from reliability_lab._files import append_durably, naming, open_append, write_text_atomic
from reliability_lab._secrets import redact
from reliability_lab._version import __version__
from reliability_lab.errors import ConfigError, RunTableError
from reliability_lab.experiment._yaml import field_path
from reliability_lab.experiment.config import ExperimentConfig
from reliability_lab.experiment.limits import find_non_finite
from reliability_lab.experiment.seeds import SEED_SCHEME
from reliability_lab.results._jsonio import dumps, write_json_atomic
from reliability_lab.runs import BASELINE, KEY_COLUMNS, RunKey, is_simulated_model

__all__ = [
    "HEADER_FILE",
    "RESULTS_FILE",
    "RESULTS_MARKER",
    "HeaderRecord",
    "ResultLine",
    "ResultsWriter",
    "check_resumable",
    "check_run_keys",
    "fsync_directory",
    "make_header",
    "read_header",
    "read_result_entries",
    "read_result_lines",
    "record_key",
    "replace_lines",
    "result_affecting_settings",
]

HEADER_FILE = "header.json"
RESULTS_FILE = "results.jsonl"
#: The file that marks a reliability_lab results directory (no other harness writes it).
RESULTS_MARKER = "reliability_lab.json"
HEADER_SCHEMA_VERSION = 1


class HeaderRecord(BaseModel):
    """Contents of ``header.json``: what ran, with which settings (never a secret)."""

    model_config = ConfigDict(extra="forbid")

    schema_version: int = HEADER_SCHEMA_VERSION
    """Version of this record's layout."""
    suite_name: str
    """The experiment's ``name``."""
    timestamp: str
    """When the directory was first created (ISO 8601, UTC)."""
    updated: str
    """When the header was last written (a resume updates it)."""
    version: str
    """reliability_lab package version that wrote the results."""
    profile: str
    """Metric profile of the reliability report (docs/methodology.md, "Profiles")."""
    seed: int
    """Master seed; per-run seeds are stored on each result line."""
    models: dict[str, str]
    """Agent label → litellm model string."""
    simulated: bool
    """Whether any agent used the simulated model (``sim/...``)."""
    tasks: list[str]
    """Resolved task ids."""
    config: dict[str, Any]
    """The resolved configuration (after CLI overrides), secrets redacted."""
    fingerprint: str = Field(min_length=64, max_length=64)
    """SHA-256 of the settings that change results (see ``result_affecting_settings``)."""


def _shown_model(model: str, agent: str | None) -> str:
    """What the ``model`` column shows: the model, and the user agent when there is one."""
    if agent is None:
        return model
    return f"{agent} ({model})" if model else agent


def _environment_source(config: ExperimentConfig) -> dict[str, Any]:
    """A factory's or task set's settings (none for a registered environment, so the
    fingerprints of earlier results directories are unchanged)."""
    source = config.environment.source(None)
    if not source:
        return {}
    if config.environment.task_file is not None:
        source["tasks"] = config.environment.task_file  # as written: the folder may move
    return {"environment_source": source}


def result_affecting_settings(config: ExperimentConfig, tasks: list[str]) -> dict[str, Any]:
    """The settings that change what a run produces.

    Everything except K (more runs may be added), concurrency, output, cache, gates, LLM
    retry/timeout settings and report settings. The session settings count: they change the
    session metrics stored with every run; so do the safety judge's settings when it is on.
    """
    sessions = config.sessions
    return {
        "version": config.version,
        "seed": config.seed,
        "max_steps": config.max_steps,
        "environment": config.environment.name,
        **_environment_source(config),
        "tasks": list(tasks),
        "seed_scheme": SEED_SCHEME,
        "conditions": {c.name: c.settings() for c in config.conditions},
        "agents": {
            a.label: {
                "model": a.model,
                "params": redact(a.params),
                "elicit_confidence": a.elicit_confidence,
                "pass_threshold": a.pass_threshold,
                "max_steps": config.agent_max_steps(a),
                **({"agent": a.agent, "options": redact(a.options)} if a.agent else {}),
            }
            for a in config.agents
        },
        "sessions": (
            {
                "enabled": True,
                "judge_model": sessions.judge_model,
                "judge_params": redact(sessions.judge_params),
                "embedder": sessions.embedder,
                "signal_weights": sessions.signal_weights,
            }
            if sessions.enabled
            else {"enabled": False}
        ),
        **_safety_settings(config),
    }


def _safety_settings(config: ExperimentConfig) -> dict[str, Any]:
    """The safety judge's settings (absent when the judge is off, as in older results)."""
    safety = config.safety
    if not safety.judge:
        return {}
    return {
        "safety": {
            "judge_model": safety.judge_model,
            "judge_params": redact(safety.judge_params),
            "max_invalid_retries": safety.max_invalid_retries,
            "conditions": sorted(safety.conditions),
        }
    }


def _fingerprint(settings: Mapping[str, Any]) -> str:
    text = json.dumps(settings, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def make_header(
    config: ExperimentConfig, tasks: list[str], *, previous: HeaderRecord | None = None
) -> HeaderRecord:
    """Build the header for ``config`` (keeping the creation time of ``previous``)."""
    now = _now()
    return HeaderRecord(
        suite_name=config.name,
        timestamp=previous.timestamp if previous is not None else now,
        updated=now,
        version=__version__,
        profile=config.profile,
        seed=config.seed,
        models={a.label: _shown_model(a.model, a.agent) for a in config.agents},
        simulated=any(is_simulated_model(a.model) for a in config.agents),
        tasks=list(tasks),
        config=redact(config.model_dump(mode="json")),
        fingerprint=_fingerprint(result_affecting_settings(config, tasks)),
    )


def write_header(directory: Path, header: HeaderRecord) -> None:
    """Write the marker file (:data:`RESULTS_MARKER`) once, then
    ``header.json``, both atomically."""
    marker = directory / RESULTS_MARKER
    if not marker.exists():
        write_json_atomic(marker, _MARKER_CONTENT)
    write_json_atomic(directory / HEADER_FILE, header.model_dump(mode="json"))


_MARKER_CONTENT = {
    "written_by": "reliability_lab",
    "what": "a reliability_lab results directory: header.json, results.jsonl, summary.json",
    "documentation": "docs/results.md",
}


def read_header(directory: str | os.PathLike[str]) -> HeaderRecord:
    """Read and validate ``header.json``.

    Raises
    ------
    RunTableError
        The file is missing, not JSON, or not a header record.
    """
    path = Path(directory) / HEADER_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RunTableError(f"{path}: file not found (not a results directory?)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise RunTableError(f"{path}: cannot read header: {exc}") from None
    except json.JSONDecodeError as exc:
        raise RunTableError(
            f"{path}: the header of this results directory is damaged (not valid JSON: {exc}); "
            "restore it from a copy, or run the experiment into a new directory"
        ) from None
    try:
        return HeaderRecord.model_validate(data)
    except Exception as exc:  # pydantic.ValidationError
        raise RunTableError(
            f"{path}: the header of this results directory is damaged: {exc}"
        ) from None


def _diff(old: Any, new: Any, path: str, out: list[str]) -> None:
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        for key in sorted(set(old) | set(new), key=str):
            sub = f"{path}.{key}" if path else str(key)
            if key not in old:
                out.append(f"{sub}: added")
            elif key not in new:
                out.append(f"{sub}: removed")
            else:
                _diff(old[key], new[key], sub, out)
    elif old != new:
        out.append(
            f"{path}: {json.dumps(old, default=str)[:60]} -> {json.dumps(new, default=str)[:60]}"
        )


def check_resumable(
    directory: Path, old: HeaderRecord, config: ExperimentConfig, tasks: list[str]
) -> None:
    """Refuse to resume into ``directory`` if its results came from different settings.

    Raises
    ------
    ConfigError
        Lists every result-changing difference (seed, models, params, tasks, ...).
    """
    new_settings = result_affecting_settings(config, tasks)
    if old.fingerprint == _fingerprint(new_settings):
        return
    diffs: list[str] = []
    try:
        old_cfg = ExperimentConfig.model_validate(old.config)
    except ValueError:  # written by another version; the fingerprint alone decides
        old_cfg = None
    if old_cfg is not None:
        _diff(result_affecting_settings(old_cfg, old.tasks), new_settings, "", diffs)
    detail = "; ".join(diffs[:8]) if diffs else "settings fingerprint differs"
    raise ConfigError(
        f"{directory}: refusing to resume: the results there were produced with different "
        f"settings ({detail}). Use another output directory (--output) or the original config."
    )


class ResultLine(NamedTuple):
    """One complete line of ``results.jsonl``."""

    line: int
    """1-based line number."""
    raw: bytes
    """The line's bytes, without the newline."""
    record: dict[str, Any]
    """The parsed record."""


def _loads(raw: bytes) -> tuple[Any, bool]:
    """One JSON value and whether it may hold a non-finite number: orjson (several times
    faster) refuses NaN, Infinity and numbers that overflow to infinity, so only what the
    standard library reads instead (those, integers beyond 64 bits) needs the walk of
    :func:`find_non_finite`; every file read before reads the same."""
    try:
        return orjson.loads(raw), False
    except orjson.JSONDecodeError:
        return json.loads(raw), True


def read_result_entries(path: Path, *, repair: bool = False) -> list[ResultLine]:
    """Every complete line of ``results.jsonl`` with its number and bytes.

    The same rules as :func:`read_result_lines` (which returns only the records).
    """
    if not path.exists():
        return []
    return _parse_entries(path, path.read_bytes(), repair)


def _parse_entries(path: Path, data: bytes, repair: bool) -> list[ResultLine]:
    entries: list[ResultLine] = []
    offset = 0
    lines = data.split(b"\n")
    for number, raw in enumerate(lines, start=1):
        is_last = number == len(lines)
        if is_last and raw == b"":
            break
        end = offset + len(raw) + (0 if is_last else 1)
        try:
            obj, unchecked = _loads(raw)
            if not isinstance(obj, dict):
                raise ValueError("not a JSON object")
        except ValueError as exc:
            if is_last:
                _drop_tail(path, offset, number, repair)
                break
            raise RunTableError(
                f"{path}: line {number}: not a valid result record ({exc})"
            ) from None
        bad = find_non_finite(obj) if unchecked else None
        if bad is not None:
            raise RunTableError(
                f"{path}: line {number}: field {field_path(bad[0])!r}: {bad[1]!r} is not a JSON "
                "number (results store a missing number as null)"
            )
        if is_last:  # complete JSON but the newline never made it to disk
            if repair:
                with path.open("ab") as fh:
                    fh.write(b"\n")
                    fh.flush()
                    os.fsync(fh.fileno())
        entries.append(ResultLine(number, raw, obj))
        offset = end
    return entries


def read_result_lines(path: Path, *, repair: bool = False) -> list[dict[str, Any]]:
    """Parse ``results.jsonl`` into dicts, tolerating an incomplete last line.

    Parameters
    ----------
    path : Path
        The ``results.jsonl`` file; a missing file means no results yet.
    repair : bool
        Truncate the file after the last complete line when the last line is incomplete
        (used by the runner before resuming); otherwise only ignore it with a warning.

    Raises
    ------
    RunTableError
        A line other than the last is not a JSON object (file and line number named).
    """
    return [entry.record for entry in read_result_entries(path, repair=repair)]


def replace_lines(path: Path, lines: Sequence[bytes]) -> None:
    """Replace ``path`` by ``lines`` (each without its newline) atomically and durably.

    A temporary file in the same directory is written and fsynced, renamed over ``path``, and
    the directory is fsynced: a crash leaves either the old or the new file, never a mix.
    """
    text = b"".join(line + b"\n" for line in lines).decode("utf-8")
    write_text_atomic(path, text)
    fsync_directory(path.parent)


def fsync_directory(directory: Path) -> None:
    """Flush a directory entry change (a rename) to disk where the OS allows it."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # e.g. Windows: directories cannot be opened
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _key_field_problem(name: str, value: Any) -> str | None:
    if name == "run":
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            return "expected an integer >= 0"
    elif name in ("agent", "task_id"):
        if not isinstance(value, str) or not value:
            return "expected a non-empty string"
    elif not isinstance(value, str):
        return "expected a string"
    return None


def record_key(record: Mapping[str, Any], *, source: str | Path, line: int) -> RunKey:
    """The run key of one ``results.jsonl`` record, its fields checked.

    ``condition`` defaults to ``baseline`` and ``variant`` to ``""`` (as in the run table).

    Raises
    ------
    RunTableError
        A key field is missing or has the wrong type: ``<file>: line <n>: field 'run':
        expected an integer >= 0, got 'abc'``.
    """
    defaults = {"condition": BASELINE, "variant": ""}
    values: list[Any] = []
    for name in KEY_COLUMNS:
        if name not in record and name not in defaults:
            raise RunTableError(f"{source}: line {line}: field {name!r} is missing")
        value = record.get(name, defaults.get(name))
        problem = _key_field_problem(name, value)
        if problem is not None:
            raise RunTableError(
                f"{source}: line {line}: field {name!r}: {problem}, got {value!r:.60}"
            )
        values.append(value)
    agent, task_id, condition, variant, run = values
    return (agent, task_id, condition, variant, run)


def check_run_keys(records: Sequence[Mapping[str, Any]], path: Path) -> list[RunKey]:
    """The run key of every record of ``path`` (line *i* holds ``records[i - 1]``).

    Raises
    ------
    RunTableError
        A key field is wrong (:func:`record_key`), or a run appears twice — the message points
        at ``reliability-lab repair``, which keeps one record per run.
    """
    first: dict[RunKey, int] = {}
    keys: list[RunKey] = []
    for number, record in enumerate(records, start=1):
        key = record_key(record, source=path, line=number)
        if key in first:
            raise RunTableError(
                f"{path}: line {number}: run {key} appears twice (first on line {first[key]}); "
                "two processes wrote this directory. Run `reliability-lab repair "
                f"{path.parent}` to keep one record per run (the others are moved to "
                "results.audit.jsonl)."
            )
        first[key] = number
        keys.append(key)
    return keys


def _drop_tail(path: Path, offset: int, number: int, repair: bool) -> None:
    if repair:
        with path.open("r+b") as fh:
            fh.truncate(offset)
            fh.flush()
            os.fsync(fh.fileno())
        warnings.warn(
            f"{path}: removed an incomplete last line (line {number}) left by an interrupted "
            "run; that run will be executed again",
            stacklevel=3,
        )
    else:
        warnings.warn(
            f"{path}: ignoring an incomplete last line (line {number}) left by an interrupted run",
            stacklevel=3,
        )


class ResultsWriter:
    """Appends one JSON line per finished run to ``results.jsonl``, durably."""

    def __init__(self, path: Path) -> None:
        self.path = path
        with naming(path):
            path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = open_append(path)
        # appends may come from worker threads; close() waits for an append in progress
        self._lock = threading.Lock()

    def append(self, record: Mapping[str, Any]) -> None:
        """Write ``record`` as one NaN-safe JSON line and fsync it (thread-safe).

        Raises
        ------
        ValueError
            The writer is closed (the run is then not recorded and runs again on resume).
        """
        self.append_many([record])

    def append_many(self, records: Sequence[Mapping[str, Any]]) -> None:
        """Write ``records`` as JSON lines with one ``write`` and fsync them (thread-safe).

        Nothing is written for an empty sequence. Raises ``ValueError`` when closed.
        """
        if not records:
            return
        line = "".join(dumps(r) + "\n" for r in records).encode("utf-8")
        with self._lock:
            if self._fd < 0:
                raise ValueError(f"{self.path}: writer is closed")
            append_durably(self._fd, line, self.path)

    def close(self) -> None:
        """Close the file once no append is in progress."""
        with self._lock:
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1

    def __enter__(self) -> ResultsWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
