"""The run-table validator: every bad input is a RunTableError naming column and rows.

Rules: docs/run_table.md, "Validation".
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest

from reliability_lab.errors import RunTableError
from reliability_lab.runs import (
    RESOURCE_COLUMNS,
    RUN_TABLE_COLUMNS,
    SEVERITY_WEIGHTS,
    is_infrastructure_error,
    run_table_from_records,
    validate_run_table,
)


def _table(**overrides: Any) -> pd.DataFrame:
    """Three valid runs (tasks t0, t1, t2) of agent 'a'; keyword overrides replace columns."""
    data: dict[str, Any] = {
        "agent": ["a", "a", "a"],
        "task_id": ["t0", "t1", "t2"],
        "run": [0, 0, 0],
        "success": [True, False, True],
    }
    data.update(overrides)
    return pd.DataFrame(data)


def _raises(df: pd.DataFrame, column: str, *shown: str, source: str = "run table") -> str:
    """Validate, expect a RunTableError naming the source and column and showing `shown`."""
    with pytest.raises(RunTableError) as info:
        validate_run_table(df, source=source)
    message = str(info.value)
    assert message.startswith(f"{source}: column {column!r}"), message
    for text in shown:
        assert text in message, (text, message)
    return message


# --- valid tables and defaults ------------------------------------------------------------


def test_defaults_for_absent_optional_columns() -> None:
    out = validate_run_table(_table())
    assert list(out.columns) == list(RUN_TABLE_COLUMNS)
    assert out["condition"].tolist() == ["baseline"] * 3
    assert out["variant"].tolist() == [""] * 3
    assert out["score"].isna().all()
    assert out["confidence"].isna().all()
    assert out["confidence_source"].tolist() == ["none"] * 3
    for name in RESOURCE_COLUMNS:
        assert out[name].isna().all(), name  # NaN = not recorded, never 0
    assert out["actions"].tolist() == [[], [], []]
    assert out["violations"].tolist() == [[], [], []]
    assert out["error"].tolist() == [None, None, None]
    assert out["run"].dtype == np.int64
    assert out["success"].dtype == bool


def test_confidence_source_derived_from_confidence() -> None:
    out = validate_run_table(_table(confidence=[0.2, math.nan, 1.0]))
    assert out["confidence_source"].tolist() == ["elicited", "none", "elicited"]


def test_input_not_modified_and_fresh_index() -> None:
    df = _table()
    df.index = [10, 20, 30]
    before = df.copy()
    out = validate_run_table(df)
    pd.testing.assert_frame_equal(df, before)
    assert out.index.tolist() == [0, 1, 2]


def test_extra_columns_kept_after_canonical_ones() -> None:
    out = validate_run_table(_table(domain=["x", "y", "z"]))
    assert list(out.columns) == [*RUN_TABLE_COLUMNS, "domain"]


def test_success_as_zero_one_numbers() -> None:
    out = validate_run_table(_table(success=[1, 0, 1]))
    assert out["success"].tolist() == [True, False, True]


def test_zero_resources_are_real_values() -> None:
    out = validate_run_table(_table(cost_usd=[0.0, 0.0, math.nan]))
    assert out["cost_usd"].iloc[0] == 0.0
    assert math.isnan(out["cost_usd"].iloc[2])


def test_full_valid_row_round_trips() -> None:
    record = {
        "agent": "a",
        "task_id": "t",
        "condition": "prompt",
        "variant": "paraphrase-2",
        "run": 3,
        "success": False,
        "score": 0.5,
        "confidence": 0.7,
        "confidence_source": "elicited",
        "actions": ["search", "book"],
        "cost_usd": 0.01,
        "wall_time_s": 2.0,
        "api_calls": 3,
        "num_actions": 2,
        "num_errors": 0,
        "call_latency_s": 0.4,
        "violations": [{"constraint": "pii", "severity": "critical", "evidence": "ssn"}],
        "error": "agent: gave up",
    }
    out = run_table_from_records([record])
    row = out.iloc[0]
    assert row["actions"] == ["search", "book"]
    assert row["violations"][0]["severity"] == "critical"
    assert row["api_calls"] == 3.0
    assert row["error"] == "agent: gave up"


def test_severity_weights_match_spec() -> None:
    assert dict(SEVERITY_WEIGHTS) == {"low": 0.25, "medium": 0.5, "high": 1.0, "critical": 1.0}


def test_is_infrastructure_error() -> None:
    errors = pd.Series(["infrastructure: 503", None, "agent: loop", math.nan, "Infrastructure:x"])
    assert is_infrastructure_error(errors).tolist() == [True, False, False, False, False]


# --- errors -------------------------------------------------------------------------------


def test_not_a_dataframe() -> None:
    with pytest.raises(
        RunTableError, match=r"results\.jsonl: expected a pandas DataFrame, got list"
    ):
        validate_run_table([{"agent": "a"}], source="results.jsonl")  # type: ignore[arg-type]


@pytest.mark.parametrize("column", ["agent", "task_id", "run", "success"])
def test_missing_required_column_named(column: str) -> None:
    df = _table().drop(columns=[column])
    with pytest.raises(RunTableError, match=rf"runs\.csv: missing required column.*'{column}'"):
        validate_run_table(df, source="runs.csv")


def test_wrong_type_agent_shows_offending_row() -> None:
    message = _raises(_table(agent=["a", 7, "a"]), "agent", "expected str", "offending rows", "t1")
    assert "t0" not in message and "t2" not in message  # only the bad row is shown


def test_empty_task_id_rejected() -> None:
    _raises(_table(task_id=["t0", "", "t2"]), "task_id", "empty string")


def test_task_id_must_be_str() -> None:
    _raises(_table(task_id=[0, 1, 2]), "task_id", "expected str")


@pytest.mark.parametrize("bad", [-1, 1.5, math.nan, "x"])
def test_bad_run_index(bad: Any) -> None:
    _raises(_table(run=[0, bad, 0]), "run", "integer >= 0", "t1")


@pytest.mark.parametrize("bad", ["yes", 2, math.nan])
def test_bad_success(bad: Any) -> None:
    _raises(_table(success=[True, bad, False]), "success", "bool", "t1")


def test_non_numeric_score() -> None:
    _raises(_table(score=[0.1, "high", 0.2]), "score", "expected numbers", "high")


def test_score_outside_unit_interval() -> None:
    _raises(_table(score=[0.1, 1.2, 0.2]), "score", "[0, 1]", "1.2")


@pytest.mark.parametrize("bad", [1.5, -0.1, math.inf])
def test_confidence_outside_unit_interval(bad: float) -> None:
    _raises(_table(confidence=[0.5, bad, 0.5]), "confidence", "[0, 1]", "t1")


def test_confidence_nan_where_elicited() -> None:
    df = _table(confidence=[0.5, math.nan, 0.5], confidence_source=["elicited"] * 3)
    _raises(df, "confidence", "NaN", "elicited", "t1")


def test_confidence_nan_allowed_for_fallback_and_none() -> None:
    df = _table(
        confidence=[0.5, math.nan, math.nan], confidence_source=["elicited", "fallback", "none"]
    )
    out = validate_run_table(df)
    assert out["confidence_source"].tolist() == ["elicited", "fallback", "none"]


def test_confidence_value_where_not_elicited() -> None:
    df = _table(confidence=[0.5, 0.5, 0.5], confidence_source=["elicited", "fallback", "elicited"])
    _raises(df, "confidence", "not 'elicited'", "t1")


def test_unknown_confidence_source() -> None:
    df = _table(confidence_source=["none", "guessed", "none"])
    _raises(df, "confidence_source", "elicited", "guessed")


def test_duplicate_keys_show_both_rows() -> None:
    df = _table(task_id=["t0", "t0", "t2"])
    message = _raises(df, "run", "duplicate", "agent", "task_id", "condition", "variant")
    assert message.count("t0") >= 2 and "t2" not in message.split("offending rows")[1]


def test_same_key_in_different_condition_is_not_duplicate() -> None:
    df = _table(task_id=["t0", "t0", "t0"], condition=["baseline", "fault", "prompt"])
    assert len(validate_run_table(df)) == 3


def test_unknown_severity_named() -> None:
    violations: list[Any] = [
        [],
        [{"constraint": "pii", "severity": "catastrophic", "evidence": "x"}],
        [],
    ]
    _raises(_table(violations=violations), "violations", "catastrophic", "t1")


def test_violation_lacking_severity() -> None:
    violations: list[Any] = [[{"constraint": "pii"}], [], []]
    _raises(_table(violations=violations), "violations", "severity", "t0")


def test_violations_not_a_list() -> None:
    _raises(_table(violations=["pii", [], []]), "violations", "list", "t0")


@pytest.mark.parametrize("column", RESOURCE_COLUMNS)
def test_negative_resource_named(column: str) -> None:
    _raises(_table(**{column: [1.0, -0.5, 2.0]}), column, ">= 0", "-0.5", "t1")


def test_infinite_resource_rejected() -> None:
    _raises(_table(wall_time_s=[1.0, math.inf, 2.0]), "wall_time_s", "finite", "t1")


def test_non_numeric_resource() -> None:
    _raises(_table(cost_usd=[0.1, "cheap", 0.2]), "cost_usd", "expected numbers", "cheap")


def test_actions_must_be_lists_of_str() -> None:
    _raises(_table(actions=[["a"], "a,b", []]), "actions", "list", "t1")
    _raises(_table(actions=[["a"], [], ["b", 3]]), "actions", "str", "t2")


def test_error_must_be_str_or_none() -> None:
    _raises(_table(error=[None, 404, "agent: x"]), "error", "str or None", "t1")


def test_source_named_in_message() -> None:
    _raises(_table(agent=["a", None, "a"]), "agent", source="experiments/demo/results.jsonl")


def test_many_offending_rows_are_truncated() -> None:
    n = 12
    df = pd.DataFrame(
        {
            "agent": ["a"] * n,
            "task_id": [f"t{i}" for i in range(n)],
            "run": [0] * n,
            "success": [True] * n,
            "cost_usd": [-1.0] * n,
        }
    )
    _raises(df, "cost_usd", "and 7 more")


@pytest.mark.parametrize("missing", [None, math.nan, np.nan, pd.NA])
def test_missing_action_name_rejected(missing: Any) -> None:
    # A NaN/None action name used to pass (NaN) and later crash the report.
    message = _raises(_table(actions=[["a"], ["b", missing], []]), "actions", "t1")
    assert "missing action name" in message


def test_action_tuples_and_arrays_become_lists() -> None:
    out = validate_run_table(_table(actions=[("a", "b"), np.array(["c"], dtype=object), []]))
    assert out["actions"].tolist() == [["a", "b"], ["c"], []]
    assert all(type(v) is list for v in out["actions"])


def test_string_columns_of_pandas_string_dtype() -> None:
    df = _table().astype({"agent": "string", "task_id": "string"})
    out = validate_run_table(df)
    assert out["task_id"].tolist() == ["t0", "t1", "t2"]
    df.loc[1, "task_id"] = pd.NA
    _raises(df, "task_id", "expected str values", "1")


def test_violation_item_none_rejected() -> None:
    _raises(_table(violations=[[], [None], []]), "violations", "not a dict", "t1")


def test_duplicate_check_compares_whole_keys() -> None:
    # Keys that differ in any one column are distinct runs; only exact repeats are duplicates.
    df = pd.DataFrame(
        {
            "agent": ["a", "a", "a", "a", "b", "a"],
            "task_id": ["t", "t", "t", "u", "t", "t"],
            "condition": ["baseline", "prompt", "baseline", "baseline", "baseline", "baseline"],
            "variant": ["", "p1", "v", "", "", ""],
            "run": [0, 0, 0, 0, 0, 1],
            "success": True,
        }
    )
    assert len(validate_run_table(df)) == 6
    _raises(pd.concat([df, df.iloc[[3]]]), "run", "duplicate run keys", "u")


def test_columns_kept_as_they_are_never_alias_the_input() -> None:
    # Float and integer columns already of the right dtype are not copied by validation;
    # changing the validated table must still leave the caller's table as it was.
    df = _table().assign(cost_usd=[0.5, 1.0, 2.0])
    out = validate_run_table(df)
    out.loc[0, "cost_usd"] = 99.0
    out.loc[0, "run"] = 7
    assert df["cost_usd"].tolist() == [0.5, 1.0, 2.0]
    assert df["run"].tolist() == _table()["run"].tolist()


def test_negative_integer_run_is_refused() -> None:
    with pytest.raises(RunTableError, match="'run': expected an integer >= 0"):
        validate_run_table(_table().assign(run=[0, -1, 2]))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_duplicate_keys_found_exactly_as_pandas_finds_them(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The integer key (codes of the labels and run) counted in a table of every possible key or
    # by pandas, and the hash path it falls back to, all find exactly the rows pandas' own
    # duplicated() finds on the key columns.
    from reliability_lab import runs as runs_module
    from reliability_lab._labels import LabelCodes

    rng = np.random.default_rng(seed)
    n = 400
    df = pd.DataFrame(
        {
            "agent": rng.choice(["a", "b"], n),
            "task_id": rng.choice([f"t{i}" for i in range(40)], n),
            "condition": rng.choice(["baseline", "fault"], n),
            "variant": rng.choice(["", "v1", "v2"], n),
            "run": rng.integers(0, 5, n),
            "success": True,
        }
    )
    expected = df.duplicated(list(runs_module.KEY_COLUMNS), keep=False).to_numpy()
    assert expected.any() and not expected.all()
    labels: list[LabelCodes | None] = [LabelCodes.of(df[c]) for c in runs_module.KEY_COLUMNS[:-1]]
    # 2 · 40 · 2 · 3 · 5 = 2400 possible keys: at most 8 per run, counted in a table
    np.testing.assert_array_equal(runs_module._duplicate_keys(df, labels), expected)
    np.testing.assert_array_equal(runs_module._duplicate_keys(df, [None] * 4), expected)
    monkeypatch.setattr(runs_module, "_KEY_TABLE_PER_RUN", 0)  # now pandas' duplicated
    np.testing.assert_array_equal(runs_module._duplicate_keys(df, labels), expected)


def test_unhashable_label_is_named() -> None:
    _raises(_table(task_id=["t0", ["t1"], "t2"]), "task_id", "expected str values", "[t1]")
