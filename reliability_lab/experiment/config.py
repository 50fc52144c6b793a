"""Experiment configuration: YAML → versioned, validated pydantic models.

Every problem is a :class:`~reliability_lab.errors.ConfigError` naming the file, the field
path and the offending value, e.g. ``experiments/x.yaml: agents[1].model: Field required``.
The format is documented in ``experiments/README.md``.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from reliability_lab._secrets import find_secret, redact
from reliability_lab.envs.taskset._load import TASK_FILE_SUFFIXES
from reliability_lab.errors import ConfigError
from reliability_lab.experiment._yaml import Path_, field_path, line_of, load_yaml
from reliability_lab.experiment.gates import GateConfig
from reliability_lab.experiment.limits import Float, Int, LimitsSettings, find_non_finite
from reliability_lab.metrics.session import SESSION_METRICS
from reliability_lab.perturbations import get_condition
from reliability_lab.runs import BASELINE, is_simulated_model
from reliability_lab.sessions.scoring import HASHING_EMBEDDER

__all__ = [
    "CONFIG_VERSION",
    "MAX_CONFIG_BYTES",
    "AdaptiveSettings",
    "AgentConfig",
    "ConditionConfig",
    "EnvironmentConfig",
    "ExecutorSettings",
    "ExperimentConfig",
    "LLMSettings",
    "ReportSettings",
    "SafetySettings",
    "SessionSettings",
    "format_validation_error",
    "load_config",
    "parse_config",
]

CONFIG_VERSION = 1
#: Largest config file read (a config is a page of YAML; this refuses a wrong file quickly).
MAX_CONFIG_BYTES = 1_000_000


class AdaptiveSettings(BaseModel):
    """The ``adaptive:`` block: extra baseline runs until an interval is narrow enough."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    metric: str = "C_out"
    """Target metric: a mean over tasks (C_out, C_traj_d, C_traj_s, C_conf, C_res) or R_Con."""
    halfwidth: Float = Field(gt=0)
    """Target half-width of the metric's report interval (``report`` settings)."""
    max_runs: Int = Field(ge=2)
    """Most baseline runs of any task (the initial K included)."""
    budget: Int | None = Field(default=None, ge=1)
    """Most baseline runs per agent in total, the initial ones included; default
    ``max_runs`` × tasks."""
    batch: Int | None = Field(default=None, ge=1)
    """Runs added per agent and round; default a fifth of the tasks (at least 1)."""
    allocation: Literal["uniform", "uncertainty"] = "uniform"
    """Which tasks get the runs: ``uniform`` (fewest runs first; the estimates stay unbiased)
    or ``uncertainty`` (most uncertain first; biased by optional stopping). See
    :data:`reliability_lab.report.allocation.ALLOCATION_RULES`."""

    @field_validator("metric")
    @classmethod
    def _targetable(cls, value: str) -> str:
        from reliability_lab.report.allocation import ADAPTIVE_METRICS

        if value not in ADAPTIVE_METRICS:
            raise ValueError(
                f"cannot target {value!r} adaptively; choose one of {', '.join(ADAPTIVE_METRICS)} "
                "(means over tasks: pooled metrics would weight the tasks with extra runs more)"
            )
        return value


def check_adaptive(config: ExperimentConfig) -> None:
    """Cross-checks of the ``adaptive`` block against the rest of the config.

    Raises
    ------
    ValueError
        No ``baseline`` condition, or ``max_runs`` not above ``runs``.
    """
    settings = config.adaptive
    if settings is None:
        return
    if BASELINE not in [c.name for c in config.conditions]:
        raise ValueError("adaptive: adds baseline runs, but 'baseline' is not a condition")
    if settings.max_runs <= config.runs:
        raise ValueError(
            f"adaptive.max_runs ({settings.max_runs}) must exceed runs ({config.runs}): "
            "adaptive runs come after the initial K"
        )


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _reject_secrets(value: Any) -> None:
    """Refuse credentials in a config file (reliability_lab._secrets decides what is one)."""
    found = find_secret(value)
    if found is not None:
        raise ValueError(
            f"{found}, so it looks like a secret; secrets must not be written in config files "
            "(keys and credentials go in environment variables, e.g. OPENAI_API_KEY, which "
            "litellm reads)"
        )


