"""``RunSpec`` (what to run) and ``RunResult`` (the versioned record of one run)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
)

from reliability_lab._secrets import find_secret
from reliability_lab.runs import RESULT_SCHEMA_VERSION, RUN_TABLE_COLUMNS, RunKey, run_key_of
from reliability_lab.safety._judge import SafetyRecord
from reliability_lab.sessions.scoring import SessionScores

__all__ = ["RunResult", "RunSpec"]


@dataclass(frozen=True)
class RunSpec:
    """One agent run to execute: which agent, task, condition and repetition.

    Attributes
    ----------
    agent : str
        Label of the agent configuration.
    model : str
        Any litellm model string (``sim/calibrated``, ``openai/gpt-4o-mini``, …).
    params : Mapping[str, Any]
        Extra completion parameters (temperature, max_tokens, api_base, …). Never an API key:
        keys come from the provider's environment variables.
    environment : str
        Registered environment name.
    task_id : str
        Task within the environment.
    run : int
        0-based repetition index.
    seed : int
        Per-run seed (spawned by the runner); sent to the model as ``seed`` unless ``params``
        sets one.
    condition, variant : str
        Perturbation condition and instance (``"baseline"``, ``""`` when unperturbed).
    max_steps : int
        Maximum model calls before the run is stopped as an agent failure.
    elicit_confidence : bool
        Ask the model for its confidence after the run.
    pass_threshold : float
        ``success = score >= pass_threshold``.
    condition_options : Mapping[str, Any]
        The condition's options from the config (validated by its registered options model).
    condition_data : Mapping[str, Any]
        Data the condition prepared once per experiment for this run (e.g. its paraphrase).
    agent_entry : str
        The agent's ``solve(ctx)`` as ``module:attribute`` (docs/your_agent.md); ``""`` runs
        the built-in tool loop. ``model`` may then be ``""`` (an agent without ``ctx.llm``).
    options : Mapping[str, Any]
        The agent's free-form options (``ctx.options``).
    import_root : str
        Folder the agent's and the environment's modules are imported from first (the config
        file's folder); ``""`` uses ``sys.path`` only.
    environment_source : Mapping[str, Any]
        How to build the environment where it is not registered (a Ray worker): the config's
        ``environment`` block for a factory or a task set; empty for a registered name.
    """

    agent: str
    model: str
    params: Mapping[str, Any]
    environment: str
    task_id: str
    run: int
    seed: int
    condition: str = "baseline"
    variant: str = ""
    max_steps: int = 15
    elicit_confidence: bool = True
    pass_threshold: float = 1.0
    condition_options: Mapping[str, Any] = field(default_factory=dict)
    condition_data: Mapping[str, Any] = field(default_factory=dict)
    agent_entry: str = ""
    options: Mapping[str, Any] = field(default_factory=dict)
    import_root: str = ""
    environment_source: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        required = ("agent", "environment", "task_id", "condition")
        for name in required if self.agent_entry else ("model", *required):
            value = getattr(self, name)
            if not isinstance(value, str) or not value:
                raise ValueError(f"RunSpec.{name} must be a non-empty str, got {value!r}")
        if not isinstance(self.run, int) or self.run < 0:
            raise ValueError(f"RunSpec.run must be an int >= 0, got {self.run!r}")
        if not isinstance(self.max_steps, int) or self.max_steps < 1:
            raise ValueError(f"RunSpec.max_steps must be an int >= 1, got {self.max_steps!r}")
        if not 0.0 <= self.pass_threshold <= 1.0:
            raise ValueError(f"RunSpec.pass_threshold must be in [0, 1], got {self.pass_threshold}")
        found = find_secret(self.params, "params")
        if found is not None:
            raise ValueError(
                f"RunSpec.{found}: params must not carry credentials; set the provider's API "
                "key (and any credentialed endpoint) in its environment variables instead"
            )

    @property
    def key(self) -> RunKey:
        """The run's identity (:func:`~reliability_lab.runs.run_key`)."""
        return run_key_of(self)

    @property
    def identity(self) -> str:
        """Run identity used as ``cache_key_extra`` (repeated runs stay independent)."""
        return "|".join(
            map(
                str,
                (
                    self.agent,
                    self.environment,
                    self.task_id,
                    self.condition,
                    self.variant,
                    self.run,
                    self.seed,
                ),
            )
        )


_FLOAT_FIELDS = ("score", "confidence", "cost_usd", "wall_time_s", "call_latency_s")


class RunResult(BaseModel):
    """Versioned record of one agent run, one line of ``results.jsonl``.

    NaN-safe JSON: NaN floats are written as ``null`` and read back as NaN.
    """

    model_config = ConfigDict(
        use_attribute_docstrings=True, ser_json_inf_nan="null", extra="forbid"
    )

    schema_version: int = RESULT_SCHEMA_VERSION
    """Version of this record's layout."""
    agent: str
    """Agent label."""
    task_id: str
    """Task id."""
    condition: str = "baseline"
    """Condition (``baseline`` or a perturbation)."""
    variant: str = ""
    """Perturbation instance; ``""`` for baseline."""
    run: int
    """0-based repetition index."""
    success: bool
    """``score >= pass_threshold`` for a finished run; False for any run with an error."""
    score: float
    """Checker score in [0, 1]; NaN for infrastructure failures."""
    confidence: float = math.nan
    """Self-reported P(success) in [0, 1]; NaN unless ``confidence_source`` is ``elicited`` or
    ``agent``."""
    confidence_source: str = "none"
    """``elicited``, ``agent`` (the agent's own, ``AgentOutput.confidence``), ``fallback``
    (reply unparseable, call failed, or the agent's value invalid) or ``none``."""
    actions: list[str] = []
    """Ordered tool names the agent called."""
    cost_usd: float = math.nan
    """Total cost of the run's LLM calls (incl. elicitation); NaN if any price is unknown."""
    wall_time_s: float = math.nan
    """Wall time of the whole run."""
    api_calls: int = 0
    """LLM calls that returned (incl. elicitation; retries not counted)."""
    num_actions: int = 0
    """Tool calls made."""
    num_errors: int = 0
    """Tool calls that returned an error."""
    call_latency_s: float = math.nan
    """Mean latency of the successful LLM calls; NaN if none."""
    violations: list[dict[str, Any]] = []
    """Safety findings ``{constraint, severity, evidence, source, ...}``: the environment's
    rule detectors, merged with the safety judge's findings when the experiment runs it
    (docs/safety.md)."""
    error: str | None = None
    """Why the run did not finish: ``agent: ...`` or ``infrastructure: <category>: ...``."""
    seed: int
    """Per-run seed."""
    model: str
    """litellm model string."""
    environment: str = ""
    """Environment name."""
    simulated: bool
    """True when the model is the built-in simulation (``sim/...``): results are not real."""
    prompt_tokens: int = 0
    """Prompt tokens over all calls."""
    completion_tokens: int = 0
    """Completion tokens over all calls."""
    final_answer: str | None = None
    """The agent's final reply to the user; None if it never gave one."""
    confidence_raw: str | None = None
    """Raw reply to the confidence question."""
    confidence_error: str | None = None
    """Why the confidence question failed, ``<category>: <cause>`` (an LLM error category such
    as ``timeout``); None when it was answered or not asked. The run is not an infrastructure
    error because of it: its outcome is known, only its confidence is missing (``fallback``)."""
    trajectory: list[dict[str, Any]] = []
    """Full OpenAI-format conversation (system, user, assistant, tool messages)."""
    session: SessionScores | None = None
    """PandaProbe session metrics of this run; None when the experiment did not evaluate
    sessions."""
    safety: SafetyRecord | None = None
    """How the LLM safety judge assessed this run; None when the experiment did not run it."""
    perturbation: dict[str, Any] | None = None
    """What the run's condition did: ``condition``, ``variant``, ``intensity``, ``parameters``,
    ``summary`` and ``events`` (faults fired, calls rejected, ...); see docs/perturbations.md."""
    agent_metadata: dict[str, Any] | None = None
    """What a user agent returned as ``AgentOutput.metadata`` (docs/your_agent.md); left out of
    the record when None, so records of agents that return none keep their layout."""

    @model_serializer(mode="wrap")
    def _omit_absent_metadata(
        self, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ) -> Any:
        data = handler(self)
        if isinstance(data, dict) and data.get("agent_metadata") is None:
            data.pop("agent_metadata", None)
        return data

    @field_validator(*_FLOAT_FIELDS, mode="before")
    @classmethod
    def _none_is_nan(cls, value: Any) -> Any:
        return math.nan if value is None else value

    @property
    def key(self) -> RunKey:
        """The run's identity (:func:`~reliability_lab.runs.run_key`)."""
        return run_key_of(self)

    def to_row(self) -> dict[str, Any]:
        """Exactly the run-table columns (docs/run_table.md), in canonical order."""
        data = {name: getattr(self, name) for name in RUN_TABLE_COLUMNS}
        data["actions"] = list(self.actions)
        data["violations"] = [dict(v) for v in self.violations]
        return data
