"""summary.json is written and read through one model; older files load; bad files are named."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from reliability_lab.errors import RunTableError
from reliability_lab.results import SummaryRecord, read_summary, summarize_directory
from reliability_lab.results.read import load_report
from reliability_lab.results.summary_record import RunIndexSummary

#: The fields of summary.json in the first release (docs/results.md lists today's).
FIRST_RELEASE = (
    "schema_version",
    "suite",
    "simulated",
    "notice",
    "profile",
    "config",
    "metrics",
    "reliability",
    "undefined_metrics",
    "gates",
    "gates_passed",
)


def _copy(finished: tuple[Path, Path], tmp_path: Path) -> Path:
    out = tmp_path / "out"
    shutil.copytree(finished[1], out)
    return out


def _content(directory: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((directory / "summary.json").read_text(encoding="utf-8"))
    return data


def test_the_file_is_the_record_written_and_read_back(finished: tuple[Path, Path]) -> None:
    _, out = finished
    record = read_summary(out)
    assert record.to_json() == _content(out)  # nothing added, dropped or reordered
    assert list(record.to_json()) == list(_content(out))
    summary = summarize_directory(out, write=False)
    assert summary.record == record and summary.content == _content(out)
    for k in (1, 2):
        run_file = out / f"run_{k}" / "summary.json"
        data = json.loads(run_file.read_text(encoding="utf-8"))
        assert RunIndexSummary.from_content(data, source=str(run_file)).to_json() == data
        assert list(data)[:3] == ["schema_version", "suite", "run"]


def test_a_summary_of_the_first_release_still_loads(
    finished: tuple[Path, Path], tmp_path: Path
) -> None:
    out = _copy(finished, tmp_path)
    full = _content(out)
    old = {key: full[key] for key in FIRST_RELEASE if key in full}
    for key in ("bootstrap", "resources"):  # added to the reliability block later
        del old["reliability"][key]
    (out / "summary.json").write_text(json.dumps(old), encoding="utf-8")

    record = read_summary(out)
    assert record.to_json() == old  # re-written as it was: no field invented
    assert record.pass_k == {} and record.plan is None and record.sessions == {"enabled": False}
    pd.testing.assert_frame_equal(load_report(out), load_report(finished[1]))


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda d: d["reliability"].update(n_boot="many"),
            r"reliability\.n_boot: Input should be a valid integer.*'many'",
        ),
        (lambda d: d.update(gates_pased=True), r"gates_pased: Extra inputs are not permitted"),
        (lambda d: d["gates"][0].pop("passed"), r"gates\[0\]\.passed: Field required"),
        (
            lambda d: d["metrics"]["per_model"][0].update(total=None),
            r"metrics\.per_model\[0\]\.total: Input should be a valid integer",
        ),
    ],
)
def test_a_bad_summary_names_the_file_and_the_field(
    finished: tuple[Path, Path], tmp_path: Path, edit: Any, message: str
) -> None:
    out = _copy(finished, tmp_path)
    data = _content(out)
    edit(data)
    (out / "summary.json").write_text(json.dumps(data), encoding="utf-8")
    path = str(out / "summary.json")
    with pytest.raises(RunTableError, match=rf"^{path}: not a valid summary record") as caught:
        load_report(out)
    assert f"{path}: " in str(caught.value).splitlines()[1]
    with pytest.raises(RunTableError, match=message):
        read_summary(out)


def test_a_summary_that_is_not_json_or_missing(finished: tuple[Path, Path], tmp_path: Path) -> None:
    out = _copy(finished, tmp_path)
    (out / "summary.json").write_text('{"suite": ', encoding="utf-8")
    with pytest.raises(RunTableError, match=r"summary\.json: cannot read the summary"):
        read_summary(out)
    (out / "summary.json").unlink()
    with pytest.raises(RunTableError, match=r"summary\.json: file not found.*--write-summary"):
        read_summary(out)


def test_an_incomplete_record_is_refused_with_every_missing_field() -> None:
    with pytest.raises(RunTableError, match=r"^x/summary\.json: not a valid") as caught:
        SummaryRecord.from_content({"suite": "s"}, source="x/summary.json")
    missing = [line.split(": ")[1] for line in str(caught.value).splitlines()[1:]]
    assert set(missing) == set(FIRST_RELEASE) - {"schema_version", "suite", "notice"}
