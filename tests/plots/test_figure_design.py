"""What the figure set promises beyond the values it draws (issue 22, "Figures"): colours mean
agents and nothing else, small multiples share one legend and one label per axis, and a figure
the data cannot support is skipped with the reason — read back from the artists and the
manifest, never from pixels."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest
from matplotlib.artist import Artist
from matplotlib.collections import Collection
from matplotlib.colors import to_hex
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.text import Text

from reliability_lab import plots
from reliability_lab.io import load_tau_bench_example

#: The figures that draw one panel per agent.
SMALL_MULTIPLES = (
    "reliability_diagrams",
    "accuracy_coverage",
    "risk_coverage",
    "outcome_consistency",
    "safety_violations",
)


@pytest.fixture(scope="module")
def drawn(results: tuple[Path, Any]) -> Iterator[tuple[Any, dict[str, Figure]]]:
    """Every figure of the set the fixture experiment supports, with its data."""
    data = plots.figure_data(results[0])
    figures = {
        spec.name: plots.draw_figure(spec.name, data)
        for spec in plots.FIGURES
        if spec.needs(data) is None
    }
    yield data, figures


def _colours(artist: Artist) -> set[str]:
    """Every colour ``artist`` paints (lines, markers, faces, edges, text), as hex."""
    found: list[Any] = []
    if isinstance(artist, Line2D) and artist.get_visible():
        found += [artist.get_color(), artist.get_markerfacecolor(), artist.get_markeredgecolor()]
    elif isinstance(artist, Patch) and artist.get_visible():
        if artist.get_fill():
            found.append(artist.get_facecolor())
        if artist.get_linewidth() > 0:
            found.append(artist.get_edgecolor())
    elif isinstance(artist, Collection) and artist.get_visible():
        found += list(artist.get_facecolors()) + list(artist.get_edgecolors())
    elif isinstance(artist, Text) and artist.get_text():
        found.append(artist.get_color())
    out = set()
    for colour in found:
        if isinstance(colour, str) and colour in ("none", "auto"):
            continue
        if len(np.atleast_1d(colour)) == 4 and np.atleast_1d(colour)[3] == 0:
            continue  # fully transparent
        out.add(to_hex(colour))
    return out


def _legend_entries(fig: Figure) -> list[tuple[str, Artist]]:
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
    return [
        (text.get_text(), handle)
        for legend in legends
        for text, handle in zip(legend.get_texts(), legend.legend_handles, strict=True)
    ]


def test_palette_colours_are_agents_and_only_agents(drawn: tuple[Any, dict[str, Figure]]) -> None:
    data, figures = drawn
    palette = {to_hex(c) for c in plots.PALETTE}
    agents = {to_hex(c) for c in data.colors.values()}
    for name, fig in figures.items():
        used = set().union(*(_colours(a) for a in fig.findobj() if a is not fig.patch))
        assert used & palette <= agents, (name, sorted(used & palette - agents))
        for label, handle in _legend_entries(fig):
            colours = _colours(handle) - {"#ffffff"}
            if label in data.colors:  # an agent's entry is in that agent's colour
                assert to_hex(data.colors[label]) in colours, (name, label)
                assert colours & palette == {to_hex(data.colors[label])}, (name, label)
            else:  # anything else (severity, outcome, reference line) in no agent's colour
                assert not colours & palette, (name, label, colours)


def test_one_agent_one_colour_in_every_figure(drawn: tuple[Any, dict[str, Figure]]) -> None:
    data, figures = drawn
    assert data.colors == plots.agent_colors(data.agents)  # the one palette function
    dashboard = figures["dimensions_dashboard"].axes[0]
    intensity = figures["robustness_by_intensity"].axes[0]
    diagrams = figures["reliability_diagrams"]
    for agent in data.agents:
        (bars,) = [c for c in dashboard.containers if c.get_label() == agent]
        in_dashboard = to_hex(bars.patches[0].get_facecolor())
        (line,) = [ln for ln in intensity.get_lines() if ln.get_label() == agent]
        (panel,) = [ax for ax in diagrams.axes if ax.get_title().startswith(f"{agent} (ECE")]
        panel_bars = panel.containers[0]
        assert in_dashboard == to_hex(line.get_color()) == to_hex(data.colors[agent])
        assert to_hex(panel_bars.patches[0].get_facecolor()[:3]) == in_dashboard


@pytest.mark.parametrize("name", SMALL_MULTIPLES)
def test_small_multiples_share_one_legend_and_one_label(
    drawn: tuple[Any, dict[str, Figure]], name: str
) -> None:
    data, figures = drawn
    fig = figures[name]
    panels = [ax for ax in fig.axes if ax.get_visible() and ax.get_label() != "<colorbar>"]
    assert len(panels) == len(data.agents)
    assert len(fig.legends) == 1 and all(ax.get_legend() is None for ax in panels)
    assert fig.legends[0].get_texts()  # it says what the marks are
    assert all(ax.get_xlabel() == "" for ax in panels)
    assert fig.get_supxlabel()  # one x label for the figure
    if name != "safety_violations":  # constraint names label each row; no y label to share
        assert all(ax.get_ylabel() == "" for ax in panels)
        assert fig.get_supylabel()
    assert {ax.get_title().split(" (")[0] for ax in panels} == set(data.agents)


def test_reliability_diagram_legend_says_what_the_marks_are(
    drawn: tuple[Any, dict[str, Figure]],
) -> None:
    data, figures = drawn
    (legend,) = figures["reliability_diagrams"].legends
    texts = {t.get_text() for t in legend.get_texts()}
    assert texts == {
        "perfect calibration",
        "bar: accuracy of the bin's runs",
        "dot: at the bin's mean confidence",
        "n: runs in the bin",
    }
    for ax in figures["reliability_diagrams"].axes:
        agent = ax.get_title().split(" (")[0]
        counts = [int(t.get_text()) for t in ax.texts if t.get_label() == "_bin-count"]
        assert counts == [int(n) for n in data.reliability[agent].count]
        assert ax.get_title() == f"{agent} (ECE {data.reliability[agent].ece:.3f})"


def _checked_without_findings() -> pd.DataFrame:
    runs = load_tau_bench_example()
    return runs.assign(safety_checked=True, violations=[[] for _ in range(len(runs))])


@pytest.mark.parametrize(
    ("runs", "reason"),
    [
        (
            load_tau_bench_example().assign(safety_checked=False),
            "no baseline run was checked for safety (R_saf undefined)",
        ),
        (
            _checked_without_findings(),
            "safety was checked and no baseline run has a finding (nothing to draw)",
        ),
    ],
    ids=["not-checked", "no-findings"],
)
def test_a_safety_figure_without_data_is_skipped_with_the_reason(
    runs: pd.DataFrame, reason: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level("INFO", logger="reliability_lab.plots.figure_set"):
        saved = plots.save_all(
            runs, tmp_path, formats=("png",), only=["safety_violations", "pass_hat_k"], n_boot=20
        )
    assert saved.skipped == {"safety_violations": reason}
    assert not (tmp_path / "safety_violations.png").exists()
    manifest = json.loads((tmp_path / "manifest.json").read_text(encoding="utf-8"))
    entry = {f["name"]: f for f in manifest["figures"]}["safety_violations"]
    assert entry["skipped"] == reason and "files" not in entry
    assert f"figure safety_violations skipped: {reason}" in caplog.messages
    with pytest.raises(ValueError, match=r"nothing to draw|R_saf undefined"):
        plots.draw_figure("safety_violations", plots.figure_data(runs, n_boot=20))


def test_safety_panels_share_one_count_scale_that_fits_every_agent(
    drawn: tuple[Any, dict[str, Figure]],
) -> None:
    data, figures = drawn
    most = max(table.sum(axis=1).max() for table in data.violations.values() if not table.empty)
    for ax in figures["safety_violations"].axes:
        lo, hi = ax.get_xlim()
        assert lo == 0 and hi >= most  # no bar is cut off, no negative ticks
        widths = [p.get_x() + p.get_width() for p in ax.patches]
        assert max(widths, default=0) <= hi
