"""Golden values for ``reliability_report`` on small hand-built run tables.

Conventions: docs/run_table.md and docs/methodology.md.

Agent "A" below is computed by hand in the comments; agent "B" exercises re-weighting of the
aggregates over the available terms.
"""

from __future__ import annotations

import math
import statistics
from typing import Any

import numpy as np
import pandas as pd
import pytest

from reliability_lab import reliability_report
from reliability_lab.runs import run_table_from_records

pytestmark = pytest.mark.filterwarnings("ignore::reliability_lab.errors.UndefinedMetricWarning")

METRICS = [
    "accuracy",
    "C_out",
    "C_traj_d",
    "C_traj_s",
    "C_conf",
    "C_res",
    "P_brier",
    "P_cal",
    "P_auroc",
    "P_rc",
    "R_fault",
    "R_struct",
    "R_prompt",
    "S_comp",
    "S_harm",
    "R_saf",
    "R_Con",
    "R_Pred",
    "R_Rob",
    "R",
]
COUNTS = ["n_tasks", "n_runs", "n_infra_errors"]


def _viol(*severities: str) -> list[dict[str, str]]:
    return [{"constraint": "no_pii", "severity": s, "evidence": "e"} for s in severities]


def _run(agent: str, task: str, run: int, success: bool, **kw: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "agent": agent,
        "task_id": task,
        "run": run,
        "success": success,
        "condition": "baseline",
        "variant": "",
        "confidence": math.nan,
        "confidence_source": "none",
        "actions": [],
        "violations": [],
        "cost_usd": math.nan,
        "error": None,
    }
    if "confidence" in kw:
        row["confidence_source"] = "elicited"
    row.update(kw)
    return row


def _agent_a() -> list[dict[str, Any]]:
    rows = []
    # t1 baseline: 4 successes, identical trajectories, confidence 0.9, cost 1.0.
    for r in range(4):
        rows.append(
            _run(
                "A",
                "t1",
                r,
                True,
                confidence=0.9,
                actions=["a", "b", "c"],
                cost_usd=1.0,
                violations=_viol("low") if r == 0 else [],
            )
        )
    # t2 baseline: outcomes [1, 1, 1, 0].
    t2 = [
        (True, 0.7, ["a", "b"], 0.01, []),
        (True, 0.7, ["a", "c"], 10.0, []),
        (True, 0.3, ["a", "b"], 0.01, []),
        (False, 0.35, ["x"], 10.0, _viol("medium", "critical")),
    ]
    for r, (ok, conf, actions, cost, viol) in enumerate(t2):
        rows.append(
            _run("A", "t2", r, ok, confidence=conf, actions=actions, cost_usd=cost, violations=viol)
        )
    # An infrastructure failure: excluded from every outcome metric and from safety.
    rows.append(
        _run(
            "A",
            "t2",
            4,
            False,
            confidence_source="fallback",
            violations=_viol("critical"),
            error="infrastructure: provider returned 503",
        )
    )
    # fault: 2/4 successes; one violating run (high).
    for task in ("t1", "t2"):
        for r, ok in enumerate([True, False]):
            viol = _viol("high") if (task, r) == ("t1", 1) else []
            rows.append(
                _run("A", task, r, ok, condition="fault", variant="timeouts", violations=viol)
            )
    # prompt: 4/4 successes over two paraphrase variants.
    for task in ("t1", "t2"):
        for variant in ("p1", "p2"):
            rows.append(_run("A", task, 0, True, condition="prompt", variant=variant))
    return rows


def _agent_b() -> list[dict[str, Any]]:
    # No confidences, no resources, no perturbations, no violations.
    rows = [
        _run("B", "t1", 0, True, actions=["a"]),
        _run("B", "t1", 1, True, actions=["a"]),
        _run("B", "t1", 2, False, actions=[]),
    ]
    rows += [_run("B", "t2", r, False, actions=["z"]) for r in range(3)]
    return rows


@pytest.fixture(scope="module")
def runs() -> pd.DataFrame:
    return run_table_from_records(_agent_a() + _agent_b())


@pytest.fixture(scope="module")
def report(runs: pd.DataFrame) -> pd.DataFrame:
    return reliability_report(runs, n_boot=0)


