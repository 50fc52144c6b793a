"""Plot functions: each returns an Axes drawing exactly the hand-built input; bad input is a
clear ValueError. Expected counts are worked out by hand from the inputs below."""

from __future__ import annotations

import math
import warnings

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest
from matplotlib.axes import Axes
from matplotlib.collections import Collection
from matplotlib.lines import Line2D

from reliability_lab import metrics, plots
from reliability_lab.errors import UndefinedMetricWarning


def _legend(ax: Axes) -> list[str]:
    legend = ax.get_legend()
    assert legend is not None
    return [t.get_text() for t in legend.get_texts()]


def _y(line: Line2D) -> np.ndarray:
    return np.asarray(line.get_ydata(), dtype=float)


def _points(collection: Collection) -> np.ndarray:
    return np.asarray(collection.get_offsets(), dtype=float)


def _sorted_points(collection: Collection) -> list[tuple[float, ...]]:
    return sorted(tuple(p) for p in _points(collection).tolist())


# Three tasks × 3 runs: t1 succeeds 3/3, t2 1/3, t3 0/3 (t3 run 2 is missing).
RUNS = pd.DataFrame(
    {
        "agent": "a",
        "condition": "baseline",
        "task_id": ["t1", "t1", "t1", "t2", "t2", "t2", "t3", "t3"],
        "run": [0, 1, 2, 0, 1, 2, 0, 1],
        "success": [True, True, True, False, True, False, False, False],
        "num_actions": [2.0, 2.0, 3.0, 1.0, 4.0, np.nan, 0.0, 0.0],
    }
)


def test_outcome_matrix_draws_one_cell_per_task_and_run() -> None:
    ax = plots.plot_outcome_matrix(RUNS)
    assert isinstance(ax, Axes)
    (image,) = ax.get_images()
    cells: np.ndarray = np.ma.filled(np.ma.asarray(image.get_array()), np.nan)
    # Rows are runs, columns tasks sorted by successes: t1 (3), t2 (1), t3 (0).
    expected = np.array([[1, 0, 0], [1, 1, 0], [1, 0, np.nan]])
    np.testing.assert_array_equal(cells, expected)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["t1", "t2", "t3"]
    assert _legend(ax) == ["success", "failure"]


def test_outcome_matrix_unsorted_keeps_label_order() -> None:
    runs = RUNS.iloc[::-1]
    ax = plots.plot_outcome_matrix(runs, sort=False)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["t1", "t2", "t3"]


