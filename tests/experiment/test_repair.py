"""`reliability-lab repair DIR`: one record per run, dropped lines audited, traces consistent."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from reliability_lab.cli import main
from reliability_lab.results.audit import AUDIT_FILE, read_audit
from reliability_lab.results.lock import DirectoryLock
from reliability_lab.results.repair import repair_directory
from tests.experiment.helpers import TINY_PLANNED, result_lines, run_keys


def _sid(record: dict[str, Any]) -> str:
    return "|".join(str(record[k]) for k in ("agent", "task_id", "condition", "variant", "run"))


def _damage(finished: tuple[Path, Path], tmp_path: Path) -> tuple[Path, Path, dict[str, Any]]:
    """Duplicates as two writers leave them, plus a record of an agent not in the plan."""
    cfg, src = finished
    out = tmp_path / "out"
    shutil.copytree(src, out)
    lines = (out / "results.jsonl").read_text().splitlines()
    records = [json.loads(x) for x in lines]
    # run of line 3 was also executed by a second writer, which hit a provider error first
    failed = dict(records[2], error="infrastructure: server: 500", success=False, score=None)
    failed["trajectory"] = records[2]["trajectory"][:2]
    # run of line 5 was executed twice successfully: the later copy differs in its timing
    twin = dict(records[4], wall_time_s=99.0)
    ghost = dict(records[0], agent="ghost")
    damaged = [json.dumps(failed), *lines[:5], json.dumps(twin), *lines[5:], json.dumps(ghost)]
    (out / "results.jsonl").write_text("".join(x + "\n" for x in damaged))
    # the second writer's traces of line 3's run came first, and differ
    traces = (out / "traces.jsonl").read_text().splitlines()
    sid = _sid(records[2])
    stale = [
        json.dumps(dict(json.loads(t), name="stale"))
        for t in traces
        if json.loads(t)["session_id"] == sid
    ]
    assert stale
    (out / "traces.jsonl").write_text("".join(x + "\n" for x in [*stale, *traces]))
    return cfg, out, {"lines": lines, "traces": traces, "failed": failed, "twin": twin}


def test_duplicates_stop_run_and_report_with_a_pointer_to_repair(
    finished: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg, out, _ = _damage(finished, tmp_path)
    for argv in (["run", str(cfg), "--output", str(out)], ["report", str(out)]):
        capsys.readouterr()
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert "appears twice" in err and f"reliability-lab repair {out}" in err, err


def test_repair_keeps_one_record_per_run_and_audits_the_rest(
    finished: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg, out, orig = _damage(finished, tmp_path)
    assert main(["repair", str(out)]) == 0
    stdout = capsys.readouterr().out
    assert "kept 8 of 11 records; moved 3 to results.audit.jsonl" in stdout
    assert "line 1: duplicate of line 4" in stdout  # the infrastructure error gave way
    assert "line 7: duplicate of line 6" in stdout  # otherwise the first record stays
    assert "line 11: not in the plan in header.json" in stdout
    # exactly the original lines remain, byte for byte and in order
    assert (out / "results.jsonl").read_text().splitlines() == orig["lines"]
    audit = read_audit(out)
    assert [(a["line"], a["reason"]) for a in audit] == [
        (1, "duplicate"),
        (7, "duplicate"),
        (11, "not in the plan"),
    ]
    assert audit[0]["record"] == orig["failed"] and audit[1]["record"] == orig["twin"]
    # traces rebuilt from the kept records: the original traces, each once
    assert sorted((out / "traces.jsonl").read_text().splitlines()) == sorted(orig["traces"])
    # the directory resumes and reports again
    assert main(["report", str(out), "--quiet"]) == 0
    assert main(["run", str(cfg), "--output", str(out)]) == 0
    assert f"Resumed: {TINY_PLANNED} of {TINY_PLANNED} runs" in capsys.readouterr().out
    keys = run_keys(result_lines(out))
    assert len(keys) == len(set(keys)) == TINY_PLANNED


def test_repair_of_a_sound_directory_changes_nothing(
    finished: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    shutil.copytree(finished[1], out)
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    outcome = repair_directory(out)
    assert outcome.moved == [] and outcome.n_kept == TINY_PLANNED
    assert not (out / AUDIT_FILE).exists()
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == before
    assert main(["repair", str(out)]) == 0
    assert "nothing to repair" in capsys.readouterr().out


def test_repair_takes_the_lock(
    finished: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = _damage(finished, tmp_path)
    before = (out / "results.jsonl").read_bytes()
    with DirectoryLock(out, command="reliability-lab run x.yaml"):
        assert main(["repair", str(out)]) == 2
    assert "in use by pid" in capsys.readouterr().err
    assert (out / "results.jsonl").read_bytes() == before


def test_repair_of_a_missing_directory_is_an_input_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["repair", str(tmp_path / "nope")]) == 2
    assert "header.json: file not found" in capsys.readouterr().err
    assert not (tmp_path / "nope").exists()
