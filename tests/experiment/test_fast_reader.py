"""``load_results`` decodes only the table's fields (msgspec): the same table the general
reader builds from the parsed records, and the general reader's errors for a line it refuses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from reliability_lab.errors import RunTableError
from reliability_lab.results import _fast_read
from reliability_lab.results import read as read_module
from reliability_lab.results.read import load_results, records_to_run_table
from reliability_lab.results.store import read_result_lines


def _record(run: int, **extra: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "schema_version": 1,
        "agent": "a",
        "task_id": f"t{run % 3}",
        "condition": "baseline",
        "variant": "",
        "run": run,
        "success": run % 2 == 0,
        "score": float(run % 2 == 0),
        "confidence": 0.5 if run else None,
        "confidence_source": "elicited" if run else "none",
        "actions": ["search", "answer", "buy"][: run % 4],
        "cost_usd": 0.01,
        "wall_time_s": None,
        "api_calls": 2,
        "violations": [{"constraint": "c", "severity": "low"}],
        "error": None,
        "seed": run,
        "model": "sim/x",
        "simulated": True,
        "trajectory": [{"role": "user", "content": "hi"}],
        "session": None,
        "safety": None,
        "perturbation": None,
    }
    record.update(extra)
    return record


def _write(tmp_path: Path, records: list[dict[str, Any]]) -> Path:
    path = tmp_path / "results.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _general(path: Path) -> pd.DataFrame:
    return records_to_run_table(read_result_lines(path), source=str(path))


def _fast_only(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: Any, **__: Any) -> None:
        raise AssertionError("the general reader was used")

    monkeypatch.setattr(read_module, "read_result_lines", refuse)


MIXED = [
    _record(0),
    _record(1, session={"agent_reliability": 0.25, "agent_consistency": None, "error": None}),
    _record(2, safety={"judged": True, "error": None, "cost_usd": 0.002}),
    _record(
        3,
        condition="prompt",
        variant="medium/2",
        perturbation={"intensity": "medium", "parameters": {"paraphrase_id": 7}},
    ),
    _record(4, condition="fault", variant="low/1", error="infrastructure: timeout: x"),
    _record(5, unknown_field={"x": [1, 2]}),
]


@pytest.mark.parametrize(
    "records",
    [
        pytest.param(MIXED, id="mixed"),
        pytest.param(
            [
                {
                    k: v
                    for k, v in _record(i).items()
                    if k
                    not in ("confidence_source", "seed", *(("api_calls", "cost_usd") * (i % 2)))
                }
                for i in range(5)
            ],
            id="old-layout",
        ),
        pytest.param([_record(i, safety_checked=False) for i in range(5)], id="imported"),
        pytest.param([_record(0, safety_checked=True), _record(1)], id="imported-partly"),
    ],
)
@pytest.mark.parametrize("chunk", [None, 1, 1500], ids=["whole", "line-by-line", "pieces"])
def test_same_table_as_the_general_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, records: list[dict[str, Any]], chunk: Any
) -> None:
    # also when the lines are decoded in pieces (a line at a time, or a few)
    path = _write(tmp_path, records)
    expected = _general(path)
    _fast_only(monkeypatch)
    if chunk is not None:
        monkeypatch.setattr(_fast_read, "CHUNK_BYTES", chunk)
    got = load_results(tmp_path)
    pd.testing.assert_frame_equal(got, expected)
    assert got["actions"].dtype.name == "actions"


@pytest.mark.parametrize(
    ("field", "value"),
    [("score", "high"), ("success", "yes"), ("api_calls", 1.5), ("model", 3)],
)
def test_wrong_typed_line_is_named(tmp_path: Path, field: str, value: Any) -> None:
    records = [_record(i) for i in range(4)]
    records[2][field] = value
    with pytest.raises(RunTableError, match=rf"results\.jsonl: line 3: field '{field}'"):
        load_results(_write(tmp_path, records))


def test_what_the_model_accepts_is_read(tmp_path: Path) -> None:
    # a whole number written as 2.0 is an int to the record model: the general reader takes it
    records = [_record(0), _record(1, api_calls=2.0)]
    assert load_results(_write(tmp_path, records))["api_calls"].tolist() == [2, 2]


def test_non_finite_number_is_named(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    lines = [
        json.dumps(_record(0)),
        json.dumps(_record(1)).replace('"cost_usd": 0.01', '"cost_usd": 1e400'),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(RunTableError, match=r"line 2: field 'cost_usd'"):
        load_results(tmp_path)


def test_blank_line_is_refused_as_before(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    path.write_text(json.dumps(_record(0)) + "\n\n" + json.dumps(_record(1)) + "\n", "utf-8")
    with pytest.raises(RunTableError, match="line 2"):
        load_results(tmp_path)


def test_incomplete_last_line_is_ignored_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    path.write_text(json.dumps(_record(0)) + "\n" + json.dumps(_record(1))[:20], "utf-8")
    with pytest.warns(UserWarning):
        table = load_results(tmp_path)
    assert table["run"].tolist() == [0]


@pytest.mark.parametrize("chunk", [None, 1], ids=["whole", "line-by-line"])
def test_equal_strings_are_one_object(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: Any
) -> None:
    # Memory: a column such as ``condition`` holds one object per distinct value, not a new
    # str per line (issue 26: the 400k-run report within 250 MB) — across pieces too.
    _write(tmp_path, [_record(i) for i in range(9)])
    _fast_only(monkeypatch)
    if chunk is not None:
        monkeypatch.setattr(_fast_read, "CHUNK_BYTES", chunk)
    table = load_results(tmp_path)
    for column in ("agent", "task_id", "condition", "variant", "model", "confidence_source"):
        values = table[column].tolist()
        assert len({id(v) for v in values}) == len(set(values)), column
    assert table["task_id"].tolist() == [f"t{i % 3}" for i in range(9)]


@pytest.mark.parametrize("field", ["actions", "violations"])
def test_list_field_some_records_lack_is_left_to_the_general_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, field: str
) -> None:
    # the lines decoded one at a time, so the piece that lacks the field is all of a piece
    monkeypatch.setattr(_fast_read, "CHUNK_BYTES", 1)
    records = [_record(i) for i in range(4)]
    del records[2][field]
    path = _write(tmp_path, records)
    assert _fast_read.decode_columns(path.read_bytes(), [field]) is None
    with pytest.raises(RunTableError, match=rf"results\.jsonl: column '{field}': expected a list"):
        load_results(tmp_path)  # the general reader's message, naming the row
