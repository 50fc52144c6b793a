"""inspect_ai importer on logs that inspect_ai itself writes offline (its mockllm model).

The logs are produced in the test by ``inspect_ai.eval`` — 3 epochs, a tool the model calls,
token usage set on every mock output — in both ``.json`` and ``.eval`` formats. pass^k and the
token sums are checked against numbers read straight from the raw log files.
"""

from __future__ import annotations

import json
import math
import os
import sys
import zipfile
from collections import defaultdict
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

# inspect-ai is the optional extra [inspect]; `make test` installs it, so these tests run.
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import includes, match
from inspect_ai.solver import Generate, TaskState, generate, solver, use_tools
from inspect_ai.tool import Tool, tool

from reliability_lab.io import InspectLogError, MissingExtraError, load_inspect_log, load_runs
from reliability_lab.metrics import pass_hat_k

MODEL = "mockllm/model"
EPOCHS = 3
# Per sample, per epoch: whether the final answer is right. a: 2/3, b: 3/3, c: 1/3.
ANSWERS = {"a": [True, False, True], "b": [True, True, True], "c": [False, False, True]}


@tool
def lookup() -> Tool:
    async def execute(key: str) -> str:
        """Look a value up.

        Args:
            key: What to look up.
        """
        return f"value of {key}"

    return execute


def _usage(output: ModelOutput, n: int) -> ModelOutput:
    output.usage = ModelUsage(input_tokens=10 * n, output_tokens=n, total_tokens=11 * n)
    return output


def _outputs(order: list[tuple[str, int]]) -> list[ModelOutput]:
    """Two model calls per sample and epoch: a tool call, then the answer."""
    outputs = []
    for sample_id, epoch in order:
        right = ANSWERS[sample_id][epoch - 1]
        outputs.append(_usage(ModelOutput.for_tool_call(MODEL, "lookup", {"key": sample_id}), 1))
        outputs.append(_usage(ModelOutput.from_content(MODEL, "42" if right else "7"), 2))
    return outputs


def _write_log(log_dir: Path, fmt: str, scorers: list[Any] | None = None) -> Path:
    # With max_samples=1 inspect runs epoch by epoch, samples in dataset order.
    order = [(s, e) for e in range(1, EPOCHS + 1) for s in ANSWERS]
    task = Task(
        dataset=[Sample(input=f"question {s}", target="42", id=s) for s in ANSWERS],
        solver=[use_tools(lookup()), generate()],
        scorer=scorers or includes(),
        epochs=EPOCHS,
    )
    model = get_model(MODEL, custom_outputs=_outputs(order))
    logs = eval(
        task, model=model, log_dir=str(log_dir), log_format=fmt, display="none", max_samples=1
    )
    assert logs[0].status == "success", logs[0].error
    return Path(logs[0].location)


@pytest.fixture(scope="module")
def json_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _write_log(tmp_path_factory.mktemp("json"), "json")


@pytest.fixture(scope="module")
def eval_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _write_log(tmp_path_factory.mktemp("eval"), "eval")


def _raw_samples(path: Path) -> list[dict[str, Any]]:
    """The samples as stored on disk, without inspect_ai's reader."""
    if path.suffix == ".json":
        samples: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["samples"]
        return samples
    with zipfile.ZipFile(path) as archive:
        names = [n for n in archive.namelist() if n.startswith("samples/")]
        return [json.loads(archive.read(n)) for n in names]


def _pass_hat_from_raw(path: Path, k: int) -> float:
    outcomes: dict[str, list[bool]] = defaultdict(list)
    for sample in _raw_samples(path):
        outcomes[str(sample["id"])].append(sample["scores"]["includes"]["value"] == "C")
    ratios = [math.comb(sum(v), k) / math.comb(len(v), k) for v in outcomes.values()]
    return sum(ratios) / len(ratios)


