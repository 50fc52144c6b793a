"""Golden values for the consistency metrics: C_out, C_traj_d, C_traj_s, C_conf, C_res.

Every expected number is one of the spec's checks (the worked values in docs/methodology.md,
"Consistency"), a hand computation written out in the comments, or an
independent reference (scipy's Jensen–Shannon distance, an explicit per-task loop, a textbook
edit-distance recursion written here) — never output pasted from the code under test.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter, defaultdict
from collections.abc import Sequence

import numpy as np
import pandas as pd
import pytest
from scipy.spatial.distance import jensenshannon

from reliability_lab.errors import UndefinedMetricWarning
from reliability_lab.metrics import (
    confidence_consistency,
    outcome_consistency,
    resource_consistency,
    trajectory,
    trajectory_distribution_consistency,
    trajectory_sequence_consistency,
)

# --- outcome consistency -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("outcomes", "corrected", "literal"),
    [
        # p = 0.8 → (2p − 1)² = 0.6² = 0.36.  Literal: s² (ddof=1) = (4·0.2² + 0.8²)/4 = 0.2,
        # p(1 − p) = 0.16 → 1 − 0.2/0.16 = −0.25 → clipped to 0.
        ([1, 1, 1, 1, 0], 0.36, 0.0),
        # unanimous: (2·1 − 1)² = 1; literal s² = 0 → 1 − 0/ε = 1.
        ([1, 1, 1], 1.0, 1.0),
        # p = 0.5 → 0; literal s² = 0.5, p(1 − p) = 0.25 → 1 − 2 = −1 → 0.
        ([1, 0], 0.0, 0.0),
        # all failures are consistent too.
        ([0, 0, 0, 0], 1.0, 1.0),
        # p = 1/3 → (−1/3)² = 1/9; literal: s² = 1/3, p(1−p) = 2/9 → 1 − 1.5 → 0.
        ([0, 1, 0], 1 / 9, 0.0),
    ],
)
def test_outcome_consistency_spec_checks(
    outcomes: list[int], corrected: float, literal: float
) -> None:
    tasks = ["t"] * len(outcomes)
    assert outcome_consistency(outcomes, tasks) == pytest.approx(corrected, abs=1e-12)
    assert outcome_consistency(outcomes, tasks, variant="corrected") == pytest.approx(
        corrected, abs=1e-12
    )
    assert outcome_consistency(outcomes, tasks, variant="literal") == pytest.approx(
        literal, abs=1e-6
    )


def test_outcome_consistency_multi_task_unweighted_mean() -> None:
    # A [1,1,1,1,0] → 0.36, B [1,1,1] → 1, C [1,0] → 0, D [1] (K < 2) → NaN, skipped.
    # Corrected: (0.36 + 1 + 0)/3 = 0.453333…; literal: (0 + 1 + 0)/3 = 1/3.
    # Unweighted over tasks: task A's 5 runs weigh the same as C's 2 runs.
    success = [1, 1, 1, 1, 0, 1, 1, 1, 1, 0, 1]
    tasks = ["A"] * 5 + ["B"] * 3 + ["C"] * 2 + ["D"]
    assert outcome_consistency(success, tasks) == pytest.approx(1.36 / 3, abs=1e-12)
    assert outcome_consistency(success, tasks, variant="literal") == pytest.approx(1 / 3, abs=1e-6)


def test_outcome_consistency_interleaved_task_labels() -> None:
    # Same data as [1,1,1,1,0] for task x and [1,0] for task y, interleaved in the input.
    success = [True, True, False, True, True, True, False]
    tasks = ["x", "y", "y", "x", "x", "x", "x"]
    # x: [1,1,1,1,0] → 0.36; y: [1,0] → 0 → mean 0.18
    assert outcome_consistency(success, tasks) == pytest.approx(0.18, abs=1e-12)


def test_outcome_consistency_single_run_tasks_undefined() -> None:
    with pytest.warns(UndefinedMetricWarning):
        value = outcome_consistency([1, 0, 1], ["a", "b", "c"])
    assert math.isnan(value)


def test_outcome_consistency_accepts_bool_and_numbers_equally() -> None:
    tasks = ["t"] * 5
    assert outcome_consistency([True, True, True, True, False], tasks) == pytest.approx(0.36)
    assert outcome_consistency(np.array([1.0, 1.0, 1.0, 1.0, 0.0]), tasks) == pytest.approx(0.36)


def _corrected_reference(success: Sequence[int], tasks: Sequence[str]) -> float:
    """Per-task loop: C_out,t = 1 − p(1 − p)/0.25, tasks with K < 2 skipped."""
    per_task: dict[str, list[int]] = defaultdict(list)
    for s, t in zip(success, tasks, strict=True):
        per_task[t].append(s)
    values = []
    for outcomes in per_task.values():
        if len(outcomes) >= 2:
            p = sum(outcomes) / len(outcomes)
            values.append(1 - p * (1 - p) / 0.25)
    return sum(values) / len(values)


def test_outcome_consistency_against_reference_loop() -> None:
    rng = np.random.default_rng(7)
    tasks = [f"t{i}" for i in rng.integers(0, 12, size=120)]
    success = rng.integers(0, 2, size=120).tolist()
    expected = _corrected_reference(success, tasks)
    assert outcome_consistency(success, tasks) == pytest.approx(expected, abs=1e-12)


# --- trajectory distribution consistency ---------------------------------------------------


def _freq(actions: Sequence[str], vocabulary: Sequence[str]) -> np.ndarray:
    counts = Counter(actions)
    vec = np.array([counts[a] for a in vocabulary], dtype=float)
    return vec / vec.sum()


def _traj_d_reference(
    actions: Sequence[Sequence[str]],
    tasks: Sequence[str],
    success: Sequence[bool],
    *,
    base: float | None,
    squared: bool,
) -> float:
    """Per-task loop with scipy: 1 − mean over pairs of JS distance (or divergence)."""
    per_task: dict[str, list[Sequence[str]]] = defaultdict(list)
    for a, t, s in zip(actions, tasks, success, strict=True):
        if s and len(a) > 0:
            per_task[t].append(a)
    scores = []
    for runs in per_task.values():
        if len(runs) < 2:
            continue
        dists = []
        for a, b in itertools.combinations(runs, 2):
            vocab = sorted(set(a) | set(b))
            d = jensenshannon(_freq(a, vocab), _freq(b, vocab), base=base)
            dists.append(d**2 if squared else d)
        scores.append(1 - float(np.mean(dists)))
    return float(np.mean(scores))


def test_traj_d_identical_runs_is_one() -> None:
    actions = [["a", "b", "a"], ["b", "a", "a"]]  # same frequencies, different order
    for variant in ("distance_base2", "distance_ln", "divergence_base2"):
        value = trajectory_distribution_consistency(
            actions, ["t", "t"], [True, True], variant=variant
        )
        assert value == pytest.approx(1.0, abs=1e-12), variant


def test_traj_d_disjoint_supports() -> None:
    # P = (1, 0), Q = (0, 1): M = (½, ½); KL(P‖M) = log(2) so JSD = log 2 in the chosen base.
    # base 2: JSD = 1 → distance √1 = 1 → C = 0.
    # natural log: JSD = ln 2 → distance √(ln 2) = 0.832554611… → C = 1 − √(ln 2) = 0.167445…
    # base-2 divergence: 1 − 1 = 0.
    actions = [["a", "a"], ["b"]]
    tasks, success = ["t", "t"], [True, True]
    assert trajectory_distribution_consistency(actions, tasks, success) == pytest.approx(
        0.0, abs=1e-12
    )
    ln_value = trajectory_distribution_consistency(actions, tasks, success, variant="distance_ln")
    assert ln_value == pytest.approx(1 - math.sqrt(math.log(2)), abs=1e-12)
    assert round(ln_value, 4) == 0.1674  # the spec's check: disjoint → 0.1674
    div = trajectory_distribution_consistency(actions, tasks, success, variant="divergence_base2")
    assert div == pytest.approx(0.0, abs=1e-12)


def test_traj_d_half_overlap_by_hand() -> None:
    # [a,b] vs [a,c]: P = (½,½,0), Q = (½,0,½), M = (½,¼,¼).
    # KL(P‖M) = ½·log2(1) + ½·log2(2) = ½ = KL(Q‖M) → JSD₂ = ½ → distance √½ = 0.70711.
    # distance_base2: 1 − √½ = 0.292893; divergence_base2: 1 − ½ = 0.5;
    # distance_ln: JSD = ½ ln 2 → 1 − √(½ ln 2) = 1 − 0.588705 = 0.411295.
    actions = [["a", "b"], ["a", "c"]]
    tasks, success = ["t", "t"], [True, True]
    cases = {
        "distance_base2": 1 - math.sqrt(0.5),
        "divergence_base2": 0.5,
        "distance_ln": 1 - math.sqrt(0.5 * math.log(2)),
    }
    for variant, expected in cases.items():
        got = trajectory_distribution_consistency(actions, tasks, success, variant=variant)
        assert got == pytest.approx(expected, abs=1e-12), variant


def test_traj_d_default_is_base2_distance() -> None:
    actions = [["a", "a", "b"], ["a", "b", "b"]]
    tasks, success = ["t", "t"], [True, True]
    default = trajectory_distribution_consistency(actions, tasks, success)
    named = trajectory_distribution_consistency(actions, tasks, success, variant="distance_base2")
    # P = (⅔, ⅓), Q = (⅓, ⅔): scipy's base-2 JS distance is the independent reference.
    expected = 1 - jensenshannon([2 / 3, 1 / 3], [1 / 3, 2 / 3], base=2)
    assert default == named == pytest.approx(expected, abs=1e-12)


def test_traj_d_excludes_failed_and_empty_runs() -> None:
    # Task t: run 0 [a,b] ok, run 1 [a,c] ok, run 2 [z] FAILED (excluded), run 3 [] ok but empty
    # (excluded) → only the (ab, ac) pair: 1 − √½.
    # Task u: one successful run only → NaN, skipped. Task v: all failed → skipped.
    actions = [["a", "b"], ["a", "c"], ["z"], [], ["a"], ["q"], ["q"], ["r"]]
    tasks = ["t", "t", "t", "t", "u", "u", "v", "v"]
    success = [True, True, False, True, True, False, False, False]
    value = trajectory_distribution_consistency(actions, tasks, success)
    assert value == pytest.approx(1 - math.sqrt(0.5), abs=1e-12)


def test_traj_d_no_task_defined_warns_nan() -> None:
    with pytest.warns(UndefinedMetricWarning):
        value = trajectory_distribution_consistency([["a"], ["a"]], ["t", "t"], [True, False])
    assert math.isnan(value)


@pytest.mark.parametrize(
    ("variant", "base", "squared"),
    [("distance_base2", 2, False), ("distance_ln", None, False), ("divergence_base2", 2, True)],
)
def test_traj_d_against_scipy_reference(variant: str, base: float | None, squared: bool) -> None:
    rng = np.random.default_rng(11)
    names = ["search", "book", "cancel", "refund", "lookup"]
    n = 60
    tasks = [f"t{i}" for i in rng.integers(0, 8, size=n)]
    success = (rng.random(n) < 0.7).tolist()
    actions = [list(rng.choice(names, size=rng.integers(0, 6))) for _ in range(n)]
    expected = _traj_d_reference(actions, tasks, success, base=base, squared=squared)
    got = trajectory_distribution_consistency(actions, tasks, success, variant=variant)
    assert got == pytest.approx(expected, abs=1e-10)


def _random_runs(
    seed: int, *, n: int, n_names: int, n_tasks: int, longest: int
) -> tuple[list[list[str]], list[str], list[bool]]:
    """``n`` runs: random action lists (0 … ``longest`` names), tasks, 80 % successes."""
    rng = np.random.default_rng(seed)
    names = [f"tool_{i}" for i in range(n_names)]
    tasks = [f"t{i}" for i in rng.integers(0, n_tasks, size=n)]
    success = (rng.random(n) < 0.8).tolist()
    actions = [list(rng.choice(names, size=rng.integers(0, longest + 1))) for _ in range(n)]
    return actions, tasks, success


@pytest.mark.parametrize("variant", ["distance_base2", "distance_ln", "divergence_base2"])
def test_traj_d_rows_gathered_sparse_or_dense_agree(
    variant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rows are gathered from a dense copy of the frequency matrix when it is small and from
    its sparse rows otherwise; both give the scipy reference, and the same bits."""
    actions, tasks, success = _random_runs(5, n=300, n_names=40, n_tasks=20, longest=14)
    dense = trajectory_distribution_consistency(actions, tasks, success, variant=variant)
    monkeypatch.setattr(trajectory, "_DENSE_CELLS", 0)
    monkeypatch.setattr(trajectory, "_CHUNK_CELLS", 200)  # several chunks of 5 pairs
    gathered = trajectory_distribution_consistency(actions, tasks, success, variant=variant)
    assert gathered == dense
    base, squared = {"distance_ln": (None, False), "divergence_base2": (2, True)}.get(
        variant, (2, False)
    )
    expected = _traj_d_reference(actions, tasks, success, base=base, squared=squared)
    assert dense == pytest.approx(expected, abs=1e-10)


