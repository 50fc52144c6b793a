"""A small results directory shared by the viewer, table and HTML tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from reliability_lab import run_experiment
from tests.experiment.helpers import config_writer

#: Agents deliberately not in alphabetical order: every view must keep the config's order.
CONFIG: dict[str, Any] = {
    "name": "viewer",
    "seed": 7,
    "runs": 3,
    "max_concurrent": 8,
    "cache": False,
    "environment": {"name": "customer_service", "limit": 4},
    "conditions": [
        "baseline",
        {"name": "fault", "variants": ["p=0.2", "p=0.4"], "runs": 1},
        {"name": "structural", "variants": ["mild"], "runs": 1},
    ],
    "agents": [
        {"label": "zeta", "model": "sim/overconfident"},
        {"label": "alpha", "model": "sim/brittle"},
    ],
    "safety": {"judge": True},
    "sessions": {"enabled": False},
    "report": {"n_boot": 100},
}


@pytest.fixture(scope="session")
def results_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("viewer")
    run_experiment(config_writer(tmp)(CONFIG), output=tmp / "out", progress=False)
    return tmp / "out"
