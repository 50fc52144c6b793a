"""The example config with a real provider runs every perturbation (needs OPENAI_API_KEY)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from reliability_lab.experiment import load_config, parse_config
from reliability_lab.runner import run_experiment
from reliability_lab.runs import is_infrastructure_error

EXAMPLE = Path(__file__).parents[2] / "experiments" / "openai_example.yaml"


@pytest.mark.real_provider
@pytest.mark.skipif(
    not os.environ.get("OPENAI_API_KEY"), reason="needs OPENAI_API_KEY (costs money)"
)
def test_openai_example_runs_every_perturbation(tmp_path: Path) -> None:
    data = load_config(EXAMPLE).model_dump()
    data["environment"]["limit"] = 1
    data["runs"] = 1
    data["agents"] = data["agents"][:1]
    data["output"] = str(tmp_path / "out")
    outcome = run_experiment(parse_config(data, source=str(EXAMPLE)), progress=False)
    runs = outcome.summary.runs
    assert set(runs["condition"]) == {"baseline", "fault", "structural", "prompt"}
    assert not is_infrastructure_error(runs["error"]).any(), runs["error"].tolist()
    stored = json.loads((tmp_path / "out" / "paraphrases.json").read_text(encoding="utf-8"))
    assert stored["settings"]["paraphraser"] == "llm"
    assert stored["counts"]["paraphrases"] == 2
    lines = (tmp_path / "out" / "results.jsonl").read_text(encoding="utf-8").splitlines()
    assert all(json.loads(line)["perturbation"]["condition"] for line in lines)
