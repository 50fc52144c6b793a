"""The 0.1 import paths still work for one release, warn, and are the new modules themselves;
the top level offers the notebook verbs; io.load_runs reads our own results directories."""

from __future__ import annotations

import ast
import importlib
import json
import os
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
    module = importlib.import_module(new)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = importlib.import_module(old)
        again = importlib.import_module(old)
    parent, _, leaf = old.rpartition(".")
    same = [first is module, again is module, getattr(sys.modules[parent], leaf) is module]
    out[old] = [same, [str(w.message) for w in caught if w.category is DeprecationWarning]]
print(json.dumps(out))
"""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    seen = json.loads(done.stdout)
    assert set(seen) == set(MOVED)
    for old, (same, messages) in seen.items():
        assert same == [True, True, True], old
        assert messages == [  # once: the second import finds the module in sys.modules
            f"{old} moved to {MOVED[old]}; the old path is removed in the next release "
            "(see docs/architecture.md)"
        ]


def test_the_warning_points_at_the_importing_line(tmp_path: Path) -> None:
    user = tmp_path / "user_code.py"
    user.write_text("import reliability_lab.experiment.store\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-W", "always::DeprecationWarning", str(user)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert f"{user}:1: DeprecationWarning: reliability_lab.experiment.store moved" in done.stderr


def test_every_old_path_is_a_stub_file_and_nothing_is_installed() -> None:
    for old, new in MOVED.items():
        stub = ROOT / (old.replace(".", "/") + ".py")
        tree = ast.parse(stub.read_text(encoding="utf-8"))
        assert new in (ast.get_docstring(tree) or ""), stub  # says where the module went
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
        assert [ast.unparse(c) for c in calls] == ["alias(__name__)"], stub
    # importing the package touches no import hook (no process-wide side effect)
    code = "import sys; n = sys.meta_path[:]; import reliability_lab; print(sys.meta_path == n)"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert done.stdout.strip() == "True"


@pytest.mark.parametrize(
    "old", ["reliability_lab.experiment.summary", "reliability_lab.stats.compare"]
)
def test_old_paths_nothing_outside_used_are_gone(old: str) -> None:
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(old)


def test_monkeypatch_through_the_old_path_patches_the_new_module(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import warnings

    from reliability_lab.metrics import profiles

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        monkeypatch.setattr("reliability_lab.report.profiles.PROFILES", {"patched": None})
    assert profiles.PROFILES == {"patched": None}


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