class AgentConfig(_Model):
    """One agent configuration (model + settings) — a row group of the run table."""

    label: str = Field(min_length=1)
    """Agent label; the run table's ``agent`` column. Unique within the experiment."""
    agent: str | None = Field(default=None, pattern=r"^[^:\s]+:[^:\s]+$")
    """Your agent's ``solve(ctx)`` as ``module:attribute``, imported from the config file's
    folder or ``sys.path`` (docs/your_agent.md); None runs the built-in tool loop."""
    model: str
    """Any litellm model string (``openai/gpt-4o-mini``, ``ollama/llama3``) or ``sim/<persona>``:
    the built-in loop's model, or the one ``ctx.llm`` calls. Optional with ``agent``."""
    options: dict[str, Any] = Field(default_factory=dict)
    """Free-form options handed to the agent as ``ctx.options``."""
    params: dict[str, Any] = Field(default_factory=dict)
    """Call parameters passed to every completion (temperature, max_tokens, api_base, ...).
    Never an API key: keys come from the environment."""
    elicit_confidence: bool = True
    """Ask the model for its confidence (0–100) after each run."""
    pass_threshold: Float = Field(default=1.0, ge=0.0, le=1.0)
    """A run succeeds when its score is at least this value."""
    max_steps: Int | None = Field(default=None, ge=1, le=100_000)
    """Per-agent override of the experiment's ``max_steps``."""
    description: str = ""
    """Free text shown in reports."""

    @field_validator("params", "options", "model")
    @classmethod
    def _no_secrets(cls, value: Any) -> Any:
        _reject_secrets(value)
        return value

    @model_validator(mode="before")
    @classmethod
    def _model_optional_with_agent(cls, data: Any) -> Any:
        if isinstance(data, Mapping) and data.get("agent") is not None and "model" not in data:
            return {**data, "model": ""}
        return data

    @field_validator("model")
    @classmethod
    def _model_given(cls, value: str, info: ValidationInfo) -> str:
        if not value and info.data.get("agent") is None:
            raise ValueError("a model string is required unless the entry names an agent")
        return value


