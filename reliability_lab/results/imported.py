"""Imported run tables as results directories: the settings, header and ``results.jsonl``.

``reliability-lab report PATH`` on another harness's logs (docs/importers.md) computes the same
summary as for an experiment. Its settings — where the runs came from, the metric profile,
bootstrap settings and gates — are an :class:`ImportConfig`, stored in ``header.json`` in
place of an experiment config, so that a directory written with ``--output`` is a results
directory like any other: ``reliability-lab report DIR`` and
:func:`~reliability_lab.results.load_results` read it back.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from reliability_lab._version import __version__
from reliability_lab.errors import ConfigError
from reliability_lab.experiment.config import (
    ReportSettings,
    SessionSettings,
    format_validation_error,
)
from reliability_lab.experiment.gates import GateConfig
from reliability_lab.metrics.profiles import get_profile
from reliability_lab.results._jsonio import dumps
from reliability_lab.results.read import RESULT_SCHEMA_VERSION
from reliability_lab.results.store import RESULTS_FILE, HeaderRecord, write_header
from reliability_lab.runs import KEY_COLUMNS, is_simulated_model

__all__ = [
    "IMPORT_KEY",
    "ImportConfig",
    "import_config",
    "import_header",
    "score_sessions",
    "write_import",
]

#: The ``header.json`` config key that marks an imported results directory.
IMPORT_KEY = "imported_from"


class ImportSource(BaseModel):
    """Where imported runs came from."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format: str
    """The importer's format name (``inspect``, ``tau2-bench``, ``hal``, ``letta-evals`` …)."""
    path: str
    """The file or directory that was imported."""


