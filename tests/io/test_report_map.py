"""``reliability-lab report my.csv --map task_id=sample --map run=epoch``: a run table of one's
own, its columns mapped from the command line (and ``summarize_logs(columns=...)``)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from reliability_lab import summarize_logs
from reliability_lab.cli import main
from reliability_lab.errors import ConfigError
from reliability_lab.io.table import ColumnMappingError

# 2 agents × 3 samples × 2 epochs; "passed" is what the harness decided.
ROWS = [
    {"model": m, "sample": s, "epoch": e, "reward": r, "passed": r >= 0.5}
    for m, rewards in (("alpha", [1, 1, 0, 1, 0.5, 0.5]), ("beta", [0, 0, 1, 0, 1, 1]))
    for (s, e), r in zip([(s, e) for s in ("q1", "q2", "q3") for e in (1, 2)], rewards, strict=True)
]
MAP = ["agent=model", "task_id=sample", "run=epoch", "score=reward", "success=passed"]
COLUMNS = dict(item.split("=") for item in MAP)


def _args(path: Path, *extra: str) -> list[str]:
    return ["report", str(path), "--n-boot", "10", *(a for m in MAP for a in ("--map", m)), *extra]


@pytest.fixture
def csv(tmp_path: Path) -> Path:
    path = tmp_path / "my.csv"
    pd.DataFrame(ROWS).to_csv(path, index=False)
    return path


def _accuracy(agent: str) -> float:
    passed = [r["passed"] for r in ROWS if r["model"] == agent]
    return sum(passed) / len(passed)


def test_report_maps_the_columns_of_a_csv(
    csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "imported"
    assert main([*_args(csv, "--output", str(out))]) == 0
    assert "alpha" in capsys.readouterr().out
    runs = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(runs) == len(ROWS)
    assert {(r["agent"], r["task_id"], r["run"]) for r in runs} == {
        (r["model"], r["sample"], r["epoch"]) for r in ROWS
    }
    summary = summarize_logs(csv, columns=COLUMNS, n_boot=10)
    for agent in ("alpha", "beta"):
        assert summary.report.loc[agent, "accuracy"] == pytest.approx(_accuracy(agent))


def test_jsonl_tables_take_the_same_map(
    csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    jsonl = tmp_path / "my.jsonl"
    pd.DataFrame(ROWS).to_json(jsonl, orient="records", lines=True)
    assert main(_args(jsonl)) == 0
    from_jsonl = capsys.readouterr().out.splitlines()[1:]  # the first line names the file
    assert main(_args(csv)) == 0
    assert from_jsonl == capsys.readouterr().out.splitlines()[1:]


def test_parquet_tables_take_the_map(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow", reason="pyarrow (to write and read .parquet) is not installed")
    parquet = tmp_path / "my.parquet"
    pd.DataFrame(ROWS).to_parquet(parquet)
    assert main(_args(parquet)) == 0


def test_without_a_success_column_the_pass_threshold_decides(csv: Path) -> None:
    columns = {k: v for k, v in COLUMNS.items() if k != "success"}
    strict = summarize_logs(csv, columns=columns, n_boot=10)  # default: only score 1 passes
    lenient = summarize_logs(csv, columns=columns, pass_threshold=0.5, n_boot=10)
    full = [r["reward"] == 1 for r in ROWS if r["model"] == "alpha"]
    assert strict.report.loc["alpha", "accuracy"] == pytest.approx(sum(full) / len(full))
    assert lenient.report.loc["alpha", "accuracy"] == pytest.approx(_accuracy("alpha"))


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("task_id", "--map 'task_id': expected FIELD=COLUMN"),
        ("=sample", "--map '=sample': expected FIELD=COLUMN"),
        ("task_id=", "--map 'task_id=': expected FIELD=COLUMN"),
        ("tsk=sample", "--map tsk=sample: not a run-table column (valid: agent, task_id"),
        ("variant=nope", "--map variant=nope: "),
        ("variant=model", "--map agent=model --map variant=model: the same column is mapped"),
        ("run=sample", "--map 'run=sample': run is mapped already (to 'epoch')"),
    ],
)
def test_a_bad_map_is_one_line_naming_it(
    csv: Path, bad: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*_args(csv), "--map", bad]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err
    if bad == "variant=nope":
        assert "has no such column (present: model, sample, epoch" in err


def test_map_applies_to_run_tables_only(
    csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tau = tmp_path / "tau.json"
    tau.write_text(json.dumps([{"task_id": 1, "trial": 0, "reward": 1.0, "traj": []}]))
    assert main(["report", str(tau), "--map", "task_id=sample"]) == 2
    assert "--map applies to run tables (.csv, .parquet, .jsonl), not to 'tau-bench'" in (
        capsys.readouterr().err
    )
    with pytest.raises(ConfigError, match="--map applies to run tables"):
        summarize_logs(tau, columns={"task_id": "sample"})
    with pytest.raises(ColumnMappingError, match=r"unknown run-table column\(s\) \['tsk'\]"):
        summarize_logs(csv, columns={"tsk": "sample"})


def test_map_on_a_results_directory_is_refused(
    finished: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, results = finished
    assert main(["report", str(results), "--map", "task_id=sample"]) == 2
    assert "--map apply to imported logs" in capsys.readouterr().err


def test_a_mapped_column_replaces_the_tables_own_of_that_name(tmp_path: Path) -> None:
    path = tmp_path / "with_run.csv"
    pd.DataFrame([{**row, "run": 99} for row in ROWS]).to_csv(path, index=False)
    summary = summarize_logs(path, columns=COLUMNS, n_boot=10)
    assert sorted(summary.runs["run"].unique()) == [1, 2]