# Hand computations for agent A (baseline, infrastructure run excluded) -------------------
ACC = 7 / 8
C_OUT = (1 + 0.25) / 2  # t1 unanimous → 1; t2 p = 3/4 → (2·0.75 − 1)² = 0.25
C_OUT_LITERAL = (1 + 0) / 2  # t2: s² = 0.25 > p(1 − p) = 0.1875 → clipped to 0
# t2 successful trajectories [a,b], [a,c], [a,b]: JS distances √½, 0, √½ (base 2, see
# test_golden_consistency) → 1 − (2√½)/3; t1 identical → 1.
C_TRAJ_D = (1 + 1 - 2 * math.sqrt(0.5) / 3) / 2
C_TRAJ_D_LN = (1 + 1 - 2 * math.sqrt(0.5 * math.log(2)) / 3) / 2
C_TRAJ_S = (1 + (0.5 + 1 + 0.5) / 3) / 2  # Levenshtein: (ab,ac) ½, (ab,ab) 1, (ac,ab) ½
C_RES = (1 + math.exp(-statistics.stdev([0.01, 10, 0.01, 10]) / 5.005)) / 2  # t2 ≈ 0.31588
C_CONF = (1 + math.exp(-statistics.stdev([0.7, 0.7, 0.3, 0.35]) / 0.5125)) / 2
# Brier: t1 4·0.01; t2 0.09 + 0.09 + 0.49 + 0.1225 → 0.8325 / 8
P_BRIER = 1 - 0.8325 / 8
# ECE (floor): bin 9: 4 runs gap 0.1; bin 7: 2 runs gap 0.3; bin 3: {0.3 ✓, 0.35 ✗} conf 0.325
# acc 0.5 gap 0.175 → (0.4 + 0.6 + 0.35)/8 = 0.16875
P_CAL = 1 - 1.35 / 8
# linspace: 0.3 moves to bin 2 (gap 0.7), 0.35 alone in bin 3 (gap 0.35) → (0.4+0.6+1.05)/8
P_CAL_LINSPACE = 1 - 2.05 / 8
# AUROC: positives 0.9×4, 0.7×2, 0.3 vs negative 0.35 → 6 of 7 pairs concordant.
P_AUROC = 6 / 7
# Risk–coverage: errors in confidence order 0,0,0,0,0,0,1,0 → AURC = (1/7 + 1/8)/8;
# ideal AURC* = (1/8)/8; E-AURC_max = 1/8 − 1/64.
P_RC = 1 - ((1 / 7 + 1 / 8) / 8 - 1 / 64) / (1 / 8 - 1 / 64)
R_FAULT = (2 / 4) / ACC  # = 4/7
R_PROMPT = 1.0  # 4/4 ÷ 7/8 > 1 → capped
# Safety over the 8 baseline runs (runs are baseline runs unless a metric says
# otherwise, and safety does not): violating t1/b/0 (low .25) and t2/b/3 (medium + critical →
# max 1) → S_comp = 6/8, S_harm = 1 − (0.25 + 1)/2 = 0.375. The fault run's violation and the
# infrastructure run's critical violation do not count (docs/methodology.md, "Safety").
S_COMP = 6 / 8
S_HARM = 0.375
R_SAF = 1 - (1 - S_COMP) * (1 - S_HARM)  # = 0.84375
R_CON = (C_OUT + (C_TRAJ_D + C_TRAJ_S) / 2 + C_RES) / 3
R_ROB = (R_FAULT + R_PROMPT) / 2
R_ALL = (R_CON + P_BRIER + R_ROB) / 3

EXPECTED_A = {
    "accuracy": ACC,
    "C_out": C_OUT,
    "C_traj_d": C_TRAJ_D,
    "C_traj_s": C_TRAJ_S,
    "C_conf": C_CONF,
    "C_res": C_RES,
    "P_brier": P_BRIER,
    "P_cal": P_CAL,
    "P_auroc": P_AUROC,
    "P_rc": P_RC,
    "R_fault": R_FAULT,
    "R_prompt": R_PROMPT,
    "R_Con": R_CON,
    "R_Pred": P_BRIER,
    "R_Rob": R_ROB,
    "R": R_ALL,
}


def test_columns_and_index(report: pd.DataFrame) -> None:
    assert report.index.name == "agent"
    assert sorted(report.index) == ["A", "B"]
    expected = set(COUNTS) | set(METRICS) | {f"{m}_{b}" for m in METRICS for b in ("lo", "hi")}
    assert expected <= set(report.columns), sorted(expected - set(report.columns))


@pytest.mark.parametrize("metric", sorted(EXPECTED_A))
def test_agent_a_by_hand(report: pd.DataFrame, metric: str) -> None:
    assert report.loc["A", metric] == pytest.approx(EXPECTED_A[metric], abs=1e-9)


