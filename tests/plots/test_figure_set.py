"""The figure set of a results directory: what figure_data gathers, what save_all and
``reliability-lab figures`` write, and what they leave out and why."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest

from reliability_lab import UndefinedMetricWarning, compare_agents, metrics, plots
from reliability_lab.cli import main
from reliability_lab.errors import RunTableError
from reliability_lab.io import load_tau_bench_example
from reliability_lab.plots import figure_set
from reliability_lab.results.read import load_report
from reliability_lab.runs import KEY_COLUMNS
from tests.experiment.helpers import result_lines

ROOT = Path(__file__).resolve().parents[2]


def _numeric(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.select_dtypes("number").sort_index(axis=1)


def test_load_report_is_the_report_of_record(results: tuple[Path, Any]) -> None:
    directory, outcome = results
    stored = load_report(directory)
    pd.testing.assert_frame_equal(_numeric(stored), _numeric(outcome.report), check_dtype=False)
    assert stored["why_undefined"].tolist() == outcome.report["why_undefined"].tolist()
    assert stored.attrs["n_boot"] == 100 and stored.attrs["profile"]["name"] == "default"


def test_figure_data_comes_from_the_metric_functions(results: tuple[Path, Any]) -> None:
    directory, outcome = results
    data = plots.figure_data(directory)
    assert data.agents == ("cal", "over")
    base = outcome.runs[outcome.runs["condition"] == "baseline"]
    for agent in data.agents:
        runs = base[base["agent"] == agent]
        curve = metrics.pass_hat_k_curve(runs["success"], runs["task_id"])
        np.testing.assert_allclose(data.pass_hat_k[agent].pass_hat_k, curve.pass_hat_k)
        rated = runs[runs["confidence"].notna()]
        expected = metrics.reliability_curve(rated["confidence"], rated["success"])
        np.testing.assert_allclose(data.reliability[agent].accuracy, expected.accuracy)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            tasks = metrics.per_task_consistency(runs["success"], runs["task_id"])
        np.testing.assert_allclose(data.per_task[agent]["C_out"], tasks["C_out"])
    assert set(data.robustness["condition"]) == {"fault", "structural", "prompt"}


def _drawn_figure(directory: Path, name: str) -> Any:
    return plots.draw_figure(name, plots.figure_data(directory))


def _baseline_runs(outcome: Any, agent: str) -> pd.DataFrame:
    runs = outcome.runs
    return runs[(runs["condition"] == "baseline") & (runs["agent"] == agent)]


def test_pass_hat_k_figure_is_the_brute_force_pass_hat_k(results: tuple[Path, Any]) -> None:
    directory, outcome = results
    fig = _drawn_figure(directory, "pass_hat_k")
    (ax,) = fig.axes
    lines = ax.get_lines()
    assert len(lines) == 4  # per agent: pass^k, then (pass^1)^k dotted
    for i, agent in enumerate(("cal", "over")):
        runs = _baseline_runs(outcome, agent)
        counts = runs.groupby("task_id")["success"].agg(["sum", "size"])
        ks = np.arange(1, int(counts["size"].min()) + 1)
        # Independent: per task, the chance that k runs drawn without replacement all succeed.
        expected = [
            np.mean(
                [math.comb(int(c), int(k)) / math.comb(int(n), int(k)) for c, n in counts.values]
            )
            for k in ks
        ]
        hat, naive = lines[2 * i], lines[2 * i + 1]
        np.testing.assert_allclose(hat.get_xdata(), ks)
        np.testing.assert_allclose(hat.get_ydata(), expected)
        np.testing.assert_allclose(naive.get_ydata(), expected[0] ** ks)
        assert hat.get_label() == f"{agent}: pass$^{{k}}$"


def test_outcome_grid_cells_are_the_runs(results: tuple[Path, Any]) -> None:
    directory, outcome = results
    fig = _drawn_figure(directory, "outcome_grid")
    tasks = sorted(map(str, outcome.runs["task_id"].unique()))
    for ax, agent in zip(fig.axes[:2], ("cal", "over"), strict=True):
        (image,) = ax.get_images()
        cells = np.ma.filled(np.ma.asarray(image.get_array()), np.nan)
        expected = np.full((3, len(tasks)), np.nan)
        for row in _baseline_runs(outcome, agent).itertuples():
            expected[int(row.run), tasks.index(str(row.task_id))] = float(row.success)
        np.testing.assert_array_equal(cells, expected)
        assert ax.get_ylabel() == f"{agent}\nrun"


def test_robustness_by_intensity_figure_is_r_per_fault_rate(
    results: tuple[Path, Any],
) -> None:
    directory, outcome = results
    data = plots.figure_data(directory)
    fig = plots.draw_figure("robustness_by_intensity", data)
    fault = next(ax for ax in fig.axes if ax.get_title() == "fault")
    runs = outcome.runs
    lines = [line for line in fault.get_lines() if not line.get_label().startswith("_")]
    for line, bars in zip(lines, fault.containers, strict=True):
        mine = runs[runs["agent"] == line.get_label()]
        # Independent: each fault variant's pooled success rate over the baseline's.
        base = mine.loc[mine["condition"] == "baseline", "success"].mean()
        faults = mine[mine["condition"] == "fault"].groupby("variant")["success"].mean()
        expected = [min(faults["p=0.2"] / base, 1.0), min(faults["p=0.4"] / base, 1.0)]
        # dodged sideways by less than a tenth of the fault-rate axis, never onto a neighbour
        np.testing.assert_allclose(line.get_xdata(), [0.2, 0.4], atol=0.04)
        np.testing.assert_allclose(line.get_ydata(), expected)
        # the interval of each point is the one robustness_intervals_by_intensity gives
        table = data.robustness
        rows = table[(table["agent"] == line.get_label()) & (table["condition"] == "fault")]
        (segments,) = [c for c in bars.lines[2]]
        ends = np.array([seg[:, 1] for seg in segments.get_segments()])
        np.testing.assert_allclose(ends[:, 0], rows["robustness_lo"])
        np.testing.assert_allclose(ends[:, 1], rows["robustness_hi"])
        assert np.all(ends[:, 0] <= line.get_ydata()) and np.all(line.get_ydata() <= ends[:, 1])
    assert [line.get_label() for line in lines] == ["cal", "over"]  # config order
    offsets = [line.get_xdata()[0] for line in lines]
    assert offsets[0] < offsets[1]  # side by side, not on top of each other
    assert len(fig.legends) == 1 and all(ax.get_legend() is None for ax in fig.axes)


def test_paired_differences_figure_is_compare_agents_with_the_report_settings(
    results: tuple[Path, Any],
) -> None:
    directory, outcome = results
    data = plots.figure_data(directory)
    attrs = load_report(directory).attrs
    expected = compare_agents(
        outcome.runs, "cal", "over", n_boot=attrs["n_boot"], seed=attrs["seed"]
    )
    pd.testing.assert_frame_equal(data.comparisons["over"], expected)
    (ax,) = plots.draw_figure("paired_differences", data).axes
    markers = ax.collections[-1].get_offsets()
    np.testing.assert_allclose(np.asarray(markers)[:, 0], expected["difference"].dropna())
    base, over = (_baseline_runs(outcome, a)["success"].mean() for a in ("cal", "over"))
    row = list(expected.index).index("accuracy")
    assert np.asarray(markers)[row, 0] == pytest.approx(over - base)


def test_the_riskiest_stored_session_of_each_agent(results: tuple[Path, Any]) -> None:
    directory, _ = results
    data = plots.figure_data(directory)
    records = [r for r in result_lines(directory) if r["condition"] == "baseline"]
    for agent, scores in data.sessions.items():
        mine = [r for r in records if r["agent"] == agent]
        lowest = min(r["session"]["agent_reliability"] for r in mine)
        assert scores.agent_reliability == lowest
        assert scores.trace_risks  # stored with the run, drawn without calling the judge
        ax = plots.plot_session_risk(scores)
        heights = [p.get_height() for p in ax.patches]
        assert heights == [r["step_risk"] for r in scores.trace_risks.values()]


def test_save_all_draws_every_figure(results: tuple[Path, Any], tmp_path: Path) -> None:
    directory, _ = results
    saved = plots.save_all(directory, tmp_path / "figs", formats=("png",))
    assert saved.skipped == {}
    assert list(saved.written) == [spec.name for spec in plots.FIGURES]
    for name, files in saved.written.items():
        assert [f.name for f in files] == [f"{name}.png"]
        assert files[0].read_bytes().startswith(b"\x89PNG") and files[0].stat().st_size > 1000


def test_pdf_and_png_by_default_with_embedded_truetype_fonts(
    results: tuple[Path, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    directory, _ = results
    monkeypatch.setattr(figure_set, "FIGURES", figure_set.FIGURES[:1])
    saved = plots.save_all(directory, tmp_path)
    files = saved.written["dimensions_dashboard"]
    assert [f.name for f in files] == ["dimensions_dashboard.pdf", "dimensions_dashboard.png"]
    pdf = files[0].read_bytes()
    assert pdf.startswith(b"%PDF")
    assert b"/CreationDate" not in pdf  # the same figure gives the same file
    assert b"/FontFile2" in pdf  # TrueType (Type 42) fonts, as venues require, not Type 3


def test_a_run_table_without_confidences_or_perturbations_skips_with_reasons(
    tmp_path: Path,
) -> None:
    runs = load_tau_bench_example()
    saved = plots.save_all(runs, tmp_path, formats=("png",), n_boot=50)
    assert saved.skipped["reliability_diagrams"] == "no baseline run has a confidence"
    assert saved.skipped["robustness_by_intensity"] == "no fault, structural or prompt runs"
    assert saved.skipped["intervals_predictability"].startswith("every predictability metric")
    assert "results directory" in saved.skipped["session_risk"]
    assert "pass_hat_k" in saved.written and "outcome_grid" in saved.written
    assert saved.skipped["paired_differences"] == "one agent only (needs two to compare)"
    assert (tmp_path / "pass_hat_k.png").exists() and not (tmp_path / "pass_hat_k.pdf").exists()


def test_a_stale_summary_is_refused(results: tuple[Path, Any], tmp_path: Path) -> None:
    directory, _ = results
    copy = tmp_path / "copy"
    copy.mkdir()
    for name in ("header.json", "summary.json"):
        (copy / name).write_bytes((directory / name).read_bytes())
    lines = (directory / "results.jsonl").read_text(encoding="utf-8").splitlines()
    (copy / "results.jsonl").write_text("\n".join(lines[:-3]) + "\n", encoding="utf-8")
    with pytest.raises(RunTableError, match="reliability-lab report"):
        plots.figure_data(copy)
    (copy / "summary.json").unlink()
    with pytest.raises(RunTableError, match=r"summary\.json: file not found"):
        plots.figure_data(copy)


def test_cli_figures_writes_the_set_and_reports_bad_input(
    results: tuple[Path, Any],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    directory, _ = results
    monkeypatch.setattr(figure_set, "FIGURES", figure_set.FIGURES[-2:])
    assert main(["figures", str(directory), "--output", str(tmp_path / "f")]) == 0
    out = capsys.readouterr().out
    assert "  session_risk: pdf, png" in out
    assert f"2 figures written to {tmp_path / 'f'}" in out
    assert (tmp_path / "f" / "session_risk.pdf").exists()
    assert main(["figures", str(tmp_path / "missing")]) == 2
    assert "not a results directory" in capsys.readouterr().err
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "results.jsonl").write_text('{"schema_version": 1}\n{oops\n{}\n', encoding="utf-8")
    assert main(["figures", str(broken)]) == 2
    assert "line 2" in capsys.readouterr().err


def test_cli_figures_does_not_import_litellm(results: tuple[Path, Any], tmp_path: Path) -> None:
    directory, _ = results
    probe = (
        "import json, sys\nfrom reliability_lab.cli import main\n"
        "import reliability_lab.plots.figure_set as fs\nfs.FIGURES = fs.FIGURES[:1]\n"
        f"code = main(['figures', {str(directory)!r}, '--output', {str(tmp_path)!r}])\n"
        "print(json.dumps([code, sorted(m for m in sys.modules if m.startswith('litellm'))]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=300, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [0, []]


def test_figure_specs_have_unique_names_and_say_what_they_show() -> None:
    names = [spec.name for spec in plots.FIGURES]
    assert len(set(names)) == len(names)
    assert all(spec.what for spec in plots.FIGURES)
    assert set(KEY_COLUMNS) <= set(load_tau_bench_example().columns)