# --- trajectory sequence consistency -------------------------------------------------------


def _edit_distance(a: Sequence[str], b: Sequence[str]) -> int:
    """Textbook Levenshtein recursion (independent reference for the library the code uses)."""
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, start=1):
        cur = [i]
        for j, y in enumerate(b, start=1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


def test_traj_s_spec_check() -> None:
    # [a,b,c] vs [a,b,d]: one substitution, max length 3 → 1 − 1/3 = 2/3.
    value = trajectory_sequence_consistency([["a", "b", "c"], ["a", "b", "d"]], ["t"] * 2, [1, 1])
    assert value == pytest.approx(2 / 3, abs=1e-12)


def test_traj_s_each_action_is_one_symbol() -> None:
    # Multi-character names must not be compared character by character:
    # [search_flight, book] vs [search_hotel, book] → 1 substitution / 2 → 0.5.
    actions = [["search_flight", "book"], ["search_hotel", "book"]]
    value = trajectory_sequence_consistency(actions, ["t", "t"], [True, True])
    assert value == pytest.approx(0.5, abs=1e-12)


def test_traj_s_names_sharing_prefixes_and_many_symbols() -> None:
    # 40 distinct names (more than any small alphabet); [n0..n39] vs its reverse.
    names = [f"tool_{i}" for i in range(40)]
    actions = [names, names[::-1]]
    expected = 1 - _edit_distance(names, names[::-1]) / 40
    value = trajectory_sequence_consistency(actions, ["t", "t"], [True, True])
    assert value == pytest.approx(expected, abs=1e-12)


def test_traj_s_different_lengths_and_three_runs() -> None:
    # runs: [a,b], [a,b,c,d], [a,b]
    # pairs: (ab, abcd) dist 2 / max 4 → 0.5; (ab, ab) → 1; (abcd, ab) → 0.5; mean = 2/3.
    actions = [["a", "b"], ["a", "b", "c", "d"], ["a", "b"]]
    value = trajectory_sequence_consistency(actions, ["t"] * 3, [True] * 3)
    assert value == pytest.approx(2 / 3, abs=1e-12)


def test_traj_s_against_reference_loop() -> None:
    rng = np.random.default_rng(5)
    names = ["get_user", "get_user_details", "book", "cancel", "search"]
    n = 50
    tasks = [f"t{i}" for i in rng.integers(0, 6, size=n)]
    success = (rng.random(n) < 0.75).tolist()
    actions = [list(rng.choice(names, size=rng.integers(0, 7))) for _ in range(n)]
    per_task: dict[str, list[list[str]]] = defaultdict(list)
    for a, t, s in zip(actions, tasks, success, strict=True):
        if s and a:
            per_task[t].append(a)
    scores = []
    for runs in per_task.values():
        if len(runs) >= 2:
            sims = [
                1 - _edit_distance(a, b) / max(len(a), len(b))
                for a, b in itertools.combinations(runs, 2)
            ]
            scores.append(float(np.mean(sims)))
    got = trajectory_sequence_consistency(actions, tasks, success)
    assert got == pytest.approx(float(np.mean(scores)), abs=1e-12)


def test_traj_s_excludes_failed_runs_and_warns_when_undefined() -> None:
    actions = [["a"], ["b"], ["a"]]
    # the only differing run failed → pair (a, a) → 1
    assert trajectory_sequence_consistency(actions, ["t"] * 3, [1, 0, 1]) == pytest.approx(1.0)
    with pytest.warns(UndefinedMetricWarning):
        assert math.isnan(trajectory_sequence_consistency(actions, ["t"] * 3, [0, 0, 1]))


# --- confidence consistency ----------------------------------------------------------------


def test_confidence_consistency_by_hand() -> None:
    # [0.4, 0.6]: mean 0.5, std(ddof=1) = √((0.1² + 0.1²)/1) = 0.141421 → CV 0.282843
    # → exp(−0.282843) = 0.753638…
    value = confidence_consistency([0.4, 0.6], ["t", "t"])
    assert value == pytest.approx(math.exp(-math.sqrt(0.02) / 0.5), abs=1e-12)
    assert value == pytest.approx(0.753638, abs=1e-6)


def test_confidence_consistency_skips_nan_and_small_tasks() -> None:
    # t: [0.4, NaN, 0.6] → as above 0.753638; u: [0.9, NaN] → one value → NaN, skipped;
    # v: [0.8, 0.8] → std 0 → exp(0) = 1.  Mean over t and v.
    conf = [0.4, math.nan, 0.6, 0.9, math.nan, 0.8, 0.8]
    tasks = ["t", "t", "t", "u", "u", "v", "v"]
    expected = (math.exp(-math.sqrt(0.02) / 0.5) + 1.0) / 2
    assert confidence_consistency(conf, tasks) == pytest.approx(expected, abs=1e-12)


def test_confidence_consistency_zero_mean_is_undefined() -> None:
    with pytest.warns(UndefinedMetricWarning):
        assert math.isnan(confidence_consistency([0.0, 0.0], ["t", "t"]))


def test_confidence_consistency_all_nan_is_undefined() -> None:
    with pytest.warns(UndefinedMetricWarning):
        assert math.isnan(confidence_consistency([math.nan, math.nan], ["t", "t"]))


# --- resource consistency ------------------------------------------------------------------


def test_resource_consistency_spec_check() -> None:
    # cost [0.01, 10, 0.01, 10]: mean 5.005, deviations ±4.995,
    # std(ddof=1) = √(4·4.995²/3) = 5.767729 → CV = 1.152393 → exp(−1.152393) = 0.31588.
    value = resource_consistency({"cost_usd": [0.01, 10, 0.01, 10]}, ["t"] * 4)
    assert round(value, 5) == 0.31588
    assert value == pytest.approx(math.exp(-math.sqrt(4 * 4.995**2 / 3) / 5.005), abs=1e-12)


def test_resource_consistency_mean_of_available_cvs() -> None:
    # Task t1: cost [1, 1] → CV 0; wall time [1, 3] → mean 2, std √2 → CV 0.707107;
    #          C = exp(−(0 + 0.707107)/2) = exp(−0.353553) = 0.702189.
    # Task t2: cost [2, NaN] → only one recorded value → unavailable; time [NaN, NaN]
    #          → unavailable → no resource → NaN, skipped.
    # Task t3: cost [0, 0] → all equal (zero) → CV 0; time [NaN, 4] → unavailable → C = 1.
    # C_res = (0.702189 + 1)/2.
    resources = {
        "cost_usd": [1, 1, 2, math.nan, 0, 0],
        "wall_time_s": [1, 3, math.nan, math.nan, math.nan, 4],
    }
    tasks = ["t1", "t1", "t2", "t2", "t3", "t3"]
    expected = (math.exp(-(math.sqrt(2) / 2) / 2) + 1.0) / 2
    assert resource_consistency(resources, tasks) == pytest.approx(expected, abs=1e-12)


def test_resource_consistency_not_conditioned_on_success() -> None:
    # No success argument at all: every run counts (docs/methodology.md, "Consistency").
    value = resource_consistency({"api_calls": [2, 2, 2]}, ["t"] * 3)
    assert value == pytest.approx(1.0)


def test_resource_consistency_nothing_recorded_warns_nan() -> None:
    with pytest.warns(UndefinedMetricWarning):
        value = resource_consistency({"cost_usd": [math.nan, math.nan]}, ["t", "t"])
    assert math.isnan(value)


def test_resource_consistency_against_reference_loop() -> None:
    rng = np.random.default_rng(3)
    n = 40
    tasks = [f"t{i}" for i in rng.integers(0, 7, size=n)]
    cost = rng.gamma(2.0, 0.01, size=n)
    cost[rng.random(n) < 0.2] = np.nan
    calls = rng.integers(1, 9, size=n).astype(float)
    resources = {"cost_usd": cost, "api_calls": calls}
    per_task: dict[str, list[int]] = defaultdict(list)
    for i, t in enumerate(tasks):
        per_task[t].append(i)
    scores = []
    for rows in per_task.values():
        cvs = []
        for values in resources.values():
            vals = [values[i] for i in rows if not math.isnan(values[i])]
            if len(vals) < 2:
                continue
            if max(vals) == min(vals):
                cvs.append(0.0)
            else:
                cvs.append(float(np.std(vals, ddof=1) / np.mean(vals)))
        if cvs:
            scores.append(math.exp(-sum(cvs) / len(cvs)))
    got = resource_consistency(resources, tasks)
    assert got == pytest.approx(float(np.mean(scores)), abs=1e-12)


@pytest.mark.parametrize("value", [0.1, 0.3, 0.7, 1 / 3])
def test_confidence_consistency_identical_values_give_exactly_one(value: float) -> None:
    # As for C_res: identical values have CV 0 exactly (float means like 0.1·3/3 used to leave a
    # 1e-17 standard deviation and return 0.9999999999999998).
    assert confidence_consistency([value] * 3, ["t"] * 3) == 1.0
    assert confidence_consistency([value] * 7 + [0.5] * 2, ["t"] * 7 + ["u"] * 2) == 1.0


# --- bad action names ----------------------------------------------------------------------


@pytest.mark.parametrize("missing", [None, math.nan])
@pytest.mark.parametrize(
    "metric", [trajectory_distribution_consistency, trajectory_sequence_consistency]
)
def test_trajectory_rejects_missing_action_names(metric: object, missing: object) -> None:
    # None/NaN action names used to score silently (0.5) or crash with "negative axis 1 index".
    with pytest.raises(TypeError, match=r"actions: missing action name .* run \[1\]"):
        metric([["a", "b"], ["a", missing]], ["t", "t"], [1, 1])  # type: ignore[operator]


def test_metric_inputs_by_keyword() -> None:
    assert outcome_consistency(success=[1, 1], task_id=["t", "t"]) == 1.0
    assert confidence_consistency(confidence=[0.5, 0.5], task_id=["t", "t"]) == 1.0
    assert resource_consistency(resources={"cost_usd": [1, 1]}, task_id=["t", "t"]) == 1.0
    kw = {"actions": [["a"], ["a"]], "task_id": ["t", "t"], "success": [1, 1]}
    assert trajectory_distribution_consistency(**kw) == 1.0
    assert trajectory_sequence_consistency(**kw) == 1.0


def test_action_symbols_skip_surrogates_and_stay_distinct() -> None:
    # Edit distance runs on one character per action; codes around the UTF-16 surrogate range
    # must still map to distinct, valid characters, and a vocabulary too large falls back.
    import sys

    from reliability_lab.metrics.trajectory import _Coded

    codes = np.arange(0xD800 - 0x100 - 3, 0xD800 - 0x100 + 3)
    coded = _Coded(codes, np.array([len(codes)]), 0xD800)
    (text,) = coded.strings()
    assert len(set(text)) == len(codes)
    assert not any(0xD800 <= ord(ch) <= 0xDFFF for ch in text)
    text.encode("utf-8")  # valid code points only
    huge = _Coded(np.array([sys.maxunicode]), np.array([1]), 1)
    assert huge.strings() is None


def test_traj_s_symbols_as_integer_lists_when_characters_run_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # With more distinct actions than code points, edit distances run on lists of integer
    # symbols: the same values as on strings.
    from reliability_lab.metrics.trajectory import _Coded

    actions, tasks, success = _random_runs(3, n=200, n_names=30, n_tasks=15, longest=11)
    as_text = trajectory_sequence_consistency(actions, tasks, success)
    monkeypatch.setattr(_Coded, "strings", lambda self: None)
    assert trajectory_sequence_consistency(actions, tasks, success) == as_text


@pytest.mark.parametrize("missing", [None, float("nan"), pd.NA, pd.NaT, np.datetime64("NaT")])
def test_missing_task_label_of_any_kind_is_named(missing: object) -> None:
    with pytest.raises(ValueError, match=r"task_id: missing task labels at \[1\]="):
        outcome_consistency([1, 0, 1], np.array(["t", missing, "u"], dtype=object))
