"""τ-bench importer: published pass^k reproduced from the full and the bundled trimmed file."""

from __future__ import annotations

import json
import math
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from reliability_lab.errors import RunTableError
from reliability_lab.io import (
    EXAMPLE_AGENT,
    TauBenchFormatError,
    load_tau_bench,
    load_tau_bench_example,
    trim_tau_bench,
)
from reliability_lab.metrics import pass_at_k, pass_hat_k

ROOT = Path(__file__).resolve().parents[2]
FULL = ROOT.parent / "shared" / "data" / "tau-bench" / "gpt-4o-airline.json"
BUNDLED = ROOT / "reliability_lab" / "data" / "tau_bench" / "gpt-4o-airline.json"
# τ-bench README, airline, "TC (gpt-4o)".
PUBLISHED_PASS_HAT = {1: 0.420, 2: 0.273, 3: 0.220, 4: 0.200}
METRIC_COLUMNS = ["agent", "task_id", "condition", "variant", "run", "success", "score"]
RESOURCE_COLUMNS = ["cost_usd", "api_calls", "num_actions", "confidence"]

needs_full = pytest.mark.skipif(not FULL.exists(), reason=f"shared data file {FULL} not present")


@pytest.fixture(scope="module")
def bundled() -> pd.DataFrame:
    return load_tau_bench_example()


@pytest.fixture(scope="module")
def full() -> pd.DataFrame:
    return load_tau_bench(FULL, agent=EXAMPLE_AGENT, domain="airline")


def _raw_records(path: Path) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    return records


def _pass_hat_from_raw(path: Path, k: int) -> float:
    """Reference pass^k straight from the JSON: mean over tasks of C(c, k) / C(n, k)."""
    per_task: dict[int, list[bool]] = defaultdict(list)
    for rec in _raw_records(path):
        per_task[rec["task_id"]].append(rec["reward"] == 1.0)
    ratios = [math.comb(sum(v), k) / math.comb(len(v), k) for v in per_task.values()]
    return sum(ratios) / len(ratios)


# --- published numbers -------------------------------------------------------------------


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_bundled_reproduces_published_pass_hat_k(bundled: pd.DataFrame, k: int) -> None:
    value = pass_hat_k(bundled["success"], bundled["task_id"], k)
    assert round(value, 3) == PUBLISHED_PASS_HAT[k]
    # Independent cross-check straight from the raw JSON with math.comb.
    assert value == pytest.approx(_pass_hat_from_raw(BUNDLED, k), abs=1e-12)


@needs_full
@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_full_file_reproduces_published_pass_hat_k(full: pd.DataFrame, k: int) -> None:
    value = pass_hat_k(full["success"], full["task_id"], k)
    assert round(value, 3) == PUBLISHED_PASS_HAT[k]
    assert value == pytest.approx(_pass_hat_from_raw(FULL, k), abs=1e-12)


def test_pass_at_1_equals_pass_hat_1_equals_accuracy(bundled: pd.DataFrame) -> None:
    # 84 of 200 records have reward 1 (counted in the raw file), so pass@1 = pass^1 = 0.42
    # (every task has the same n = 4, so the task mean equals the pooled accuracy).
    successes = sum(rec["reward"] == 1.0 for rec in _raw_records(BUNDLED))
    assert successes == 84
    assert pass_at_k(bundled["success"], bundled["task_id"], 1) == pytest.approx(84 / 200)


@needs_full
def test_full_and_trimmed_give_identical_run_tables(
    full: pd.DataFrame, bundled: pd.DataFrame
) -> None:
    pd.testing.assert_frame_equal(full[METRIC_COLUMNS], bundled[METRIC_COLUMNS])
    pd.testing.assert_frame_equal(full[RESOURCE_COLUMNS], bundled[RESOURCE_COLUMNS])
    assert full["actions"].tolist() == bundled["actions"].tolist()
    assert (full["domain"] == "airline").all()


@needs_full
def test_trim_reproduces_bundled_copy(tmp_path: Path, full: pd.DataFrame) -> None:
    out = tmp_path / "trimmed.json"
    trim_tau_bench(FULL, out)
    assert out.read_bytes() == BUNDLED.read_bytes()
    assert BUNDLED.stat().st_size < 400_000


# --- column mapping ----------------------------------------------------------------------


def test_shape_and_mapping(bundled: pd.DataFrame) -> None:
    assert len(bundled) == 200
    assert bundled["task_id"].nunique() == 50
    assert sorted(bundled["run"].unique().tolist()) == [0, 1, 2, 3]
    assert (bundled["agent"] == EXAMPLE_AGENT).all()
    assert (bundled["condition"] == "baseline").all()
    assert (bundled["variant"] == "").all()
    assert bundled["confidence"].isna().all()
    assert (bundled["confidence_source"] == "none").all()
    # user_cost in the original is the user simulator's cost, not the agent's: not recorded.
    assert bundled["cost_usd"].isna().all()
    assert bundled["error"].isna().all()


def test_actions_and_resources_match_raw_trajectories(bundled: pd.DataFrame) -> None:
    records = _raw_records(BUNDLED)
    for row, rec in zip(bundled.itertuples(), records, strict=True):
        expected_actions = [
            call["function"]["name"]
            for msg in rec["traj"]
            if msg["role"] == "assistant"
            for call in msg.get("tool_calls") or []
        ]
        assert row.actions == expected_actions
        assert row.num_actions == len(expected_actions)
        assert row.api_calls == sum(msg["role"] == "assistant" for msg in rec["traj"])
        assert row.task_id == str(rec["task_id"])
        assert row.run == rec["trial"]
        assert row.score == rec["reward"]
        assert row.success == (rec["reward"] == 1.0)


