"""The 0.1 import paths still work for one release, warn, and are the new modules themselves;
the top level offers the notebook verbs; io.load_runs reads our own results directories."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import reliability_lab as rl
from reliability_lab._moved import MOVED

ROOT = Path(__file__).resolve().parents[1]


def test_old_module_paths_are_the_new_modules_and_warn() -> None:
    # a fresh interpreter: the old names must not have been imported by earlier tests
    code = """
import importlib, json, sys, warnings
from reliability_lab._moved import MOVED
out = {}
for old, new in MOVED.items():
    if "ray_executor" in old and importlib.util.find_spec("ray") is None:
        continue
    module = importlib.import_module(new)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        same = importlib.import_module(old) is module
    out[old] = [same, [str(w.message) for w in caught if w.category is DeprecationWarning]]
print(json.dumps(out))
"""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    seen = json.loads(done.stdout)
    assert set(seen) >= set(MOVED) - {"reliability_lab.experiment.ray_executor"}
    for old, (same, messages) in seen.items():
        assert same, old
        assert messages == [
            f"{old} moved to {MOVED[old]}; the old path is removed in the next release "
            "(see docs/architecture.md)"
        ]


def test_old_package_names_warn_and_resolve() -> None:
    from reliability_lab.report import compare_agents
    from reliability_lab.runner import run_experiment

    with pytest.warns(DeprecationWarning, match=r"reliability_lab\.stats\.compare_agents moved"):
        old = importlib.import_module("reliability_lab.stats").compare_agents
    assert old is compare_agents
    with pytest.warns(DeprecationWarning, match="experiment.run_experiment moved"):
        assert (
            importlib.import_module("reliability_lab.experiment").run_experiment is run_experiment
        )


def test_spec_names_of_experiment_do_not_warn() -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        from reliability_lab.experiment import ExperimentConfig, build_plan, run_seed

    assert ExperimentConfig and build_plan and run_seed


def test_top_level_offers_the_notebook_verbs() -> None:
    from reliability_lab.io.summarize import summarize_logs
    from reliability_lab.plots.figure_set import save_all
    from reliability_lab.report.compare import compare_agents
    from reliability_lab.report.planning import plan_runs
    from reliability_lab.runner.runner import run_experiment

    assert rl.run_experiment is run_experiment
    assert rl.summarize_logs is summarize_logs
    assert rl.save_figures is save_all
    assert rl.compare_agents is compare_agents and rl.plan_runs is plan_runs
    assert {"load_runs", "reliability_report", "save_figures", "summarize_logs"} <= set(rl.__all__)


def test_load_runs_reads_our_results_directory(finished: tuple[Path, Path]) -> None:
    from reliability_lab.results import load_results

    _, out = finished
    assert rl.load_runs.__module__ == "reliability_lab.io.formats"
    pd.testing.assert_frame_equal(rl.load_runs(out), load_results(out))
    pd.testing.assert_frame_equal(rl.load_runs(out, format="results"), load_results(out))


def test_load_runs_refuses_importer_options_for_our_format(finished: tuple[Path, Path]) -> None:
    _, out = finished
    with pytest.raises(ValueError, match=r"results directory names its agents.*agent do not apply"):
        rl.load_runs(out, agent="x")


def test_summarize_logs_is_the_report_command(
    finished: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    from reliability_lab.cli import main
    from reliability_lab.results import format_summary

    _, out = finished
    assert main(["report", str(out)]) == 0
    printed = capsys.readouterr().out
    summary = rl.summarize_logs(out)
    assert summary.passed and printed == format_summary(summary) + "\n"


def test_summarize_logs_names_options_that_do_not_apply(finished: tuple[Path, Path]) -> None:
    _, out = finished
    with pytest.raises(rl.ConfigError, match="--agent apply to imported logs"):
        rl.summarize_logs(out, agent="x", gates=["R >= 0.5"])