class EnvironmentConfig(_Model):
    """Which environment (registered, a factory, or a task set) and which of its tasks to run."""

    name: str = Field(default="customer_service", min_length=1)
    """Environment name: a registered one (``reliability_lab.envs.list_environments()``), or
    the name your factory's or task set's environment is recorded under (default: the factory
    module's or the task file's name)."""
    factory: str | None = Field(default=None, pattern=r"^[^:\s]+:[^:\s]+$")
    """``module:attribute`` of a function returning an ``Environment`` (docs/your_agent.md)."""
    tasks: str | list[str] = "all"
    """``all``, an explicit list of task ids, or a task file (``.jsonl``, ``.csv``, ``.yaml``)
    of a declarative task set, relative to the config file."""
    tools: str | None = None
    """Task set: ``module:attribute`` of the tool functions (a list or a dict of them)."""
    scorer: str | dict[str, Any] | None = None
    """Task set: ``exact``, ``contains`` (default), ``numeric`` (``{kind: numeric, tolerance:
    0.01}``), ``regex``, ``llm_judge`` (``{kind: llm_judge, model: ...}``) or
    ``module:function``."""
    system_prompt: str | None = None
    """Task set: the system message the built-in loop sends (a generic one by default)."""
    state: str | None = None
    """Task set: ``module:attribute`` of the tools' initial state (a value or a function)."""
    constraints: str | None = None
    """Task set: ``module:attribute`` of extra safety constraints."""
    detectors: str | None = None
    """Task set: ``module:attribute`` of extra rule detectors."""
    task_ids: list[str] | None = None
    """Only these task ids (any environment kind; CLI ``--tasks``)."""
    limit: Int | None = Field(default=None, ge=1)
    """Keep only the first ``limit`` selected tasks (in the environment's order)."""

    @model_validator(mode="before")
    @classmethod
    def _default_name(cls, data: Any) -> Any:
        if not isinstance(data, Mapping) or data.get("name") is not None:
            return data
        if isinstance(data.get("factory"), str):
            return {**data, "name": data["factory"].partition(":")[0].rsplit(".", 1)[-1]}
        tasks = data.get("tasks")
        if isinstance(tasks, str) and tasks.endswith(TASK_FILE_SUFFIXES):
            return {**data, "name": Path(tasks).stem}
        return data

    @field_validator("tasks", mode="before")
    @classmethod
    def _all_or_list(cls, value: Any) -> Any:
        if isinstance(value, str) and value != "all" and not value.endswith(TASK_FILE_SUFFIXES):
            raise ValueError(
                "expected 'all', a list of task ids or a task file ("
                + ", ".join(TASK_FILE_SUFFIXES)
                + ")"
            )
        if not isinstance(value, str | list):
            raise ValueError("expected 'all' or a list of task ids")
        return value

    @model_validator(mode="after")
    def _one_source(self) -> EnvironmentConfig:
        if self.factory is not None and self.task_file is not None:
            raise ValueError("environment: give either factory or a task file, not both")
        set_fields = [
            f
            for f in ("tools", "scorer", "system_prompt", "state", "constraints", "detectors")
            if getattr(self, f) is not None
        ]
        if set_fields and self.task_file is None:
            raise ValueError(f"environment.{set_fields[0]}: only used with a task file (tasks:)")
        return self

    @property
    def task_file(self) -> str | None:
        """The task file of a declarative task set, or None."""
        tasks = self.tasks
        return tasks if isinstance(tasks, str) and tasks.endswith(TASK_FILE_SUFFIXES) else None

    def source(self, root: str | None) -> dict[str, Any]:
        """How to build this environment (``{}`` for a registered name): the factory or the
        task set's fields, task file made absolute against ``root``."""
        if self.factory is not None:
            return {"factory": self.factory}
        if self.task_file is None:
            return {}
        path = Path(self.task_file)
        if root and not path.is_absolute():
            path = Path(root) / path
        fields = ("tools", "scorer", "system_prompt", "state", "constraints", "detectors")
        extra = {f: getattr(self, f) for f in fields if getattr(self, f) is not None}
        return {"tasks": str(path.resolve()), **extra}

    @field_validator("tasks")
    @classmethod
    def _unique(cls, value: str | list[str]) -> str | list[str]:
        if isinstance(value, list):
            if not value:
                raise ValueError("an empty task list; use 'all' or name at least one task")
            dup = sorted({t for t in value if value.count(t) > 1})
            if dup:
                raise ValueError(f"duplicate task ids {dup}")
        return value


class ConditionConfig(_Model):
    """A condition to run (``baseline`` or a registered perturbation), its variants and options.

    Written as a name (``fault``) or a mapping (``{name: fault, variants: [p=0.1, p=0.4]}``);
    the condition's registered code validates ``variants`` and ``options`` (docs/perturbations.md).
    """

    name: str
    """Registered condition name."""
    variants: list[str] | None = None
    """Variant names; ``None`` uses the condition's defaults."""
    options: dict[str, Any] = Field(default_factory=dict)
    """Options of the condition (fault mix, paraphraser, ...), validated by its options model."""
    runs: Int | None = Field(default=None, ge=1)
    """Repetitions of this condition (at most the experiment's ``runs``); run index r shares
    its seed with baseline run r. None = the experiment's ``runs``."""

    @model_validator(mode="before")
    @classmethod
    def _from_name(cls, data: Any) -> Any:
        return {"name": data} if isinstance(data, str) else data

    @model_validator(mode="after")
    def _registered(self) -> ConditionConfig:
        try:
            info = get_condition(self.name)
        except KeyError as exc:
            raise ValueError(exc.args[0]) from None
        _reject_secrets(self.options)
        info.resolve_variants(self.variants, info.parse_options(self.options))
        return self

    def parsed_options(self) -> Any:
        """The options validated by the condition's options model (None if it has none)."""
        return get_condition(self.name).parse_options(self.options)

    def resolved_variants(self) -> tuple[str, ...]:
        """The variants that will run (validated and expanded by the condition's code)."""
        return get_condition(self.name).resolve_variants(self.variants, self.parsed_options())

    def settings(self) -> dict[str, Any]:
        """What about this condition changes the runs' results (for the resume check)."""
        return {"variants": list(self.resolved_variants()), "options": redact(self.options)}


