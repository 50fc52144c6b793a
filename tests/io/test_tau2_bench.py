"""τ²-bench importer on a Results file built field by field from its published data model.

The fixture follows ``tau2.data_model.simulation`` (Results → info, tasks, simulations;
SimulationRun → id, task_id, trial, start_time, end_time, duration, termination_reason,
agent_cost, user_cost, reward_info.reward, messages with tool_calls/usage). pass^k is checked
against a separate re-statement of τ²-bench's own metric code (drop infrastructure errors,
``is_successful``, per task C(c, k)/C(n, k), mean over tasks).
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from reliability_lab.io import Tau2FormatError, detect_format, load_runs, load_tau2_bench
from reliability_lab.metrics import pass_hat_k
from reliability_lab.runs import is_infrastructure_error

# task → rewards of trials 0..3; None marks an infrastructure error (no reward_info).
REWARDS: dict[str, list[float | None]] = {
    "0": [1.0, 1.0, 1.0, 1.0],
    "1": [1.0, 0.0, 1.0, 0.0],
    "2": [0.0, 0.0, 0.0, 1.0],
    "3": [1.0, 1.0, None, 0.9999995],  # within τ²-bench's 1e-6 tolerance → success
}
REASONS = {("1", 1): "max_steps", ("2", 0): "user_error", ("3", 2): "infrastructure_error"}


def _message(role: str, **fields: Any) -> dict[str, Any]:
    return {"role": role, "content": fields.pop("content", None), "turn_idx": None, **fields}


def _simulation(task: str, trial: int, reward: float | None) -> dict[str, Any]:
    reason = REASONS.get((task, trial), "user_stop")
    calls = [
        {"id": "c1", "name": "get_user_details", "arguments": {"user_id": "u1"}},
        {"id": "c2", "name": "book_reservation", "arguments": {}},
    ]
    messages = [
        _message("user", content="hi"),
        _message(
            "assistant",
            tool_calls=calls,
            usage={"prompt_tokens": 100, "completion_tokens": 10},
            cost=0.002,
            generation_time_seconds=1.5,
        ),
        _message("tool", id="c1", requestor="assistant", error=False, content="{}"),
        _message("tool", id="c2", requestor="assistant", error=True, content="Error"),
        # the simulated user's own tool call is not an agent action
        _message("user", tool_calls=[{"id": "u", "name": "toggle_airplane_mode", "arguments": {}}]),
        _message(
            "assistant",
            content="done",
            usage={"prompt_tokens": 200, "completion_tokens": 20},
            generation_time_seconds=0.5,
        ),
    ]
    sim: dict[str, Any] = {
        "id": f"sim-{task}-{trial}",
        "task_id": task,
        "timestamp": "2025-06-01T00:00:00",
        "start_time": "2025-06-01T00:00:00",
        "end_time": "2025-06-01T00:00:12",
        "duration": 12.0 + trial,
        "termination_reason": reason,
        "agent_cost": 0.01 * (trial + 1),
        "user_cost": 0.5,
        "reward_info": None,
        "messages": messages,
        "trial": trial,
        "seed": 300 + trial,
        "mode": "half_duplex",
    }
    if reason == "infrastructure_error":
        sim.update(messages=[], duration=0.0, agent_cost=None, info={"error": "API disconnect"})
    else:
        sim["reward_info"] = {"reward": reward, "reward_basis": ["DB"], "info": None}
    return sim


def _results(tmp_path: Path, name: str = "results.json", **changes: Any) -> Path:
    sims = [_simulation(t, i, r) for t, rewards in REWARDS.items() for i, r in enumerate(rewards)]
    data = {
        "timestamp": "2025-06-01T00:00:00",
        "info": {
            "git_commit": "abc",
            "num_trials": 4,
            "max_steps": 100,
            "max_errors": 10,
            "user_info": {"implementation": "user_simulator", "llm": "gpt-4.1"},
            "agent_info": {"implementation": "llm_agent", "llm": "claude-3-7-sonnet"},
            "environment_info": {"domain_name": "airline", "policy": "..."},
            "seed": 300,
        },
        "tasks": [{"id": t, "user_scenario": {"instructions": "..."}} for t in REWARDS],
        "simulations": sims,
        **changes,
    }
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _tau2_pass_hat_k(path: Path, k: int) -> float:
    """τ²-bench's metric code, restated: infra errors dropped, per task C(c,k)/C(n,k)."""
    sims = json.loads(path.read_text(encoding="utf-8"))["simulations"]
    outcomes: dict[str, list[bool]] = defaultdict(list)
    for sim in sims:
        if sim["termination_reason"] == "infrastructure_error":
            continue
        reward = sim["reward_info"]["reward"]
        outcomes[sim["task_id"]].append((1 - 1e-6) <= reward <= (1 + 1e-6))
    return sum(math.comb(sum(v), k) / math.comb(len(v), k) for v in outcomes.values()) / len(
        outcomes
    )


def test_pass_hat_k_matches_tau2_bench(tmp_path: Path) -> None:
    path = _results(tmp_path)
    runs = load_tau2_bench(path)
    scored = runs[~is_infrastructure_error(runs["error"])]
    # τ²-bench's largest k is the smallest trial count of a task (3 here, task "3" lost one)
    for k in (1, 2, 3):
        ours = pass_hat_k(scored["success"], scored["task_id"], k)
        assert ours == pytest.approx(_tau2_pass_hat_k(path, k))
    # by hand: k=2 → (1 + 1/6 + 0 + 1) / 4
    assert pass_hat_k(scored["success"], scored["task_id"], 2) == pytest.approx(13 / 24)


