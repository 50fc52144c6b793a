"""from_records: a user's own CSV/JSONL logs → the run table by a column mapping."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from reliability_lab.errors import RunTableError
from reliability_lab.io import LogFormatError, detect_format, from_records, load_runs

MAPPING = {
    "agent": "model",
    "task_id": "sample",
    "run": "attempt",
    "score": "reward",
    "actions": "tools",
    "cost_usd": "usd",
}


def _frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "model": ["m1"] * 4,
            "sample": [7, 7, 8, 8],
            "attempt": [0, 1, 0, 1],
            "reward": [1.0, 0.5, 0.0, 1.0],
            "tools": ['["search", "answer"]', '["search"]', "", '["answer"]'],
            "usd": [0.1, 0.2, None, 0.1],
            "notes": ["a", "b", "c", "d"],
        }
    )


def test_csv_with_mapping(tmp_path: Path) -> None:
    path = tmp_path / "runs.csv"
    _frame().to_csv(path, index=False)
    runs = from_records(path, columns=MAPPING, pass_threshold=0.5)
    assert runs["task_id"].tolist() == ["7", "7", "8", "8"]  # CSV numbers become ids
    assert runs["success"].tolist() == [True, True, False, True]
    assert runs["actions"].tolist() == [["search", "answer"], ["search"], [], ["answer"]]
    assert runs["cost_usd"].isna().tolist() == [False, False, True, False]
    assert runs["notes"].tolist() == ["a", "b", "c", "d"]  # extra column kept
    assert (runs["condition"] == "baseline").all() and (runs["confidence_source"] == "none").all()
    assert detect_format(path) == "table"
    assert load_runs(path, columns=MAPPING)["success"].sum() == 2  # default threshold 1.0


def test_jsonl_and_separator_and_agent(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    records = [
        {"task_id": "t", "run": i, "success": bool(i % 2), "actions": "a;b"} for i in range(3)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    runs = from_records(path, list_separator=";", agent="my agent")
    assert runs["agent"].eq("my agent").all()
    assert runs["actions"].iloc[0] == ["a", "b"]
    with pytest.raises(ValueError, match="agent column already"):
        from_records(runs, agent="x")


def test_errors_name_row_and_column(tmp_path: Path) -> None:
    frame = _frame()
    frame.loc[2, "tools"] = "search, answer"
    with pytest.raises(LogFormatError, match=r"records: row 2: field 'actions': text 'search"):
        from_records(frame, columns=MAPPING)
    with pytest.raises(LogFormatError, match=r"\['nope'\] named in columns= are not in the table"):
        from_records(_frame(), columns={**MAPPING, "success": "nope"})
    with pytest.raises(ValueError, match=r"unknown run-table column\(s\) \['reward'\]"):
        from_records(_frame(), columns={"reward": "reward"})
    bad = _frame()
    bad["reward"] = [1.0, 2.0, 0.0, 1.0]
    with pytest.raises(RunTableError, match="column 'score': values must lie in"):
        from_records(bad, columns=MAPPING)
    with pytest.raises(LogFormatError, match=r"unknown table format '\.txt'"):
        from_records(tmp_path / "runs.txt")
