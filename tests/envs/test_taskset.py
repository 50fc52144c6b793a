"""Declarative task sets: task files, tools from plain functions, scorers, factories."""

from __future__ import annotations

import asyncio
import enum
import json
from pathlib import Path
from typing import Any, Literal

import pytest

from reliability_lab.envs import Environment, Task
from reliability_lab.envs._sources import EnvironmentSourceError, build_environment
from reliability_lab.envs.taskset import (
    TaskFileError,
    TaskSetEnvironment,
    function_tool,
    load_tasks,
    make_scorer,
    tool,
)
from reliability_lab.envs.taskset._scorers import parse_verdict


class Unit(enum.Enum):
    C = "celsius"
    F = "fahrenheit"


def weather(city: str, unit: Unit = Unit.C, days: list[int] | None = None) -> dict[str, Any]:
    """Forecast for a city.

    Parameters
    ----------
    city : str
        City name.
    unit : Unit
        Temperature unit.
    """
    return {"city": city}


@tool(destructive=True)
def delete_account(state: dict[str, Any], user: str, mode: Literal["soft", "hard"]) -> str:
    """Delete a user's account.

    Args:
        user: The user id.
        mode: How.
    """
    state.setdefault("deleted", []).append(user)
    return "deleted"


def test_function_tool_schema_from_signature_hints_and_docstring() -> None:
    t = function_tool(weather)
    assert t.name == "weather" and t.description == "Forecast for a city."
    props = t.parameters["properties"]
    assert props["city"] == {"type": "string", "description": "City name."}
    assert props["unit"]["enum"] == ["celsius", "fahrenheit"]
    assert props["days"] == {"type": "array", "items": {"type": "integer"}}
    assert t.parameters["required"] == ["city"]
    d = function_tool(delete_account)
    assert "state" not in d.parameters["properties"]  # the episode state, not a model argument
    assert d.parameters["properties"]["mode"] == {
        "enum": ["soft", "hard"],
        "type": "string",
        "description": "How.",
    }
    assert d.writes and d.destructive
    state: dict[str, Any] = {}
    assert d.fn(state, user="u1", mode="soft") == "deleted" and state == {"deleted": ["u1"]}


@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".yaml"])
def test_task_files_in_three_formats(tmp_path: Path, suffix: str) -> None:
    rows = [
        {"id": "a", "instruction": "Sum 2 and 3", "expected": "5", "facts": ["5"]},
        {"id": "b", "question": "Capital of Peru?", "answer": "Lima", "level": "easy"},
    ]
    path = tmp_path / f"tasks{suffix}"
    if suffix == ".jsonl":
        path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    elif suffix == ".csv":
        path.write_text(
            "id,instruction,expected,facts,level\n"
            "a,Sum 2 and 3,5,5,\nb,Capital of Peru?,Lima,,easy\n",
            encoding="utf-8",
        )
    else:
        import yaml

        path.write_text(yaml.safe_dump({"tasks": rows}), encoding="utf-8")
    tasks = load_tasks(path)
    assert [t.task_id for t in tasks] == ["a", "b"]
    assert tasks[1].instruction == "Capital of Peru?" and tasks[1].metadata["expected"] == "Lima"
    assert tasks[0].metadata["facts"] == ["5"] and tasks[1].metadata["level"] == "easy"


def test_task_file_errors_name_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text('{"id": "a", "instruction": "x"}\n{"id": "a", "instruction": "y"}\n')
    with pytest.raises(TaskFileError, match=r"t\.jsonl: line 2: id: duplicate task id 'a'"):
        load_tasks(path)
    path.write_text('{"id": "a"}\n')
    with pytest.raises(TaskFileError, match=r"line 1: instruction: missing"):
        load_tasks(path)
    path.write_text("{not json\n")
    with pytest.raises(TaskFileError, match=r"line 1: invalid JSON"):
        load_tasks(path)


def _task(expected: Any, **meta: Any) -> Task:
    return Task("t", "question", metadata={"expected": expected, **meta})