def test_agent_a_counts_and_infra(report: pd.DataFrame) -> None:
    assert report.loc["A", "n_tasks"] == 2
    assert report.loc["A", "n_infra_errors"] == 1
    assert pd.isna(report.loc["A"]["R_struct"])  # no structural runs


def test_safety_uses_baseline_runs_only(report: pd.DataFrame) -> None:
    # 8 baseline runs, 2 violating → 0.75 / 0.375 / 0.84375 (all non-infrastructure runs would
    # give 13/16 / 0.25 / 0.859375; the infrastructure run's critical violation never counts).
    a = report.loc["A"]
    assert (a["S_comp"], a["S_harm"], a["R_saf"]) == pytest.approx(
        (S_COMP, S_HARM, R_SAF), abs=1e-12
    )


def test_agent_b_reweights_over_available_terms(report: pd.DataFrame) -> None:
    b = report.loc["B"]
    assert b["n_tasks"] == 2 and b["n_runs"] == 6 and b["n_infra_errors"] == 0
    assert b["accuracy"] == pytest.approx(1 / 3)
    # t1 p = 2/3 → 1/9; t2 all fail → 1 → C_out = 5/9
    assert b["C_out"] == pytest.approx(5 / 9)
    # only t1 has ≥ 2 successful non-empty runs ([a], [a]) → 1; t2 failures ignored
    assert b["C_traj_d"] == pytest.approx(1.0)
    assert b["C_traj_s"] == pytest.approx(1.0)
    # nothing recorded / elicited / perturbed → NaN
    for name in ("C_res", "C_conf", "P_brier", "P_cal", "P_auroc", "P_rc", "R_Pred", "R_Rob"):
        assert pd.isna(b[name]), name
    # R_Con over available outcome and trajectory terms: (5/9 + 1)/2 = 7/9, and it says so.
    assert b["R_Con"] == pytest.approx(7 / 9)
    assert b["R_Con_terms"] == "C_out+C_traj_d+C_traj_s"
    # R needs all three dimensions: R_Pred and R_Rob are undefined, so R is too (it used to be
    # R_Con alone, 7/9, which reads as a reliable agent).
    assert pd.isna(b["R"])
    assert (
        "R_Pred is undefined" in b["why_undefined"] and "R_Rob is undefined" in b["why_undefined"]
    )
    assert (b["S_comp"], b["S_harm"], b["R_saf"]) == pytest.approx((1.0, 1.0, 1.0))


def test_agents_are_independent(runs: pd.DataFrame, report: pd.DataFrame) -> None:
    only_a = reliability_report(runs[runs["agent"] == "A"], n_boot=0)
    pd.testing.assert_frame_equal(only_a.loc[["A"]], report.loc[["A"]])


def test_preprint_profile(runs: pd.DataFrame, report: pd.DataFrame) -> None:
    pre = reliability_report(runs, profile="preprint", n_boot=0)
    a = pre.loc["A"]
    assert a["C_out"] == pytest.approx(C_OUT_LITERAL, abs=1e-6)
    assert a["C_traj_d"] == pytest.approx(C_TRAJ_D_LN, abs=1e-9)
    assert a["P_cal"] == pytest.approx(P_CAL_LINSPACE, abs=1e-9)
    # R_Con follows its inputs.
    expected_con = (C_OUT_LITERAL + (C_TRAJ_D_LN + C_TRAJ_S) / 2 + C_RES) / 3
    assert a["R_Con"] == pytest.approx(expected_con, abs=1e-6)
    for name in ("accuracy", "C_traj_s", "C_res", "P_brier", "P_auroc", "P_rc", "R_fault"):
        assert a[name] == pytest.approx(report.loc["A", name], abs=1e-12), name


def test_bad_profile_lists_valid_ones(runs: pd.DataFrame) -> None:
    with pytest.raises(ValueError, match=r"(?s)profile.*default.*preprint"):
        reliability_report(runs, profile="paper", n_boot=0)


def test_infrastructure_runs_do_not_count_as_failures(runs: pd.DataFrame) -> None:
    # Dropping the infrastructure row changes nothing but the infra count.
    without = runs[~runs["error"].fillna("").str.startswith("infrastructure:")]
    a = reliability_report(without, n_boot=0).loc["A"]
    assert a["n_infra_errors"] == 0
    with_infra = reliability_report(runs, n_boot=0).loc["A"]
    for name in METRICS:
        assert a[name] == pytest.approx(with_infra[name], nan_ok=True), name


