"""The run table's ``violations`` and ``faults`` columns stored flat (``reliability_lab._lists``):
they read like per-run lists of dicts — every run its own list — survive the DataFrame
operations users apply, and give the safety metrics the values of a column of lists."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from reliability_lab import reliability_report
from reliability_lab._columns import flatten_lists
from reliability_lab._lists import RecordsArray, RecordsDtype
from reliability_lab.errors import RunTableError
from reliability_lab.metrics.safety import run_harm_weights
from reliability_lab.results.read import load_results
from reliability_lab.runs import validate_run_table

LOW = {"constraint": "tone", "severity": "low"}
HIGH = {"constraint": "pii", "severity": "high", "evidence": "x"}
LISTS: list[list[dict[str, Any]]] = [[LOW], [], [HIGH, LOW], [], [HIGH]]


def _table(violations: Any) -> pd.DataFrame:
    n = len(violations)
    return pd.DataFrame(
        {
            "agent": "a",
            "task_id": [f"t{i % 2}" for i in range(n)],
            "run": range(n),
            "success": True,
            "violations": violations,
        }
    )


def test_rows_read_as_new_lists() -> None:
    v = RecordsArray.from_lists(LISTS)
    assert list(v) == LISTS and [v[i] for i in range(len(LISTS))] == LISTS
    assert type(v[1]) is list and v[1] == [] and v[1] is not v[1]
    assert v[-1] == [HIGH] and v.lengths.tolist() == [1, 0, 2, 0, 1]
    v[0].append(HIGH)  # a row read is the caller's own list: the column is unchanged
    assert v[0] == [LOW]
    with pytest.raises(IndexError):
        v[5]
    with pytest.raises(TypeError, match=r"violations: expected a list per run; runs \[1\]"):
        RecordsArray.from_lists([[LOW], "x", []], name="violations")


def test_validation_stores_the_column_flat_once() -> None:
    table = validate_run_table(_table(LISTS))
    assert isinstance(table["violations"].dtype, RecordsDtype)
    assert table["violations"].tolist() == LISTS and table.loc[2, "violations"] == [HIGH, LOW]
    again = validate_run_table(table)
    assert again["violations"].array.items is table["violations"].array.items  # not flattened again
    mixed = validate_run_table(_table([(LOW,), np.array([HIGH], dtype=object), []]))
    assert mixed["violations"].tolist() == [[LOW], [HIGH], []]
    absent = validate_run_table(_table(LISTS).drop(columns="violations"))
    assert absent["violations"].tolist() == [[]] * 5 and absent["actions"].tolist() == [[]] * 5


def test_dataframe_operations_keep_the_lists() -> None:
    table = validate_run_table(_table(LISTS))
    assert table[table["run"] >= 2]["violations"].tolist() == LISTS[2:]
    assert table.iloc[::-2]["violations"].tolist() == LISTS[::-2]
    assert table.sort_values("run", ascending=False)["violations"].tolist() == LISTS[::-1]
    assert table.iloc[1:4]["violations"].tolist() == LISTS[1:4]
    both = pd.concat([table, validate_run_table(_table([[LOW]]))], ignore_index=True)
    assert isinstance(both["violations"].dtype, RecordsDtype)
    assert both["violations"].tolist() == [*LISTS, [LOW]]
    assert table["violations"].map(len).tolist() == [1, 0, 2, 0, 1]
    assert table.astype(object)["violations"].tolist() == LISTS
    assert [r["violations"] for r in table.to_dict("records")] == LISTS
    assert table.reindex([0, 9])["violations"].tolist() == [[LOW], []]
    grouped = table.groupby("task_id")["violations"].apply(lambda s: sum(map(len, s)))
    assert grouped.to_dict() == {"t0": 1 + 2 + 1, "t1": 0 + 0}
    assert table["violations"].equals(table.copy()["violations"])
    back = pickle.loads(pickle.dumps(table))
    pd.testing.assert_frame_equal(back, table)
    assert "'severity': 'high'" in table.to_csv()  # as a column of lists wrote it
    with pytest.raises(TypeError, match="immutable"):
        table["violations"].array[0] = []


def test_flattened_as_a_column_of_lists_is() -> None:
    flat, expected = flatten_lists(RecordsArray.from_lists(LISTS)), flatten_lists(LISTS)
    for name in ("is_list", "run", "lengths", "not_list_type"):
        np.testing.assert_array_equal(getattr(flat, name), getattr(expected, name))
    assert flat.items.tolist() == expected.items.tolist()


def test_safety_metrics_equal_the_list_path() -> None:
    stored = RecordsArray.from_lists(LISTS)
    for weights in ("documented", "hal"):
        got, expected = run_harm_weights(stored, weights), run_harm_weights(LISTS, weights)
        np.testing.assert_array_equal(got[0], expected[0])
        np.testing.assert_array_equal(got[1], expected[1])
    with pytest.raises(RunTableError, match="catastrophic"):
        validate_run_table(_table([[], [{"constraint": "c", "severity": "catastrophic"}]]))
    # hand count: runs 0, 2, 4 violate; worst severities low, high, high
    report = reliability_report(_table(LISTS), n_boot=0)
    assert report.loc["a", "S_comp"] == pytest.approx(1 - 3 / 5)


def test_load_results_gives_every_run_its_own_list(tmp_path: Path) -> None:
    import json

    lines = []
    for run in range(4):
        record = {
            "schema_version": 1,
            "agent": "a",
            "task_id": "t",
            "run": run,
            "success": True,
            "violations": [HIGH] if run == 1 else [],
            "perturbation": (
                {"events": [{"type": "timeout", "recovered": True}], "intensity": "low"}
                if run == 2
                else None
            ),
            "condition": "fault" if run == 2 else "baseline",
            "variant": "low/1" if run == 2 else "",
        }
        lines.append(json.dumps(record))
    (tmp_path / "results.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    table = load_results(tmp_path)
    assert isinstance(table["violations"].dtype, RecordsDtype)
    assert isinstance(table["faults"].dtype, RecordsDtype)
    assert table["violations"].tolist() == [[], [HIGH], [], []]
    assert table["faults"].tolist() == [[], [], [{"type": "timeout", "recovered": True}], []]
    assert table.loc[0, "faults"] == [] and table.loc[0, "faults"] is not table.loc[3, "faults"]