def test_builtin_scorers() -> None:
    def score(kind: Any, answer: str, expected: Any, **meta: Any) -> float:
        return make_scorer(kind, lambda r: None).score(answer, _task(expected, **meta))

    assert score("exact", "  paris ", "Paris") == 1.0
    assert score("exact", "Paris, France", "Paris") == 0.0
    assert score("contains", "It is Paris, France", "Paris") == 1.0
    assert score("contains", "Lima and 12", None, facts=["Lima", "12", "Peru"]) == 2 / 3
    assert score({"kind": "numeric", "tolerance": 0.01}, "about 3.151", "3.14") == 0.0
    assert score({"kind": "numeric", "tolerance": 0.01}, "about 3.145", "3.14") == 1.0
    assert score("numeric", "total: 1,054.20 USD", 1054.2) == 1.0
    assert score("regex", "order O-1234 shipped", r"O-\d{4}") == 1.0
    assert make_scorer("exact", lambda r: None).score(None, _task("x")) == 0.0
    with pytest.raises(ValueError, match="unknown kind 'fuzzy'"):
        make_scorer("fuzzy", lambda r: None)
    with pytest.raises(ValueError, match="llm_judge needs 'model'"):
        make_scorer("llm_judge", lambda r: None)


def test_callable_and_llm_judge_scorers() -> None:
    custom = make_scorer(lambda answer, task: answer == task.metadata["expected"], lambda r: None)
    assert custom.score("x", _task("x")) == 1.0

    class Judge:
        def __init__(self) -> None:
            self.calls: list[dict[str, Any]] = []

        async def acompletion(self, **kwargs: Any) -> Any:
            self.calls.append(kwargs)
            candidate = kwargs["messages"][0]["content"].split("Candidate answer:")[1]
            verdict = "CORRECT" if "Paris" in candidate.split("\n")[0] else "INCORRECT"
            return type("C", (), {"message": {"role": "assistant", "content": verdict}})()

    judge = make_scorer({"kind": "llm_judge", "model": "openai/judge"}, lambda r: None)
    llm = Judge()
    assert asyncio.run(judge.ascore("It's Paris", _task("Paris"), llm)) == 1.0
    assert asyncio.run(judge.ascore("Lyon", _task("Paris"), llm)) == 0.0
    assert llm.calls[0]["model"] == "openai/judge"
    assert parse_verdict("incorrect.") == 0.0
    with pytest.raises(ValueError, match="neither CORRECT nor INCORRECT"):
        parse_verdict("maybe")


def test_task_set_safety_flags_unallowed_destructive_calls() -> None:
    tasks = [
        Task("t1", "Delete account u1", metadata={"expected": "deleted"}),
        Task(
            "t2",
            "Delete u2",
            metadata={"expected": "deleted", "allowed_destructive": ["delete_account"]},
        ),
    ]
    env = TaskSetEnvironment(name="ts", tasks=tasks, tools=[delete_account], scorer="contains")
    found = {}
    for task_id in ("t1", "t2"):
        episode = env.start(task_id)
        episode.call_tool("delete_account", {"user": "u1", "mode": "hard"})
        found[task_id] = [v["constraint"] for v in episode.violations("deleted")]
        assert episode.score("deleted") == 1.0
    assert found == {"t1": ["destructive_operation"], "t2": []}


def test_plain_qa_without_tools_and_missing_expected_is_an_error() -> None:
    env = TaskSetEnvironment(name="qa", tasks=[_task("4")], scorer="exact")
    assert env.tools() == [] and env.start("t").score("4") == 1.0
    with pytest.raises(TaskFileError, match="expected: missing"):
        TaskSetEnvironment(name="qa", tasks=[Task("t", "q")], scorer="exact")
    with pytest.raises(TaskFileError, match="not a number"):
        TaskSetEnvironment(name="qa", tasks=[_task("four")], scorer="numeric")


def test_factory_source_errors_name_module_and_attribute(tmp_path: Path) -> None:
    (tmp_path / "bench.py").write_text(
        "from reliability_lab.envs.taskset import TaskSetEnvironment\n"
        "from reliability_lab.envs import Task\n"
        "def make():\n"
        "    return TaskSetEnvironment(name='b', tasks=[Task('x', 'q', "
        "metadata={'expected': 'a'})])\n"
        "def wrong():\n"
        "    return 3\n",
        encoding="utf-8",
    )
    env = build_environment("b", {"factory": "bench:make"}, str(tmp_path))
    assert isinstance(env, Environment) and [t.task_id for t in env.tasks()] == ["x"]
    with pytest.raises(EnvironmentSourceError, match="returned int, expected"):
        build_environment("b", {"factory": "bench:wrong"}, str(tmp_path))
    with pytest.raises(EnvironmentSourceError, match="has no attribute 'nope'"):
        build_environment("b", {"factory": "bench:nope"}, str(tmp_path))
    with pytest.raises(EnvironmentSourceError, match="cannot import module 'missing_bench'"):
        build_environment("b", {"factory": "missing_bench:make"}, str(tmp_path))
