"""The configuration a results directory's ``header.json`` records, read by today's code.

A header written by an older version (or edited by hand) may hold a value the current config
models refuse — ``llm.timeout_s: null`` from an infinite timeout, a model string that looks
like a key. Such a directory is still reported: each refused setting that has a default is
replaced by it and a note says which and why (``summary.json`` ``header_notes``, and a
warning); only a refused setting without a default (an agent's label, the task list) makes
the directory unreadable, with a message naming ``header.json``, the field and the reason.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from reliability_lab._secrets import redact
from reliability_lab.errors import RunTableError
from reliability_lab.experiment._yaml import field_path
from reliability_lab.experiment.config import ExperimentConfig
from reliability_lab.results.imported import IMPORT_KEY, ImportConfig

__all__ = ["config_from_header"]

#: Settings replaced by defaults before giving up (a header has far fewer fields).
_MAX_REPLACED = 50


def _without(data: Any, loc: tuple[int | str, ...]) -> bool:
    """Delete the entry at ``loc`` (the innermost mapping key) from ``data``; whether done."""
    for end in range(len(loc), 0, -1):
        parent: Any = data
        try:
            for part in loc[: end - 1]:
                parent = parent[part]
        except (KeyError, IndexError, TypeError):
            continue
        key = loc[end - 1]
        if isinstance(parent, dict) and key in parent:
            del parent[key]
            return True
    return False


def _copy(data: Any) -> Any:
    if isinstance(data, dict):
        return {k: _copy(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_copy(v) for v in data]
    return data


def config_from_header(
    config: dict[str, Any], *, source: str | Path = "header.json"
) -> tuple[ExperimentConfig | ImportConfig, list[str]]:
    """The header's configuration as today's model, and notes on settings replaced.

    Parameters
    ----------
    config : dict
        ``header.json``'s ``config`` object.
    source : str or Path
        The header file, for messages.

    Raises
    ------
    RunTableError
        A refused setting without a default: ``<header>: config.<field>: <reason> (got ...)``.
    """
    model: type[BaseModel] = ImportConfig if IMPORT_KEY in config else ExperimentConfig
    data = _copy(config)
    notes: list[str] = []
    for _ in range(_MAX_REPLACED):
        try:
            return model.model_validate(data), notes  # type: ignore[return-value]
        except ValidationError as exc:
            errors = exc.errors()
        replaced = False
        for err in errors:
            loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and "[" in p))
            shown = f"{repr(redact(err.get('input')))[:60]}"
            reason = f"config.{field_path(loc)}: {err['msg'].removeprefix('Value error, ')}"
            if err["type"] != "missing" and loc and _without(data, loc):
                notes.append(f"{reason} (got {shown}); reported with its default")
                replaced = True
                break
        if not replaced:
            raise RunTableError(
                f"{source}: the recorded configuration cannot be read by this version: {reason}"
                f"{'' if errors[-1]['type'] == 'missing' else f' (got {shown})'}"
            )
    raise RunTableError(f"{source}: the recorded configuration has too many refused settings")
