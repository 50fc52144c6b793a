"""run_experiment from Python: agent callables and Environment objects; Ray import check."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from reliability_lab import run_experiment
from reliability_lab.envs import Task
from reliability_lab.envs.taskset import TaskSetEnvironment
from reliability_lab.errors import ConfigError
from reliability_lab.experiment import load_config, parse_config
from reliability_lab.experiment.selection import check_importable_on_workers


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def solve(ctx: Any) -> str:
    a, b = (int(x) for x in ctx.instruction.split() if x.isdigit())
    return ctx.call_tool("add", {"a": a, "b": b})


def _env() -> TaskSetEnvironment:
    tasks = [
        Task(f"s{i}", f"Add {i} and {i + 1}", metadata={"expected": 2 * i + 1}) for i in range(3)
    ]
    return TaskSetEnvironment(name="adder", tasks=tasks, tools=[add], scorer="numeric")


def test_run_experiment_with_callable_and_environment_object(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = {
        "name": "py",
        "runs": 2,
        "output": str(tmp_path / "out"),
        "environment": _env(),
        "agents": [{"label": "mine", "agent": solve}, {"label": "lam", "agent": lambda c: "0"}],
        "sessions": {"enabled": False},
        "report": {"n_boot": 20},
    }
    outcome = run_experiment(config, progress=False, print_summary=True)
    printed = capsys.readouterr().out
    assert printed.strip() == outcome.summary_text().strip()
    assert "Results written to" in printed and "mine" in printed
    assert outcome.report.loc["mine", "accuracy"] == 1.0
    assert outcome.report.loc["lam", "accuracy"] == 0.0
    header_agents = {a["label"]: a["agent"] for a in outcome.summary.header.config["agents"]}
    assert header_agents["mine"].endswith(":solve")  # importable: module:qualname


def test_ray_refuses_agents_workers_cannot_import(tmp_path: Path) -> None:
    data = {
        "name": "r",
        "environment": {"name": "customer_service"},
        "agents": [{"label": "nb", "agent": "__main__:solve"}],
        "executor": {"kind": "ray"},
    }
    with pytest.raises(ConfigError, match=r"agents\[0\]\.agent: .*Ray workers cannot import"):
        check_importable_on_workers(parse_config(data), "cfg")
    assert load_config  # the YAML path is covered by tests/agents/test_user_agents.py
