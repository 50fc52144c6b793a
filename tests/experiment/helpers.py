"""Helpers shared by the experiment-runner tests (a uniquely named module, not conftest)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

KEY = ("agent", "task_id", "condition", "variant", "run")


def result_lines(directory: Path) -> list[dict[str, Any]]:
    """Parsed lines of ``results.jsonl`` (every line must be complete JSON)."""
    text = (directory / "results.jsonl").read_text(encoding="utf-8")
    assert text == "" or text.endswith("\n")
    return [json.loads(line) for line in text.splitlines()]


def run_keys(records: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """The identity tuple of every record."""
    return [tuple(r[k] for k in KEY) for r in records]


def config_writer(directory: Path) -> Callable[..., Path]:
    """``write(data, name="exp.yaml") -> path``: write a YAML config under ``directory``."""

    def write(data: dict[str, Any], name: str = "exp.yaml") -> Path:
        path = directory / name
        path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
        return path

    return write


#: Label -> simulated model of the agents the tests' configs use.
SIM_AGENTS = {
    "cal": "sim/calibrated",
    "inc": "sim/inconsistent",
    "over": "sim/overconfident",
    "brittle": "sim/brittle",
}


def sim_config(
    name: str,
    agents: tuple[str | dict[str, Any], ...] = ("cal", "inc"),
    *,
    limit: int = 2,
    n_boot: int = 20,
    sessions: bool = False,
    **fields: Any,
) -> dict[str, Any]:
    """An offline experiment config: ``agents`` (labels of :data:`SIM_AGENTS`, or agent
    entries) on the first ``limit`` customer-service tasks, K = 2, seed 5; ``fields`` replace
    or add top-level keys."""
    return {
        "name": name,
        "seed": 5,
        "runs": 2,
        "max_concurrent": 4,
        "environment": {"name": "customer_service", "limit": limit},
        "agents": [
            {"label": a, "model": SIM_AGENTS[a]} if isinstance(a, str) else a for a in agents
        ],
        "sessions": {"enabled": sessions},
        "report": {"n_boot": n_boot},
        **fields,
    }


def fake_model_config(name: str, api_base: str, **fields: Any) -> dict[str, Any]:
    """A config whose one agent ``a`` calls the fake OpenAI server at ``api_base``
    (:class:`tests.fake_openai_server.FakeOpenAIServer`); ``fields`` add top-level keys."""
    agent = {"label": "a", "model": "openai/fake-model", "params": {"api_base": api_base}}
    return {"name": name, "agents": [agent], **fields}


#: A small offline experiment (2 simulated agents × 2 tasks × K = 2, no session scoring).
TINY: dict[str, Any] = sim_config("tiny", gates=["accuracy >= 0.0"])
#: Runs planned by :data:`TINY`.
TINY_PLANNED = 2 * 2 * 2


def rewrite_lines(directory: Path, edit: Callable[[list[str]], list[str]]) -> None:
    """Replace the lines of ``results.jsonl`` by ``edit(lines)``."""
    path = directory / "results.jsonl"
    lines = edit(path.read_text(encoding="utf-8").splitlines())
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
