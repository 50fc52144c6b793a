"""results.jsonl durability helpers and header compatibility checks."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from reliability_lab._secrets import redact
from reliability_lab.errors import ConfigError, RunTableError
from reliability_lab.experiment.config import parse_config
from reliability_lab.results._jsonio import dumps
from reliability_lab.results.store import (
    ResultsWriter,
    check_resumable,
    make_header,
    read_result_lines,
)

CFG = {"name": "x", "seed": 1, "agents": [{"label": "a", "model": "sim/calibrated"}]}


def _write(path: Path, records: list[dict], tail: bytes = b"") -> None:
    with ResultsWriter(path) as writer:
        for rec in records:
            writer.append(rec)
    with path.open("ab") as fh:
        fh.write(tail)


def test_writer_appends_one_nan_safe_line_per_record(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    _write(path, [{"run": 0, "score": math.nan}, {"run": 1, "score": 1.0}])
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [json.loads(x) for x in lines] == [{"run": 0, "score": None}, {"run": 1, "score": 1.0}]
    assert "NaN" not in path.read_text(encoding="utf-8")


def test_truncated_last_line_is_ignored_or_repaired(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    _write(path, [{"run": 0}, {"run": 1}], tail=b'{"run": 2, "sco')
    with pytest.warns(UserWarning, match="ignoring an incomplete last line"):
        assert read_result_lines(path) == [{"run": 0}, {"run": 1}]
    assert path.read_bytes().endswith(b'"sco')  # reading alone never modifies the file
    with pytest.warns(UserWarning, match="removed an incomplete last line"):
        assert read_result_lines(path, repair=True) == [{"run": 0}, {"run": 1}]
    assert path.read_bytes() == b'{"run": 0}\n{"run": 1}\n'
    _write(path, [{"run": 2}])  # appending after the repair yields a clean file
    assert [json.loads(x)["run"] for x in path.read_text().splitlines()] == [0, 1, 2]


def test_complete_last_line_without_newline_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    path.write_bytes(b'{"run": 0}\n{"run": 1}')
    assert read_result_lines(path, repair=True) == [{"run": 0}, {"run": 1}]
    assert path.read_bytes() == b'{"run": 0}\n{"run": 1}\n'


def test_damaged_middle_line_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    path.write_bytes(b'{"run": 0}\n{"run": \n{"run": 2}\n')
    with pytest.raises(RunTableError, match=r"results\.jsonl: line 2: not a valid result record"):
        read_result_lines(path, repair=True)


def test_missing_results_file_means_no_results(tmp_path: Path) -> None:
    assert read_result_lines(tmp_path / "results.jsonl") == []


def test_resume_check_accepts_more_runs_and_other_runtime_settings(tmp_path: Path) -> None:
    old = parse_config(CFG)
    header = make_header(old, ["t1", "t2"])
    new = parse_config(
        {**CFG, "runs": 9, "max_concurrent": 3, "cache": False, "gates": ["R >= 0.1"]}
    )
    check_resumable(tmp_path, header, new, ["t1", "t2"])


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        ({"seed": 2}, "seed: 1 -> 2"),
        ({"agents": [{"label": "a", "model": "sim/brittle"}]}, "agents.a.model"),
        (
            {"agents": [{"label": "a", "model": "sim/calibrated", "params": {"temperature": 0}}]},
            "agents.a.params.temperature: added",
        ),
        ({"max_steps": 3}, "max_steps: 15 -> 3"),
    ],
)
def test_resume_check_refuses_result_changing_differences(
    tmp_path: Path, change: dict, fragment: str
) -> None:
    header = make_header(parse_config(CFG), ["t1"])
    with pytest.raises(ConfigError, match="refusing to resume") as info:
        check_resumable(tmp_path, header, parse_config({**CFG, **change}), ["t1"])
    assert fragment in str(info.value)


def test_resume_check_refuses_other_tasks(tmp_path: Path) -> None:
    header = make_header(parse_config(CFG), ["t1"])
    with pytest.raises(ConfigError, match="tasks"):
        check_resumable(tmp_path, header, parse_config(CFG), ["t1", "t2"])


def test_redaction_and_strict_json() -> None:
    data = {
        "api_key": "abc",
        "nested": {"Authorization": "x"},
        "text": "key sk-abcdefghijkl here",
        "max_tokens": 5,
        "x": [math.inf, float("nan")],
    }
    out = json.loads(dumps(redact(data)))
    assert out == {
        "api_key": "<redacted>",
        "nested": {"Authorization": "<redacted>"},
        "text": "key <redacted> here",
        "max_tokens": 5,
        "x": [None, None],
    }