@pytest.mark.parametrize("fixture", ["json_log", "eval_log"])
def test_pass_hat_k_matches_the_raw_log(fixture: str, request: pytest.FixtureRequest) -> None:
    path: Path = request.getfixturevalue(fixture)
    runs = load_inspect_log(path)
    assert len(runs) == len(ANSWERS) * EPOCHS
    assert sorted(runs["run"].unique()) == [0, 1, 2]
    for k in (1, 2, 3):
        assert pass_hat_k(runs["success"], runs["task_id"], k) == pytest.approx(
            _pass_hat_from_raw(path, k)
        )
    # and against the design of the fixture: a 2/3, b 3/3, c 1/3
    assert pass_hat_k(runs["success"], runs["task_id"], 2) == pytest.approx((1 / 3 + 1 + 0) / 3)


def test_columns_from_the_log(json_log: Path) -> None:
    runs = load_inspect_log(json_log).set_index(["task_id", "run"]).sort_index()
    raw = {(str(s["id"]), s["epoch"] - 1): s for s in _raw_samples(json_log)}
    for (task_id, run), row in runs.iterrows():
        sample = raw[(str(task_id), int(run))]
        usage = sample["model_usage"][MODEL]
        assert row["agent"] == MODEL and row["model"] == MODEL
        assert row["actions"] == ["lookup"] and row["num_actions"] == 1
        assert row["api_calls"] == 2  # tool call + answer
        assert row["prompt_tokens"] == usage["input_tokens"] == 30
        assert row["completion_tokens"] == usage["output_tokens"] == 3
        assert row["wall_time_s"] == pytest.approx(sample["total_time"])
        assert row["working_time_s"] == pytest.approx(sample["working_time"])
        assert math.isnan(row["cost_usd"])  # mockllm reports no cost
        assert row["score"] == (1.0 if row["score_value"] == "C" else 0.0)
        assert row["confidence_source"] == "none" and row["error"] is None
        assert row["success"] == ANSWERS[str(task_id)][int(run)]
        # the conversation, in the chat format the session metrics read: as in the raw log
        roles = [m["role"] for m in sample["messages"]]
        assert [m["role"] for m in row["trajectory"]] == roles
        call = next(m for m in row["trajectory"] if m.get("tool_calls"))["tool_calls"][0]
        raw_call = next(m for m in sample["messages"] if m.get("tool_calls"))["tool_calls"][0]
        assert call["function"]["name"] == raw_call["function"] == "lookup"
        assert json.loads(call["function"]["arguments"]) == raw_call["arguments"]
        answer = next(m for m in row["trajectory"] if m["role"] == "tool")
        assert answer["tool_call_id"] == call["id"] == raw_call["id"]


def test_json_and_eval_formats_give_the_same_table(json_log: Path, eval_log: Path) -> None:
    cols = ["task_id", "run", "success", "score", "actions", "prompt_tokens"]
    a = load_inspect_log(json_log).sort_values(["task_id", "run"])[cols].reset_index(drop=True)
    b = load_inspect_log(eval_log).sort_values(["task_id", "run"])[cols].reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)


def test_a_second_log_continues_the_run_numbering(json_log: Path, tmp_path: Path) -> None:
    second = _write_log(tmp_path, "json")
    runs = load_inspect_log([second, json_log], agent="mock agent")
    assert set(runs["agent"]) == {"mock agent"}
    for _, group in runs.groupby("task_id"):
        assert sorted(group["run"]) == list(range(2 * EPOCHS))
    first = runs[runs["source_file"] == str(json_log.resolve())]
    assert sorted(first["run"].unique()) == [0, 1, 2]  # the earlier log keeps epochs 1..3


def test_logs_created_in_the_same_second_keep_their_write_order(
    json_log: Path, tmp_path: Path
) -> None:
    # inspect records ``eval.created`` to the second: two logs of one second are ordered by
    # when their files were written, whatever order they are passed in.
    second = _write_log(tmp_path, "json")
    created = json.loads(second.read_text(encoding="utf-8"))["eval"]["created"]
    first = tmp_path / "first.json"
    data = json.loads(json_log.read_text(encoding="utf-8"))
    data["eval"]["created"] = created
    first.write_text(json.dumps(data), encoding="utf-8")
    os.utime(first, (1_000_000, 1_000_000))  # written long before the second
    runs = load_inspect_log([second, first], agent="mock agent")
    assert sorted(runs[runs["source_file"] == str(first.resolve())]["run"].unique()) == [0, 1, 2]


