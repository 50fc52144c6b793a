"""Adaptive repetitions: the allocator's rules, and the runner's rounds, seeds and resume."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from reliability_lab.agents import RunResult, RunSpec, execute_run
from reliability_lab.errors import ConfigError
from reliability_lab.experiment import parse_config, run_seed
from reliability_lab.llm import LLMClient
from reliability_lab.report.allocation import AdaptiveAllocator, beta_prior, most_uncertain
from reliability_lab.results.console import format_summary
from reliability_lab.runner import run_experiment
from reliability_lab.runner.runner import ExperimentError
from reliability_lab.simulate import SimulatedAgent, Simulation
from tests.experiment.helpers import sim_config

pytestmark = pytest.mark.filterwarnings("ignore::reliability_lab.errors.UndefinedMetricWarning")


def _allocator(**kwargs: Any) -> AdaptiveAllocator:
    options: dict[str, Any] = {
        "metric": "C_out",
        "halfwidth": 0.01,
        "max_runs": 6,
        "budget": 1000,
        "batch": 2,
        "n_boot": 100,
    }
    return AdaptiveAllocator(**(options | kwargs))


def test_split_tasks_get_runs_before_unanimous_ones() -> None:
    successes = pd.Series([3, 0, 2, 1], index=["all", "none", "two", "one"])
    runs = pd.Series([3, 3, 3, 3], index=successes.index)
    # p̃ = (s + 1)/5 under a uniform prior: 1/3 and 2/3 split tasks score 0.24, unanimous 0.16
    assert most_uncertain(successes, runs, 2) == ["two", "one"]
    # an agent whose tasks are all-or-nothing: the empirical-Bayes prior settles unanimous ones
    prior = beta_prior(np.array([3.0, 0, 3, 0, 3, 0, 2]), np.full(7, 3.0))
    assert prior[0] + prior[1] < 0.5


def test_allocator_stops_for_the_documented_reasons() -> None:
    sim = Simulation(SimulatedAgent(trajectory_noise=None), 10, 6, seed=0)
    assert _allocator(halfwidth=10.0).step(sim.runs(3)).reason == "target reached"
    assert _allocator(budget=30).step(sim.runs(3)).reason == "budget spent"
    assert _allocator(max_runs=3).step(sim.runs(3)).reason == "every task at max_runs"
    step = _allocator().step(sim.runs(3))
    assert step.reason == "continue" and len(step.tasks) == 2 and step.halfwidth > 0.01


def test_allocator_rejects_pooled_targets_and_bad_numbers() -> None:
    with pytest.raises(ValueError, match=r"metric='accuracy' cannot be targeted adaptively"):
        _allocator(metric="accuracy")
    with pytest.raises(ValueError, match="batch must be a positive integer"):
        _allocator(batch=0)


BASE = sim_config(
    "adaptive",
    ("inc",),
    limit=5,
    n_boot=50,
    adaptive={"metric": "C_out", "halfwidth": 0.001, "max_runs": 4, "batch": 2},
)


def _config(out: Path, **changes: Any) -> Any:
    return parse_config(BASE | {"output": str(out)} | changes)


def _outcomes(directory: Path) -> list[tuple[Any, ...]]:
    lines = (directory / "results.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    return sorted((r["task_id"], r["run"], r["seed"], r["success"], r["score"]) for r in records)


@pytest.fixture(scope="module")
def adaptive_finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("adaptive") / "results"
    run_experiment(_config(out), progress=False)
    return out


def test_adaptive_runs_are_seeded_baseline_runs_beyond_k(adaptive_finished: Path) -> None:
    records = [
        json.loads(x) for x in (adaptive_finished / "results.jsonl").read_text().splitlines()
    ]
    extra = [r for r in records if r["run"] >= 2]
    assert extra and {r["condition"] for r in extra} == {"baseline"}
    for r in extra:
        assert r["seed"] == run_seed(5, agent="inc", task_id=r["task_id"], run=r["run"])
    per_task = pd.Series([r["task_id"] for r in records]).value_counts()
    assert per_task.max() <= 4 and len(records) == 5 * 4  # budget = max_runs × tasks


def test_adaptive_json_is_the_plan_of_the_extra_runs(adaptive_finished: Path) -> None:
    record = json.loads((adaptive_finished / "adaptive.json").read_text())
    planned = {(t, r) for rnd in record["rounds"] for t, r in rnd["agents"]["inc"]["runs"]}
    lines = (adaptive_finished / "results.jsonl").read_text().splitlines()
    recorded = {(r["task_id"], r["run"]) for r in map(json.loads, lines) if r["run"] >= 2}
    assert planned == recorded
    assert record["rounds"][-1]["agents"]["inc"]["reason"] == "budget spent"
    assert record["initial_runs"] == 2


def test_plan_check_counts_the_adaptive_runs_as_planned(adaptive_finished: Path) -> None:
    # the static plan (5 tasks × 2 runs) plus the 10 runs adaptive.json added: none missing,
    # none refused as "not in the plan" by the report's check
    summary = json.loads((adaptive_finished / "summary.json").read_text())
    assert summary["plan"]["planned"] == 20
    assert summary["plan"]["recorded"] == 20 and summary["plan"]["missing"] == 0


def test_summary_records_the_allocation(adaptive_finished: Path) -> None:
    summary = json.loads((adaptive_finished / "summary.json").read_text())
    info = summary["adaptive"]["agents"]["inc"]
    assert info["extra_runs"] == 10 and info["runs_per_task_max"] == 4
    assert sum(info["runs_per_task"].values()) == 20
    assert info["stopped"] == "budget spent"
    # the default rule adds runs evenly: no optional-stopping label (issue 24, item 6)
    assert summary["adaptive"]["allocation"] == "uniform"
    assert summary["adaptive"]["bias"] is None
    assert "never according to a task's own outcomes" in summary["adaptive"]["unbiased_note"]


def test_console_shows_the_allocation(adaptive_finished: Path) -> None:
    from reliability_lab.results import summarize_directory

    text = format_summary(summarize_directory(adaptive_finished))
    assert "Adaptive runs (target: C_out half-width ≤ 0.001" in text
    assert "inc: 10 extra runs in 5 rounds, runs per task 4–4" in text
    assert "allocation uniform: runs were added evenly" in text
    assert "biased:" not in text


class _FailOnce:
    """Raises (a harness bug) on the second adaptive run it is given, once."""

    def __init__(self) -> None:
        self.adaptive = 0

    async def __call__(self, spec: RunSpec, llm: LLMClient) -> RunResult:
        if spec.run >= 2:
            self.adaptive += 1
            if self.adaptive == 2:
                raise RuntimeError("boom")
        return await execute_run(spec, llm)


def test_interrupted_adaptive_rounds_resume_to_the_same_result(
    adaptive_finished: Path, tmp_path: Path
) -> None:
    out = tmp_path / "results"
    with pytest.raises(ExperimentError, match="boom"):
        run_experiment(_config(out), progress=False, execute=_FailOnce())
    resumed = run_experiment(_config(out), progress=False)
    assert _outcomes(out) == _outcomes(adaptive_finished)
    assert (
        json.loads((out / "adaptive.json").read_text())["rounds"]
        == json.loads((adaptive_finished / "adaptive.json").read_text())["rounds"]
    )
    assert resumed.n_previous == 11  # the static plan and one adaptive run were recorded
    assert resumed.n_executed == 9
    again = run_experiment(_config(out), progress=False)  # adaptive_finished: nothing more runs
    assert again.n_executed == 0 and _outcomes(out) == _outcomes(adaptive_finished)


def test_uncertainty_experiment_is_labelled_biased(tmp_path: Path) -> None:
    from reliability_lab.results import summarize_directory

    block = {"halfwidth": 0.001, "max_runs": 3, "batch": 2, "allocation": "uncertainty"}
    out = tmp_path / "results"
    run_experiment(_config(out, adaptive=block), progress=False)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["adaptive"]["allocation"] == "uncertainty"
    assert "optional stopping" in summary["adaptive"]["bias"]
    text = format_summary(summarize_directory(out))
    assert "allocation uncertainty, biased: the extra runs were decided" in text


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"metric": "accuracy", "halfwidth": 0.1, "max_runs": 4}, "cannot target 'accuracy'"),
        ({"halfwidth": 0.1, "max_runs": 4, "allocation": "greedy"}, "adaptive.allocation"),
        ({"halfwidth": 0.1, "max_runs": 2}, r"adaptive.max_runs \(2\) must exceed runs \(2\)"),
        ({"halfwidth": 0, "max_runs": 4}, "adaptive.halfwidth"),
    ],
)
def test_bad_adaptive_block_is_a_config_error(changes: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_config(BASE | {"adaptive": changes})


def test_adaptive_needs_the_baseline_condition() -> None:
    settings = {"halfwidth": 0.1, "max_runs": 4}
    with pytest.raises(ConfigError, match="'baseline' is not a condition"):
        parse_config(BASE | {"conditions": ["fault"], "adaptive": settings})
