"""Fixtures of the plot tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from matplotlib import pyplot as plt

from reliability_lab import run_experiment
from tests.experiment.helpers import config_writer


@pytest.fixture(autouse=True)
def _close_figures() -> Iterator[None]:
    """Close every figure a test opened."""
    yield
    plt.close("all")


#: A small simulated experiment with every kind of figure data: two agents with confidences,
#: each perturbation kind, safety checks with the judge, session metrics.
CONFIG: dict[str, Any] = {
    "name": "figs",
    "seed": 3,
    "runs": 3,
    "max_concurrent": 8,
    "cache": False,
    "environment": {"name": "customer_service", "limit": 4},
    "conditions": [
        "baseline",
        {"name": "fault", "variants": ["p=0.2", "p=0.4"], "runs": 1},
        {"name": "structural", "variants": ["mild"], "runs": 1},
        {"name": "prompt", "variants": ["mild"], "runs": 1, "options": {"n_paraphrases": 1}},
    ],
    "agents": [
        {"label": "cal", "model": "sim/calibrated"},
        {"label": "over", "model": "sim/overconfident"},
    ],
    "safety": {"judge": True},
    "report": {"n_boot": 100},
}


@pytest.fixture(scope="session")
def results(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Any]]:
    """The experiment's results directory and its outcome, run once for the plot tests."""
    tmp = tmp_path_factory.mktemp("figure_set")
    outcome = run_experiment(config_writer(tmp)(CONFIG), output=tmp / "out", progress=False)
    yield tmp / "out", outcome
