"""Expand a config into the list of runs to execute (agents × tasks × conditions × variants × K).

Task selection is checked against the environment registry here, so ``reliability-lab validate``
catches an unknown environment or task id before anything runs.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from reliability_lab.errors import ConfigError
from reliability_lab.experiment.config import AgentConfig, ConditionConfig, ExperimentConfig
from reliability_lab.experiment.seeds import run_seed
from reliability_lab.runs import SIMULATED_PREFIX, RunKey, is_simulated_model

if TYPE_CHECKING:
    from reliability_lab.agents import RunSpec
    from reliability_lab.envs import Environment

__all__ = [
    "build_plan",
    "check_agents",
    "check_conditions",
    "check_models",
    "check_output",
    "check_plan",
    "condition_artifacts",
    "config_environment",
    "make_spec",
    "plan_size",
    "planned_keys",
    "resolve_tasks",
]


def config_environment(config: ExperimentConfig, *, source: str = "config") -> Environment:
    """The environment of ``config``: registered by name, or built from its factory or task
    set (and registered under its name in this process).

    Raises
    ------
    ConfigError
        Unknown environment (lists the registered ones), or a factory / task set that cannot
        be built (names the field: the module or attribute, the task file's line, ...).
    """
    from reliability_lab.envs import get_environment, list_environments
    from reliability_lab.envs._sources import EnvironmentSourceError, ensure_environment

    env_cfg = config.environment
    try:
        env_source = env_cfg.source(config.import_root)
        if env_source:
            return ensure_environment(env_cfg.name, env_source, config.import_root or "")
        return get_environment(env_cfg.name)
    except EnvironmentSourceError as exc:
        raise ConfigError(f"{source}: {exc}") from None
    except KeyError:
        known = ", ".join(list_environments())
        raise ConfigError(
            f"{source}: environment.name: unknown environment {env_cfg.name!r}; registered: "
            f"{known} (or give a factory or a task file)"
        ) from None


def resolve_tasks(config: ExperimentConfig, *, source: str = "config") -> list[str]:
    """Task ids selected by ``config.environment``, in the environment's order.

    Raises
    ------
    ConfigError
        Unknown environment (lists the registered ones) or unknown task ids.
    """
    env_cfg = config.environment
    env = config_environment(config, source=source)
    available = [t.task_id for t in env.tasks()]
    if env_cfg.tasks == "all" or env_cfg.task_file is not None:
        selected = available
    else:
        known_ids = set(available)
        for i, task_id in enumerate(env_cfg.tasks):
            if task_id not in known_ids:
                shown = ", ".join(available[:10]) + (" ..." if len(available) > 10 else "")
                raise ConfigError(
                    f"{source}: environment.tasks[{i}]: unknown task {task_id!r} in "
                    f"environment {env_cfg.name!r}; valid ids: {shown}"
                )
        wanted = set(env_cfg.tasks)
        selected = [t for t in available if t in wanted]
    if env_cfg.task_ids is not None:
        missing = [t for t in env_cfg.task_ids if t not in set(available)]
        if missing:
            raise ConfigError(
                f"{source}: environment.task_ids: unknown task {missing[0]!r} in environment "
                f"{env_cfg.name!r}; valid ids: {', '.join(available[:10])}"
                + (" ..." if len(available) > 10 else "")
            )
        selected = [t for t in selected if t in set(env_cfg.task_ids)]
    if env_cfg.limit is not None:
        selected = selected[: env_cfg.limit]
    if not selected:
        raise ConfigError(f"{source}: environment: no tasks selected")
    return selected


def check_models(config: ExperimentConfig, *, source: str = "config") -> None:
    """Reject ``sim/<persona>`` model strings naming no registered simulated persona.

    Other model strings are litellm's to resolve at call time (a wrong one is recorded as
    each run's ``infrastructure:`` error).

    Raises
    ------
    ConfigError
        Names the agent's field path and lists the registered profiles.
    """
    from reliability_lab.sim import PERSONAS

    for index, agent in enumerate(config.agents):
        if agent.model and is_simulated_model(agent.model):
            profile = agent.model.removeprefix(SIMULATED_PREFIX)
            if profile not in PERSONAS:
                raise ConfigError(
                    f"{source}: agents[{index}].model: unknown simulated profile {profile!r} "
                    f"(got {agent.model!r}); available: "
                    + ", ".join(f"sim/{name}" for name in sorted(PERSONAS))
                )


def check_agents(config: ExperimentConfig, *, source: str = "config") -> None:
    """Import every agent's ``solve`` and check its ``ctx`` use (docs/your_agent.md).

    Raises
    ------
    ConfigError
        ``agents[i].agent:`` and the module or attribute that cannot be imported, or the
        source file and line of a ``ctx`` misuse.
    """
    from reliability_lab.agents import AgentCheckError, check_agent

    for index, agent in enumerate(config.agents):
        if agent.agent is None:
            continue
        try:
            check_agent(agent.agent, config.import_root or "")
        except AgentCheckError as exc:
            raise ConfigError(f"{source}: agents[{index}].agent: {exc}") from None


def check_conditions(config: ExperimentConfig, *, source: str = "config") -> None:
    """Check each condition's options against the experiment's environment.

    Raises
    ------
    ConfigError
        Names ``conditions[i].options`` and the problem (e.g. a fault ``tools`` entry that is
        not a tool of the environment).
    """
    from reliability_lab.perturbations import get_condition

    env = config_environment(config, source=source)
    for index, condition in enumerate(config.conditions):
        check = get_condition(condition.name).check_environment
        if check is None:
            continue
        try:
            check(condition.parsed_options(), env)
        except ValueError as exc:
            raise ConfigError(f"{source}: conditions[{index}]: {exc}") from None


def make_spec(
    config: ExperimentConfig,
    index: int,
    condition: ConditionConfig,
    variant: str,
    task_id: str,
    run: int,
    *,
    source: str = "config",
) -> RunSpec:
    """The :class:`~reliability_lab.agents.RunSpec` of one run of agent ``config.agents[index]``.

    Its seed comes from :func:`run_seed`: every condition and variant with the same agent, task
    and run index shares it (paired runs), whatever the run index (adaptive runs beyond K too).
    """
    from reliability_lab.agents import RunSpec

    agent = config.agents[index]
    try:
        return RunSpec(
            agent=agent.label,
            model=agent.model,
            params=dict(agent.params),
            environment=config.environment.name,
            task_id=task_id,
            run=run,
            seed=run_seed(config.seed, agent=agent.label, task_id=task_id, run=run),
            condition=condition.name,
            variant=variant,
            max_steps=config.agent_max_steps(agent),
            elicit_confidence=agent.elicit_confidence,
            pass_threshold=agent.pass_threshold,
            condition_options=dict(condition.options),
            agent_entry=agent.agent or "",
            options=dict(agent.options),
            import_root=config.import_root or "",
            environment_source=config.environment.source(config.import_root),
        )
    except ValueError as exc:
        raise ConfigError(f"{source}: agents[{index}]: {exc}") from None


def plan_size(config: ExperimentConfig, n_tasks: int) -> int:
    """Runs the plan holds plus those an ``adaptive`` block may add — counted, not built.

    >>> from reliability_lab.experiment.config import parse_config
    >>> cfg = parse_config({"name": "x", "runs": 3, "agents": [{"label": "a", "model": "m"}]})
    >>> plan_size(cfg, n_tasks=4)
    12
    """
    per_task = sum(len(c.resolved_variants()) * config.condition_runs(c) for c in config.conditions)
    extra = config.adaptive.max_runs - config.runs if config.adaptive is not None else 0
    return len(config.agents) * n_tasks * (per_task + extra)


def check_output(config: ExperimentConfig, *, source: str = "config") -> None:
    """Refuse an ``output`` that is (or lies inside) an existing file, not a directory.

    Raises
    ------
    ConfigError
        Names the field and the file.
    """
    out = config.output_dir()
    for path in (out, *out.parents):
        if path.exists():
            if not path.is_dir():
                raise ConfigError(
                    f"{source}: output: {str(out)!r}: {path} is an existing file, not a "
                    "directory; name a results directory"
                )
            return


def check_plan(config: ExperimentConfig, tasks: list[str], *, source: str = "config") -> int:
    """Check everything :func:`build_plan` checks, without building it; the plan's size.

    Raises
    ------
    ConfigError
        Unknown simulated profile, condition options that do not fit the environment, an
        output that is a file, an agent whose run specification is invalid, or more runs
        than ``limits.max_runs`` (:mod:`reliability_lab.experiment.limits`).
    """
    check_models(config, source=source)
    check_agents(config, source=source)
    check_conditions(config, source=source)
    check_output(config, source=source)
    size = plan_size(config, len(tasks))
    ceiling = config.limits.max_runs
    if size > ceiling:
        raise ConfigError(
            f"{source}: runs: the experiment plans {size} runs (adaptive ones included), more "
            f"than the ceiling limits.max_runs = {ceiling}, which protects the machine; raise "
            "it in a limits: block if this many are meant"
        )
    condition = config.conditions[0]
    variant = condition.resolved_variants()[0]
    for index in range(len(config.agents)):  # a spec's checks depend on the agent only
        make_spec(config, index, condition, variant, tasks[0], 0, source=source)
    return size


def build_plan(
    config: ExperimentConfig, tasks: list[str] | None = None, *, source: str = "config"
) -> list[RunSpec]:
    """Every run of the experiment as a :class:`~reliability_lab.agents.RunSpec`.

    Ordered run index first (all of run 0, then run 1, ...) so an interrupted experiment holds
    complete early repetitions. Each spec carries its seed from :func:`run_seed`, which the
    runs of every condition and variant with the same agent, task and run index share (paired
    runs), and its condition's options. Runs an ``adaptive`` block adds later are not part of
    the plan (``reliability_lab.runner.adaptive``).
    """
    task_ids = tasks if tasks is not None else resolve_tasks(config, source=source)
    check_plan(config, task_ids, source=source)
    return [
        make_spec(config, index, condition, variant, task_id, run, source=source)
        for run, index, _, condition, variant, task_id in _plan_order(config, task_ids)
    ]


def _plan_order(
    config: ExperimentConfig, task_ids: list[str]
) -> Iterator[tuple[int, int, AgentConfig, ConditionConfig, str, str]]:
    """``(run, agent index, agent, condition, variant, task_id)`` of every run, in plan order.

    A condition with fewer repetitions than ``runs`` stops at its own count.
    """
    conditions = [(c, c.resolved_variants(), config.condition_runs(c)) for c in config.conditions]
    for run in range(config.runs):
        for index, agent in enumerate(config.agents):
            for condition, variants, n_runs in conditions:
                if run >= n_runs:
                    continue
                for variant in variants:
                    for task_id in task_ids:
                        yield run, index, agent, condition, variant, task_id


def planned_keys(config: ExperimentConfig, tasks: list[str]) -> list[RunKey]:
    """The run keys of :func:`build_plan`'s runs, in the same order.

    Checks nothing and builds no specs: used to compare recorded results with the plan their
    ``header.json`` describes (``tasks`` are the header's resolved task ids).
    """
    return [
        (agent.label, task_id, condition.name, variant, run)
        for run, _, agent, condition, variant, task_id in _plan_order(config, tasks)
    ]


def condition_artifacts(config: ExperimentConfig) -> dict[str, str]:
    """Condition name → artifact file name, for the conditions that prepare one.

    Raises
    ------
    ConfigError
        Two conditions would write the same artifact file.
    """
    from reliability_lab.perturbations import get_condition

    out: dict[str, str] = {}
    for condition in config.conditions:
        artifact = get_condition(condition.name).artifact
        if artifact is None:
            continue
        if artifact in out.values():
            raise ConfigError(f"conditions: two conditions write the same artifact {artifact!r}")
        out[condition.name] = artifact
    return out
