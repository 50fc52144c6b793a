"""Every format that states its own totals is checked against them (docs/importers.md).

τ²-bench: ``tasks`` × ``info.num_trials``; HAL: ``results.successful_tasks`` and
``failed_tasks`` (HAL's ``get_metrics``, hal/benchmarks/taubench.py); inspect: its
``results.total_samples``, on a log that inspect_ai writes and rewrites itself. ``report``
exits 2 on a gap unless ``--allow-partial``, which prints it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reliability_lab.cli import main
from reliability_lab.io import (
    IncompleteLogError,
    Tau2FormatError,
    import_gaps,
    load_hal_results,
    load_runs,
    load_tau2_bench,
)
from tests.io.test_hal import _task, _upload
from tests.io.test_tau2_bench import REWARDS, _results


def _drop_simulations(path: Path, drop: set[tuple[str, int]]) -> Path:
    data = json.loads(path.read_text(encoding="utf-8"))
    data["simulations"] = [s for s in data["simulations"] if (s["task_id"], s["trial"]) not in drop]
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_tau2_trials_short_of_num_trials(tmp_path: Path) -> None:
    path = _drop_simulations(_results(tmp_path), {("1", 3), ("2", 0), ("2", 1)})
    with pytest.raises(IncompleteLogError) as info:
        load_tau2_bench(path)
    # 4 tasks × 4 trials stated; task 1 holds 3, task 2 holds 2
    assert info.value.gaps == [
        f"{path}: 2 of 4 tasks have fewer than info.num_trials = 4 simulations "
        "(task, simulations held: '1' 3, '2' 2)"
    ]
    runs = load_tau2_bench(path, allow_partial=True)
    assert len(runs) == 16 - 3 and import_gaps(runs) == info.value.gaps
    assert import_gaps(load_tau2_bench(_results(tmp_path, "full.json"))) == []


def test_tau2_directory_names_a_bad_simulation_by_its_file(tmp_path: Path) -> None:
    data = json.loads(_results(tmp_path).read_text(encoding="utf-8"))
    root = tmp_path / "run"
    (root / "simulations").mkdir(parents=True)
    for sim in data.pop("simulations"):
        (root / "simulations" / f"{sim['id']}.json").write_text(json.dumps(sim), "utf-8")
    (root / "results.json").write_text(json.dumps({**data, "simulations": []}), "utf-8")
    assert len(load_tau2_bench(root)) == 4 * len(REWARDS)
    (root / "simulations" / "notes.json").write_text('{"comment": "not a run"}', "utf-8")
    with pytest.raises(Tau2FormatError, match=r"simulations/notes\.json: field 'task_id'"):
        load_tau2_bench(root)


def test_hal_listed_tasks_without_results(tmp_path: Path) -> None:
    path = _upload(tmp_path, "toolcalling_baseline_r0", {"1": _task(1.0), "2": _task(0.0)})
    data = json.loads(path.read_text(encoding="utf-8"))
    data["results"].update(successful_tasks=["1", "3"], failed_tasks=["2", "4"])
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(
        IncompleteLogError, match=r"raw_eval_results: 2 of 4 listed tasks \(missing: '3', '4'\)"
    ):
        load_hal_results(path)
    assert len(load_runs(path, allow_partial=True)) == 2


def test_inspect_log_with_a_sample_cut(tmp_path: Path) -> None:
    from inspect_ai.log import read_eval_log, write_eval_log

    from tests.io.test_inspect_logs import _write_log

    path = _write_log(tmp_path / "logs", "json")
    assert len(load_runs(path)) == 9  # 3 samples × 3 epochs, as results.total_samples says
    log = read_eval_log(str(path))
    assert log.samples is not None and log.results is not None
    log.samples = log.samples[:-2]
    write_eval_log(log, str(path))
    with pytest.raises(IncompleteLogError, match=r"7 of 9 samples × epochs"):
        load_runs(path)
    assert len(load_runs(path, allow_partial=True)) == 7


def test_report_exits_2_unless_allow_partial(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _drop_simulations(_results(tmp_path), {("0", 2)})
    assert main(["report", str(path), "--n-boot", "10"]) == 2
    assert "1 of 4 tasks have fewer than info.num_trials" in capsys.readouterr().err
    assert main(["report", str(path), "--n-boot", "10", "--allow-partial"]) == 0
    err = capsys.readouterr().err
    assert "partial import, missing:" in err and "'0' 3" in err
