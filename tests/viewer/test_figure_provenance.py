"""Figures carry their provenance; ``figures --only NAME --format png`` and the manifest."""

from __future__ import annotations

import json
from pathlib import Path

from reliability_lab.cli import main
from reliability_lab.plots import FIGURES, draw_figure, figure_data
from tests.experiment.helpers import result_lines


def test_only_and_format_write_one_png_and_a_manifest(results_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "figs"
    status = main(
        [
            "figures",
            str(results_dir),
            "--only",
            "robustness_by_intensity",
            "--format",
            "png",
            "--output",
            str(out),
        ]
    )
    assert status == 0
    assert sorted(p.name for p in out.iterdir()) == ["manifest.json", "robustness_by_intensity.png"]
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    records = result_lines(results_dir)
    assert manifest["data"]["agents"] == ["zeta", "alpha"]
    assert manifest["data"]["simulated"] is True
    assert manifest["data"]["n_tasks"] == len({r["task_id"] for r in records})
    assert manifest["data"]["K"] == 3  # the config's runs
    [entry] = manifest["figures"]
    assert entry["name"] == "robustness_by_intensity" and entry["files"] == [
        "robustness_by_intensity.png"
    ]
    captions = {spec.name: spec.what for spec in FIGURES}
    assert entry["caption"] == captions["robustness_by_intensity"]


def test_unknown_figure_name_is_an_input_error(results_dir: Path, tmp_path: Path, capsys) -> None:
    assert main(["figures", str(results_dir), "--only", "nope", "--output", str(tmp_path)]) == 2
    assert "nope" in capsys.readouterr().err


def test_every_drawn_figure_has_the_footer(results_dir: Path) -> None:
    data = figure_data(results_dir)
    for spec in FIGURES:
        if spec.needs(data) is not None:
            continue
        fig = draw_figure(spec.name, data)
        texts = [t.get_text() for t in fig.texts]
        assert "SIMULATED · profile default · K = 3 · 4 tasks" in texts, spec.name


def test_robustness_figure_draws_intervals(results_dir: Path) -> None:
    data = figure_data(results_dir)
    fig = draw_figure("robustness_by_intensity", data)
    assert {"robustness_lo", "robustness_hi"} <= set(data.robustness.columns)
    # one error-bar container per agent and panel
    n_panels = data.robustness["condition"].nunique()
    containers = [c for ax in fig.axes for c in ax.containers]
    assert len(containers) == len(data.agents) * n_panels