def test_predictability_pools_only_runs_with_a_confidence() -> None:
    # t1: ✓ conf 0.8, ✗ fallback (no confidence); t2: ✓ conf 0.6, ✗ conf 0.2.
    # accuracy counts all 4 outcomes → 0.5; Brier over the 3 confident runs:
    # (0.2² + 0.4² + 0.2²)/3 = 0.24/3 = 0.08 → 0.92.
    rows = [
        _run("Z", "t1", 0, True, confidence=0.8),
        _run("Z", "t1", 1, False, confidence_source="fallback"),
        _run("Z", "t2", 0, True, confidence=0.6),
        _run("Z", "t2", 1, False, confidence=0.2),
    ]
    z = reliability_report(run_table_from_records(rows), n_boot=0).loc["Z"]
    assert z["accuracy"] == pytest.approx(0.5)
    assert z["P_brier"] == pytest.approx(0.92, abs=1e-12)
    assert z["R_Pred"] == pytest.approx(0.92, abs=1e-12)


def test_invalid_run_table_rejected() -> None:
    bad = pd.DataFrame({"agent": ["a"], "task_id": ["t"], "run": [0]})
    with pytest.raises(ValueError, match="success"):
        reliability_report(bad, n_boot=0)


# --- bootstrap ---------------------------------------------------------------------------


def _random_table(n_tasks: int = 15, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for t in range(n_tasks):
        p = rng.random()
        for r in range(4):
            ok = bool(rng.random() < p)
            conf = float(np.clip(p + rng.normal(0, 0.1), 0, 1))
            actions = list(rng.choice(["a", "b", "c"], size=3))
            rows.append(
                _run(
                    "X",
                    f"t{t}",
                    r,
                    ok,
                    confidence=conf,
                    actions=actions,
                    cost_usd=float(rng.gamma(2, 0.01)),
                )
            )
        rows.append(_run("X", f"t{t}", 0, bool(rng.random() < p * 0.8), condition="fault"))
    return run_table_from_records(rows)


def test_n_boot_zero_gives_nan_bounds(report: pd.DataFrame) -> None:
    bounds = [f"{m}_{b}" for m in METRICS for b in ("lo", "hi")]
    assert report[bounds].isna().all().all()


def test_same_seed_same_intervals() -> None:
    runs = _random_table()
    first = reliability_report(runs, n_boot=200, seed=5)
    second = reliability_report(runs, n_boot=200, seed=5)
    pd.testing.assert_frame_equal(first, second)
    other = reliability_report(runs, n_boot=200, seed=6)
    pd.testing.assert_frame_equal(first[METRICS], other[METRICS])  # points don't use the seed
    assert not first[["accuracy_lo", "accuracy_hi"]].equals(other[["accuracy_lo", "accuracy_hi"]])


def test_intervals_bracket_point_estimates() -> None:
    rep = reliability_report(_random_table(), n_boot=300, seed=0).loc["X"]
    for name in ("accuracy", "C_out", "C_traj_s", "C_res", "P_brier", "R_Con", "R"):
        lo, hi, point = rep[f"{name}_lo"], rep[f"{name}_hi"], rep[name]
        assert lo <= point <= hi, (name, lo, point, hi)
        assert lo < hi, name  # tasks differ, so the interval has width
    for name in METRICS:
        lo, hi = rep[f"{name}_lo"], rep[f"{name}_hi"]
        if not (pd.isna(lo) or pd.isna(hi)):
            assert 0.0 <= lo <= hi <= 1.0, (name, lo, hi)


def test_wider_level_gives_wider_interval() -> None:
    runs = _random_table()
    narrow = reliability_report(runs, n_boot=300, seed=0, confidence_level=0.5).loc["X"]
    wide = reliability_report(runs, n_boot=300, seed=0, confidence_level=0.95).loc["X"]
    assert (
        wide["accuracy_hi"] - wide["accuracy_lo"] >= narrow["accuracy_hi"] - narrow["accuracy_lo"]
    )


def test_bootstrap_resamples_tasks_not_runs() -> None:
    # Six identical tasks with outcomes [1, 1, 1, 0]: any resample of whole tasks gives the same
    # values (accuracy 0.75, C_out 0.25), so the interval collapses onto the point. Resampling
    # runs instead would spread C_out.
    rows = [
        _run("Y", f"t{t}", r, r < 3, confidence=0.6, cost_usd=1.0 + r)
        for t in range(6)
        for r in range(4)
    ]
    rep = reliability_report(run_table_from_records(rows), n_boot=100, seed=0).loc["Y"]
    for name, value in (("accuracy", 0.75), ("C_out", 0.25)):
        assert rep[name] == pytest.approx(value)
        assert rep[f"{name}_lo"] == pytest.approx(value)
        assert rep[f"{name}_hi"] == pytest.approx(value)
