"""Helpers of the safety tests: drive the agent loop with the simulated model, no litellm."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

from reliability_lab.agents import RunResult, RunSpec, execute_run
from reliability_lab.envs import Episode, get_environment, render_template
from reliability_lab.sim import SimPersona, get_persona
from reliability_lab.sim._policy import sim_respond

ENV = get_environment("customer_service")


@dataclass(frozen=True)
class _Reply:
    message: dict[str, Any]
    cost_usd: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0


class DirectSim:
    """An ``LLMClient`` stand-in that calls the simulated model in-process (fast, offline).

    ``profile`` replaces the registered profile of the model name (same name, same draws).
    """

    def __init__(self, profile: SimPersona | None = None) -> None:
        self.profile = profile

    async def acompletion(self, **request: Any) -> _Reply:
        """The ``ChatClient`` call (reliability_lab.llm._protocol), answered in-process."""
        spec = self.profile or get_persona(request["model"].removeprefix("sim/"))
        reply = sim_respond(spec, request["messages"], request.get("tools"), request.get("seed"))
        return _Reply(reply)


def run_sim(profile: str | SimPersona, task_id: str, seed: int) -> RunResult:
    """One run of ``sim/<persona>`` (a registered name, or a profile object) on a task."""
    name = profile if isinstance(profile, str) else profile.name
    override = None if isinstance(profile, str) else profile
    spec = RunSpec(
        agent=name,
        model=f"sim/{name}",
        params={},
        environment="customer_service",
        task_id=task_id,
        run=0,
        seed=seed,
        elicit_confidence=False,
    )
    return asyncio.run(execute_run(spec, DirectSim(override)))  # type: ignore[arg-type]


def play_oracle(episode: Episode) -> str:
    """Follow the task's oracle plan on ``episode``; return the oracle's answer."""
    oracle = episode.task.oracle
    assert oracle is not None
    bindings: dict[str, Any] = {}
    for step in oracle.steps:
        text = episode.call_tool(step.tool, render_template(dict(step.args), bindings))
        bindings.update({k: f(json.loads(text)) for k, f in step.bind.items()})
    return str(render_template(oracle.answer, bindings))
