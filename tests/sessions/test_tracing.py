"""Trace data model, PandaProbe JSON import (with bad input) and trajectory conversion."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reliability_lab.sessions.tracing import (
    SpanKind,
    TraceImportError,
    group_sessions,
    load_traces,
    traces_from_json,
    traces_from_trajectory,
)

PP_TRACE = {
    "trace_id": "7f1c7e52-6a0e-4b7e-9d7a-3c1f0d2b8e11",
    "project_id": "p1",
    "name": "turn",
    "session_id": "sess-1",
    "input": {"question": "weather?"},
    "output": "Sunny",
    "started_at": "2025-01-01T10:00:00Z",
    "spans": [
        {
            "span_id": "s1",
            "name": "weather_lookup",
            "kind": "tool",
            "input": {"city": "Tokyo"},
            "output": "sunny",
            "started_at": "2025-01-01T10:00:01Z",
            "cost": {"input": 0.001, "output": 0.002},
        },
        {
            "span_id": "s2",
            "name": "llm",
            "kind": "LLM",
            "model": "gpt-4o",
            "token_usage": {"prompt_tokens": 10, "completion_tokens": 5},
            "cost": {"total": 0.5},
        },
    ],
}


def test_import_pandaprobe_trace(tmp_path: Path) -> None:
    path = tmp_path / "traces.json"
    later = {**PP_TRACE, "trace_id": "b", "started_at": "2025-01-01T09:00:00Z", "spans": []}
    path.write_text(json.dumps({"traces": [PP_TRACE, later]}))
    traces = load_traces(path)
    t = traces[0]
    assert t.id == PP_TRACE["trace_id"] and t.session_id == "sess-1"
    assert t.input == {"question": "weather?"} and t.start_time is not None
    assert [s.kind for s in t.spans] == [SpanKind.TOOL, SpanKind.LLM]
    assert t.spans[0].cost == pytest.approx(0.003)  # cost dict without total: sum of parts
    assert t.spans[1].cost == 0.5 and t.spans[1].token_usage is not None
    assert t.spans[1].token_usage.prompt_tokens == 10
    assert [s.name for s in t.tool_spans()] == ["weather_lookup"]
    # sessions are ordered by start time
    assert [x.id for x in group_sessions(traces)["sess-1"]] == ["b", PP_TRACE["trace_id"]]


def test_import_jsonl(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(PP_TRACE) + "\n\n" + json.dumps({**PP_TRACE, "trace_id": "x"}))
    assert [t.id for t in load_traces(path)][1] == "x"


@pytest.mark.parametrize(
    "data,match",
    [
        (
            [{**PP_TRACE, "spans": [{"name": "x", "kind": "WIDGET"}]}],
            r"traces\[0\]\.spans\[0\]\.kind: .*valid kinds: AGENT, TOOL.*got 'WIDGET'",
        ),
        ([PP_TRACE, {"output": "no id"}], r"traces\[1\]\.id: .*Field required"),
        ([{**PP_TRACE, "colour": "red"}], r"traces\[0\]\.colour: Extra inputs.*got 'red'"),
        ([{**PP_TRACE, "started_at": "yesterday"}], r"traces\[0\]\.started_at: .*'yesterday'"),
        ([{**PP_TRACE, "spans": [{"name": "x", "cost": -1}]}], r"spans\[0\]\.cost: .*got -1"),
        ({"traces": "nope"}, r"traces: expected a list"),
        (["nope"], r"traces\[0\]: expected a trace object"),
    ],
)
def test_import_errors_name_field_and_value(data: object, match: str, tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(TraceImportError, match=match) as info:
        load_traces(path)
    assert str(path) in str(info.value)


def test_import_file_errors(tmp_path: Path) -> None:
    with pytest.raises(TraceImportError, match=r"missing.json: cannot read"):
        load_traces(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text('[{"trace_id": "a",}]')
    with pytest.raises(TraceImportError, match=r"bad.json: invalid JSON at line 1"):
        load_traces(bad)
    bad_l = tmp_path / "bad.jsonl"
    bad_l.write_text(json.dumps(PP_TRACE) + "\n{oops\n")
    with pytest.raises(TraceImportError, match=r"bad.jsonl: line 2: invalid JSON"):
        load_traces(bad_l)
    with pytest.raises(TraceImportError, match=r"<data>: trace.kind"):
        traces_from_json({"trace_id": "a", "spans": [], "kind": 1})


def test_group_sessions_rejects_unorderable() -> None:
    a, b = traces_from_json(
        [
            {"trace_id": "a", "session_id": "s", "started_at": "2025-01-01"},
            {"trace_id": "b", "session_id": "s"},
        ]
    )
    with pytest.raises(TraceImportError, match=r"session 's'.*start_time"):
        group_sessions([a, b])
    (c,) = traces_from_json([{"trace_id": "c"}])
    with pytest.raises(TraceImportError, match="trace 'c': session_id is missing"):
        group_sessions([c])


CONV: list[dict[str, Any]] = [
    {"role": "system", "content": "You are a support agent."},
    {"role": "user", "content": "Cancel order A1"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "get_order", "arguments": '{"order_id": "A1"}'},
            },
            {"id": "c2", "type": "function", "function": {"name": "get_user", "arguments": "{bad"}},
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "name": "get_order", "content": '{"status": "open"}'},
    {
        "role": "assistant",
        "content": "Cancelling now.",
        "tool_calls": [
            {
                "id": "c3",
                "type": "function",
                "function": {"name": "cancel", "arguments": '{"order_id": "A1"}'},
            },
        ],
    },
    {"role": "tool", "tool_call_id": "c3", "name": "cancel", "content": "ok"},
    {"role": "assistant", "content": "Order A1 is cancelled."},
    {"role": "user", "content": "Thanks"},
    {"role": "assistant", "content": "You're welcome."},
]
TOOLS = [
    {
        "type": "function",
        "function": {"name": "cancel", "description": "Cancel an order", "parameters": {}},
    }
]


def test_traces_from_trajectory_steps() -> None:
    traces = traces_from_trajectory(CONV, session_id="run-1", tools=TOOLS, model="sim/x")
    assert [t.id for t in traces] == ["run-1:0", "run-1:1", "run-1:2", "run-1:3"]
    assert all(t.session_id == "run-1" for t in traces)
    t0, t1, t2, t3 = traces
    assert t0.input == "Cancel order A1"  # the system prompt is not part of the input
    assert t0.output == [
        {"name": "get_order", "arguments": {"order_id": "A1"}},
        {"name": "get_user", "arguments": "{bad"},
    ]
    tools0 = t0.tool_spans()
    assert [s.name for s in tools0] == ["get_order", "get_user"]
    assert tools0[0].output == '{"status": "open"}' and tools0[0].error is None
    assert tools0[1].error == "no tool result in the trajectory"
    assert t0.spans[0].kind is SpanKind.LLM and t0.spans[0].model == "sim/x"
    assert t1.input == [{"role": "tool", "name": "get_order", "content": '{"status": "open"}'}]
    assert t1.output == {
        "content": "Cancelling now.",
        "tool_calls": [{"name": "cancel", "arguments": {"order_id": "A1"}}],
    }
    assert t2.output == "Order A1 is cancelled." and t2.tool_spans() == []
    assert (t3.input, t3.output) == ("Thanks", "You're welcome.")
    assert t0.metadata["available_tools"] == [{"name": "cancel", "description": "Cancel an order"}]


def test_traces_from_trajectory_user_turns() -> None:
    traces = traces_from_trajectory(CONV, session_id="r", granularity="user_turn")
    assert len(traces) == 2
    assert traces[0].input == "Cancel order A1" and traces[0].output == "Order A1 is cancelled."
    assert [s.name for s in traces[0].tool_spans()] == ["get_order", "get_user", "cancel"]
    assert (traces[1].input, traces[1].output) == ("Thanks", "You're welcome.")


@pytest.mark.parametrize(
    "conv,match",
    [
        ([{"role": "robot", "content": "x"}], r"trajectory\[0\]\.role: invalid value 'robot'"),
        (["hello"], r"trajectory\[0\]: expected a message dict"),
        (
            [{"role": "assistant", "tool_calls": [{"function": {}}]}],
            r"trajectory\[0\]\.tool_calls\[0\]\.function\.name",
        ),
    ],
)
def test_traces_from_trajectory_bad_input(conv: Any, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        traces_from_trajectory(conv, session_id="s")


def test_traces_from_trajectory_bad_options() -> None:
    with pytest.raises(ValueError, match="session_id"):
        traces_from_trajectory(CONV, session_id="")
    with pytest.raises(ValueError, match="granularity"):
        traces_from_trajectory(CONV, session_id="s", granularity="turn")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="trajectory must be a list"):
        traces_from_trajectory("hi", session_id="s")  # type: ignore[arg-type]
