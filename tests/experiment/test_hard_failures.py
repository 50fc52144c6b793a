"""The edges of the write path and of reading a results directory back (issue 25).

``report`` only reads; inconsistent or non-finite records are refused naming line and field; a
header holding a value this version refuses is still reported; our directories carry a marker;
write failures name the file and the runs safely recorded; one permission rule; a lost Ray
cluster is an interruption.
"""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path
from typing import Any

import pytest

from reliability_lab._files import write_text_atomic
from reliability_lab.cli import main
from reliability_lab.errors import ExecutorLostError
from reliability_lab.io import detect_format
from reliability_lab.io.formats import RESULTS_MARKER
from tests.experiment.helpers import TINY, TINY_PLANNED, config_writer, result_lines, rewrite_lines


def _snapshot(directory: Path) -> dict[str, tuple[int, bytes]]:
    return {
        str(p.relative_to(directory)): (p.stat().st_mtime_ns, p.read_bytes())
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


def _report(out: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    capsys.readouterr()
    status = main(["report", str(out), *extra])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return status, err


def test_report_only_reads_and_write_summary_rewrites(
    finished_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = finished_copy
    (out / "summary.json").unlink()
    before = _snapshot(out)
    assert _report(out, capsys)[0] == 0
    assert _snapshot(out) == before  # nothing written, nothing touched
    assert _report(out, capsys, "--write-summary")[0] == 0
    assert (out / "summary.json").is_file()


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda r: r.replace('"score": 1.0', '"score": NaN', 1),
            "field 'score': nan is not a JSON",
        ),
        (
            lambda r: r.replace('"success": true', '"success": false', 1),
            "field 'success': false, but score",
        ),
    ],
)
def test_non_finite_and_inconsistent_records_are_refused(
    finished_copy: Path,
    capsys: pytest.CaptureFixture[str],
    edit: Any,
    message: str,
) -> None:
    out = finished_copy
    lines = (out / "results.jsonl").read_text().splitlines()
    index = next(i for i, line in enumerate(lines) if edit(line) != line)
    rewrite_lines(out, lambda ls: [edit(x) if i == index else x for i, x in enumerate(ls)])
    status, err = _report(out, capsys)
    assert status == 2 and f"results.jsonl: line {index + 1}: {message}" in err, err