def test_first_record_by_hand(bundled: pd.DataFrame) -> None:
    # Record 0 (task 0, trial 0, reward 0.0) starts with these tool calls in the file.
    first = bundled.iloc[0]
    assert first["task_id"] == "0" and first["run"] == 0 and not first["success"]
    assert first["actions"][:3] == [
        "get_user_details",
        "search_direct_flight",
        "search_onestop_flight",
    ]


# --- small synthetic files ---------------------------------------------------------------


def _record(task_id: Any = 7, trial: Any = 0, reward: Any = 1.0, **extra: Any) -> dict[str, Any]:
    rec: dict[str, Any] = {
        "task_id": task_id,
        "trial": trial,
        "reward": reward,
        "info": {"user_cost": 0.5},
        "traj": [
            {"role": "system", "content": "policy"},
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "a", "arguments": "{}"}},
                    {"id": "c2", "type": "function", "function": {"name": "b", "arguments": "{}"}},
                ],
            },
            {"role": "tool", "content": "ok", "name": "a", "tool_call_id": "c1"},
            {"role": "assistant", "content": "done"},
        ],
    }
    rec.update(extra)
    return rec


def _write(tmp_path: Path, data: Any, name: str = "results.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_synthetic_record(tmp_path: Path) -> None:
    path = _write(
        tmp_path, [_record(), _record(trial=1, reward=0.9999999), _record(trial=2, reward=0)]
    )
    runs = load_tau_bench(path, agent="me")
    assert runs["actions"].tolist() == [["a", "b"]] * 3
    assert runs["num_actions"].tolist() == [2.0] * 3
    assert runs["api_calls"].tolist() == [2.0] * 3  # two assistant messages
    # reward ≈ 1 within 1e-6 is a success; 0 is not.
    assert runs["success"].tolist() == [True, True, False]
    assert np.isnan(runs["cost_usd"]).all()  # info.user_cost (0.5) is not the agent's cost
    assert "domain" not in runs.columns
    assert runs["task_id"].tolist() == ["7", "7", "7"]


def test_string_task_ids_accepted(tmp_path: Path) -> None:
    runs = load_tau_bench(_write(tmp_path, [_record(task_id="t-1")]), agent="me", domain="retail")
    assert runs["task_id"].tolist() == ["t-1"]
    assert runs["domain"].tolist() == ["retail"]


def test_not_json_names_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text("[{not json", encoding="utf-8")
    with pytest.raises(TauBenchFormatError, match=r"broken\.json.*not valid JSON"):
        load_tau_bench(path, agent="me")


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"nope\.json"):
        load_tau_bench(tmp_path / "nope.json", agent="me")


def test_top_level_not_a_list(tmp_path: Path) -> None:
    with pytest.raises(TauBenchFormatError, match=r"results\.json.*list of records.*dict"):
        load_tau_bench(_write(tmp_path, {"task_id": 1}), agent="me")


def test_empty_list(tmp_path: Path) -> None:
    with pytest.raises(TauBenchFormatError, match=r"results\.json.*no records"):
        load_tau_bench(_write(tmp_path, []), agent="me")


def test_missing_key_names_record_and_field(tmp_path: Path) -> None:
    bad = _record(trial=1)
    del bad["reward"]
    with pytest.raises(TauBenchFormatError, match=r"results\.json: record 1: field 'reward'"):
        load_tau_bench(_write(tmp_path, [_record(), bad]), agent="me")


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("reward", "1.0"),
        ("reward", None),
        ("reward", True),
        ("reward", 1.5),
        ("trial", "0"),
        ("trial", -1),
        ("trial", 1.0),
        ("task_id", None),
        ("task_id", [1]),
        ("traj", "hello"),
    ],
)
def test_wrong_type_names_record_field_and_value(tmp_path: Path, field: str, value: Any) -> None:
    bad = _record(**{field: value})
    with pytest.raises(TauBenchFormatError, match=rf"record 0: field '{field}'") as info:
        load_tau_bench(_write(tmp_path, [bad]), agent="me")
    if field != "traj":
        assert repr(value) in str(info.value)


def test_record_not_an_object(tmp_path: Path) -> None:
    with pytest.raises(TauBenchFormatError, match=r"record 1: .*expected an object, got list"):
        load_tau_bench(_write(tmp_path, [_record(), [1, 2]]), agent="me")


def test_bad_message_and_tool_call(tmp_path: Path) -> None:
    no_role = _record()
    no_role["traj"][1] = {"content": "hi"}
    with pytest.raises(TauBenchFormatError, match=r"record 0: field 'traj\[1\]\.role'"):
        load_tau_bench(_write(tmp_path, [no_role]), agent="me")
    no_name = _record()
    no_name["traj"][2]["tool_calls"][1] = {"function": {"arguments": "{}"}}
    with pytest.raises(
        TauBenchFormatError, match=r"record 0: field 'traj\[2\]\.tool_calls\[1\]\.function\.name'"
    ):
        load_tau_bench(_write(tmp_path, [no_name]), agent="me")
    not_list = _record()
    not_list["traj"][2]["tool_calls"] = "a"
    with pytest.raises(TauBenchFormatError, match=r"field 'traj\[2\]\.tool_calls'.*list"):
        load_tau_bench(_write(tmp_path, [not_list]), agent="me")


def test_duplicate_task_trial_is_a_run_table_error(tmp_path: Path) -> None:
    path = _write(tmp_path, [_record(), _record()])
    with pytest.raises(RunTableError, match=r"results\.json.*duplicate"):
        load_tau_bench(path, agent="me")


@pytest.mark.parametrize("agent", ["", None, 3])
def test_bad_agent_label(tmp_path: Path, agent: Any) -> None:
    with pytest.raises(ValueError, match="agent"):
        load_tau_bench(_write(tmp_path, [_record()]), agent=agent)
