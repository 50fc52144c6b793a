"""Imported run tables as results directories: the settings, header and ``results.jsonl``.

``reliability-lab report PATH`` on another harness's logs (docs/importers.md) computes the same
summary as for an experiment. Its settings — where the runs came from, the metric profile,
bootstrap settings and gates — are an :class:`ImportConfig`, stored in ``header.json`` in
place of an experiment config, so that a directory written with ``--output`` is a results
directory like any other: ``reliability-lab report DIR`` and
:func:`~reliability_lab.experiment.load_results` read it back.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from reliability_lab.errors import ConfigError
from reliability_lab.experiment._jsonio import dumps
from reliability_lab.experiment.config import ReportSettings, format_validation_error
from reliability_lab.experiment.gates import GateConfig
from reliability_lab.experiment.results import RESULT_SCHEMA_VERSION
from reliability_lab.experiment.store import RESULTS_FILE, HeaderRecord, write_header
from reliability_lab.report.profiles import get_profile
from reliability_lab.runs import KEY_COLUMNS, is_simulated_model

__all__ = ["IMPORT_KEY", "ImportConfig", "import_config", "import_header", "write_import"]

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


def _models(runs: pd.DataFrame, fallback: str) -> dict[str, str]:
    models: dict[str, str] = {}
    for agent, group in runs.groupby("agent", sort=True):
        model = group["model"].dropna().iloc[0] if "model" in group else None
        models[str(agent)] = str(model) if model is not None else fallback
    return models


def import_header(runs: pd.DataFrame, config: ImportConfig) -> HeaderRecord:
    """The ``header.json`` record of an imported run table."""
    import reliability_lab

    now = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    models = _models(runs, f"{config.imported_from.format} log")
    settings = config.model_dump(mode="json")
    return HeaderRecord(
        suite_name=config.name,
        timestamp=now,
        updated=now,
        version=reliability_lab.__version__,
        profile=config.profile,
        seed=config.seed,
        models=models,
        simulated=any(is_simulated_model(m) for m in models.values()),
        tasks=sorted(runs["task_id"].astype(str).unique()),
        config=settings,
        fingerprint=hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest(),
    )


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
    lines = [dumps({**version, **row}) for row in runs.to_dict(orient="records")]
    tmp = directory / f".{RESULTS_FILE}.tmp"
    tmp.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    tmp.replace(directory / RESULTS_FILE)
    write_header(directory, header)