def test_success_true_with_score_zero_is_inconsistent(
    finished_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = finished_copy

    def forge(line: str) -> str:
        record = json.loads(line)
        record.update(success=True, score=0.0, error=None)
        return json.dumps(record)

    rewrite_lines(out, lambda ls: [forge(ls[0]), *ls[1:]])
    status, err = _report(out, capsys)
    assert status == 2 and "line 1: field 'success': true, but score 0.0 is below" in err, err


def test_a_header_value_this_version_refuses_is_reported_with_the_reason(
    finished_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = finished_copy
    header = json.loads((out / "header.json").read_text())
    header["config"]["llm"]["timeout_s"] = None  # how an infinite timeout used to be stored
    (out / "header.json").write_text(json.dumps(header))
    status, err = _report(out, capsys, "--write-summary")
    assert status == 0, err
    assert "header.json: config.llm.timeout_s:" in err and "reported with its default" in err
    notes = json.loads((out / "summary.json").read_text())["header_notes"]
    assert len(notes) == 1 and notes[0].startswith("config.llm.timeout_s:")
    del header["config"]["agents"][0]["label"]  # no default: unreadable, and said so
    (out / "header.json").write_text(json.dumps(header))
    status, err = _report(out, capsys)
    assert status == 2 and "cannot be read by this version: config.agents[0].label" in err, err


def test_a_damaged_header_of_ours_is_reported_as_such(
    finished_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = finished_copy
    assert (out / RESULTS_MARKER).is_file()
    text = (out / "header.json").read_text()
    (out / "header.json").write_text(text.rstrip()[:-1])  # the closing brace lost
    assert detect_format(out) == "results"
    status, err = _report(out, capsys)
    assert status == 2 and "header.json: the header of this results directory is damaged" in err
    assert "letta" not in err and "grade" not in err
    (out / RESULTS_MARKER).unlink()  # written before the marker existed: the header still tells
    assert detect_format(out) == "results"


def test_a_letta_directory_is_not_mistaken_for_ours(tmp_path: Path) -> None:
    (tmp_path / "header.json").write_text(json.dumps({"suite_name": "s"}))
    (tmp_path / "results.jsonl").write_text("")
    assert detect_format(tmp_path) == "letta-evals"


@pytest.mark.parametrize(
    ("code", "reason"),
    [(errno.ENOSPC, "No space left on device"), (errno.EPERM, "Operation not permitted")],
)
def test_a_failed_write_names_the_file_and_the_runs_safely_recorded(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    code: int,
    reason: str,
) -> None:
    import reliability_lab._files as files
    import reliability_lab.results.store as store

    real = files.append_durably
    calls = {"n": 0}

    def failing(fd: int, data: bytes, path: Any) -> None:
        calls["n"] += 1
        if calls["n"] > 6:  # traces + record of three runs, then the disk is full
            with files.naming(path):
                raise OSError(code, reason)
        real(fd, data, path)

    monkeypatch.setattr(store, "append_durably", failing)
    cfg = config_writer(tmp_path)({**TINY, "max_concurrent": 1})
    out = tmp_path / "out"
    capsys.readouterr()
    assert main(["run", str(cfg), "--output", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    recorded = len(result_lines(out))
    assert recorded == 3
    assert f"cannot write {out / 'traces.jsonl'}: {reason}" in err, err
    assert f"{recorded} finished run(s) are safely recorded in {out / 'results.jsonl'}" in err
    assert "run the same command again to resume" in err and "Traceback" not in err
    monkeypatch.setattr(store, "append_durably", real)
    assert main(["run", str(cfg), "--output", str(out), "--quiet"]) == 0
    assert len(result_lines(out)) == TINY_PLANNED


def test_an_atomic_write_failure_names_the_target_and_leaves_nothing(tmp_path: Path) -> None:
    target = tmp_path / "no_such_dir_is_a_file"
    target.write_text("x")
    with pytest.raises(OSError) as info:
        write_text_atomic(target / "summary.json", "{}")
    assert info.value.filename == str(target / "summary.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["no_such_dir_is_a_file"]


@pytest.mark.parametrize("umask", [0o022, 0o077])
def test_every_file_follows_one_permission_rule(
    finished: tuple[Path, Path], tmp_path: Path, umask: int
) -> None:
    cfg = finished[0]
    out = tmp_path / "out"
    old = os.umask(umask)
    try:
        assert main(["run", str(cfg), "--output", str(out), "--quiet"]) == 0
    finally:
        os.umask(old)
    modes = {
        str(p.relative_to(out)): p.stat().st_mode & 0o777 for p in out.rglob("*") if p.is_file()
    }
    expected = 0o666 & ~umask
    assert {"header.json", "results.jsonl", "summary.json", RESULTS_MARKER} <= set(modes)
    assert any(name.startswith("cache") for name in modes)
    assert {name: mode for name, mode in modes.items() if mode != expected} == {}


def test_a_lost_ray_cluster_is_an_interruption_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import reliability_lab.runner.runner as runner

    def lost(*_: Any, **__: Any) -> None:
        raise ExecutorLostError("the Ray cluster running the experiment was lost (...)")

    monkeypatch.setattr(runner, "run_experiment", lost)
    capsys.readouterr()
    assert main(["run", str(tmp_path / "exp.yaml")]) == 130
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and "interrupted: the Ray cluster" in captured.err


def test_ray_node_loss_errors_map_to_executor_lost() -> None:
    from reliability_lab.runner.ray_executor import _lost_errors, _lost_message

    class FakeErrors:
        class LocalRayletDiedError(Exception):
            pass

    caught = _lost_errors(FakeErrors)  # type: ignore[arg-type]
    assert FakeErrors.LocalRayletDiedError in caught and ConnectionError in caught
    text = _lost_message(FakeErrors.LocalRayletDiedError("raylet died\nmore detail"))
    assert "\n" not in text and "LocalRayletDiedError: raylet died" in text


def test_output_of_a_run_stays_off_stdout(capfd: pytest.CaptureFixture[str]) -> None:
    from reliability_lab.cli import _stdout_to_stderr

    with _stdout_to_stderr():
        os.write(1, b"ray log line\n")  # what a Ray process started now would write
    os.write(1, b"summary\n")
    captured = capfd.readouterr()
    assert captured.out == "summary\n" and captured.err == "ray log line\n"


def test_the_sim_provider_returns_replies_not_coroutines() -> None:
    import asyncio

    from reliability_lab.llm import LLMClient
    from reliability_lab.llm._litellm import load_litellm

    load_litellm()
    from reliability_lab.sim._provider import SimProvider

    assert not asyncio.iscoroutinefunction(SimProvider.acompletion)
    out = LLMClient(max_retries=0).completion(
        model="sim/calibrated", messages=[{"role": "user", "content": "hi"}]
    )
    assert out.message["role"] == "assistant"
