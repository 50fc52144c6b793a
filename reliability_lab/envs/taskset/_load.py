"""Reading a task file: JSON Lines, CSV or YAML, one task per line / row / list item.

Fields: ``id`` (or ``task_id``), ``instruction`` (or ``question`` / ``prompt``), ``expected``
(or ``answer``), ``facts`` (a list; ``a|b`` in CSV), ``details`` (what a paraphrase must keep;
extracted automatically when absent), ``allowed_destructive`` (destructive tools the task
asks for), ``metadata`` (a mapping); any other field is added to ``metadata``.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from reliability_lab.envs._base import Task

__all__ = ["TASK_FILE_SUFFIXES", "TaskFileError", "load_tasks"]

#: File suffixes a task file may have.
TASK_FILE_SUFFIXES = (".jsonl", ".csv", ".yaml", ".yml")
_ALIASES = {
    "task_id": "id",
    "question": "instruction",
    "prompt": "instruction",
    "answer": "expected",
}
_LISTS = ("facts", "details", "allowed_destructive")


class TaskFileError(ValueError):
    """A task file that cannot be read (the message names the file, the task and the field)."""


def _rows(path: Path) -> list[tuple[str, Any]]:
    """``(where, raw row)`` of every task in the file."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        rows = []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                rows.append((f"line {number}", json.loads(line)))
            except json.JSONDecodeError as exc:
                raise TaskFileError(f"{path}: line {number}: invalid JSON: {exc.msg}") from None
        return rows
    if path.suffix == ".csv":
        reader = csv.DictReader(text.splitlines())
        return [(f"row {i}", dict(row)) for i, row in enumerate(reader, start=2)]
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise TaskFileError(f"{path}: invalid YAML: {exc}") from None
    if isinstance(data, Mapping) and "tasks" in data:
        data = data["tasks"]
    if not isinstance(data, list):
        raise TaskFileError(f"{path}: expected a list of tasks (or a mapping with 'tasks')")
    return [(f"tasks[{i}]", row) for i, row in enumerate(data)]


def _as_list(value: Any, where: str, name: str) -> list[str]:
    if value is None or value == "":
        return []
    if isinstance(value, str):
        return [part.strip() for part in value.split("|") if part.strip()]
    if isinstance(value, list):
        return [str(v) for v in value]
    raise TaskFileError(f"{where}: {name}: expected a list, got {value!r:.80}")


def _task(path: Path, where: str, raw: Any) -> Task:
    if not isinstance(raw, Mapping):
        raise TaskFileError(f"{path}: {where}: expected a mapping of fields, got {raw!r:.80}")
    row = {_ALIASES.get(str(k), str(k)): v for k, v in raw.items()}
    for name in ("id", "instruction"):
        if row.get(name) in (None, ""):
            raise TaskFileError(f"{path}: {where}: {name}: missing (every task needs it)")
    if not isinstance(row["instruction"], str):
        raise TaskFileError(f"{path}: {where}: instruction: expected text")
    metadata = row.pop("metadata", None) or {}
    if isinstance(metadata, str):  # a CSV cell
        try:
            metadata = json.loads(metadata)
        except json.JSONDecodeError:
            raise TaskFileError(f"{path}: {where}: metadata: not a JSON object") from None
    if not isinstance(metadata, Mapping):
        raise TaskFileError(f"{path}: {where}: metadata: expected a mapping")
    data = dict(metadata)
    for name in _LISTS:
        data[name] = _as_list(row.pop(name, None), f"{path}: {where}", name)
    task_id = str(row.pop("id"))
    instruction = row.pop("instruction")
    data.update(row)  # expected and any other field
    return Task(task_id=task_id, instruction=instruction, metadata=data)


def load_tasks(path: str | Path) -> list[Task]:
    """The tasks of a task file (``.jsonl``, ``.csv``, ``.yaml``/``.yml``).

    Raises
    ------
    TaskFileError
        Unreadable file, unknown suffix, a task without ``id`` or ``instruction``, duplicate
        ids, or no task at all.
    """
    path = Path(path)
    if path.suffix not in TASK_FILE_SUFFIXES:
        raise TaskFileError(
            f"{path}: unknown task file type {path.suffix!r}; use {', '.join(TASK_FILE_SUFFIXES)}"
        )
    try:
        rows = _rows(path)
    except FileNotFoundError:
        raise TaskFileError(f"{path}: file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise TaskFileError(f"{path}: cannot read: {exc}") from None
    tasks = [_task(path, where, raw) for where, raw in rows]
    if not tasks:
        raise TaskFileError(f"{path}: no tasks")
    seen: set[str] = set()
    for (where, _), task in zip(rows, tasks, strict=True):
        if task.task_id in seen:
            raise TaskFileError(f"{path}: {where}: id: duplicate task id {task.task_id!r}")
        seen.add(task.task_id)
    return tasks