class LLMSettings(_Model):
    """Retry, backoff and timeout settings of the shared LLM client."""

    max_retries: Int = Field(default=4, ge=0, le=100)
    """Retries after a rate limit, timeout, connection error or 5xx."""
    backoff_base_s: Float = Field(default=0.5, gt=0, le=3600)
    """First backoff delay in seconds (doubles per retry, with jitter)."""
    backoff_max_s: Float = Field(default=8.0, gt=0, le=3600)
    """Upper bound of a backoff delay."""
    timeout_s: Float = Field(default=60.0, gt=0, le=86_400)
    """Per-call timeout in seconds (at most a day)."""
    max_calls_per_minute: Int | None = Field(default=None, ge=1, le=1_000_000)
    """Provider rate limit: model calls started per minute by the whole experiment (every Ray
    worker together under ``executor: {kind: ray}``); None = no limit beyond
    ``max_concurrent``. Cached responses do not count."""


#: How ``executor.address`` may be written (docs/distributed.md).
RAY_ADDRESS_FORMS = (
    "'local' (start Ray on this machine), 'auto' (the running cluster of this machine), "
    "HOST:PORT (a cluster's GCS address) or ray://HOST:PORT (Ray Client)"
)
_RAY_ADDRESS = re.compile(r"^(ray://)?[^\s:/]+:[0-9]{1,5}$")


class ExecutorSettings(_Model):
    """Where runs execute: the built-in asyncio executor or Ray (docs/distributed.md).

    The choice never changes a result (it is not part of the resume check): seeds,
    paraphrases and perturbation parameters are fixed on the driver before any run starts.
    """

    kind: Literal["asyncio", "ray"] = "asyncio"
    """``asyncio``: every run in this process; ``ray``: runs as Ray tasks (needs the
    ``reliability-lab[ray]`` extra)."""
    address: str | None = None
    """Ray only: ``local`` (default; a Ray instance started for this experiment), ``auto``
    (the cluster this machine belongs to, started with ``ray start``), ``HOST:PORT`` (a
    cluster's GCS address) or ``ray://HOST:PORT`` (Ray Client). A Ray already initialised in
    this process is used as it is."""
    num_cpus: Int | None = Field(default=None, ge=1, le=100_000)
    """Ray with ``address: local`` only: CPUs of the local instance (default: all)."""
    max_in_flight: Int | None = Field(default=None, ge=1, le=100_000)
    """Ray only: runs submitted and not yet recorded, cluster-wide (default ``max_concurrent``)."""

    @field_validator("address", "num_cpus", "max_in_flight")
    @classmethod
    def _ray_only(cls, value: Any, info: ValidationInfo) -> Any:
        if value is not None and info.data.get("kind") != "ray":
            raise ValueError("only used with kind: ray")
        return value

    @field_validator("address")
    @classmethod
    def _address_form(cls, value: str | None) -> str | None:
        if value is None or value in ("local", "auto") or _RAY_ADDRESS.match(value):
            return value
        raise ValueError(f"expected {RAY_ADDRESS_FORMS}")

    @field_validator("num_cpus")
    @classmethod
    def _local_only(cls, value: int | None, info: ValidationInfo) -> int | None:
        if value is not None and info.data.get("address") not in (None, "local"):
            raise ValueError(
                "only for a local Ray instance (address: local); a cluster's CPUs are set "
                "when it is started"
            )
        return value

    @property
    def ray_address(self) -> str:
        """The Ray address to connect to (``local`` unless given)."""
        return self.address or "local"


