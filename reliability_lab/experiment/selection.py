"""Narrowing an experiment (``--tasks``, ``--agents``, ``--limit``) and Python objects in configs.

:func:`apply_filters` keeps some agents and tasks of a config (the CLI's ``run`` and
``validate`` filters and :func:`~reliability_lab.experiment.run_experiment`'s). A config built in
Python may hold an agent's ``solve`` callable and an :class:`~reliability_lab.envs.Environment`
object instead of import strings; :func:`config_with_objects` registers them and puts references
in their place (docs/your_agent.md, "From Python").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from reliability_lab._imports import register_object
from reliability_lab.errors import ConfigError

__all__ = ["apply_filters", "check_importable_on_workers", "config_with_objects", "split_names"]


def split_names(text: str | Sequence[str] | None) -> list[str] | None:
    """``"a,b"`` or ``["a", "b"]`` → ``["a", "b"]`` (None stays None)."""
    if text is None:
        return None
    items = text.split(",") if isinstance(text, str) else list(text)
    names = [item.strip() for item in items if item.strip()]
    return names or None


def apply_filters(
    data: Mapping[str, Any],
    *,
    tasks: str | Sequence[str] | None = None,
    agents: str | Sequence[str] | None = None,
    limit: int | None = None,
    source: str = "config",
) -> dict[str, Any]:
    """The config mapping with only the given agents (by label) and tasks (by id, first
    ``limit``). Gates about agents that are left out are dropped.

    Raises
    ------
    ConfigError
        An agent label that is not in the config (the known labels are listed).
    """
    out = dict(data)
    wanted = split_names(agents)
    if wanted is not None:
        listed = [a for a in out.get("agents") or [] if isinstance(a, Mapping)]
        labels = [str(a.get("label")) for a in listed]
        unknown = [w for w in wanted if w not in labels]
        if unknown:
            raise ConfigError(
                f"{source}: --agents: unknown agent {unknown[0]!r}; agents: {', '.join(labels)}"
            )
        out["agents"] = [a for a in listed if a.get("label") in wanted]
        out["gates"] = [
            g
            for g in out.get("gates") or []
            if not (isinstance(g, Mapping) and g.get("agent") not in (None, *wanted))
        ]
    env = out.get("environment")
    env = dict(env) if isinstance(env, Mapping) else {}
    ids = split_names(tasks)
    if ids is not None:
        env["task_ids"] = ids
    if limit is not None:
        env["limit"] = limit
    if ids is not None or limit is not None:
        out["environment"] = env
    return out


def config_with_objects(data: Mapping[str, Any]) -> dict[str, Any]:
    """The config mapping with Python objects replaced by references.

    ``agents[i].agent`` may be a callable (kept under ``module:qualname`` when importable,
    else a process-local reference) and ``environment`` an Environment object (registered
    under its name; ``{"environment": env}`` or ``{"environment": {"name": ..., "object":
    env}}``).
    """
    from reliability_lab.envs import Environment, register_environment

    out = dict(data)
    agents = []
    for agent in out.get("agents") or []:
        if isinstance(agent, Mapping) and callable(agent.get("agent")):
            agent = {**agent, "agent": register_object(agent["agent"], "agent")}
        agents.append(agent)
    if "agents" in out:
        out["agents"] = agents
    env = out.get("environment")
    if isinstance(env, Mapping) and isinstance(env.get("object"), Environment):
        env = dict(env)
        obj = env.pop("object")
        env.setdefault("name", obj.name)
        register_environment(str(env["name"]), lambda: obj, overwrite=True)
        out["environment"] = env
    elif isinstance(env, Environment):
        register_environment(env.name, lambda: env, overwrite=True)
        out["environment"] = {"name": env.name}
    return out


def check_importable_on_workers(data: Any, source: str = "config") -> None:
    """Refuse, before Ray starts, agents and environments only this process knows.

    Raises
    ------
    ConfigError
        An agent defined in ``__main__`` (a notebook or script) or kept as a process-local
        object: Ray workers could not import it.
    """
    for index, agent in enumerate(data.agents):
        entry = agent.agent or ""
        module = entry.partition(":")[0]
        if module == "__main__" or module.startswith("<"):
            raise ConfigError(
                f"{source}: agents[{index}].agent: {entry!r} is defined in this process only "
                "(a notebook or a script run as __main__); Ray workers cannot import it. Move "
                "it to a module on the workers' path and name it as 'module:attribute'."
            )
    factory = data.environment.factory or ""
    if factory.partition(":")[0] == "__main__":
        raise ConfigError(
            f"{source}: environment.factory: {factory!r} is defined in __main__; Ray workers "
            "cannot import it. Move it to a module."
        )
