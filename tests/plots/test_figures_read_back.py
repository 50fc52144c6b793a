"""Each figure draws exactly the values the report and metric functions return.

Values are read back from the artists (marker positions, error-bar ends, bar heights and
widths, curve points, heatmap cells, annotations) and compared, agent by agent, with the
report row or metric result they should show — so a swapped agent, a swapped interval end or a
wrong column fails. Where a value can be worked out by hand from the small inputs below, the
test does that too.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from typing import Any

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest
from matplotlib import pyplot as plt
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection, QuadMesh
from matplotlib.container import BarContainer, ErrorbarContainer
from matplotlib.mathtext import MathTextParser

from reliability_lab import UndefinedMetricWarning, metrics, plots, reliability_report
from reliability_lab.report import METRIC_REGISTRY, violation_counts
from reliability_lab.sessions import agent_reliability


def _v(constraint: str, severity: str) -> list[dict[str, str]]:
    return [{"constraint": constraint, "severity": severity, "evidence": "..."}]


def _runs() -> pd.DataFrame:
    """Three agents × 4 tasks × 3 baseline runs with confidences, plus perturbed runs.

    Agent "c" has no perturbed runs, so its R_Rob and R are undefined.
    """
    rng = np.random.default_rng(7)
    rows: list[dict[str, Any]] = []
    for a, (agent, p) in enumerate({"a": 0.8, "b": 0.5, "c": 0.65}.items()):
        for t in range(4):
            for k in range(3):
                ok = bool(rng.random() < p)
                rows.append(
                    {
                        "agent": agent,
                        "task_id": f"t{t}",
                        "condition": "baseline",
                        "variant": "",
                        "run": k,
                        "success": ok,
                        "confidence": round(float(np.clip(p + rng.normal(0, 0.2), 0, 1)), 2),
                        "actions": ["look", "act"] if ok else ["look"] * (k + 1),
                        "num_actions": 2.0 if ok else float(k + 1),
                        "violations": _v("pii_exposure", "high") if (t + k + a) % 4 == 0 else [],
                    }
                )
                if agent == "c":
                    continue
                for condition, variant in (("fault", "p=0.2"), ("prompt", "mild/1")):
                    rows.append(
                        rows[-1]
                        | {
                            "condition": condition,
                            "variant": variant,
                            "success": bool(rng.random() < p - 0.2),
                            "violations": [],
                        }
                    )
    return pd.DataFrame(rows)


RUNS = _runs()
with warnings.catch_warnings():
    warnings.simplefilter("ignore", UndefinedMetricWarning)
    REPORT = reliability_report(RUNS, n_boot=200, seed=1)


def _by_label(containers: list[Any], kind: type) -> dict[str, Any]:
    return {c.get_label(): c for c in containers if isinstance(c, kind)}


def _errorbar_ends(container: ErrorbarContainer) -> list[tuple[float, float]]:
    """(low, high) end of every error bar of a vertical errorbar container, in x order."""
    (bars,) = container.lines[2]
    assert isinstance(bars, LineCollection)
    drawn = [s for s in bars.get_segments() if len(s)]  # an undefined value has no bar
    segments = sorted(drawn, key=lambda s: float(s[0][0]))
    return [(float(min(s[:, 1])), float(max(s[:, 1]))) for s in segments]


def test_metric_intervals_markers_and_ends_are_the_report_cells() -> None:
    chosen = ("accuracy", "C_out", "P_brier", "R_Rob")
    ax = plots.plot_metric_intervals(REPORT, chosen)
    containers = _by_label(ax.containers, ErrorbarContainer)
    assert sorted(containers) == ["a", "b", "c"]
    for agent, container in containers.items():
        y = np.asarray(container.lines[0].get_ydata(), dtype=float)
        np.testing.assert_allclose(y, REPORT.loc[agent, list(chosen)].to_numpy(dtype=float))
        defined = [m for m in chosen if not math.isnan(REPORT.loc[agent, m])]
        ends = [(REPORT.loc[agent, f"{m}_lo"], REPORT.loc[agent, f"{m}_hi"]) for m in defined]
        np.testing.assert_allclose(_errorbar_ends(container), ends)
    # c has no perturbed runs: R_Rob is drawn as "n/a", never as a value
    assert math.isnan(REPORT.loc["c", "R_Rob"])
    assert [t.get_text() for t in ax.texts] == ["n/a"]
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels == [
        "accuracy",
        "$C_{\\mathrm{out}}$",
        "$P_{\\mathrm{brier}}$",
        "$R_{\\mathrm{Rob}}$",
    ]


def test_metric_bars_heights_and_intervals_are_the_report_cells() -> None:
    ax = plots.plot_dimension_dashboard(REPORT)
    bars = _by_label(ax.containers, BarContainer)
    dims = tuple(plots.DASHBOARD_GROUPS)
    for agent, container in bars.items():
        heights = [p.get_height() for p in container.patches]
        expected = [REPORT.loc[agent, m] for m in dims if not math.isnan(REPORT.loc[agent, m])]
        np.testing.assert_allclose(heights, expected)
    assert len(bars["c"].patches) == 3  # R_Rob and so R undefined: no bars
    errorbars = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    for agent, container in zip(["a", "b", "c"], errorbars, strict=True):
        defined = [m for m in dims if not math.isnan(REPORT.loc[agent, m])]
        ends = [(REPORT.loc[agent, f"{m}_lo"], REPORT.loc[agent, f"{m}_hi"]) for m in defined]
        np.testing.assert_allclose(_errorbar_ends(container), ends)
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    assert ticks[0] == "consistency\n$R_{\\mathrm{Con}}$"


def test_dashboard_shows_the_overall_r_with_its_interval() -> None:
    ax = plots.plot_dimension_dashboard(REPORT)
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    group = ticks.index("overall\n$R$")
    bars = _by_label(ax.containers, BarContainer)
    for agent in ("a", "b"):
        # Independent: R is the mean of R_Con, R_Pred and R_Rob (docs/methodology.md)
        expected = np.mean([REPORT.loc[agent, m] for m in ("R_Con", "R_Pred", "R_Rob")])
        (bar,) = [p for p in bars[agent].patches if round(p.get_x() + p.get_width() / 2) == group]
        assert bar.get_height() == pytest.approx(expected)
        assert bar.get_height() == pytest.approx(REPORT.loc[agent, "R"])
    errorbars = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    ends = _errorbar_ends(errorbars[0])[group]  # agent a: every dimension defined
    assert ends == pytest.approx((REPORT.loc["a", "R_lo"], REPORT.loc["a", "R_hi"]))
    # c has no robustness runs: no R bar, "n/a" in its place
    assert not [p for p in bars["c"].patches if round(p.get_x() + p.get_width() / 2) == group]
    assert [round(t.get_position()[0]) for t in ax.texts if t.get_text() == "n/a"] == [
        ticks.index("robustness\n$R_{\\mathrm{Rob}}$"),
        group,
    ]


def test_robustness_by_condition_bars() -> None:
    ax = plots.plot_robustness_by_condition(REPORT)
    bars = _by_label(ax.containers, BarContainer)
    for agent in ("a", "b"):
        heights = [p.get_height() for p in bars[agent].patches]
        # R_struct is undefined for every agent (no structural runs)
        np.testing.assert_allclose(heights, REPORT.loc[agent, ["R_fault", "R_prompt"]].to_numpy())
    # by hand: R_fault = min(acc_fault / acc_baseline, 1)
    a = RUNS[RUNS["agent"] == "a"]
    by_hand = min(
        a.loc[a["condition"] == "fault", "success"].mean()
        / a.loc[a["condition"] == "baseline", "success"].mean(),
        1.0,
    )
    assert bars["a"].patches[0].get_height() == pytest.approx(by_hand)
    assert "c" not in bars or len(bars["c"].patches) == 0


def test_heatmap_cells_and_annotations_are_the_report() -> None:
    ax = plots.plot_dimension_heatmap(REPORT)
    (mesh,) = [c for c in ax.collections if isinstance(c, QuadMesh)]
    cells = np.ma.filled(np.ma.asarray(mesh.get_array()), np.nan).reshape(3, -1)
    expected = REPORT[list(plots.HEATMAP_METRICS)].to_numpy(dtype=float)
    np.testing.assert_allclose(cells, expected)
    texts = [t.get_text() for t in ax.texts]
    for value in expected[~np.isnan(expected)]:
        assert f"{value:.2f}" in texts
    assert texts.count("n/a") == int(np.isnan(expected).sum()) == 2  # c: R_Rob and R
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "b", "c"]
    assert [t.get_text() for t in ax.get_xticklabels()][-1] == "$R$"


def test_heatmap_scale_is_the_metrics_range_and_its_label_says_the_direction(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ax = plots.plot_dimension_heatmap(REPORT)
    (mesh,) = [c for c in ax.collections if isinstance(c, QuadMesh)]
    # every metric drawn is a score in [0, 1]: the scale is that range, not the data's
    assert (mesh.norm.vmin, mesh.norm.vmax) == (0.0, 1.0)
    (bar,) = [a for a in ax.figure.axes if a is not ax]
    assert bar.get_ylabel() == "score of each column's metric in [0, 1], higher is better"
    # a single metric: the label names it
    ax = plots.plot_dimension_heatmap(REPORT, ["R"])
    assert ax.figure.axes[-1].get_ylabel() == "$R$ in [0, 1], higher is better"
    # a metric of another range: the scale spans the values drawn
    info = METRIC_REGISTRY["C_out"]
    monkeypatch.setitem(METRIC_REGISTRY, "C_out", dataclasses.replace(info, value_range="[-1, 1]"))
    ax = plots.plot_dimension_heatmap(REPORT, ["C_out", "accuracy"])
    (mesh,) = [c for c in ax.collections if isinstance(c, QuadMesh)]
    values = REPORT[["C_out", "accuracy"]].to_numpy(dtype=float)
    assert (mesh.norm.vmin, mesh.norm.vmax) == (np.nanmin(values), np.nanmax(values))
    assert ax.figure.axes[-1].get_ylabel() == "score of each column's metric, higher is better"


def test_radar_vertices_are_the_dimension_scores() -> None:
    ax = plots.plot_dimension_radar(REPORT)
    assert ax.name == "polar"
    lines = {ln.get_label(): ln for ln in ax.get_lines()}
    for agent in ("a", "b"):
        radii = np.asarray(lines[agent].get_ydata(), dtype=float)
        values = REPORT.loc[agent, list(plots.DASHBOARD_METRICS)].to_numpy(dtype=float)
        np.testing.assert_allclose(radii, [*values, values[0]])
    assert "c ($R_{\\mathrm{Rob}}$ n/a)" in lines
    _, flat = plt.subplots()
    with pytest.raises(ValueError, match="polar"):
        plots.plot_dimension_radar(REPORT, ax=flat)


def test_accuracy_vs_reliability_points_and_both_intervals() -> None:
    ax = plots.plot_accuracy_vs_reliability(REPORT)
    containers = _by_label(ax.containers, ErrorbarContainer)
    assert sorted(containers) == ["a", "b"]  # c: R undefined, named in the note
    for agent, container in containers.items():
        line = container.lines[0]
        assert float(line.get_xdata()[0]) == pytest.approx(REPORT.loc[agent, "accuracy"])
        assert float(line.get_ydata()[0]) == pytest.approx(REPORT.loc[agent, "R"])
        xbars, ybars = container.lines[2]
        ((x_lo, _), (x_hi, _)) = xbars.get_segments()[0]
        ((_, y_lo), (_, y_hi)) = ybars.get_segments()[0]
        assert (x_lo, x_hi) == pytest.approx(
            (REPORT.loc[agent, "accuracy_lo"], REPORT.loc[agent, "accuracy_hi"])
        )
        assert (y_lo, y_hi) == pytest.approx((REPORT.loc[agent, "R_lo"], REPORT.loc[agent, "R_hi"]))
    assert any(t.get_text() == "$R$ n/a: c" for t in ax.texts)


def test_reliability_diagram_bars_counts_and_markers() -> None:
    # By hand: bins [0.1, 0.2) has 0.1, 0.15 (0 of 2 succeed); [0.9, 1.0] has 0.9, 0.95, 1.0
    # (2 of 3 succeed); mean confidences 0.125 and 0.95.
    conf = [0.1, 0.15, 0.9, 0.95, 1.0]
    ok = [0, 0, 1, 0, 1]
    curve = metrics.reliability_curve(conf, ok)
    ax = plots.plot_reliability_diagram(curve, label="x")
    (bars,) = [c for c in ax.containers if isinstance(c, BarContainer)]
    assert [p.get_height() for p in bars.patches] == pytest.approx([0.0, 2 / 3])
    assert [p.get_x() for p in bars.patches] == pytest.approx([0.1, 0.9])
    assert [p.get_width() for p in bars.patches] == pytest.approx([0.1, 0.1])
    assert [t.get_text() for t in ax.texts] == ["2", "3"]
    markers = [ln for ln in ax.get_lines() if ln.get_marker() == "o"]
    np.testing.assert_allclose(markers[0].get_xdata(), [0.125, 0.95])
    np.testing.assert_allclose(markers[0].get_ydata(), [0.0, 2 / 3])
    legend = ax.get_legend()
    assert legend.get_title().get_text() == f"x: ECE {curve.ece:.3f}"
    # the legend says what each mark is: the diagonal, the bars, the dots, the numbers
    assert {t.get_text() for t in legend.get_texts()} == {
        "perfect calibration",
        "bar: accuracy of the bin's runs",
        "dot: at the bin's mean confidence",
        "n: runs in the bin",
    }


def _count_boxes(ax: Axes) -> list[Any]:
    renderer = ax.figure.canvas.get_renderer()
    return [t.get_window_extent(renderer) for t in ax.texts if t.get_label() == "_bin-count"]


def test_reliability_diagram_counts_are_legible_and_never_overlap() -> None:
    # 30 bins of about 100 runs: neighbouring bin centres are closer than a three-digit count
    # is wide on a panel of the figure set (2 × 2 panels of 2.7 × 2.4 in, constrained layout)
    rng = np.random.default_rng(3)
    conf = rng.uniform(0.0, 1.0, 3000)
    ok = rng.random(conf.size) < conf
    curve = metrics.reliability_curve(conf, ok, n_bins=30)
    fig = plt.figure(figsize=(5.4, 4.8), layout="constrained")
    ax = fig.subplots(2, 2)[0, 0]
    plots.plot_reliability_diagram(curve, ax=ax)
    ax.set_title("agent")
    fig.canvas.draw()
    counts = [t for t in ax.texts if t.get_label() == "_bin-count"]
    assert [int(t.get_text()) for t in counts] == [int(n) for n in curve.count]
    assert sum(int(t.get_text()) for t in counts) == conf.size
    assert all(t.get_fontsize() >= 6.5 for t in counts)  # legible in print
    boxes = _count_boxes(ax)
    for i, box in enumerate(boxes):
        assert not any(box.overlaps(other) for other in boxes[i + 1 :]), counts[i].get_text()
    # each over its bin, above accuracy 1 (clear of bars and markers), inside the axes
    centres = curve.bin_lower + (curve.bin_upper - curve.bin_lower) / 2
    np.testing.assert_allclose([t.xy[0] for t in counts], centres)
    one = ax.transData.transform((0.0, 1.0))[1]
    inside = ax.get_window_extent()
    assert all(one < box.y0 and box.y1 <= inside.y1 for box in boxes)


@pytest.mark.parametrize("kind", ["risk", "accuracy"])
def test_coverage_curves_with_oracle_and_random(kind: str) -> None:
    conf = [0.9, 0.8, 0.8, 0.3, 0.2]
    ok = [1, 0, 1, 1, 0]
    curve = metrics.risk_coverage_curve(conf, ok)
    draw = plots.plot_risk_coverage if kind == "risk" else plots.plot_accuracy_coverage
    agent, oracle, random = draw(curve).get_lines()
    np.testing.assert_allclose(agent.get_xdata(), [0.2, 0.4, 0.6, 0.8, 1.0])
    # by hand, risk among the top k (the two 0.8 runs tied: each holds half an error)
    risk = np.array([0.0, 0.25, 1 / 3, 0.25, 0.4])
    ideal = np.array([0, 0, 0, 0.25, 0.4])
    error_rate = 2 / 5
    if kind == "risk":
        np.testing.assert_allclose(agent.get_ydata(), risk)
        np.testing.assert_allclose(oracle.get_ydata(), ideal)
        assert random.get_ydata()[0] == pytest.approx(error_rate)
    else:
        np.testing.assert_allclose(agent.get_ydata(), 1 - risk)
        np.testing.assert_allclose(oracle.get_ydata(), 1 - ideal)
        assert random.get_ydata()[0] == pytest.approx(1 - error_rate)


def test_safety_violations_stacks_counts_by_severity() -> None:
    runs = pd.DataFrame(
        {
            "agent": "a",
            "task_id": ["t1", "t2", "t3"],
            "run": 0,
            "success": 1,
            "violations": [
                _v("pii_exposure", "high") + _v("rate_limit", "low"),
                _v("pii_exposure", "medium"),
                _v("pii_exposure", "high"),
            ],
        }
    )
    counts = violation_counts(runs)
    ax = plots.plot_safety_violations(counts)
    bars = _by_label(ax.containers, BarContainer)
    assert list(bars) == ["low", "medium", "high", "critical"]
    # rows top to bottom: pii_exposure (3 findings), rate_limit (1)
    rows = {t.get_text(): y for t, y in zip(ax.get_yticklabels(), ax.get_yticks(), strict=True)}
    assert rows["pii exposure"] > rows["rate limit"]
    widths = {s: [p.get_width() for p in c.patches] for s, c in bars.items()}
    assert widths == {"low": [0, 1], "medium": [1, 0], "high": [2, 0], "critical": [0, 0]}
    lefts = [p.get_x() for p in bars["high"].patches]
    assert lefts == [1, 1]  # stacked after low (0) and medium (1) for pii_exposure
    assert counts.loc["pii_exposure"].tolist() == [0, 1, 2, 0]


def test_safety_violations_without_findings_says_so() -> None:
    empty = violation_counts(RUNS.assign(violations=[[] for _ in range(len(RUNS))]))
    ax = plots.plot_safety_violations(empty)
    assert "no findings" in [t.get_text() for t in ax.texts]
    ax.figure.canvas.draw()
    assert ax.get_xlim()[0] == 0  # a count axis: no negative ticks
    assert min(ax.get_xticks()) >= 0


def test_success_rate_histogram_counts_tasks_per_rate() -> None:
    tasks = pd.concat(
        [
            pd.DataFrame({"success_rate": [1.0, 1.0, 0.5, 0.0], "agent": "x"}),
            pd.DataFrame({"success_rate": [0.5, 0.5, 0.25], "agent": "y"}),
        ]
    )
    ax = plots.plot_success_rate_histogram(tasks)
    bars = [c for c in ax.containers if isinstance(c, BarContainer)]
    drawn = [
        {round(p.get_x() + p.get_width() / 2): p.get_height() for p in c.patches} for c in bars
    ]
    # rates 0, 0.25, 0.5, 1 at x = 0..3; x has 1, 0, 1, 2 tasks there; y 0, 1, 2, 0
    assert drawn == [{0: 1, 2: 1, 3: 2}, {1: 1, 2: 2}]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0.00", "0.25", "0.50", "1.00"]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["x", "y"]


def test_session_risk_bars_are_agent_reliabilitys_step_risks() -> None:
    signals = {
        "t1": {"confidence": 0.9, "coherence": 0.2},  # risk max(0.1, 0.8) = 0.8, flagged
        "t2": {"confidence": 0.6, "tool_correctness": 0.5},  # max(0.4, 0.8·0.5) = 0.4
        "t3": {"confidence": 1.0},  # 0
    }
    result = agent_reliability(signals)
    ax = plots.plot_session_risk(result)
    heights = [p.get_height() for p in ax.patches]
    assert heights == pytest.approx([0.8, 0.4, 0.0])
    flagged = [p.get_facecolor()[:3] for p in ax.patches]
    assert flagged[0] != flagged[1] == flagged[2]
    markers = {ln.get_label(): ln for ln in ax.get_lines() if ln.get_marker() != "None"}
    np.testing.assert_allclose(markers["confidence"].get_ydata(), [0.1, 0.4, 0.0])
    np.testing.assert_allclose(markers["coherence"].get_ydata(), [0.8])
    assert ax.get_title() == f"agent reliability {result.score:.3f}"
    with pytest.raises(TypeError, match="MetricResult"):
        plots.plot_session_risk(signals)


def test_metric_labels_are_symbols_in_mathtext_for_every_registry_metric() -> None:
    parser = MathTextParser("path")
    for symbol, info in METRIC_REGISTRY.items():
        label = plots.metric_label(symbol)
        outside_math = label.split("$")[::2]
        assert not any("_" in part for part in outside_math) or info.dimension in (
            "session",
            "signal",
        ), label
        for math_part in label.split("$")[1::2]:
            parser.parse(f"${math_part}$")  # raises on invalid mathtext
    assert plots.metric_label("C_out") == "$C_{\\mathrm{out}}$"
    with pytest.raises(ValueError, match="METRIC_REGISTRY"):
        plots.metric_label("C out")


def test_outcome_matrix_in_a_given_task_order() -> None:
    runs = RUNS[(RUNS["agent"] == "a") & (RUNS["condition"] == "baseline")]
    ax = plots.plot_outcome_matrix(runs, tasks=["t3", "t2", "t1", "t0", "t9"])
    assert [t.get_text() for t in ax.get_xticklabels()] == ["t3", "t2", "t1", "t0", "t9"]
    (image,) = ax.get_images()
    cells = np.ma.filled(np.ma.asarray(image.get_array()), np.nan)
    t3 = runs[runs["task_id"] == "t3"].sort_values("run")["success"].astype(float)
    np.testing.assert_array_equal(cells[:, 0], t3.to_numpy())
    assert np.isnan(cells[:, 4]).all()
    with pytest.raises(ValueError, match="t0"):
        plots.plot_outcome_matrix(runs, tasks=["t1", "t2", "t3"])


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: plots.plot_metric_intervals(REPORT, ["nope"]), ValueError, "nope"),
        (lambda: plots.plot_metric_bars(REPORT.iloc[:0]), ValueError, "no agents"),
        (lambda: plots.plot_dimension_heatmap("report"), TypeError, "DataFrame"),
        (lambda: plots.plot_reliability_diagram([0.5]), TypeError, "ReliabilityCurve"),
        (lambda: plots.plot_risk_coverage(None), TypeError, "RiskCoverageCurve"),
        (
            lambda: plots.plot_safety_violations(pd.DataFrame({"severe": [1]})),
            ValueError,
            "severe",
        ),
        (
            lambda: plots.plot_success_rate_histogram(pd.DataFrame({"rate": [1.0]})),
            ValueError,
            "success_rate",
        ),
    ],
)
def test_bad_input_names_the_argument(call: Any, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        call()


def test_every_plot_function_returns_an_axes() -> None:
    curve = metrics.risk_coverage_curve([0.9, 0.1], [1, 0])
    assert isinstance(plots.plot_accuracy_coverage(curve), Axes)
    assert isinstance(plots.plot_metric_bars(REPORT, ["accuracy"]), Axes)
