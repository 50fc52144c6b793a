"""The run table's ``actions`` column stored as codes (``reliability_lab._actions``): it reads
like per-run lists of names, survives the DataFrame operations users apply, and gives the
trajectory metrics the values of the list-of-lists path and of an independent computation."""

from __future__ import annotations

import itertools
import math
import pickle
from collections import Counter
from typing import Any

import numpy as np
import pandas as pd
import pytest

from reliability_lab import reliability_report
from reliability_lab._actions import ActionsArray, ActionsDtype, encode_actions
from reliability_lab.errors import RunTableError
from reliability_lab.metrics import (
    per_task_consistency,
    trajectory_distribution_consistency,
    trajectory_sequence_consistency,
)
from reliability_lab.runs import validate_run_table

LISTS = [["search", "buy"], [], ["search"], ["buy", "search", "buy"], ["pay"]]


def _table(actions: Any) -> pd.DataFrame:
    n = len(actions)
    return pd.DataFrame(
        {
            "agent": "a",
            "task_id": [f"t{i % 2}" for i in range(n)],
            "run": range(n),
            "success": True,
            "actions": actions,
        }
    )


def test_rows_read_as_lists_of_names() -> None:
    acts = ActionsArray.from_lists(LISTS)
    assert list(acts) == LISTS and [acts[i] for i in range(len(LISTS))] == LISTS
    assert acts[-1] == ["pay"] and type(acts[0]) is list
    assert acts.lengths.tolist() == [2, 0, 1, 3, 1]
    assert sorted(acts.vocabulary.tolist()) == ["buy", "pay", "search"]
    assert acts.codes.dtype == np.int32 and len(acts.codes) == 7
    with pytest.raises(IndexError):
        acts[5]


def test_validation_encodes_once_and_keeps_an_encoded_column() -> None:
    table = validate_run_table(_table(LISTS))
    assert isinstance(table["actions"].dtype, ActionsDtype)
    assert table["actions"].tolist() == LISTS and table.loc[3, "actions"] == LISTS[3]
    again = validate_run_table(table)
    assert again["actions"].array.codes is table["actions"].array.codes  # not re-encoded
    # tuples and arrays are lists of names too
    mixed = validate_run_table(_table([("a", "b"), np.array(["c"]), []]))
    assert mixed["actions"].tolist() == [["a", "b"], ["c"], []]


def test_dataframe_operations_keep_the_lists() -> None:
    table = validate_run_table(_table(LISTS))
    assert table[table["run"] >= 2]["actions"].tolist() == LISTS[2:]
    assert table.iloc[::-2]["actions"].tolist() == LISTS[::-2]
    assert table.sort_values("run", ascending=False)["actions"].tolist() == LISTS[::-1]
    assert table.iloc[1:4]["actions"].tolist() == LISTS[1:4]
    other = validate_run_table(_table([["zip"], ["buy"]]))
    both = pd.concat([table, other], ignore_index=True)  # different vocabularies merged
    assert isinstance(both["actions"].dtype, ActionsDtype)
    assert both["actions"].tolist() == [*LISTS, ["zip"], ["buy"]]
    assert table["actions"].map(len).tolist() == [2, 0, 1, 3, 1]
    assert table.astype(object)["actions"].tolist() == LISTS
    assert [r["actions"] for r in table.to_dict("records")] == LISTS
    assert table.reindex([0, 9])["actions"].tolist() == [LISTS[0], []]
    grouped = table.groupby("task_id")["actions"].apply(lambda s: sum(map(len, s)))
    assert grouped.to_dict() == {"t0": 2 + 1 + 1, "t1": 0 + 3}
    assert table["actions"].map(["search"].__eq__).tolist() == [False, False, True, False, False]
    assert table["actions"].equals(table.copy()["actions"])
    back = pickle.loads(pickle.dumps(table))
    pd.testing.assert_frame_equal(back, table)
    assert "['buy', 'search', 'buy']" in table.to_csv()  # as a column of lists wrote it
    with pytest.raises(TypeError, match="immutable"):
        table["actions"].array[0] = ["x"]


def test_parquet_round_trip() -> None:
    pytest.importorskip("pyarrow")
    import io

    table = validate_run_table(_table(LISTS))
    buffer = io.BytesIO()
    table.to_parquet(buffer)
    back = validate_run_table(pd.read_parquet(io.BytesIO(buffer.getvalue())))
    assert back["actions"].tolist() == LISTS


