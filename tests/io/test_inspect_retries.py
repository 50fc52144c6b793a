"""inspect_ai's retries and eval_set directories, as inspect_ai 0.3.x writes them.

A sample crashes the first time it runs. inspect leaves the errored log and writes its retry
(same ``eval.task_id``, the finished samples copied in) beside it — ``eval_retry`` in one
directory, or a second ``eval_set`` call that resumes. Counted naively that is one run too many
per copied sample; the expected counts below come from the task's design (2 samples × 4
epochs) and from the raw files read with inspect's own reader.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from inspect_ai import eval, eval_retry, eval_set
from inspect_ai.log import read_eval_log

import tests.inspect.scripted  # noqa: F401  (registers the rlscripted model)
from reliability_lab.io import load_runs
from reliability_lab.io.inspect_logs import InspectImportNote, load_inspect_log
from reliability_lab.metrics import pass_hat_k

TASK = str(Path(__file__).parents[1] / "inspect" / "tasks.py") + "@flaky"
SAMPLES, EPOCHS = 2, 4
MODEL = "rlscripted/80"


def _first_attempt(log_dir: Path, marker: Path) -> Path:
    log = eval(
        TASK,
        task_args={"marker": str(marker)},
        model=MODEL,
        log_dir=str(log_dir),
        log_format="json",
        display="none",
        max_samples=1,
    )[0]
    assert log.status == "error" and marker.exists()
    return Path(log.location)


def test_an_errored_log_and_its_retry_count_once(tmp_path: Path) -> None:
    first = _first_attempt(tmp_path / "logs", tmp_path / "marker")
    retry = eval_retry(str(first), log_dir=str(tmp_path / "logs"), display="none")[0]
    assert retry.status == "success"
    copied = len(read_eval_log(str(first)).samples or [])
    assert copied > 0  # the errored log holds samples, the naive count is too high

    with pytest.warns(InspectImportNote, match=rf"dropped {copied} samples of 1 superseded"):
        runs = load_inspect_log(tmp_path / "logs")
    assert len(runs) == SAMPLES * EPOCHS
    assert runs.groupby("task_id")["run"].apply(sorted).tolist() == [list(range(EPOCHS))] * 2
    assert set(runs["source_file"]) == {str(Path(retry.location).resolve())}
    # every answer is right and the retry has no error: pass^k is 1 for every k
    assert runs["error"].isna().all()
    for k in (1, 2, 4):
        assert pass_hat_k(runs["success"], runs["task_id"], k) == 1.0


def test_an_interrupted_eval_set_resumes_without_loss_or_duplicates(tmp_path: Path) -> None:
    logs, marker = tmp_path / "set", tmp_path / "marker"
    kwargs = {"task_args": {"marker": str(marker)}, "model": MODEL, "log_dir": str(logs)}
    done, _ = eval_set(TASK, display="none", retry_attempts=0, max_samples=1, **kwargs)
    assert not done and marker.exists()  # the first call stopped on the crash
    done, results = eval_set(TASK, display="none", retry_attempts=0, max_samples=1, **kwargs)
    assert done
    assert {p.name for p in logs.iterdir()} >= {"eval-set.json", "logs.json"}

    runs = load_runs(logs)  # detected as inspect; the index files are not logs
    assert len(runs) == SAMPLES * EPOCHS
    keys = list(zip(runs["task_id"], runs["run"], strict=True))
    assert len(set(keys)) == len(keys)
    raw = read_eval_log(results[0].location)
    assert len(raw.samples or []) == SAMPLES * EPOCHS
    assert runs["success"].all() and math.isclose(runs["api_calls"].sum(), 2 * len(runs))


def test_other_json_in_a_log_directory_is_skipped_with_a_note(tmp_path: Path) -> None:
    first = _first_attempt(tmp_path / "logs", tmp_path / "marker")
    (tmp_path / "logs" / "notes.json").write_text(json.dumps({"who": "me"}), encoding="utf-8")
    with pytest.warns(InspectImportNote, match=r"skipped .*notes\.json: not an inspect_ai"):
        runs = load_inspect_log(tmp_path / "logs")
    assert set(runs["source_file"]) == {str(first.resolve())}