class ImportConfig(BaseModel):
    """Summary settings of an imported run table (the ``config`` of its ``header.json``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    """Suite name shown in the summary (default: the imported path's name)."""
    imported_from: ImportSource
    """The format and path of the imported logs."""
    runs: int = Field(ge=1)
    """K: the largest number of runs of one task, condition and variant."""
    seed: int = Field(default=0, ge=0)
    """Seed of the bootstrap."""
    profile: str = "default"
    """Metric profile of the reliability report."""
    report: ReportSettings = Field(default_factory=ReportSettings)
    """Bootstrap settings."""
    gates: list[GateConfig] = Field(default_factory=list)
    """Pass/fail gates (all must hold for exit status 0)."""
    sessions: SessionSettings | None = None
    """How session metrics were computed from the logs' conversations (``report
    --sessions``); None when they were not."""

    @field_validator("profile")
    @classmethod
    def _known_profile(cls, value: str) -> str:
        get_profile(value)  # the report's own check: an unknown name lists the valid ones
        return value


def import_config(
    runs: pd.DataFrame,
    *,
    format: str,
    path: str,
    gates: list[str] | None = None,
    name: str | None = None,
    **settings: Any,
) -> ImportConfig:
    """Validated :class:`ImportConfig` for a run table imported from ``path``.

    ``gates`` are texts such as ``"R >= 0.7"`` (the syntax of experiment configs);
    ``settings`` are ``seed``, ``profile`` and ``report`` (``{"n_boot": …}``).

    Raises
    ------
    ConfigError
        A gate that does not parse or names an unknown metric, an unknown profile, a bad
        bootstrap setting (the message names the option and value).
    """
    k = int(runs.groupby(list(KEY_COLUMNS[:-1]), sort=False).size().max()) if len(runs) else 1
    data = {
        "name": name or Path(path).name or str(path),
        "imported_from": {"format": format, "path": str(path)},
        "runs": k,
        "gates": list(gates or []),
        **{key: value for key, value in settings.items() if value is not None},
    }
    try:
        return ImportConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(format_validation_error(exc, "report options")) from None


#: Per-run session columns of the run table, stored as the record's ``session`` object.
_SESSION_COLUMNS = {
    "agent_reliability": "agent_reliability",
    "agent_consistency": "agent_consistency",
    "session_error": "error",
}


def score_sessions(runs: pd.DataFrame, settings: SessionSettings, *, source: str) -> pd.DataFrame:
    """``runs`` with PandaProbe session metrics computed from their conversations.

    Each run is one session, scored by the same scorer as the experiment runner
    (:class:`~reliability_lab.sessions.scoring.SessionScorer`, docs/pandaprobe.md): columns
    ``agent_reliability``, ``agent_consistency`` and ``session_error`` are added. Runs that
    ended in an infrastructure error, and runs without a conversation, are not scored
    (``session_error`` says why).

    Raises
    ------
    ConfigError
        The importer of ``source`` keeps no conversations (no ``trajectory`` column).
    """
    from reliability_lab.sessions.scoring import session_metrics_for_results

    if "trajectory" not in runs:
        raise ConfigError(
            f"{source}: --sessions needs the runs' conversations, and this format's importer "
            "keeps none (inspect logs and τ²-bench results have them; docs/importers.md)"
        )
    records = runs[[*KEY_COLUMNS, "trajectory", "error"]].to_dict(orient="records")
    for record in records:  # a run without a conversation: "the run has no agent step"
        if not isinstance(record["trajectory"], list):
            record["trajectory"] = []
    scores = session_metrics_for_results(
        records,
        judge_model=settings.judge_model,
        embed=settings.embedder,
        signal_weights=settings.signal_weights,
        judge_params=settings.judge_params,
    )
    keep = [*KEY_COLUMNS, *_SESSION_COLUMNS]
    merged = runs.drop(columns=[c for c in _SESSION_COLUMNS if c in runs]).merge(
        scores[keep], on=list(KEY_COLUMNS), how="left", validate="one_to_one"
    )
    return merged


def _models(runs: pd.DataFrame, fallback: str) -> dict[str, str]:
    models: dict[str, str] = {}
    for agent, group in runs.groupby("agent", sort=True):
        model = group["model"].dropna().iloc[0] if "model" in group else None
        models[str(agent)] = str(model) if model is not None else fallback
    return models


def import_header(runs: pd.DataFrame, config: ImportConfig) -> HeaderRecord:
    """The ``header.json`` record of an imported run table."""
    now = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    models = _models(runs, f"{config.imported_from.format} log")
    settings = config.model_dump(mode="json")
    return HeaderRecord(
        suite_name=config.name,
        timestamp=now,
        updated=now,
        version=__version__,
        profile=config.profile,
        seed=config.seed,
        models=models,
        simulated=any(is_simulated_model(m) for m in models.values()),
        tasks=sorted(runs["task_id"].astype(str).unique()),
        config=settings,
        fingerprint=hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest(),
    )


def _with_session(row: dict[Any, Any]) -> dict[Any, Any]:
    """A run-table row as a result record: session columns become its ``session`` object."""
    if "agent_reliability" not in row:
        return row
    session = {key: row.pop(column, None) for column, key in _SESSION_COLUMNS.items()}
    return {**row, "session": session}


def write_import(runs: pd.DataFrame, header: HeaderRecord, directory: Path) -> None:
    """Write ``header.json`` and ``results.jsonl`` (every column of every run) to ``directory``.

    Raises
    ------
    ConfigError
        ``directory`` holds an experiment's results (they are never overwritten).
    """
    directory.mkdir(parents=True, exist_ok=True)
    existing = directory / "header.json"
    if existing.exists():
        try:
            old = json.loads(existing.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            old = None
        if not (isinstance(old, dict) and IMPORT_KEY in (old.get("config") or {})):
            raise ConfigError(
                f"{directory}: holds results that were not imported; refusing to overwrite "
                "them (choose another --output directory)"
            )
    version = {"schema_version": RESULT_SCHEMA_VERSION}
    lines = [dumps({**version, **_with_session(row)}) for row in runs.to_dict(orient="records")]
    tmp = directory / f".{RESULTS_FILE}.tmp"
    tmp.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    tmp.replace(directory / RESULTS_FILE)
    write_header(directory, header)