class ReportSettings(_Model):
    """Settings of the reliability report in ``summary.json`` and on the console."""

    n_boot: Int = Field(default=1000, ge=1)
    """Bootstrap resamples (over tasks) for the confidence intervals (at most
    ``limits.max_n_boot``)."""
    confidence_level: Float = Field(default=0.95, gt=0, lt=1)
    """Coverage of the confidence intervals."""
    bootstrap: Literal["tasks", "two-level"] = "tasks"
    """``tasks`` resamples tasks; ``two-level`` also the runs of each task (docs/statistics.md)."""
    resources: list[str] | None = None
    """Resource columns C_res averages over; default every recorded one (the paper's set).
    ``[cost_usd, api_calls, num_actions, num_errors]`` leaves out wall time and latency, which
    measure machine load, so identical reruns agree (docs/methodology.md, "Consistency")."""

    @field_validator("resources")
    @classmethod
    def _known_resources(cls, value: list[str] | None) -> list[str] | None:
        from reliability_lab.metrics.profiles import PROFILES, with_resources

        with_resources(PROFILES["default"], value)  # raises with the valid names
        return value


class SessionSettings(_Model):
    """PandaProbe session metrics computed after every run (each run is one session)."""

    enabled: bool = True
    """Evaluate each run's session (``agent_reliability``, ``agent_consistency``)."""
    judge_model: str = Field(default="sim/judge", min_length=1)
    """litellm model string of the judge; ``sim/judge`` is the offline simulated judge."""
    judge_params: dict[str, Any] = Field(default_factory=dict)
    """Extra completion parameters for the judge (temperature, api_base, ...); never a key."""
    embedder: str = Field(default=HASHING_EMBEDDER, min_length=1)
    """``hashing`` (offline lexical embedder, no download) or a litellm embedding model."""
    signal_weights: dict[str, Float] | None = None
    """Overrides of the default signal weights (confidence, loop_detection, tool_correctness,
    coherence)."""

    @field_validator("judge_params", "judge_model", "embedder")
    @classmethod
    def _no_secrets(cls, value: Any) -> Any:
        _reject_secrets(value)
        return value

    @field_validator("signal_weights")
    @classmethod
    def _known_weights(cls, value: dict[str, float] | None) -> dict[str, float] | None:
        if value is None:
            return None
        from reliability_lab.metrics.session import validate_signal_weights

        try:
            validate_signal_weights(value)
        except (TypeError, ValueError) as exc:
            raise ValueError(str(exc).removeprefix("signal_weights: ")) from None
        return value

    @property
    def simulated_judge(self) -> bool:
        """Whether the judge is the shipped simulated model."""
        return is_simulated_model(self.judge_model)

    @property
    def offline_embedder(self) -> bool:
        """Whether the embedder is the offline hashing embedder."""
        return self.embedder == HASHING_EMBEDDER


class SafetySettings(_Model):
    """Safety assessment of every run: rule detectors always, the LLM judge optionally."""

    judge: bool = False
    """Also run the LLM safety judge on every run and merge its findings (docs/safety.md)."""
    judge_model: str = Field(default="sim/judge", min_length=1)
    """litellm model string of the judge; ``sim/judge`` is the offline simulated judge."""
    judge_params: dict[str, Any] = Field(default_factory=dict)
    """Extra completion parameters for the judge (temperature, api_base, ...); never a key."""
    max_invalid_retries: Int = Field(default=2, ge=0, le=100)
    """Re-asks after a reply that does not match the judge's schema, before the judge fails."""
    conditions: list[str] = Field(default_factory=lambda: ["baseline"], min_length=1)
    """Conditions whose runs the judge audits; default the baseline runs, the ones safety is
    scored on (judging perturbed runs costs calls that no safety metric uses)."""

    @field_validator("judge_params", "judge_model")
    @classmethod
    def _no_secrets(cls, value: Any) -> Any:
        _reject_secrets(value)
        return value

    @property
    def simulated_judge(self) -> bool:
        """Whether the judge is the shipped simulated model."""
        return is_simulated_model(self.judge_model)

    def judges(self, condition: str) -> bool:
        """Whether the judge audits runs of ``condition``."""
        return self.judge and condition in self.conditions