@pytest.mark.parametrize(
    ("entry", "mask", "message"),
    [
        ("search", "not_list", "expected a list of action names"),
        (["a", None], "missing", "missing action name"),
        (["a", float("nan")], "missing", "missing action name"),
        (["a", 3], "not_str", "every action must be a str"),
        (["a", ["b"]], "not_str", "every action must be a str"),  # unhashable
        (["a", b"b"], "not_str", "every action must be a str"),
        (["a", pd.NA], "missing", "missing action name"),
    ],
)
def test_bad_entries_are_named(entry: Any, mask: str, message: str) -> None:
    values = [["a"], entry, ["b"]]
    encoded = encode_actions(values)
    assert encoded.array is None
    assert getattr(encoded, mask).tolist() == [False, True, False]
    with pytest.raises(RunTableError, match=f"'actions'.*{message}|{message}") as err:
        validate_run_table(_table(values), source="runs.csv")
    assert "runs.csv" in str(err.value)
    with pytest.raises(TypeError, match="actions"):
        trajectory_sequence_consistency(values, ["t"] * 3, [1, 1, 1])
    with pytest.raises(TypeError, match=r"\[1\]"):
        ActionsArray.from_lists(values)


def _edit_distance(a: list[str], b: list[str]) -> int:
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, start=1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, start=1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]


def _js_distance_bits(a: list[str], b: list[str]) -> float:
    p, q = Counter(a), Counter(b)
    total = 0.0
    for name in set(p) | set(q):
        pa, qa = p[name] / len(a), q[name] / len(b)
        m = (pa + qa) / 2
        total += sum(0.5 * v * math.log2(v / m) for v in (pa, qa) if v > 0)
    return math.sqrt(max(total, 0.0))


def _by_task(actions: list[list[str]], task: list[str], success: list[bool], score: Any) -> float:
    per_task = []
    for t in dict.fromkeys(task):
        runs = [a for a, k, s in zip(actions, task, success, strict=True) if k == t and s and a]
        pairs = list(itertools.combinations(runs, 2))
        if pairs:
            per_task.append(sum(score(a, b) for a, b in pairs) / len(pairs))
    return sum(per_task) / len(per_task)


def test_metrics_equal_the_list_path_and_an_independent_computation() -> None:
    rng = np.random.default_rng(5)
    names = np.array([f"tool_{i}" for i in range(7)], dtype=object)
    lists = [list(names[rng.integers(0, 7, rng.integers(0, 6))]) for _ in range(300)]
    task = [f"t{i % 23}" for i in range(300)]
    success = (rng.random(300) < 0.7).tolist()
    coded = validate_run_table(
        pd.DataFrame(
            {"agent": "a", "task_id": task, "run": range(300), "success": success, "actions": lists}
        )
    )["actions"]
    seq = _by_task(
        lists, task, success, lambda a, b: 1 - _edit_distance(a, b) / max(len(a), len(b))
    )
    dist = _by_task(lists, task, success, lambda a, b: 1 - _js_distance_bits(a, b))
    for actions in (lists, coded, coded.array, pd.Series(lists)):
        assert trajectory_sequence_consistency(actions, task, success) == pytest.approx(seq)
        assert trajectory_distribution_consistency(actions, task, success) == pytest.approx(dist)
    # the encoded column and the lists give the same bits, not merely close values
    assert trajectory_sequence_consistency(coded, task, success) == trajectory_sequence_consistency(
        lists, task, success
    )
    d_coded = trajectory_distribution_consistency(coded, task, success)
    assert d_coded == trajectory_distribution_consistency(lists, task, success)
    table = per_task_consistency(success, task, actions=coded)
    assert table["C_traj_s"].mean() == pytest.approx(seq)


def test_report_reads_the_encoded_column_as_it_read_lists() -> None:
    rng = np.random.default_rng(2)
    n = 200
    lists = [list(rng.choice(["a", "b", "c"], rng.integers(1, 5))) for _ in range(n)]
    runs = pd.DataFrame(
        {
            "agent": "x",
            "task_id": [f"t{i % 20}" for i in range(n)],
            "run": [i // 20 for i in range(n)],
            "success": rng.random(n) < 0.6,
            "confidence": rng.random(n),
            "actions": lists,
        }
    )
    with pytest.warns(Warning):
        from_lists = reliability_report(runs, n_boot=0)
    with pytest.warns(Warning):
        from_codes = reliability_report(validate_run_table(runs), n_boot=0)
    pd.testing.assert_frame_equal(from_lists, from_codes)
