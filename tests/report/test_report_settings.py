"""The experiment config's ``report.bootstrap`` reaches summary.json and the console."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reliability_lab.errors import ConfigError
from reliability_lab.experiment import parse_config
from reliability_lab.results import format_summary
from reliability_lab.runner import run_experiment
from tests.experiment.helpers import sim_config

CONFIG = sim_config(
    "two-level", ("cal",), limit=4, seed=2, runs=3, report={"n_boot": 30, "bootstrap": "two-level"}
)


def test_two_level_bootstrap_is_recorded_and_shown(tmp_path: Path) -> None:
    outcome = run_experiment(parse_config(CONFIG | {"output": str(tmp_path / "r")}), progress=False)
    summary = json.loads((tmp_path / "r" / "summary.json").read_text(encoding="utf-8"))
    assert summary["reliability"]["bootstrap"] == "two-level"
    assert outcome.report.attrs["bootstrap"] == "two-level"
    assert "bootstrap CI over tasks, then runs" in format_summary(outcome.summary)


def test_unknown_bootstrap_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"report.bootstrap: .*'tasks' or 'two-level'"):
        parse_config(CONFIG | {"report": {"bootstrap": "runs"}})


def test_resources_choice_is_recorded_and_time_resources_are_flagged(tmp_path: Path) -> None:
    # Default: the paper's set, with wall time and latency of simulated runs flagged.
    outcome = run_experiment(parse_config(CONFIG | {"output": str(tmp_path / "a")}), progress=False)
    summary = json.loads((tmp_path / "a" / "summary.json").read_text(encoding="utf-8"))
    assert summary["reliability"]["resources"] == [
        "cost_usd", "wall_time_s", "api_calls", "num_actions", "num_errors", "call_latency_s"
    ]  # fmt: skip
    text = format_summary(outcome.summary)
    assert "C_res includes wall_time_s" in text and "simulated runs" in text
    # Chosen: no time-based resources — recorded, no note, and C_res from the others only.
    chosen = ["cost_usd", "api_calls", "num_actions", "num_errors"]
    config = CONFIG | {"output": str(tmp_path / "b"), "report": {"n_boot": 30, "resources": chosen}}
    outcome = run_experiment(parse_config(config), progress=False)
    summary = json.loads((tmp_path / "b" / "summary.json").read_text(encoding="utf-8"))
    assert summary["reliability"]["resources"] == chosen
    assert "C_res includes" not in format_summary(outcome.summary)
    assert outcome.report.attrs["profile"]["resources"] == tuple(chosen)


def test_imported_logs_are_not_called_cached_runs_of_this_machine() -> None:
    # An inspect log's runs (with their times) were timed where they ran: no cache of ours.
    pytest.importorskip("inspect_ai")
    from reliability_lab.io.summarize import summarize_logs

    path = Path(__file__).parents[2] / "notebooks" / "data" / "inspect_calculator.eval"
    summary = summarize_logs(path, n_boot=10)
    assert summary.runs["wall_time_s"].notna().any()  # a time-based resource is there
    text = format_summary(summary)
    assert "cached (cache: true)" not in text and "simulated runs" not in text


def test_resources_without_time_make_reruns_agree() -> None:
    # Independent: C_res over the non-time columns does not change when only the time
    # columns change (the "identical reruns disagree").
    import numpy as np
    import pandas as pd

    from reliability_lab import reliability_report

    rng = np.random.default_rng(0)
    runs = pd.DataFrame(
        {
            "agent": "a",
            "task_id": np.repeat(["t1", "t2", "t3"], 4),
            "run": np.tile(range(4), 3),
            "success": rng.random(12) < 0.5,
            "cost_usd": rng.uniform(0.01, 0.02, 12),
            "wall_time_s": rng.uniform(1, 10, 12),
        }
    )
    rerun = runs.assign(wall_time_s=rng.uniform(1, 10, 12))
    values = [
        reliability_report(r, n_boot=0, resources=["cost_usd"]).loc["a", "C_res"]
        for r in (runs, rerun)
    ]
    assert values[0] == values[1]
    cv = runs.groupby("task_id")["cost_usd"].agg(lambda x: np.std(x, ddof=1) / np.mean(x))
    assert values[0] == pytest.approx(np.mean(np.exp(-cv)))
    with pytest.raises(ValueError, match=r"resources: .*unknown: \['tokens'\]"):
        reliability_report(runs, n_boot=0, resources=["tokens"])


def test_unknown_resource_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"report\.resources"):
        parse_config(CONFIG | {"report": {"resources": ["gpu_hours"]}})
