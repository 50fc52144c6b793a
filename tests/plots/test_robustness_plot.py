"""plot_robustness_by_intensity draws exactly the table it is given."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest

from reliability_lab import plots

NAN = float("nan")
# Laid out as robustness_by_intensity returns it: agent, condition, intensity in natural order.
TABLE = pd.DataFrame(
    {
        "agent": ["a", "a", "a", "a", "a", "b", "b"],
        "condition": ["fault", "fault", "fault", "structural", "structural", "fault", "fault"],
        "intensity": ["p=0.1", "p=0.2", "p=0.4", "mild", "severe", "p=0.1", "p=0.4"],
        "n_variants": 1,
        "n_runs": 10,
        "accuracy": [0.8, 0.6, 0.2, 0.7, 0.3, 0.5, 0.1],
        "baseline_accuracy": [0.9, 0.9, 0.9, 0.9, 0.9, 0.6, 0.6],
        "robustness": [0.8 / 0.9, 0.6 / 0.9, 0.2 / 0.9, 7 / 9, 1 / 3, 0.5 / 0.6, 0.1 / 0.6],
        "fault_rate": [0.1, 0.2, 0.4, NAN, NAN, 0.1, 0.4],
    }
)


def test_fault_rates_on_a_numeric_axis_with_the_baseline_at_zero() -> None:
    ax = plots.plot_robustness_by_intensity(TABLE, "fault")
    a, b = ax.get_lines()
    np.testing.assert_allclose(a.get_xdata(), [0.0, 0.1, 0.2, 0.4])
    np.testing.assert_allclose(a.get_ydata(), [0.9, 0.8, 0.6, 0.2])
    np.testing.assert_allclose(b.get_xdata(), [0.0, 0.1, 0.4])
    np.testing.assert_allclose(b.get_ydata(), [0.6, 0.5, 0.1])
    assert ax.get_xlabel() == "fault rate"


def test_named_intensities_in_the_tables_order() -> None:
    ax = plots.plot_robustness_by_intensity(TABLE, "structural", metric="robustness")
    (line,) = ax.get_lines()
    np.testing.assert_allclose(line.get_xdata(), [0, 1])  # the table's order ...
    assert [t.get_text() for t in ax.get_xticklabels()] == ["mild", "severe"]  # ... named
    np.testing.assert_allclose(line.get_ydata(), [7 / 9, 1 / 3])


def test_accuracy_of_named_intensities_starts_at_the_baseline() -> None:
    ax = plots.plot_robustness_by_intensity(TABLE, "structural")
    (line,) = ax.get_lines()
    assert [t.get_text() for t in ax.get_xticklabels()] == ["baseline", "mild", "severe"]
    np.testing.assert_allclose(line.get_xdata(), [0, 1, 2])
    np.testing.assert_allclose(line.get_ydata(), [0.9, 0.7, 0.3])


def test_dodged_agents_sit_apart_around_the_true_intensity_in_their_colours() -> None:
    colors = {"a": "#111111", "b": "#222222"}
    ax = plots.plot_robustness_by_intensity(
        TABLE, "fault", metric="robustness", colors=colors, dodge=True
    )
    a, b = ax.get_lines()
    shift_a = a.get_xdata()[[0, 2]] - [0.1, 0.4]  # a's p=0.1 and p=0.4 points
    shift_b = b.get_xdata() - [0.1, 0.4]
    assert np.all(shift_a < 0) and np.all(shift_b > 0)  # a left of b, symmetric about it
    np.testing.assert_allclose(shift_a, -shift_b)
    assert np.all(np.abs(shift_b) < 0.05)  # well within the 0.1 between fault rates
    assert (a.get_color(), b.get_color()) == ("#111111", "#222222")


def test_bad_input_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="no rows for condition 'prompt'"):
        plots.plot_robustness_by_intensity(TABLE, "prompt")
    with pytest.raises(ValueError, match="metric must be"):
        plots.plot_robustness_by_intensity(TABLE, "fault", metric="R")