def test_columns(tmp_path: Path) -> None:
    runs = load_tau2_bench(_results(tmp_path)).set_index(["task_id", "run"])
    row = runs.loc[("0", 1)]
    assert row["agent"] == "claude-3-7-sonnet"
    assert (row["condition"], row["variant"]) == ("baseline", "")
    assert row["actions"] == ["get_user_details", "book_reservation"]
    assert (row["num_actions"], row["api_calls"], row["num_errors"]) == (2, 2, 1)
    assert row["cost_usd"] == pytest.approx(0.02)  # agent_cost, not user_cost
    assert row["wall_time_s"] == 13.0
    assert row["call_latency_s"] == pytest.approx(1.0)
    assert (row["prompt_tokens"], row["completion_tokens"]) == (300, 30)
    assert row["confidence_source"] == "none" and math.isnan(row["confidence"])
    assert (row["domain"], row["seed"], row["simulation_id"]) == ("airline", 301, "sim-0-1")
    assert row["error"] is None and row["termination_reason"] == "user_stop"


def test_termination_reasons(tmp_path: Path) -> None:
    runs = load_tau2_bench(_results(tmp_path)).set_index(["task_id", "run"])
    infra = runs.loc[("3", 2)]
    assert infra["error"].startswith("infrastructure:") and "API disconnect" in infra["error"]
    assert not infra["success"] and math.isnan(infra["score"])
    for key, reason in (("1", 1), "max_steps"), (("2", 0), "user_error"):
        assert runs.loc[key, "error"] == f"τ²-bench termination_reason {reason}"
        assert not runs.loc[key, "success"]  # a failure, as τ²-bench scores it
    assert runs.loc[("3", 3), "success"]  # reward 0.9999995


def test_directory_format(tmp_path: Path) -> None:
    single = _results(tmp_path, "single.json")
    data = json.loads(single.read_text(encoding="utf-8"))
    folder = tmp_path / "dir"
    (folder / "simulations").mkdir(parents=True)
    for sim in data.pop("simulations"):
        (folder / "simulations" / f"{sim['id']}.json").write_text(json.dumps(sim), "utf-8")
    (folder / "results.json").write_text(json.dumps(data), encoding="utf-8")
    key = ["task_id", "run"]
    a = load_tau2_bench(single).sort_values(key).reset_index(drop=True)
    b = load_tau2_bench(folder).sort_values(key).reset_index(drop=True)
    assert a[["task_id", "run", "success", "actions"]].equals(
        b[["task_id", "run", "success", "actions"]]
    )
    assert detect_format(folder) == detect_format(single) == "tau2-bench"
    assert len(load_runs(folder, agent="me")) == 16


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"termination_reason": "bored"}, r"'termination_reason': unknown value 'bored'"),
        ({"reward_info": None}, r"'reward_info.reward': missing for a simulation"),
        ({"reward_info": {"reward": 2.0}}, r"'reward_info.reward': .* in \[0, 1\], got 2.0"),
        ({"trial": -1}, r"'trial': expected an int >= 0 or null, got -1"),
        ({"agent_cost": "free"}, r"'agent_cost': expected a number >= 0 or null, got 'free'"),
        (
            {"messages": [_message("assistant", usage={"prompt_tokens": "many"})]},
            r"'messages\[0\]\.usage\.prompt_tokens': expected a number >= 0 or null",
        ),
    ],
)
def test_errors_name_file_simulation_and_field(
    tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    path = _results(tmp_path)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["simulations"][0].update(change)
    path.write_text(json.dumps(data), encoding="utf-8")
    where = r"results\.json: simulation 0 \(id 'sim-0-0'\): field "
    with pytest.raises(Tau2FormatError, match=where + message):
        load_tau2_bench(path)


def test_missing_trials_are_numbered_in_file_order(tmp_path: Path) -> None:
    path = _results(tmp_path)
    data = json.loads(path.read_text(encoding="utf-8"))
    for sim in data["simulations"]:
        sim["trial"] = None
    path.write_text(json.dumps(data), encoding="utf-8")
    runs = load_tau2_bench(path)
    assert sorted(runs[runs["task_id"] == "0"]["run"]) == [0, 1, 2, 3]
    data["simulations"][0]["trial"] = 0
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(Tau2FormatError, match="task '0': field 'trial': some simulations"):
        load_tau2_bench(path)


def test_conversation_is_the_agents_view_in_chat_format(tmp_path: Path) -> None:
    table = load_tau2_bench(_results(tmp_path))
    conversation = table.loc[table["error"].isna(), "trajectory"].iloc[0]
    assert [m["role"] for m in conversation] == ["user", "assistant", "tool", "tool", "assistant"]
    first = conversation[1]["tool_calls"]
    assert [c["function"]["name"] for c in first] == ["get_user_details", "book_reservation"]
    assert json.loads(first[0]["function"]["arguments"]) == {"user_id": "u1"}
    assert [m.get("tool_call_id") for m in conversation[2:4]] == ["c1", "c2"]
    # the simulated user's tool call (an empty user message) is not part of it
    assert conversation[-1] == {"role": "assistant", "content": "done"}
