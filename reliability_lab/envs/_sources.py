"""Environments built from user code named in a config: a factory or a declarative task set.

``environment: {factory: my_benchmark:make_environment}`` calls the factory;
``environment: {tasks: tasks.jsonl, tools: my_tools:TOOLS, scorer: ...}`` builds a
:class:`~reliability_lab.envs.taskset.TaskSetEnvironment`. Either is registered under the
config's environment name, in every process that needs it (the driver and each Ray worker), so
the rest of the harness looks it up by name as it does a built-in one.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from reliability_lab._imports import ImportTargetError, import_target
from reliability_lab.envs._base import Environment
from reliability_lab.envs._registry import get_environment, register_environment

__all__ = ["EnvironmentSourceError", "build_environment", "ensure_environment"]

_BUILT: dict[str, str] = {}  # name -> key of the source registered under it
_LOCK = threading.Lock()


class EnvironmentSourceError(ValueError):
    """An environment source that cannot be built (names the field and the cause)."""


def _resolve(field: str, reference: str, root: str) -> Any:
    try:
        return import_target(reference, root)
    except ImportTargetError as exc:
        raise EnvironmentSourceError(f"environment.{field}: {exc}") from None


def _sequence(field: str, value: Any) -> list[Any]:
    if isinstance(value, Mapping):
        return list(value.values())
    if isinstance(value, list | tuple):
        return list(value)
    if callable(value):
        return [value]
    raise EnvironmentSourceError(
        f"environment.{field}: expected a list of functions, got {type(value).__name__}"
    )


def _task_set(name: str, source: Mapping[str, Any], root: str) -> Environment:
    from reliability_lab.envs.taskset import TaskFileError, TaskSetEnvironment, load_tasks

    path = Path(source["tasks"])
    if root and not path.is_absolute():
        path = Path(root) / path
    kwargs: dict[str, Any] = {}
    for field in ("tools", "constraints", "detectors"):
        if source.get(field):
            value = source[field]
            kwargs[field] = _sequence(
                field, _resolve(field, value, root) if isinstance(value, str) else value
            )
    if source.get("state"):
        state = _resolve("state", source["state"], root)
        kwargs["initial_state"] = state if callable(state) else (lambda: state)
    if source.get("system_prompt") is not None:
        kwargs["system_prompt"] = str(source["system_prompt"])
    try:
        return TaskSetEnvironment(
            name=name,
            tasks=load_tasks(path),
            scorer=source.get("scorer") or "contains",
            resolve=lambda ref: _resolve("scorer", ref, root),
            **kwargs,
        )
    except TaskFileError as exc:
        raise EnvironmentSourceError(f"environment.tasks: {exc}") from None
    except (TypeError, ValueError) as exc:
        if isinstance(exc, EnvironmentSourceError):
            raise
        raise EnvironmentSourceError(f"environment: {exc}") from None


def build_environment(name: str, source: Mapping[str, Any], root: str = "") -> Environment:
    """Build the environment ``source`` describes (``factory`` or ``tasks``).

    Raises
    ------
    EnvironmentSourceError
        The factory or a referenced module/attribute cannot be imported, the factory raised
        or returned something else than an Environment, or the task set is invalid.
    """
    if source.get("factory"):
        factory = _resolve("factory", str(source["factory"]), root)
        try:
            env = (
                factory() if callable(factory) and not isinstance(factory, Environment) else factory
            )
        except Exception as exc:
            raise EnvironmentSourceError(
                f"environment.factory: {source['factory']} raised {type(exc).__name__}: {exc}"
            ) from exc
        if not isinstance(env, Environment):
            raise EnvironmentSourceError(
                f"environment.factory: {source['factory']} returned {type(env).__name__}, "
                "expected a reliability_lab.envs.Environment"
            )
        return env
    if source.get("tasks"):
        return _task_set(name, source, root)
    raise EnvironmentSourceError("environment: give a registered name, a factory or tasks")


def ensure_environment(name: str, source: Mapping[str, Any], root: str = "") -> Environment:
    """The environment ``source`` describes, built once per process and registered as ``name``.

    Raises
    ------
    EnvironmentSourceError
        See :func:`build_environment`; also ``name`` already registered for another
        environment (e.g. a built-in one).
    """
    if not source:
        return get_environment(name)
    key = json.dumps([dict(source), root], sort_keys=True, default=str)
    with _LOCK:
        if _BUILT.get(name) == key:
            return get_environment(name)
        if name not in _BUILT:
            try:
                get_environment(name)
            except KeyError:
                pass
            else:
                raise EnvironmentSourceError(
                    f"environment.name: {name!r} is already a registered environment; give "
                    "your factory or task set another name"
                )
        env = build_environment(name, source, root)
        register_environment(name, lambda: env, overwrite=True)
        _BUILT[name] = key
        return env
