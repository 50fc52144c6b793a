"""Paper-ready figures. Plots draw what metric and report functions return; they compute
nothing new.

Every function has the signature ``plot_x(data, *, ax=None, **kwargs) -> Axes``. Metric names
print as their symbols (``C_out`` as $C_{\\mathrm{out}}$, :func:`metric_label`). Call
:func:`use_paper_style` once in a notebook for the house fonts and the colour-blind-safe
palette, and :func:`save_figure` to write vector PDF (papers) and PNG side by side;
:func:`save_all` writes the whole figure set of a results directory or run table
(``reliability-lab figures DIR``).

=====================================  =================================================
figure                                 data
=====================================  =================================================
:func:`plot_dimension_dashboard`       report: R_Con, R_Pred, R_Rob, R, R_saf with intervals
:func:`plot_dimension_heatmap`         report: agents × metrics (seaborn)
:func:`plot_dimension_radar`           report: the four dimensions (polar axes)
:func:`plot_metric_intervals`          report: any metrics, markers with intervals
:func:`plot_metric_bars`               report: any metrics, bars with intervals
:func:`plot_accuracy_vs_reliability`   report: accuracy against R, both intervals
:func:`plot_reliability_diagram`       ``metrics.reliability_curve``
:func:`plot_accuracy_coverage`         ``metrics.risk_coverage_curve``
:func:`plot_risk_coverage`             ``metrics.risk_coverage_curve``
:func:`plot_robustness_by_condition`   report: R_fault, R_struct, R_prompt
:func:`plot_robustness_by_intensity`   ``report.robustness_by_intensity``
:func:`plot_safety_violations`         ``report.violation_counts``
:func:`plot_paired_differences`        ``compare_agents``: differences with intervals
:func:`plot_outcome_matrix`            run table of one agent
:func:`plot_success_rate_histogram`    ``metrics.per_task_consistency``
:func:`plot_pass_hat_k`                ``metrics.pass_hat_k_curve``
:func:`plot_consistency_vs_accuracy`   ``metrics.per_task_consistency``
:func:`plot_trajectory_consistency`    ``metrics.per_task_consistency``
:func:`plot_resource_spread`           run table of one agent
:func:`plot_session_risk`              ``evaluate_session(...).agent_reliability`` or a
                                       run's stored ``SessionScores``
=====================================  =================================================
"""

from reliability_lab.plots.compare import plot_paired_differences
from reliability_lab.plots.consistency import (
    plot_consistency_vs_accuracy,
    plot_resource_spread,
    plot_trajectory_consistency,
)
from reliability_lab.plots.curves import (
    plot_accuracy_coverage,
    plot_reliability_diagram,
    plot_risk_coverage,
)
from reliability_lab.plots.figure_set import (
    FIGURES,
    FigureData,
    FigureSpec,
    SavedFigures,
    draw_figure,
    figure_data,
    save_all,
)
from reliability_lab.plots.outcomes import (
    plot_outcome_matrix,
    plot_pass_hat_k,
    plot_success_rate_histogram,
)
from reliability_lab.plots.report import (
    DASHBOARD_GROUPS,
    DASHBOARD_METRICS,
    HEATMAP_METRICS,
    INTERVAL_GROUPS,
    plot_accuracy_vs_reliability,
    plot_dimension_dashboard,
    plot_dimension_heatmap,
    plot_dimension_radar,
    plot_metric_bars,
    plot_metric_intervals,
)
from reliability_lab.plots.robustness import (
    plot_robustness_by_condition,
    plot_robustness_by_intensity,
)
from reliability_lab.plots.safety import SEVERITY_COLORS, plot_safety_violations
from reliability_lab.plots.sessions import plot_session_risk
from reliability_lab.plots.style import (
    PALETTE,
    PAPER_STYLE,
    agent_colors,
    metric_label,
    paper_style,
    save_figure,
    use_paper_style,
)

__all__ = [
    "DASHBOARD_GROUPS",
    "DASHBOARD_METRICS",
    "FIGURES",
    "HEATMAP_METRICS",
    "INTERVAL_GROUPS",
    "PALETTE",
    "PAPER_STYLE",
    "SEVERITY_COLORS",
    "FigureData",
    "FigureSpec",
    "SavedFigures",
    "agent_colors",
    "draw_figure",
    "figure_data",
    "metric_label",
    "paper_style",
    "plot_accuracy_coverage",
    "plot_accuracy_vs_reliability",
    "plot_consistency_vs_accuracy",
    "plot_dimension_dashboard",
    "plot_dimension_heatmap",
    "plot_dimension_radar",
    "plot_metric_bars",
    "plot_metric_intervals",
    "plot_outcome_matrix",
    "plot_paired_differences",
    "plot_pass_hat_k",
    "plot_reliability_diagram",
    "plot_resource_spread",
    "plot_risk_coverage",
    "plot_robustness_by_condition",
    "plot_robustness_by_intensity",
    "plot_safety_violations",
    "plot_session_risk",
    "plot_success_rate_histogram",
    "plot_trajectory_consistency",
    "save_all",
    "save_figure",
    "use_paper_style",
]
