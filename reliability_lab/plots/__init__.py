"""Paper-ready figures. Plots draw what metric functions return; they compute nothing new.

Every function has the signature ``plot_x(data, *, ax=None, **kwargs) -> Axes``. Call
:func:`use_paper_style` once for consistent fonts and the colour-blind-safe palette, and
:func:`save_figure` to write vector PDF (papers) and PNG (notebooks) side by side.
"""

from reliability_lab.plots.consistency import (
    plot_consistency_vs_accuracy,
    plot_resource_spread,
    plot_trajectory_consistency,
)
from reliability_lab.plots.curves import plot_reliability_diagram, plot_risk_coverage
from reliability_lab.plots.outcomes import plot_outcome_matrix, plot_pass_hat_k
from reliability_lab.plots.report import plot_dimension_profile, plot_metric_intervals
from reliability_lab.plots.robustness import plot_robustness_by_intensity
from reliability_lab.plots.style import PALETTE, save_figure, use_paper_style

__all__ = [
    "PALETTE",
    "plot_consistency_vs_accuracy",
    "plot_dimension_profile",
    "plot_metric_intervals",
    "plot_outcome_matrix",
    "plot_pass_hat_k",
    "plot_reliability_diagram",
    "plot_resource_spread",
    "plot_risk_coverage",
    "plot_robustness_by_intensity",
    "plot_trajectory_consistency",
    "save_figure",
    "use_paper_style",
]
