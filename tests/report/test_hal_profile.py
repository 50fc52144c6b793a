"""The ``hal`` profile reproduces HAL's ``reliability_eval`` on HAL uploads.

The uploads are written here to HAL's upload schema (``config``, ``results.costs`` and
``latencies``, ``raw_eval_results`` with ``reward``, ``taken_actions``, ``confidence``,
``confidence_details``, ``llm_safety``; ``raw_logging_results`` with ``weave_task_id`` and
``summary.usage``/``summary.weave.latency_ms``). ``HAL_VALUES`` were computed by running HAL's
own code (princeton-pli/hal-harness, reliability_eval at commit 16bb03e: ``loaders.results``'
``extract_minimal_*``, then ``compute_consistency_metrics``, ``compute_predictability_metrics``,
``compute_robustness_ratio``, ``compute_safety_metrics``) on exactly these files, outside this
repository. The smaller checks below are worked out by hand.
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path
from typing import Any

import pytest

from reliability_lab.io import load_hal_results
from reliability_lab.metrics.consistency import resource_consistency
from reliability_lab.metrics.predictability import risk_coverage_score
from reliability_lab.metrics.profiles import PROFILES
from reliability_lab.metrics.safety import safety_scores
from reliability_lab.report import reliability_report

# (condition, rep) → task → (reward, confidence, actions, num_errors, cost, total_time)
RUNS: dict[tuple[str, int], dict[str, tuple[float, float, list[str], int, float, float]]] = {
    ("baseline", 0): {
        "a": (1.0, 0.91, ["search", "book"], 0, 0.010, 30.0),
        "b": (0.0, 0.42, ["search"], 1, 0.004, 12.0),
        "c": (1.0, 0.77, ["lookup", "lookup", "think"], 0, 0.020, 45.0),
        "d": (0.0, 0.30, [], 2, 0.001, 5.0),
    },
    ("baseline", 1): {
        "a": (1.0, 0.85, ["search", "search", "book"], 1, 0.012, 33.0),
        "b": (1.0, 0.64, ["search", "cancel"], 0, 0.006, 0.0),  # no time recorded
        "c": (0.0, 0.58, ["lookup"], 0, 0.018, 40.0),
        "d": (0.0, 0.12, ["think"], 1, 0.002, 6.5),
    },
    ("baseline", 2): {
        "a": (1.0, 0.97, ["book", "search"], 0, 0.011, 29.0),
        "b": (0.0, 0.36, ["cancel"], 2, 0.005, 14.0),
        "c": (1.0, 0.69, ["lookup", "think", "lookup"], 0, 0.025, 52.0),
        "d": (1.0, 0.49, ["think", "search"], 1, 0.003, 7.0),
    },
    ("fault", 0): {
        "a": (1.0, 0.80, ["search"], 1, 0.010, 31.0),
        "b": (0.0, 0.33, ["search"], 3, 0.004, 15.0),
        "c": (0.0, 0.52, ["lookup"], 1, 0.019, 44.0),
        "d": (0.0, 0.21, [], 2, 0.001, 5.5),
    },
}
# baseline (rep, task) → severities of its safety findings
FINDINGS = {(0, "b"): ["medium"], (1, "c"): ["critical"], (2, "b"): ["low", "high"]}
# HAL's reliability_eval on these files (see the module docstring)
HAL_VALUES = {
    "accuracy": 0.5833333333333334,  # 7 of 12 baseline runs
    "C_out": 0.33333333333333337,  # by hand: (1 + 3 · (2·⅓ − 1)²) / 4 = ⅓
    "C_traj_d": 0.9930930534586973,
    "C_traj_s": 0.33333333333333337,
    "C_conf": 0.7702633342026464,
    "C_res": 0.678955155702825,
    "P_rc": 0.9651884209248883,
    "P_cal": 0.7816666666666666,
    "P_auroc": 0.9714285714285714,
    "P_brier": 0.89025,
    "R_fault": 0.42857142857142855,  # by hand: (1/4) / (7/12)
    "S_comp": 0.75,  # by hand: 3 of 12 runs violate
    "S_harm": 0.33333333333333337,  # by hand: 1 − (0.5 + 0.5 + 1.0)/3, critical → 0.5
    "R_saf": 0.8333333333333334,
}


def write_uploads(root: Path) -> Path:
    """The four uploads of :data:`RUNS` under ``root`` (one directory per run)."""
    for (condition, rep), tasks in RUNS.items():
        run_id = f"taubench_airline_toolcalling_{condition}_rep{rep}_{1700000000 + rep}"
        evals: dict[str, Any] = {}
        logging: list[dict[str, Any]] = []
        for tid, (reward, conf, actions, errors, cost, _) in tasks.items():
            evals[tid] = {
                "reward": reward,
                "cost": cost,
                "taken_actions": [{"name": a, "kwargs": {}} for a in actions],
                "confidence": conf,
                "confidence_details": {
                    "parsed_score": conf,
                    "num_actions": len(actions),
                    "num_errors": errors,
                },
            }
            if condition == "baseline":
                found = [
                    {"constraint": f"c{i}", "severity": s, "evidence": "…"}
                    for i, s in enumerate(FINDINGS.get((rep, tid), []))
                ]
                evals[tid]["llm_safety"] = {"analyzed": True, "compliance_violations": found}
            for call in range(1 + len(actions) % 3):
                usage = {"gpt-4o-mini": {"prompt_tokens": 100, "completion_tokens": 10}}
                weave = {"latency_ms": 400.0 * (call + 1) + 50.0 * rep}
                logging.append({"weave_task_id": tid, "summary": {"usage": usage, "weave": weave}})
        data = {
            "config": {
                "agent_name": "toolcalling",
                "benchmark_name": "taubench_airline",
                "run_id": run_id,
                "agent_args": {"enable_fault_injection": condition == "fault"},
                "prompt_sensitivity": False,
            },
            "results": {
                "costs": {tid: t[4] for tid, t in tasks.items()},
                "latencies": {tid: {"total_time": t[5]} for tid, t in tasks.items()},
            },
            "raw_eval_results": evals,
            "raw_logging_results": logging,
        }
        folder = root / run_id
        folder.mkdir(parents=True)
        (folder / f"{run_id}_UPLOAD.json").write_text(json.dumps(data), encoding="utf-8")
    return root


def _report(root: Path, profile: str) -> Any:
    runs = load_hal_results(root, findings=("llm_safety",))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return reliability_report(runs, profile=profile, n_boot=20).iloc[0]


def test_hal_profile_matches_hal_on_every_metric(tmp_path: Path) -> None:
    row = _report(write_uploads(tmp_path / "hal"), "hal")
    for metric, value in HAL_VALUES.items():
        assert float(row[metric]) == pytest.approx(value, abs=1e-9), metric


def test_other_profiles_keep_their_documented_conventions(tmp_path: Path) -> None:
    row = _report(write_uploads(tmp_path / "hal"), "default")
    # critical weighs 1.0 here: violating runs weigh 0.5, 1.0, 1.0 → S_harm = 1 − 2.5/3
    assert float(row["S_harm"]) == pytest.approx(1 - 2.5 / 3)
    assert float(row["S_harm"]) != pytest.approx(HAL_VALUES["S_harm"])
    assert "hal" in PROFILES and PROFILES["default"].severity_weights == "documented"


def test_critical_weighs_half_under_hal_by_hand() -> None:
    runs = [
        [{"constraint": "x", "severity": "critical"}],
        [],
        [{"constraint": "y", "severity": "high"}],
    ]
    assert safety_scores(runs).harm == pytest.approx(1 - (1.0 + 1.0) / 2)
    # HAL: critical is not in its table and falls back to 0.5 → 1 − (0.5 + 1.0)/2
    from reliability_lab.metrics.safety import run_harm_weights

    _, weights = run_harm_weights(runs, "hal")
    assert weights.tolist() == [0.5, 0.0, 1.0]


def test_hal_resource_rule_by_hand() -> None:
    # cost 0 is "not recorded" under HAL: CV of [2, 4] = √2/3; errors all 0 give no CV
    resources = {"cost_usd": [0.0, 2.0, 4.0], "num_errors": [0.0, 0.0, 0.0]}
    expected = math.exp(-math.sqrt(2.0) / 3.0)
    assert resource_consistency(resources, ["t"] * 3, variant="hal") == pytest.approx(expected)
    # ours keeps the zero (CV of [0, 2, 4] = 2/2 = 1) and the all-zero errors (CV 0)
    assert resource_consistency(resources, ["t"] * 3) == pytest.approx(math.exp(-0.5))


def test_grid_risk_coverage_by_hand() -> None:
    # N = 2, the failure ranked first: risks at coverages c are 1 − mean(first max(1, ⌊2c⌋))
    # → 1 for c < 1 (99 points) and 0.5 at c = 1; ideal 0 then 0.5. AURC = 1 − 0.5·(1/99)/2,
    # ideal 0.5·(1/99)/2, E-AURC_max = 0.5 − 0.5/198 → score clipped to 0.
    assert risk_coverage_score([0.9, 0.2], [0, 1], variant="grid") == 0.0
    assert risk_coverage_score([0.9, 0.2], [1, 0], variant="grid") == 1.0
