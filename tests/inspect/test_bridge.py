"""The inspect bridge under each condition, on logs inspect_ai writes offline.

The task (tests/inspect/tasks.py ``orders``) has three samples, each answered with one call of
an ``order_status`` tool; the scripted model (tests/inspect/scripted.py) answers right unless
the tool call failed, and reports confidence 80. Expected numbers are computed in the tests
from the raw logs (inspect's reader), from the fault rate, and from our SchemaMap directly.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.tool import ToolDef

import tests.inspect.scripted  # noqa: F401  (registers the rlscripted model)
from reliability_lab.envs._base import extract_details
from reliability_lab.inspect import ConditionSpec, reliability_tasks
from reliability_lab.inspect._tools import tool_schema
from reliability_lab.io import load_inspect_log
from reliability_lab.perturbations import SchemaMap, get_preset, missing_details
from reliability_lab.perturbations.fault import NOT_EXECUTED
from reliability_lab.report import reliability_report
from tests.inspect.tasks import CALLS_FILE, QUESTIONS, order_status

TASK = str(Path(__file__).parent / "tasks.py") + "@orders"
EPOCHS, RATE = 8, 0.5
CONDITIONS = [
    "baseline",
    ConditionSpec("fault", ("p=0.5",)),
    ConditionSpec("structural", ("severe",)),
    ConditionSpec("prompt", ("strong",), {"n_paraphrases": 1}),
]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("bridge")
    calls = root / "calls.txt"
    mp = pytest.MonkeyPatch()
    mp.setenv(CALLS_FILE, str(calls))
    try:
        tasks = reliability_tasks(
            TASK, CONDITIONS, task_args={"epochs": EPOCHS}, seed=3, directory=root
        )
        logs = eval(tasks, model="rlscripted/80", log_dir=str(root / "logs"), display="none")
    finally:
        mp.undo()
    assert all(log.status == "success" for log in logs), [log.error for log in logs]
    by_condition = {
        next(iter(log.samples or [])).metadata["reliability_lab"]["condition"]: read_eval_log(
            log.location
        )
        for log in logs
    }
    return {"root": root, "logs": by_condition, "calls": calls.read_text().splitlines()}


def _tool_messages(log: EvalLog) -> list[Any]:
    return [m for s in log.samples or [] for m in s.messages if m.role == "tool"]


def test_epochs_give_k_runs_per_sample_and_condition(run: dict[str, Any]) -> None:
    runs = load_inspect_log(run["root"] / "logs")
    counts = runs.groupby(["condition", "task_id"]).size()
    assert set(counts) == {EPOCHS} and len(counts) == 4 * len(QUESTIONS)
    assert set(runs["task_id"]) == set(QUESTIONS)  # ids unchanged under every condition
    assert (runs["confidence"] == 0.8).all() and (runs["confidence_source"] == "elicited").all()


def test_faults_reach_the_model_as_tool_errors_at_the_rate(run: dict[str, Any]) -> None:
    log = run["logs"]["fault"]
    events = [
        e
        for s in log.samples or []
        for e in s.metadata["reliability_lab"]["perturbation"]["events"]
    ]
    n_calls = len(_tool_messages(log))
    assert n_calls == EPOCHS * len(QUESTIONS)
    # binomial tolerance: 4 standard deviations of Binomial(n, p)
    assert abs(len(events) - n_calls * RATE) <= 4 * math.sqrt(n_calls * RATE * (1 - RATE))
    errors = [m for m in _tool_messages(log) if m.error is not None]
    not_run = [e for e in events if e["type"] in NOT_EXECUTED]
    assert len(errors) == len(not_run) > 0
    assert all(not e["executed"] for e in not_run)
    # the real tool ran for every call except the faults that kept it from running
    baseline_calls = EPOCHS * len(QUESTIONS)
    structural_calls = EPOCHS * len(QUESTIONS)
    prompt_calls = EPOCHS * len(QUESTIONS)
    ran = len(run["calls"]) - baseline_calls - structural_calls - prompt_calls
    assert ran == n_calls - len(not_run)
    runs = load_inspect_log(run["root"] / "logs")
    fault = runs[runs["condition"] == "fault"]
    assert fault["n_faults"].sum() == len(events)


def test_the_model_sees_the_perturbed_schema_and_the_tool_the_original_names(
    run: dict[str, Any],
) -> None:
    log = run["logs"]["structural"]
    original = tool_schema(ToolDef(order_status()))
    expected = SchemaMap(get_preset("severe"), [original]).tools([original])[0]["function"]
    seen = [e.tools for s in log.samples or [] for e in s.events if e.event == "model" and e.tools]
    assert seen
    want = expected["parameters"]["properties"]["request"]  # severe nests the arguments
    assert set(want["properties"]) == {"ordrId", "dtlLvl"}  # ... and abbreviates names
    for tools in seen:
        shown = tools[0].parameters.model_dump(exclude_none=True)
        assert list(shown["properties"]) == ["request"] and shown["required"] == ["request"]
        assert shown["properties"]["request"]["properties"] == want["properties"]
        assert shown["properties"]["request"]["required"] == want["required"]
    # the real tool was called with order_id = the sample's id (original names, mapped back)
    assert {line.split("|")[0] for line in run["calls"]} == {"O2001", "O2002", "O2003"}
    results = [json.loads(m.text) for m in _tool_messages(log)]
    assert all(
        r["status"] == "ok" and r["data"]["ids"] == {"order": r["data"]["ids"]["order"]}
        for r in results
    )


def test_paraphrased_inputs_keep_the_details(run: dict[str, Any]) -> None:
    log = run["logs"]["prompt"]
    stored = json.loads((run["root"] / "paraphrases.json").read_text())
    for sample in log.samples or []:
        original = QUESTIONS[str(sample.id)]
        assert sample.input != original
        assert missing_details(str(sample.input), extract_details(original)) == []
        assert stored["tasks"][str(sample.id)]["paraphrases"]["strong/1"]["text"] == sample.input
    # built again (another model, a rerun): the stored paraphrases are reused, not regenerated
    again = reliability_tasks(TASK, [CONDITIONS[3]], seed=3, directory=run["root"])[0]
    assert {str(s.id): s.input for s in again.dataset} == {
        str(s.id): s.input for s in log.samples or [] if s.epoch == 1
    }


def _accuracy(log: EvalLog) -> float:
    values = [s.scores["includes"].value == "C" for s in log.samples or []]
    return sum(values) / len(values)


def test_report_robustness_equals_an_independent_computation(run: dict[str, Any]) -> None:
    runs = load_inspect_log(run["root"] / "logs")
    report = reliability_report(runs, n_boot=20).iloc[0]
    base = _accuracy(run["logs"]["baseline"])
    for metric, condition in [
        ("R_fault", "fault"),
        ("R_struct", "structural"),
        ("R_prompt", "prompt"),
    ]:
        expected = min(_accuracy(run["logs"][condition]) / base, 1.0)
        assert report[metric] == pytest.approx(expected)
    assert report["R_fault"] < 1.0  # failed calls make the scripted model answer wrong


def test_tools_an_agent_keeps_private_make_the_run_an_error(tmp_path: Path) -> None:
    task = str(Path(__file__).parent / "tasks.py") + "@private"
    tasks = reliability_tasks(task, [ConditionSpec("fault", ("p=0.5",))], confidence=False)
    log = eval(
        tasks, model="rlscripted/80", log_dir=str(tmp_path), display="none", fail_on_error=False
    )[0]
    runs = load_inspect_log(log.location)
    assert len(runs) == 1 and not runs["success"].iloc[0]
    error = runs["error"].iloc[0]
    assert "could not be perturbed" in error and not error.startswith("infrastructure:")
