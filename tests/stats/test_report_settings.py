"""The experiment config's ``report.bootstrap`` reaches summary.json and the console."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reliability_lab.errors import ConfigError
from reliability_lab.experiment import parse_config
from reliability_lab.results import format_summary
from reliability_lab.runner import run_experiment

CONFIG = {
    "name": "two-level",
    "seed": 2,
    "runs": 3,
    "environment": {"name": "customer_service", "limit": 4},
    "agents": [{"label": "cal", "model": "sim/calibrated"}],
    "report": {"n_boot": 30, "bootstrap": "two-level"},
    "sessions": {"enabled": False},
}


def test_two_level_bootstrap_is_recorded_and_shown(tmp_path: Path) -> None:
    outcome = run_experiment(parse_config(CONFIG | {"output": str(tmp_path / "r")}), progress=False)
    summary = json.loads((tmp_path / "r" / "summary.json").read_text(encoding="utf-8"))
    assert summary["reliability"]["bootstrap"] == "two-level"
    assert outcome.report.attrs["bootstrap"] == "two-level"
    assert "bootstrap CI over tasks, then runs" in format_summary(outcome.summary)


def test_unknown_bootstrap_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"report.bootstrap: .*'tasks' or 'two-level'"):
        parse_config(CONFIG | {"report": {"bootstrap": "runs"}})