@pytest.mark.parametrize(
    ("runs", "message"),
    [
        (RUNS.drop(columns="run"), "missing column"),
        (RUNS.assign(agent=["a"] * 4 + ["b"] * 4), "'agent'"),
        (pd.concat([RUNS, RUNS.iloc[:1]]), "appears more than once"),
        (RUNS.iloc[:0], "no rows"),
    ],
)
def test_outcome_matrix_bad_input(runs: pd.DataFrame, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        plots.plot_outcome_matrix(runs)


def test_pass_hat_k_draws_each_curve_at_every_k() -> None:
    curve = metrics.PassHatKCurve(
        k=np.array([1, 2]),
        pass_hat_k=np.array([0.5, 1 / 3]),
        pass_at_k=np.array([0.5, 2 / 3]),
        independent=np.array([0.5, 5 / 12]),
        naive=np.array([0.5, 0.25]),
    )
    ax = plots.plot_pass_hat_k(curve, label="agent", pass_at_k=True)
    lines = ax.get_lines()
    assert len(lines) == 4
    np.testing.assert_allclose(_y(lines[0]), [0.5, 1 / 3])
    np.testing.assert_allclose(_y(lines[2]), [0.5, 0.25])
    np.testing.assert_allclose(_y(lines[3]), [0.5, 2 / 3])
    labels = _legend(ax)
    assert labels[0] == "agent: pass$^{k}$" and labels[3] == "agent: pass@$k$"
    assert len(plots.plot_pass_hat_k(curve, references=False).get_lines()) == 1


def test_pass_hat_k_rejects_a_non_curve() -> None:
    with pytest.raises(TypeError, match="PassHatKCurve"):
        plots.plot_pass_hat_k([0.5, 0.3])  # type: ignore[arg-type]


# Per-task table by hand: p̂ = 1, 1, 0.5, 0 → C_out (corrected) = 1, 1, 0, 1.
TASKS = pd.DataFrame(
    {
        "success_rate": [1.0, 1.0, 0.5, 0.0],
        "C_out": [1.0, 1.0, 0.0, 1.0],
        "C_traj_d": [1.0, 0.5, math.nan, math.nan],
        "C_traj_s": [1.0, 0.25, math.nan, math.nan],
    },
    index=pd.Index(["a", "b", "c", "d"], name="task_id"),
)


def test_consistency_vs_accuracy_one_marker_per_distinct_point() -> None:
    ax = plots.plot_consistency_vs_accuracy(TASKS, label="agent")
    (points,) = ax.collections
    offsets = _sorted_points(points)
    assert offsets == [(0.0, 1.0), (0.5, 0.0), (1.0, 1.0)]
    annotations = sorted(t.get_text() for t in ax.texts)
    assert annotations == ["1", "1", "2"]
    (reference,) = ax.get_lines()
    x, y = np.asarray(reference.get_xdata(), dtype=float), _y(reference)
    assert len(x) == 101
    np.testing.assert_allclose(y, (2 * x - 1) ** 2, atol=1e-12)
    assert "agent: tasks (the number: how many)" in _legend(ax)
    assert ax.get_legend().get_title().get_text() == "4 tasks"


def test_consistency_vs_accuracy_literal_reference_and_none() -> None:
    ax = plots.plot_consistency_vs_accuracy(TASKS, variant="literal")
    y = _y(ax.get_lines()[0])
    # Literal formula on 0/1 outcomes: 1 for unanimous tasks (p̂ = 0 or 1), else 0.
    assert y[0] == 1 and y[-1] == 1 and not y[1:-1].any()
    assert not plots.plot_consistency_vs_accuracy(TASKS, variant=None).get_lines()


def test_consistency_vs_accuracy_bad_input() -> None:
    with pytest.raises(ValueError, match="C_out"):
        plots.plot_consistency_vs_accuracy(TASKS.drop(columns="C_out"))
    with pytest.raises(ValueError, match="NaN for every task"):
        plots.plot_consistency_vs_accuracy(TASKS.assign(C_out=math.nan))
    with pytest.raises(ValueError, match="variant"):
        plots.plot_consistency_vs_accuracy(TASKS, variant="typo")


def test_trajectory_consistency_skips_undefined_tasks() -> None:
    ax = plots.plot_trajectory_consistency(TASKS)
    points = ax.collections[0]
    assert _sorted_points(points) == [(0.5, 0.25), (1.0, 1.0)]
    assert _legend(ax) == ["tasks (the number: how many)"]
    assert ax.get_legend().get_title().get_text() == "2 tasks"  # drawn, of the 4


def test_trajectory_consistency_bad_input() -> None:
    with pytest.raises(ValueError, match="pass actions="):
        plots.plot_trajectory_consistency(TASKS[["success_rate", "C_out"]])
    with pytest.raises(ValueError, match="NaN for every task"):
        plots.plot_trajectory_consistency(TASKS.iloc[2:])


def test_resource_spread_one_point_per_recorded_run() -> None:
    ax = plots.plot_resource_spread(RUNS, "num_actions")
    successes, failures = ax.collections
    # 7 recorded values (t2 run 2 is NaN): 4 successes, 3 failures.
    assert len(_points(successes)) == 4 and len(_points(failures)) == 3
    # Tasks ordered by median: t3 (0), t2 (2.5), t1 (2) → t3, t1, t2.
    assert [t.get_text() for t in ax.get_xticklabels()] == ["t3", "t1", "t2"]
    assert sorted(_points(successes)[:, 1].tolist()) == [2.0, 2.0, 3.0, 4.0]


def test_resource_spread_bad_input() -> None:
    with pytest.raises(ValueError, match="'cost_usd'"):
        plots.plot_resource_spread(RUNS, "cost_usd")
    with pytest.raises(ValueError, match="no recorded"):
        plots.plot_resource_spread(RUNS.assign(num_actions=np.nan), "num_actions")


def test_plots_draw_what_the_metrics_return() -> None:
    # End to end: the per-task table and pass^k curve from the metric functions.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        tasks = metrics.per_task_consistency(RUNS["success"], RUNS["task_id"])
    curve = metrics.pass_hat_k_curve(RUNS["success"], RUNS["task_id"])
    ax = plots.plot_pass_hat_k(curve)
    # max_k = fewest runs of a task (t3 has 2); pass^1 = mean p̂, pass^2 = (1 + 0 + 0)/3.
    np.testing.assert_allclose(_y(ax.get_lines()[0]), [(1 + 1 / 3 + 0) / 3, 1 / 3])
    ax = plots.plot_consistency_vs_accuracy(tasks)
    # t1: p̂ 1 → 1; t2: p̂ 1/3 → 1/9; t3: p̂ 0 → 1.
    offsets = _sorted_points(ax.collections[0])
    np.testing.assert_allclose(offsets, [(0, 1), (1 / 3, 1 / 9), (1, 1)])


def test_new_plots_are_exported() -> None:
    for name in (
        "plot_outcome_matrix",
        "plot_pass_hat_k",
        "plot_consistency_vs_accuracy",
        "plot_trajectory_consistency",
        "plot_resource_spread",
    ):
        assert name in plots.__all__ and callable(getattr(plots, name))
