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
    assert list(line.get_xdata()) == ["mild", "severe"]
    np.testing.assert_allclose(line.get_ydata(), [7 / 9, 1 / 3])


def test_bad_input_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="no rows for condition 'prompt'"):
        plots.plot_robustness_by_intensity(TABLE, "prompt")
    with pytest.raises(ValueError, match="metric must be"):
        plots.plot_robustness_by_intensity(TABLE, "fault", metric="R")
