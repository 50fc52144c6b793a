"""User agents on the ``ctx`` contract, run from a config on a declarative task set."""

from __future__ import annotations

import asyncio
import json
import math
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from reliability_lab import run_experiment
from reliability_lab.agents import AgentCheckError, RunSpec, check_agent, execute_run
from reliability_lab.errors import ConfigError
from reliability_lab.experiment import load_config
from reliability_lab.llm import LLMCallError, LLMClient
from tests.experiment.helpers import result_lines

PROJECT = Path(__file__).parent / "userproj"


@pytest.fixture(autouse=True)
def _fresh_project_modules(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test imports the project's modules from its own copy (a module of the same name
    imported from another folder is refused, see reliability_lab._imports)."""
    for name in ("qa_agents", "llm_agent", "loop_agent"):
        monkeypatch.delitem(sys.modules, name, raising=False)


def _config(tmp_path: Path, agent: str, **extra: Any) -> Path:
    """A copy of the test project with a config running ``agent`` on its four tasks."""
    project = tmp_path / "proj"
    shutil.copytree(PROJECT, project, ignore=shutil.ignore_patterns("__pycache__"))
    data: dict[str, Any] = {
        "name": "user",
        "seed": 1,
        "runs": 2,
        "max_concurrent": 4,
        "output": str(tmp_path / "out"),
        "environment": {"tasks": "tasks.jsonl", "tools": "qa_agents:TOOLS", "scorer": "exact"},
        "agents": [{"label": "mine", "agent": f"qa_agents:{agent}"}],
        "sessions": {"enabled": False},
        "report": {"n_boot": 20},
        **extra,
    }
    path = project / "exp.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def test_sync_agent_from_config_records_actions_and_answers(tmp_path: Path) -> None:
    outcome = run_experiment(_config(tmp_path, "solve"), progress=False)
    records = result_lines(outcome.output_dir)
    assert len(records) == 4 * 2
    for r in records:
        assert r["success"] and r["error"] is None and r["environment"] == "tasks"
        assert r["actions"] == ["lookup_capital"] and r["num_actions"] == 1
        assert r["num_errors"] == 0 and r["api_calls"] == 0
        assert r["cost_usd"] is None  # no ctx.llm call: cost not recorded (NaN), never 0
        assert r["confidence_source"] == "none" and r["model"] == ""
        roles = [m["role"] for m in r["trajectory"]]
        assert roles == ["system", "user", "assistant", "tool", "assistant"]
        assert r["trajectory"][-1]["content"] == r["final_answer"]
    assert outcome.report.loc["mine", "accuracy"] == 1.0


def test_agent_exception_is_that_runs_failure_and_resume_keeps_it(tmp_path: Path) -> None:
    config = _config(tmp_path, "solve_flaky")
    outcome = run_experiment(config, progress=False)
    records = result_lines(outcome.output_dir)
    failed = [r for r in records if r["run"] == 1]
    assert len(failed) == 4 and all(not r["success"] for r in failed)
    for r in failed:
        error = r["error"]
        assert error.startswith("agent: ZeroDivisionError: boom on run 1")
        assert "qa_agents.py" in error and "in solve_flaky" in error
        assert not error.startswith("infrastructure:")
    assert all(r["success"] for r in records if r["run"] == 0)
    again = run_experiment(config, progress=False)
    assert again.n_executed == 0 and again.n_previous == 8


def test_agent_without_tool_calls_has_empty_actions_and_own_confidence(tmp_path: Path) -> None:
    outcome = run_experiment(_config(tmp_path, "solve_no_tools"), progress=False)
    records = result_lines(outcome.output_dir)
    for r in records:
        assert r["actions"] == [] and r["num_actions"] == 0
        assert r["confidence"] == 0.75 and r["confidence_source"] == "agent"
        assert r["agent_metadata"] == {"why": "always Paris"}
        assert r["success"] == (r["task_id"] == "q1")
    why = str(outcome.report.loc["mine", "why_undefined"])
    assert "C_traj" in why or "trajectory" in why or "action" in why


def test_async_agent_concurrency_16_has_no_cross_run_state(tmp_path: Path) -> None:
    config = _config(tmp_path, "solve_async", runs=4, max_concurrent=16)
    outcome = run_experiment(config, progress=False)
    records = result_lines(outcome.output_dir)
    assert len(records) == 16
    assert {r["final_answer"] for r in records} == {"1 2 3"}  # each run's own counter
    assert all(r["actions"] == ["bump"] * 3 for r in records)


def test_invalid_agent_confidence_is_fallback_with_reason(tmp_path: Path) -> None:
    records = result_lines(
        run_experiment(_config(tmp_path, "solve_bad_confidence"), progress=False).output_dir
    )
    r = records[0]
    assert math.isnan(r["confidence"] if r["confidence"] is not None else math.nan)
    assert r["confidence_source"] == "fallback" and "1.7" in r["confidence_error"]


def test_escaping_llm_call_error_is_infrastructure(tmp_path: Path) -> None:
    class Failing(LLMClient):
        async def acompletion(self, **kwargs: Any) -> Any:
            raise LLMCallError("rate_limit", "provider said no")

    load_config(_config(tmp_path, "solve"))  # registers the task set "tasks"
    project = tmp_path / "proj"
    module = project / "llm_agent.py"
    module.write_text(
        "async def solve(ctx):\n"
        "    return (await ctx.llm.acomplete([{'role': 'user', 'content': 'hi'}]))['content']\n",
        encoding="utf-8",
    )
    config = load_config(project / "exp.yaml")
    from reliability_lab.experiment.plan import config_environment

    config_environment(config)
    spec = RunSpec(
        agent="mine",
        model="openai/gpt-4o-mini",
        params={},
        environment="tasks",
        task_id="q1",
        run=0,
        seed=1,
        agent_entry="llm_agent:solve",
        import_root=str(project),
        environment_source=config.environment.source(config.import_root),
    )
    result = asyncio.run(execute_run(spec, Failing()))
    assert result.error is not None and result.error.startswith("infrastructure: rate_limit")
    assert math.isnan(result.score) and not result.success


def test_check_agent_names_module_attribute_and_ctx_misuse(tmp_path: Path) -> None:
    root = str(PROJECT)
    with pytest.raises(AgentCheckError, match="cannot import module 'no_such_module'"):
        check_agent("no_such_module:solve", root)
    with pytest.raises(AgentCheckError, match="has no attribute 'nope'"):
        check_agent("qa_agents:nope", root)
    with pytest.raises(AgentCheckError, match="not a callable"):
        check_agent("qa_agents:NOT_CALLABLE", root)
    with pytest.raises(AgentCheckError, match=r"qa_agents\.py: line \d+: ctx\.instructions"):
        check_agent("qa_agents:solve_misuse", root)
    assert callable(check_agent("qa_agents:solve", root))


def test_config_requires_model_or_agent(tmp_path: Path) -> None:
    path = _config(tmp_path, "solve")
    data = yaml.safe_load(path.read_text())
    data["agents"] = [{"label": "x"}]
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"agents\[0\]\.model: Field required"):
        load_config(path)


def test_fault_and_structural_reach_a_user_agent_and_its_tools(tmp_path: Path) -> None:
    config = _config(
        tmp_path,
        "solve",
        runs=1,
        conditions=[
            "baseline",
            {"name": "fault", "variants": ["p=1.0"]},
            {"name": "structural", "variants": ["medium", "severe"]},
        ],
    )
    records = result_lines(run_experiment(config, progress=False).output_dir)
    faulted = [r for r in records if r["condition"] == "fault"]
    assert faulted and all(r["num_errors"] == 1 for r in faulted)
    assert all(r["perturbation"]["events"] for r in faulted)
    medium = [r for r in records if r["variant"] == "medium"]
    assert medium and all(json.loads(r["final_answer"])["data"] for r in medium)  # wrapper
    severe = [r for r in records if r["variant"] == "severe"]
    for r in severe:  # the agent saw the perturbed schema: arguments nested in "request"
        call = r["trajectory"][2]["tool_calls"][0]["function"]
        assert list(json.loads(call["arguments"])) == ["request"]


@pytest.mark.parametrize("condition,variant", [("baseline", ""), ("fault", "p=0.4")])
def test_sync_user_loop_through_ctx_llm_equals_builtin(condition: str, variant: str) -> None:
    """The same loop written by a user (sync, ctx.llm.complete) records what the built-in
    one records: ctx.llm is the same model boundary (seed, params, faults, accounting)."""

    def spec(task_id: str, entry: str) -> RunSpec:
        return RunSpec(
            agent="cal",
            model="sim/calibrated",
            params={"temperature": 0.7},
            environment="customer_service",
            task_id=task_id,
            run=0,
            seed=11,
            condition=condition,
            variant=variant,
            agent_entry=entry,
            import_root=str(PROJECT) if entry else "",
        )

    async def both(task_id: str) -> tuple[Any, Any]:
        llm = LLMClient()
        return (
            await execute_run(spec(task_id, ""), llm),
            await execute_run(spec(task_id, "loop_agent:solve"), llm),
        )

    volatile = {"wall_time_s", "call_latency_s"}
    for task_id in ("cs_01", "cs_05", "cs_11"):
        builtin, user = asyncio.run(both(task_id))
        assert user.model_dump(exclude=volatile) == builtin.model_dump(exclude=volatile)


def test_module_shadowed_by_an_imported_one_is_refused(tmp_path: Path) -> None:
    check_agent("qa_agents:solve", str(PROJECT))
    other = tmp_path / "other"
    shutil.copytree(PROJECT, other, ignore=shutil.ignore_patterns("__pycache__"))
    with pytest.raises(AgentCheckError, match="name of another module already imported"):
        check_agent("qa_agents:solve", str(other))
