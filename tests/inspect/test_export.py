"""``reliability-lab export DIR --to inspect``: a results directory as inspect_ai logs.

A small offline experiment with every kind of run — successes and failures, injected faults,
agent errors that were scored (``max_steps: 1``), infrastructure errors (a provider that
answers 503) and successes below a score of 1 (a pass threshold of 0) — is exported; the logs
are read back with inspect_ai's own reader and every run is checked against its line of
``results.jsonl``, then re-imported with our importer to the run table the directory gives.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

inspect_log = pytest.importorskip(
    "inspect_ai.log", reason="inspect-ai (the extra reliability-lab[inspect]) is not installed"
)

from reliability_lab.cli import main  # noqa: E402
from reliability_lab.inspect import export_to_inspect  # noqa: E402
from reliability_lab.io import MissingExtraError, load_inspect_log, load_runs  # noqa: E402
from reliability_lab.results import load_results  # noqa: E402
from tests.experiment.helpers import config_writer, result_lines  # noqa: E402
from tests.fake_openai_server import FakeOpenAIServer  # noqa: E402

N_TASKS, K = 2, 2
GROUP = ("agent", "condition", "variant")
#: Run-table columns an export carries back unchanged (docs/inspect.md lists the others).
SHARED = [
    "agent",
    "task_id",
    "condition",
    "variant",
    "run",
    "success",
    "score",
    "confidence",
    "confidence_source",
    "confidence_error",
    "actions",
    "num_actions",
    "cost_usd",
    "wall_time_s",
    "error",
    "prompt_tokens",
    "completion_tokens",
    "intensity",
    "n_faults",
    "n_faults_recovered",
    "faults",
    "paraphrase_id",
]


@pytest.fixture(scope="module")
def results_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from reliability_lab.runner import run_experiment

    tmp = tmp_path_factory.mktemp("export")
    with pytest.MonkeyPatch.context() as patch, FakeOpenAIServer() as server:
        patch.setenv("OPENAI_API_KEY", "sk-test-export-0000000000")
        server.script = [("status", 503)]  # the provider is down: infrastructure errors
        config = {
            "name": "export",
            "seed": 3,
            "runs": K,
            "max_concurrent": 4,
            "cache": False,
            "environment": {"name": "customer_service", "limit": N_TASKS},
            "conditions": ["baseline", {"name": "fault", "variants": ["p=0.5"], "runs": 1}],
            "agents": [
                # every finished run passes: success is the run's decision, not score >= 1
                {"label": "cal", "model": "sim/brittle", "pass_threshold": 0.0},
                {"label": "short", "model": "sim/calibrated", "max_steps": 1},
                {
                    "label": "net",
                    "model": "openai/fake-model",
                    "params": {"api_base": server.base_url},
                },
            ],
            "llm": {"max_retries": 0},
            "sessions": {"enabled": False},
            "report": {"n_boot": 20},
        }
        run_experiment(config_writer(tmp)(config), output=tmp / "out", progress=False)
    return tmp / "out"


@pytest.fixture(scope="module")
def exported(results_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("logs")
    export_to_inspect(results_dir, out)
    return out


def _logs(directory: Path) -> list[Any]:
    return [inspect_log.read_eval_log(str(p)) for p in sorted(directory.glob("*.eval"))]


def _nan_or(value: Any) -> Any:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


def _tool_calls(trajectory: list[Mapping[str, Any]]) -> list[tuple[str, str, Any]]:
    return [
        (c["id"], c["function"]["name"], json.loads(c["function"]["arguments"]))
        for m in trajectory
        if m["role"] == "assistant"
        for c in m.get("tool_calls") or []
    ]


def test_the_fixture_has_every_kind_of_run(results_dir: Path) -> None:
    records = result_lines(results_dir)
    assert len(records) == 3 * N_TASKS * (K + 1)
    errors = [str(r["error"]) for r in records if r["error"]]
    assert any(e.startswith("infrastructure:") for e in errors)
    assert any(e.startswith("agent:") for e in errors)
    assert any(r["success"] and r["score"] < 1 for r in records)
    assert any(r["success"] for r in records) and any(
        e.get("call", -1) >= 0 and not e.get("masked")
        for r in records
        for e in r["perturbation"]["events"]
    )


def test_one_log_per_agent_and_condition_variant_with_runs_as_epochs(
    results_dir: Path, exported: Path
) -> None:
    records = result_lines(results_dir)
    header = json.loads((results_dir / "header.json").read_text())
    groups = {tuple(r[c] for c in GROUP) for r in records}
    logs = _logs(exported)
    assert len(logs) == len(groups)
    seen = set()
    for log in logs:
        ours = log.eval.metadata["reliability_lab"]
        group = (ours["agent"], ours["condition"], ours["variant"])
        seen.add(group)
        runs = [r for r in records if tuple(r[c] for c in GROUP) == group]
        assert log.status == "success"
        assert log.eval.model == header["models"][ours["agent"]]
        assert log.eval.config.epochs == (K if group[1] == "baseline" else 1)
        assert len(log.samples) == len(runs) == log.results.total_samples
        assert ours["fingerprint"] == header["fingerprint"] and ours["seed"] == header["seed"]
        assert ours["experiment"] == "export" and ours["profile"] == header["profile"]
        assert ours["agent_config"]["label"] == group[0]
    assert seen == groups
    listed = inspect_log.list_eval_logs(str(exported))  # what `inspect view` lists
    assert len(listed) == len(groups)


def _sample_index(logs: list[Any]) -> dict[tuple[Any, ...], Any]:
    index = {}
    for log in logs:
        ours = log.eval.metadata["reliability_lab"]
        for sample in log.samples:
            key = (ours["agent"], sample.id, ours["condition"], ours["variant"], sample.epoch - 1)
            assert key not in index
            index[key] = sample
    return index


def test_every_run_is_a_sample_with_its_scores_confidence_and_error(
    results_dir: Path, exported: Path
) -> None:
    samples = _sample_index(_logs(exported))
    records = result_lines(results_dir)
    assert len(samples) == len(records)
    for r in records:
        sample = samples[(r["agent"], r["task_id"], r["condition"], r["variant"], r["run"])]
        meta = sample.metadata["reliability_lab"]
        assert meta["success"] is r["success"] and meta["error"] == r["error"]
        assert meta["confidence"] == _nan_or(r["confidence"])
        assert meta["confidence_source"] == r["confidence_source"]
        assert meta["perturbation"] == r["perturbation"]
        if _nan_or(r["score"]) is None:
            assert sample.scores is None
        else:
            score = sample.scores["reliability_lab"]
            assert score.value == r["score"] and score.metadata["success"] is r["success"]
            assert score.answer == (r["final_answer"] or "")
        if r["error"]:
            assert sample.error is not None and sample.error.message == r["error"]
        else:
            assert sample.error is None
        assert sample.output.completion == (r["final_answer"] or "")
        assert sample.total_time == pytest.approx(r["wall_time_s"])


def test_messages_hold_the_transcript_and_mark_injected_faults(
    results_dir: Path, exported: Path
) -> None:
    samples = _sample_index(_logs(exported))
    checked_faults = 0
    for r in result_lines(results_dir):
        sample = samples[(r["agent"], r["task_id"], r["condition"], r["variant"], r["run"])]
        trajectory = r["trajectory"]
        messages = sample.messages
        assert [m.role for m in messages][:2] == ["system", "user"]
        user = next(m["content"] for m in trajectory if m["role"] == "user")
        assert messages[1].text == user == sample.input
        calls = [
            (c.id, c.function, c.arguments)
            for m in messages
            if m.role == "assistant"
            for c in m.tool_calls or []
        ]
        assert calls == _tool_calls(trajectory)
        tool_messages = [m for m in messages if m.role == "tool"]
        results = [m for m in trajectory if m["role"] == "tool"]
        assert [(m.tool_call_id, m.text) for m in tool_messages] == [
            (m["tool_call_id"], m["content"]) for m in results
        ]
        seen_faults = {
            e["call"]
            for e in r["perturbation"]["events"]
            if e.get("call", -1) >= 0 and not e.get("masked")
        }
        call_ids = [c[0] for c in calls]
        marked = {m.tool_call_id for m in tool_messages if m.error is not None}
        assert marked == {call_ids[i] for i in seen_faults}
        checked_faults += len(marked)
    assert checked_faults > 0


def _columns(table: pd.DataFrame) -> dict[str, list[Any]]:
    """The shared columns in run-key order, missing values as None, counts as floats."""
    frame = table.sort_values(["agent", "task_id", "condition", "variant", "run"])
    out = {}
    for column in SHARED:
        values = [
            None if not isinstance(v, list | dict) and pd.isna(v) else v for v in frame[column]
        ]
        if column in ("prompt_tokens", "completion_tokens", "num_actions", "n_faults"):
            values = [None if v is None else float(v) for v in values]
        out[column] = values
    return out


def test_reimport_gives_the_run_table_of_the_directory(results_dir: Path, exported: Path) -> None:
    original = _columns(load_results(results_dir))
    for table in (load_inspect_log(exported), load_runs(exported)):
        back = _columns(table)
        for column in SHARED:  # one column at a time, so a failure names it
            assert back[column] == original[column], column


def test_cli_writes_beside_the_results_and_a_second_export_replaces_the_first(
    results_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(results_dir, copy)
    assert main(["export", str(copy), "--to", "inspect"]) == 0
    out = capsys.readouterr().out
    files = sorted((copy / "inspect-logs").glob("*.eval"))
    assert f"{len(files)} inspect logs" in out and "inspect view --log-dir" in out
    assert main(["export", str(copy), "--to", "inspect", "-o", str(copy / "inspect-logs")]) == 0
    assert sorted((copy / "inspect-logs").glob("*.eval")) == files


def test_missing_extra_is_a_one_line_error_naming_it(
    results_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)  # import now raises ImportError
    with pytest.raises(MissingExtraError, match=r"pip install 'reliability-lab\[inspect\]'"):
        export_to_inspect(results_dir, results_dir / "never")
    assert main(["export", str(results_dir), "--to", "inspect", "-o", "never"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "reliability-lab[inspect]" in err
    assert not (results_dir / "never").exists()


def test_not_a_results_directory_is_an_input_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["export", str(tmp_path), "--to", "inspect"]) == 2
    assert "header.json" in capsys.readouterr().err


def test_a_recorded_success_that_is_not_a_boolean_is_named(exported: Path, tmp_path: Path) -> None:
    from reliability_lab.io import InspectLogError

    log = _logs(exported)[0]
    log.samples[0].metadata["reliability_lab"]["success"] = "yes"
    path = tmp_path / "edited.eval"
    inspect_log.write_eval_log(log, str(path))
    with pytest.raises(
        InspectLogError, match=r"field 'metadata\.reliability_lab\.success': .*'yes'"
    ):
        load_inspect_log(path)


def test_an_explicit_success_rule_overrides_the_recorded_decision(exported: Path) -> None:
    runs = load_inspect_log(exported, success=1.0)
    scored = runs[runs["error"].isna()]
    assert (scored["success"] == (scored["score"] >= 1.0)).all()
    assert not load_inspect_log(exported)["success"].equals(runs["success"])