def test_same_log_listed_twice_is_read_once(json_log: Path) -> None:
    assert len(load_inspect_log([json_log, json_log.parent])) == len(ANSWERS) * EPOCHS


def test_a_copy_of_a_log_is_an_error(json_log: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy.json"
    copy.write_bytes(json_log.read_bytes())
    with pytest.raises(InspectLogError, match=r"copy\.json: the same evaluation \(eval_id"):
        load_inspect_log([json_log, copy])


def test_several_scorers_need_a_choice(tmp_path: Path) -> None:
    path = _write_log(tmp_path, "json", scorers=[includes(), match(location="any")])
    with pytest.raises(InspectLogError, match=r"several scorers \['includes', 'match'\]"):
        load_inspect_log(path)
    with pytest.raises(InspectLogError, match=r"no scorer 'nope'"):
        load_inspect_log(path, scorer="nope")
    assert load_inspect_log(path, scorer="match")["success"].sum() == 6


def test_success_threshold_and_function(json_log: Path) -> None:
    everything = load_inspect_log(json_log, success=0.0)
    assert everything["success"].all()
    by_function = load_inspect_log(json_log, success=lambda value: value == "I")
    default = load_inspect_log(json_log)
    assert (by_function["success"] == ~default["success"]).all()


@solver
def _crash_on(sample_id: str, message: str):  # type: ignore[no-untyped-def]
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        if state.sample_id == sample_id:
            raise RuntimeError(message)
        return state

    return solve


@pytest.mark.parametrize(
    ("message", "infrastructure"),
    [("RateLimitError: 429 Too Many Requests", True), ("agent gave up", False)],
)
def test_sample_errors(tmp_path: Path, message: str, infrastructure: bool) -> None:
    task = Task(
        dataset=[Sample(input="q", target="42", id="ok"), Sample(input="q", target="42", id="x")],
        solver=[_crash_on("x", message), generate()],
        scorer=includes(),
    )
    outputs = [ModelOutput.from_content(MODEL, "42") for _ in range(2)]
    for output in outputs:
        _usage(output, 1)
    model = get_model(MODEL, custom_outputs=outputs)
    log = eval(
        task,
        model=model,
        log_dir=str(tmp_path),
        log_format="json",
        display="none",
        fail_on_error=False,
    )[0]
    runs = load_inspect_log(log.location).set_index("task_id")
    assert runs.loc["ok", "error"] is None and runs.loc["ok", "success"]
    error = runs.loc["x", "error"]
    assert message in error and not runs.loc["x", "success"]
    assert error.startswith("infrastructure:") is infrastructure


def test_not_a_log(tmp_path: Path) -> None:
    bad = tmp_path / "x.json"
    bad.write_text('{"hello": 1}', encoding="utf-8")
    with pytest.raises(InspectLogError, match=r"x\.json: not an inspect_ai eval log"):
        load_inspect_log(bad)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InspectLogError, match=r"empty: no \.eval or \.json logs"):
        load_inspect_log(empty)
    with pytest.raises(FileNotFoundError, match="nope"):
        load_inspect_log(tmp_path / "nope.eval")


def test_missing_extra_names_the_install(monkeypatch: pytest.MonkeyPatch, json_log: Path) -> None:
    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)  # import now raises ImportError
    with pytest.raises(MissingExtraError, match=r"pip install 'reliability-lab\[inspect\]'"):
        load_inspect_log(json_log)


def test_load_runs_detects_inspect(json_log: Path, eval_log: Path) -> None:
    assert len(load_runs(json_log)) == len(load_runs(eval_log.parent)) == 9