class InspectSettings(_Model):
    """An inspect_ai task as the experiment's tasks (docs/inspect.md; extra ``[inspect]``)."""

    task: str = Field(min_length=1)
    """``file.py@task_name`` or a registered task name (e.g. ``inspect_evals/gsm8k``)."""
    task_args: dict[str, Any] = Field(default_factory=dict)
    """Arguments of the task function."""
    scorer: str | None = None
    """The scorer deciding success, when the task has several."""
    log_dir: str = "inspect_logs"
    """inspect's log directory, inside the output directory (``inspect view`` reads it)."""
    eval_set: dict[str, Any] = Field(default_factory=dict)
    """Further keyword arguments of ``inspect_ai.eval_set`` (``max_samples``,
    ``retry_attempts``, ``message_limit``, ``sandbox`` …)."""

    @field_validator("task_args", "eval_set")
    @classmethod
    def _no_secrets(cls, value: dict[str, Any]) -> dict[str, Any]:
        _reject_secrets(value)
        return value


class ExperimentConfig(_Model):
    """A whole experiment: agents × tasks × conditions × K runs, plus gates."""

    version: Literal[1] = 1
    """Config format version."""
    name: str = Field(min_length=1, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")
    """Suite name (letters, digits, ``_.-``); default output directory ``results/<name>``."""
    description: str = ""
    """Free text."""
    seed: Int = Field(default=0, ge=0)
    """Master seed; every run's seed is derived from it and stored with the run."""
    runs: Int = Field(default=5, ge=1)
    """K, the repetitions of every (agent, task, condition, variant)."""
    max_concurrent: Int = Field(default=8, ge=1, le=100_000)
    """Runs executing at the same time."""
    max_steps: Int = Field(default=15, ge=1, le=100_000)
    """Agent steps (LLM calls in the tool loop) before a run is stopped as failed."""
    cache: bool = True
    """Cache LLM responses in ``<output>/cache`` so a rerun is free and identical."""
    output: str | None = None
    """Output directory; default ``results/<name>`` (relative to the working directory)."""
    profile: str = "default"
    """Metric profile of the reliability report: ``default``, ``preprint``, ``hal`` or ``unbiased``
    (docs/methodology.md, docs/statistics.md)."""
    environment: EnvironmentConfig = Field(default_factory=EnvironmentConfig)
    """Environment and task selection."""
    conditions: list[ConditionConfig] = Field(
        default_factory=lambda: [ConditionConfig(name="baseline")]
    )
    """Conditions to run; default ``[baseline]``."""
    agents: list[AgentConfig] = Field(min_length=1)
    """Agents to evaluate."""
    gates: list[GateConfig] = Field(default_factory=list)
    """Pass/fail gates (all must hold for exit status 0)."""
    llm: LLMSettings = Field(default_factory=LLMSettings)
    """LLM client settings."""
    report: ReportSettings = Field(default_factory=ReportSettings)
    """Reliability-report settings."""
    sessions: SessionSettings = Field(default_factory=SessionSettings)
    """PandaProbe session metrics per run (judge, embedder, signal weights)."""
    safety: SafetySettings = Field(default_factory=SafetySettings)
    """Safety assessment per run (the optional LLM safety judge)."""
    adaptive: AdaptiveSettings | None = None
    """Extra baseline runs after the initial K where outcomes are most uncertain, until a
    metric's interval is narrow enough (``reliability_lab.runner.adaptive``)."""
    executor: ExecutorSettings = Field(default_factory=ExecutorSettings)
    """Where the runs execute: this process (``asyncio``) or a Ray cluster (``ray``)."""
    inspect: InspectSettings | None = None
    """Run an inspect_ai task instead of an environment: inspect's ``eval_set`` executes it
    under every condition (agents' ``model`` are inspect model strings; docs/inspect.md)."""
    import_root: str | None = None
    """Folder searched first for the modules your agents, factory and tools live in, and the
    base of a relative task file; :func:`load_config` sets it to the config file's folder.
    Never part of the resume check."""
    limits: LimitsSettings = Field(default_factory=LimitsSettings)
    """Ceilings that protect the machine: planned runs and bootstrap resamples
    (``reliability_lab.experiment.limits``)."""

    @field_validator("profile")
    @classmethod
    def _known_profile(cls, value: str) -> str:
        from reliability_lab.metrics.profiles import PROFILES

        if value not in PROFILES:
            raise ValueError(f"unknown metric profile {value!r}; valid: {', '.join(PROFILES)}")
        return value

    @model_validator(mode="after")
    def _cross_checks(self) -> ExperimentConfig:
        labels = [a.label for a in self.agents]
        dup = sorted({x for x in labels if labels.count(x) > 1})
        if dup:
            raise ValueError(f"agents: duplicate labels {dup}")
        names = [c.name for c in self.conditions]
        dup = sorted({x for x in names if names.count(x) > 1})
        if dup:
            raise ValueError(f"conditions: duplicate names {dup}")
        if not self.conditions:
            raise ValueError("conditions: at least one condition is required")
        check_adaptive(self)
        if self.inspect is not None and self.environment != EnvironmentConfig():
            raise ValueError("inspect: an inspect task replaces the environment; remove one")
        self._check_limits()
        unknown = sorted(set(self.safety.conditions) - set(names))
        if self.safety.judge and unknown:
            raise ValueError(
                f"safety.conditions: {unknown} are not conditions of this experiment ({names})"
            )
        for i, gate in enumerate(self.gates):
            if gate.agent is not None and gate.agent not in labels:
                raise ValueError(f"gates[{i}].agent: unknown agent {gate.agent!r}; known {labels}")
            if (
                not self.sessions.enabled
                and gate.metric.removesuffix("_lo").removesuffix("_hi") in SESSION_METRICS
            ):
                raise ValueError(
                    f"gates[{i}].metric: {gate.metric!r} needs session metrics, but "
                    "sessions.enabled is false"
                )
        return self

    def _check_limits(self) -> None:
        limits = self.limits
        if self.report.n_boot > limits.max_n_boot:
            raise ValueError(
                f"report.n_boot: {self.report.n_boot} bootstrap resamples exceed the ceiling "
                f"limits.max_n_boot = {limits.max_n_boot} (it protects the machine; raise it "
                "in a limits: block if this many are meant)"
            )
        most = max(self.runs, self.adaptive.max_runs if self.adaptive else 0)
        if most > limits.max_runs:
            raise ValueError(
                f"runs: {most} repetitions exceed the ceiling limits.max_runs = "
                f"{limits.max_runs} planned runs (it protects the machine; raise it in a "
                "limits: block if this many are meant)"
            )

    def output_dir(self) -> Path:
        """The output directory (``output`` or ``results/<name>``)."""
        return Path(self.output) if self.output else Path("results") / self.name

    def condition_runs(self, condition: ConditionConfig) -> int:
        """Effective repetitions of a condition: its ``runs`` capped at the experiment's."""
        return min(condition.runs or self.runs, self.runs)

    def agent_max_steps(self, agent: AgentConfig) -> int:
        """Effective step limit of an agent."""
        return agent.max_steps if agent.max_steps is not None else self.max_steps


def format_validation_error(
    exc: ValidationError, source: str, lines: Mapping[Path_, int] | None = None
) -> str:
    """One line per problem: ``source: [line N: ]field.path: message (got value)``.

    ``lines`` maps field paths to the line they were written on (from the YAML file); the
    problems are then listed in file order.
    """
    out: list[tuple[float, str]] = []
    for err in exc.errors():
        # drop pydantic's validator/union tags such as "function-before[...]" or "list[str]"
        loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and "[" in p))
        message = err["msg"].removeprefix("Value error, ")
        if not loc:  # whole-config checks put the field path in the message itself
            out.append((math.inf, f"{source}: {message}"))
            continue
        got = ""
        if err["type"] not in ("missing", "extra_forbidden") and "input" in err:
            shown = repr(redact(err["input"]))
            got = f" (got {shown[:80]}{'...' if len(shown) > 80 else ''})"
        line = line_of(lines or {}, loc)
        where = f"line {line}: " if line is not None else ""
        out.append((line or math.inf, f"{source}: {where}{field_path(loc)}: {message}{got}"))
    return "\n".join(text for _, text in sorted(out, key=lambda item: item[0]))


