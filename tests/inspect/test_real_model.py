"""The inspect example config on a real model and an inspect_evals task (costs money)."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

from reliability_lab import run_experiment
from reliability_lab.experiment import load_config, parse_config

EXAMPLE = Path(__file__).parents[2] / "experiments" / "inspect_example.yaml"


@pytest.mark.real_provider
@pytest.mark.skipif(
    not os.environ.get("OPENAI_API_KEY") or importlib.util.find_spec("inspect_evals") is None,
    reason="needs OPENAI_API_KEY and inspect_evals (costs money)",
)
def test_inspect_example_runs_an_inspect_evals_task(tmp_path: Path) -> None:
    data = load_config(EXAMPLE).model_dump()
    data["runs"] = 2
    data["inspect"]["eval_set"]["limit"] = 3
    data["output"] = str(tmp_path / "out")
    outcome = run_experiment(parse_config(data, source=str(EXAMPLE)), progress=False)
    runs = outcome.runs
    assert set(runs["condition"]) == {"baseline", "prompt"}
    assert len(runs) == 3 * 2 * 2
    assert runs["confidence_source"].isin(["elicited", "fallback"]).all()
    assert not runs["error"].notna().any(), runs["error"].tolist()


def test_the_example_config_is_valid() -> None:
    config = load_config(EXAMPLE)
    assert config.inspect is not None and config.inspect.task == "inspect_evals/gsm8k"
