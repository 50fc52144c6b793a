"""plot_paired_differences draws compare_agents' table: markers at the differences, bars from
the interval ends, filled markers exactly where the interval excludes 0, the Holm family named."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest
from matplotlib import pyplot as plt
from matplotlib.collections import LineCollection, PathCollection
from matplotlib.colors import to_rgba
from matplotlib.container import ErrorbarContainer

from reliability_lab import compare_agents, plots
from reliability_lab.simulate import SimulatedAgent, simulate_runs

RUNS = simulate_runs(
    [
        SimulatedAgent(name="old", success_a=0.6, success_b=0.6),
        SimulatedAgent(name="new", success_a=2.0, success_b=0.6),
    ],
    n_tasks=30,
    runs=4,
    seed=5,
)
TABLE = compare_agents(RUNS, "old", "new", metrics=["accuracy", "C_out", "C_res"], n_boot=300)


def _drawn(ax: plt.Axes) -> tuple[np.ndarray, list[tuple[float, float, float]], np.ndarray]:
    """Marker (x, y), bar (y, low end, high end) sorted by y, and marker face colours."""
    (markers,) = [c for c in ax.collections if isinstance(c, PathCollection)]
    (container,) = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    (bars,) = container.lines[2]
    assert isinstance(bars, LineCollection)
    ends = sorted(
        (float(s[0][1]), float(min(s[:, 0])), float(max(s[:, 0]))) for s in bars.get_segments()
    )
    return np.asarray(markers.get_offsets(), dtype=float), ends, markers.get_facecolors()


def test_markers_and_bars_are_the_comparison_cells() -> None:
    ax = plots.plot_paired_differences(TABLE)
    points, ends, _ = _drawn(ax)
    np.testing.assert_allclose(points[:, 0], TABLE["difference"])
    np.testing.assert_allclose(points[:, 1], [0, 1, 2])
    for (y, lo, hi), metric in zip(ends, TABLE.index, strict=True):
        assert y == TABLE.index.get_loc(metric)
        assert lo == pytest.approx(TABLE.loc[metric, "difference_lo"])
        assert hi == pytest.approx(TABLE.loc[metric, "difference_hi"])
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["accuracy", "$C_{\\mathrm{out}}$", "$C_{\\mathrm{res}}$"]
    assert ax.get_ylim()[0] > ax.get_ylim()[1]  # the first metric on top
    assert "new − old" in ax.get_xlabel()


def test_the_accuracy_difference_is_the_difference_of_pooled_success_rates() -> None:
    # Independent of compare_agents: each agent's share of successful runs.
    rate = RUNS.groupby("agent")["success"].mean()
    ax = plots.plot_paired_differences(TABLE, metrics=["accuracy"])
    points, _, _ = _drawn(ax)
    assert points[0, 0] == pytest.approx(rate["new"] - rate["old"])


def test_filled_markers_exactly_where_the_interval_excludes_zero() -> None:
    # The case: intervals excluding 0 beside p_Holm = 1 — the fill follows the bar.
    table = TABLE.assign(
        difference=[0.1, 0.1, -0.1],
        difference_lo=[0.05, -0.02, -0.2],
        difference_hi=[0.2, 0.3, -0.01],
        p_adjusted=[1.0, 0.2, 0.04],
    )
    ax = plots.plot_paired_differences(table, alpha=0.05)
    _, _, faces = _drawn(ax)
    white = np.array(to_rgba("white"))
    assert [not np.allclose(f, white) for f in faces] == [True, False, True]
    texts = {t.get_text(): t for t in ax.texts}
    assert {"1.000", "0.200", "0.040"} <= set(texts)
    assert texts["0.040"].get_fontweight() == "bold"
    assert texts["1.000"].get_fontweight() == "normal"
    ax = plots.plot_paired_differences(table, annotate=False)
    assert not any(t.get_text() == "0.200" for t in ax.texts)


def test_the_title_names_the_holm_family() -> None:
    ax = plots.plot_paired_differences(TABLE)
    assert ax.get_title(loc="left").replace("\n", " ") == (
        "Holm over 3 metrics: accuracy, C_out, C_res"
    )


def test_an_undefined_difference_is_marked_not_drawn() -> None:
    table = TABLE.copy()
    table.loc["C_res", ["difference", "difference_lo", "difference_hi"]] = np.nan
    ax = plots.plot_paired_differences(table)
    points, ends, _ = _drawn(ax)
    assert len(points) == 2 and [e[0] for e in ends] == [0.0, 1.0]
    assert "n/a" in {t.get_text() for t in ax.texts}


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: plots.plot_paired_differences(TABLE.drop(columns="p_adjusted")), "comparison"),
        (lambda: plots.plot_paired_differences(TABLE, metrics=["R"]), "not compared"),
        (lambda: plots.plot_paired_differences(TABLE, alpha=1.5), "alpha"),
        (lambda: plots.plot_paired_differences(pd.DataFrame()), "comparison"),
    ],
)
def test_bad_input_names_the_argument(call: object, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        call()  # type: ignore[operator]
