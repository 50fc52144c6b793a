"""The transcript's "expected outcome" for environments the viewer cannot or may not load."""

from __future__ import annotations

from reliability_lab.envs import list_environments
from reliability_lab.viewer.transcript import _expected


def test_an_environment_of_the_experiments_own_files_is_named_not_imported() -> None:
    assert "unregistered-task-set" not in list_environments()
    (line,) = _expected(
        {"environment": "unregistered-task-set", "task_id": "b1", "final_answer": "12.5"}
    )
    assert "'unregistered-task-set'" in line and "not shown" in line
    assert "KeyError" not in line  # said in words, not as an exception's repr


def test_an_unknown_task_of_a_registered_environment_says_why() -> None:
    (line,) = _expected({"environment": "customer_service", "task_id": "no-such-task"})
    assert line.startswith("expected outcome: not available (") and "no-such-task" in line


def test_a_registered_task_lists_its_expected_actions() -> None:
    lines = _expected({"environment": "customer_service", "task_id": "cs_01", "final_answer": ""})
    assert lines[0].startswith("expected actions: ")
