"""Pre-flight checks: every model routable, every provider key present, before any run starts.

A model string litellm cannot route, or a missing API key, otherwise shows up only as every
run's ``infrastructure:`` error — after the retries, the backoff and (for a key) possibly the
cost of other agents' runs. ``reliability-lab validate`` and ``run`` therefore check, for each
agent (and the session judge, embedder and safety judge when they are used), that litellm can
route the model string and that one of its provider's key variables is set. The decisions come
from :mod:`reliability_lab.llm._routing`, which reads the installed litellm's files without
importing it. ``run`` checks only what its pending runs use, so a finished directory can be
reported or rerun without keys.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Collection, Iterator, Mapping
from typing import Any

from reliability_lab.errors import ConfigError
from reliability_lab.experiment.config import ExperimentConfig
from reliability_lab.llm._routing import litellm_providers, missing_credentials, route_model
from reliability_lab.runs import SIMULATED_PREFIX
from reliability_lab.sessions.scoring import HASHING_EMBEDDER

__all__ = ["check_preflight"]

_FIX_ROUTE = (
    "Fix: write '<provider>/<model>' with a provider litellm knows (openai/gpt-4o-mini, "
    "anthropic/..., ollama/llama3, hosted_vllm/<name> for an OpenAI-compatible server; list: "
    "https://docs.litellm.ai/docs/providers), or sim/<profile> for the offline simulated model."
)


def _unroutable(model: str) -> str:
    prefix, slash, rest = model.partition("/")
    if slash and rest:
        close = difflib.get_close_matches(prefix, sorted(litellm_providers()), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        return f"{prefix!r} is not a litellm provider{hint}"
    return "a model name without '<provider>/' must be one litellm lists, and it does not"


def _problem(
    where: str,
    model: str,
    params: Mapping[str, Any],
    who: str,
    environ: Mapping[str, str] | None,
) -> str | None:
    route = route_model(model, params)
    if route.provider is None:
        return f"{where}: litellm cannot route {model!r}{who}: {_unroutable(model)}. {_FIX_ROUTE}"
    if environ is None:  # keys are not checked
        return None
    missing = missing_credentials(route, environ)
    if missing is None:
        return None
    text = (
        f"{where}: {model!r}{who} needs {missing} in the environment, which is not set. "
        f"Fix: export {missing}=<your {route.provider} key>"
    )
    if route.provider == "openai" and params.get("api_base"):
        name = model.partition("/")[2] or model
        text += (
            f" (any non-empty value works for a local OpenAI-compatible server; or use the model "
            f"hosted_vllm/{name}, which needs no key)"
        )
    return text + "."


def _checks(
    config: ExperimentConfig, agents: Collection[str] | None, conditions: Collection[str] | None
) -> Iterator[tuple[str, str, Mapping[str, Any], str]]:
    """``(field, model, params, who)`` of every model the (pending) runs will call."""
    for index, agent in enumerate(config.agents):
        if (agents is None or agent.label in agents) and agent.model:
            yield f"agents[{index}].model", agent.model, agent.params, f" (agent {agent.label!r})"
    if agents is not None and not agents:
        return
    scorer = config.environment.scorer
    if isinstance(scorer, Mapping) and scorer.get("kind") == "llm_judge":
        params = scorer.get("params") or {}
        yield "environment.scorer.model", str(scorer.get("model")), params, " (task judge)"
    sessions = config.sessions
    if sessions.enabled:
        yield "sessions.judge_model", sessions.judge_model, sessions.judge_params, ""
        if sessions.embedder != HASHING_EMBEDDER:
            yield "sessions.embedder", sessions.embedder, sessions.judge_params, ""
    safety = config.safety
    if safety.judge and (conditions is None or any(safety.judges(c) for c in conditions)):
        yield "safety.judge_model", safety.judge_model, safety.judge_params, ""


def check_preflight(
    config: ExperimentConfig,
    *,
    source: str = "config",
    agents: Collection[str] | None = None,
    conditions: Collection[str] | None = None,
    environ: Mapping[str, str] | None = None,
    keys: bool = True,
) -> None:
    """Refuse to start when a model cannot be routed or lacks its key.

    Parameters
    ----------
    config : ExperimentConfig
        The experiment.
    source : str
        Named at the start of every message (the config file).
    agents, conditions : collection of str, optional
        Check only these agents, and the safety judge only if it audits one of these conditions
        (the pending runs'); default everything.
    environ : mapping, optional
        Where keys are looked up (default ``os.environ``; only read).
    keys : bool
        Check the provider keys too (``run``, ``validate --preflight``); False checks routing
        only (``validate``, which must work on a machine without keys).

    Raises
    ------
    ConfigError
        Every problem, one line each (``<source>: <field>: …``).
    """
    env = None if not keys else os.environ if environ is None else environ
    out = []
    for where, model, params, who in _checks(config, agents, conditions):
        if model.startswith(SIMULATED_PREFIX):
            continue  # checked against the registered profiles by plan.check_models
        problem = _problem(f"{source}: {where}", model, params, who, env)
        if problem is not None:
            out.append(problem)
    if out:
        raise ConfigError("\n".join(out))
