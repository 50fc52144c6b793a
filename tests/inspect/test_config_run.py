"""``reliability-lab run`` on a config with an ``inspect:`` block, end to end and offline."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from inspect_ai.log import list_eval_logs

import tests.inspect.scripted  # noqa: F401  (registers the rlscripted model)
from reliability_lab.cli import main
from reliability_lab.errors import ConfigError
from reliability_lab.experiment.config import load_config
from reliability_lab.inspect import run_inspect_experiment

TASKS = Path(__file__).parent / "tasks.py"


def _config(tmp_path: Path, **extra: object) -> Path:
    data = {
        "name": "orders-inspect",
        "seed": 1,
        "runs": 2,
        "output": str(tmp_path / "out"),
        "inspect": {"task": f"{TASKS}@orders", "eval_set": {"max_samples": 3}},
        "agents": [
            {"label": "sure", "model": "rlscripted/90"},
            {"label": "unsure", "model": "rlscripted/not sure"},
        ],
        "conditions": ["baseline", {"name": "fault", "variants": ["p=0.5"]}],
        "report": {"n_boot": 20},
        "gates": ["accuracy >= 0.5"],
        **extra,
    }
    path = tmp_path / "inspect.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


@pytest.mark.filterwarnings("ignore::reliability_lab.errors.UndefinedMetricWarning")
def test_run_writes_inspect_logs_and_the_summary_and_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _config(tmp_path)
    assert main(["run", str(config), "--quiet"]) == 0
    out = tmp_path / "out"
    logs = list_eval_logs(str(out / "inspect_logs"))
    assert len(logs) == 2 * 2  # (baseline, fault) x two models, one log each for inspect view
    assert (out / "summary.json").exists() and (out / "results.jsonl").exists()

    outcome = run_inspect_experiment(config, progress=False)  # the notebook call: a rerun
    runs = outcome.runs
    assert len(runs) == outcome.n_planned == 2 * 2 * 3 * 2  # agents x conditions x samples x K
    assert outcome.n_previous == len(runs) and outcome.n_executed == 0  # nothing ran again
    assert len(list_eval_logs(str(out / "inspect_logs"))) == 4
    keys = runs[["agent", "condition", "task_id", "run"]].apply(tuple, axis=1)
    assert keys.is_unique
    # the confidence each model gave: parsed, or recorded as a failed parse (never 0.5)
    sure = runs[runs["agent"] == "sure"]
    unsure = runs[runs["agent"] == "unsure"]
    assert (sure["confidence"] == 0.9).all() and (sure["confidence_source"] == "elicited").all()
    assert unsure["confidence"].isna().all() and (unsure["confidence_source"] == "fallback").all()
    report = outcome.summary.report
    assert set(report.index) == {"sure", "unsure"} and report["R_fault"].notna().all()


def test_an_inspect_block_and_an_environment_are_exclusive(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="inspect: an inspect task replaces the environment"):
        load_config(_config(tmp_path, environment={"name": "customer_service", "limit": 2}))