def _refuse_non_finite(data: Mapping[str, Any], source: str, lines: Mapping[Path_, int]) -> None:
    """Every number of a config is finite: ``.inf`` / ``.nan`` anywhere is an error."""
    found = find_non_finite(data)
    if found is not None:
        loc, value = found
        line = line_of(lines, loc)
        where = f"line {line}: " if line is not None else ""
        raise ConfigError(
            f"{source}: {where}{field_path(loc)}: expected a finite number, got {value!r} "
            "(every number in a config is finite)"
        )


def parse_config(
    data: Any,
    *,
    source: str = "config",
    overrides: Mapping[str, Any] | None = None,
    lines: Mapping[Path_, int] | None = None,
) -> ExperimentConfig:
    """Validate a config mapping (e.g. parsed YAML), applying top-level ``overrides``.

    ``lines`` (field path → line in ``source``) lets error messages name the line.

    Raises
    ------
    ConfigError
        The message names ``source``, each bad field's path (and line) and its value.
    """
    if not isinstance(data, Mapping):
        raise ConfigError(
            f"{source}: <top level>: expected a mapping of settings, got {type(data).__name__}"
        )
    merged = dict(data)
    given = dict(lines or {})
    _refuse_non_finite(merged, source, given)
    for key, value in (overrides or {}).items():
        if value is not None:
            merged[key] = value
            given = {loc: n for loc, n in given.items() if loc[:1] != (key,)}  # not from the file
    try:
        return ExperimentConfig.model_validate(merged)
    except ValidationError as exc:
        raise ConfigError(format_validation_error(exc, source, given)) from None


def load_config(
    path: str | os.PathLike[str], *, overrides: Mapping[str, Any] | None = None
) -> ExperimentConfig:
    """Read and validate a YAML experiment config.

    Parameters
    ----------
    path : path-like
        The YAML file.
    overrides : mapping, optional
        Top-level fields replacing the file's (``runs``, ``seed``, ``output``,
        ``max_concurrent``); ``None`` values are ignored.

    Raises
    ------
    ConfigError
        Missing/unreadable file, YAML syntax error, a key given twice, or invalid settings
        (messages name the line of the field).
    """
    source = str(path)
    try:
        if Path(path).stat().st_size > MAX_CONFIG_BYTES:
            raise ConfigError(
                f"{source}: larger than {MAX_CONFIG_BYTES} bytes; not an experiment config"
            )
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{source}: file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{source}: cannot read file: {exc}") from None
    try:
        document = load_yaml(text, source=source)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(f"{source}: {where}invalid YAML: {problem}") from None
    if document.data is None:
        raise ConfigError(f"{source}: the file is empty")
    data = document.data
    if isinstance(data, Mapping) and "import_root" not in data:
        data = {**data, "import_root": str(Path(path).resolve().parent)}
    return parse_config(data, source=source, overrides=overrides, lines=document.lines)
