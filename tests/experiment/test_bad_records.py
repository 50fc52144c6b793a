"""A results.jsonl line with a wrong-typed field is an input error (exit 2: file, line, field)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from reliability_lab.cli import main
from tests.experiment.helpers import rewrite_lines


def _damaged(
    finished: tuple[Path, Path], tmp_path: Path, field: str, value: object
) -> tuple[Path, Path]:
    cfg, out = finished
    copy = tmp_path / "out"
    shutil.copytree(out, copy)

    def edit(lines: list[str]) -> list[str]:
        record = json.loads(lines[2])
        record[field] = value
        lines[2] = json.dumps(record)
        return lines

    rewrite_lines(copy, edit)
    return cfg, copy


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("run", "abc", "field 'run': expected an integer >= 0, got 'abc'"),
        ("run", -1, "field 'run': expected an integer >= 0, got -1"),
        ("run", True, "field 'run': expected an integer >= 0, got True"),
        ("agent", 7, "field 'agent': expected a non-empty string, got 7"),
        ("task_id", None, "field 'task_id': expected a non-empty string, got None"),
        ("variant", [], "field 'variant': expected a string, got []"),
    ],
)
@pytest.mark.parametrize("command", ["run", "report"])
def test_wrong_typed_key_field_is_an_input_error(
    finished: tuple[Path, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    command: str,
    field: str,
    value: object,
    expected: str,
) -> None:
    cfg, out = _damaged(finished, tmp_path, field, value)
    before = (out / "results.jsonl").read_bytes()
    argv = ["run", str(cfg), "--output", str(out)] if command == "run" else ["report", str(out)]
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"{out / 'results.jsonl'}: line 3: {expected}" in err, err
    assert "Traceback" not in err
    assert (out / "results.jsonl").read_bytes() == before  # nothing ran, nothing rewritten


def test_wrong_typed_other_field_stops_run_before_any_run(
    finished: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg, out = _damaged(finished, tmp_path, "success", "maybe")
    rewrite_lines(out, lambda lines: lines[:-1])  # one run left to do
    before = (out / "results.jsonl").read_bytes()
    assert main(["run", str(cfg), "--output", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"{out / 'results.jsonl'}" in err and "'success'" in err and "Traceback" not in err
    assert (out / "results.jsonl").read_bytes() == before  # the missing run was not executed
