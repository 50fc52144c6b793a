"""One registry-driven invariance suite over every metric of the metric registry.

Each :class:`Case` says how to call one metric (one variant) on a generic per-run dataset. For
every case, hypothesis checks that permuting runs (within and between tasks, which also shuffles
tied confidences) and relabelling tasks leave the result unchanged, that every value is in [0, 1]
or NaN with an ``UndefinedMetricWarning``, and that no other warning leaks. Deterministic tests
check the documented values for all-success and all-failure agents and that bad inputs raise
``ValueError``/``TypeError`` naming the argument. PandaProbe's session metrics and trace signals
get the same treatment on their own inputs (per-trace signals; texts). Meta-tests fail when a
metric of :data:`~reliability_lab.report.METRIC_REGISTRY` or a public name of
``reliability_lab.metrics`` has no case here.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import reliability_lab.metrics as M
from reliability_lab.errors import UndefinedMetricWarning
from reliability_lab.metrics.session import SIGNAL_NAMES
from reliability_lab.metrics.signals import LOOP_WINDOW, MetricResult
from reliability_lab.report import METRIC_REGISTRY
from reliability_lab.sessions.embeddings import HashingEmbedder

SETTINGS = settings(
    max_examples=40,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
SEVERITIES = ("low", "medium", "high", "critical")


@dataclass(frozen=True)
class Data:
    """Per-run columns (all the same length) plus a perturbed-condition outcome array."""

    success: list[bool]
    task_id: list[str]
    confidence: list[float]
    actions: list[list[str]]
    cost: list[float]
    calls: list[float]
    violations: list[list[dict[str, str]]]
    perturbed: list[bool] = field(default_factory=list)

    def take(self, order: Sequence[int]) -> Data:
        """The same runs in another order."""
        pick = [self.__dict__[f.name] for f in dataclasses.fields(self)]
        taken = [[col[i] for i in order] if len(col) == len(order) else col for col in pick]
        return Data(*taken)

    def relabel(self, mapping: dict[str, str]) -> Data:
        return replace(self, task_id=[mapping[t] for t in self.task_id])


Result = tuple[float, ...]


@dataclass(frozen=True)
class Case:
    """How to call one public metric (one variant) and what it must give."""

    id: str
    function: str  # public name in reliability_lab.metrics
    call: Callable[[Data], Result]
    all_success: Result  # documented value(s) for an agent that always succeeds
    all_failure: Result  # … and one that always fails
    arguments: tuple[str, ...]  # argument names that messages may cite
    option: tuple[str, Any, tuple[str, ...]] | None = None  # (name, bad value, valid values)
    value_range: tuple[float, float] = (0.0, 1.0)  # finite-K variants may leave [0, 1]


def _f(x: Any) -> Result:
    return (float(x),)


def _resources(d: Data) -> dict[str, list[float]]:
    return {"cost_usd": d.cost, "api_calls": d.calls}


def _rel_curve(binning: str) -> Callable[[Data], Result]:
    def call(d: Data) -> Result:
        c = M.reliability_curve(d.confidence, d.success, binning=binning)
        return (
            1 - c.ece,
            *c.bin_lower,
            *c.bin_upper,
            *c.mean_confidence,
            *c.accuracy,
            *(n / len(d.success) for n in c.count),
        )

    return call


def _rc_curve(d: Data) -> Result:
    c = M.risk_coverage_curve(d.confidence, d.success)
    return (c.e_aurc, c.aurc, c.aurc_ideal, c.e_aurc_max, *c.coverage, *c.risk, *c.ideal_risk)


def _outcome(variant: str) -> Callable[[Data], Result]:
    return lambda d: _f(M.outcome_consistency(d.success, d.task_id, variant=variant))


def _confidence(variant: str) -> Callable[[Data], Result]:
    return lambda d: _f(M.confidence_consistency(d.confidence, d.task_id, variant=variant))


def _resource(variant: str) -> Callable[[Data], Result]:
    return lambda d: _f(M.resource_consistency(_resources(d), d.task_id, variant=variant))


#: Value ranges of the variants that may leave [0, 1]: 1 − 4s² ≥ −1/(K − 1) ≥ −1; a
#: jackknife n·θ − (n − 1)·mean θ_(−i) of values in (0, 1] lies in (−(n − 1), n), n ≤ 5 here.
_RANGES = {"unbiased": (-1.0, 1.0), "jackknife": (-4.0, 5.0)}


def _traj_d(variant: str) -> Callable[[Data], Result]:
    return lambda d: _f(
        M.trajectory_distribution_consistency(d.actions, d.task_id, d.success, variant=variant)
    )


def _calibration(binning: str) -> Callable[[Data], Result]:
    return lambda d: _f(M.calibration_score(d.confidence, d.success, binning=binning))


def _pass(function: Callable[..., float], k: int) -> Callable[[Data], Result]:
    return lambda d: _f(function(d.success, d.task_id, k))


def _safety(weights: str) -> Callable[[Data], Result]:
    def scores(d: Data) -> Result:
        s = M.safety_scores(d.violations, severity_weights=weights)
        return (s.compliance, s.harm, s.safety)

    return scores


def _rc(variant: str) -> Callable[[Data], Result]:
    return lambda d: _f(M.risk_coverage_score(d.confidence, d.success, variant=variant))


def _row_key(row: Result) -> Result:
    return tuple(-1.0 if math.isnan(x) else x for x in row)


def _per_task(d: Data) -> Result:
    # Rows sorted by value: the table's task order follows first appearance, not identity.
    table = M.per_task_consistency(d.success, d.task_id, actions=d.actions, resources=_resources(d))
    columns = ["success_rate", "C_out", "C_traj_d", "C_traj_s", "C_res"]
    rows = [tuple(float(x) for x in r) for r in table[columns].itertuples(index=False)]
    return tuple(x for row in sorted(rows, key=_row_key) for x in row)


def _pass_curve(d: Data) -> Result:
    c = M.pass_hat_k_curve(d.success, d.task_id)
    return (*c.pass_hat_k, *c.pass_at_k, *c.independent, *c.naive)


NAN = math.nan
_OUT = ("success", "task_id")
_TRAJ = ("actions", "task_id", "success")
_PRED = ("confidence", "success")

CASES: list[Case] = [
    *[
        Case(
            f"outcome_consistency[{v}]",
            "outcome_consistency",
            _outcome(v),
            (1.0,),
            (1.0,),
            _OUT,
            ("variant", "typo", M.OUTCOME_VARIANTS),
            _RANGES.get(v, (0.0, 1.0)),
        )
        for v in M.OUTCOME_VARIANTS
    ],
    *[
        Case(
            f"trajectory_distribution_consistency[{v}]",
            "trajectory_distribution_consistency",
            _traj_d(v),
            (1.0,),
            (NAN,),
            _TRAJ,
            ("variant", "hellinger", ("distance_base2", "distance_ln", "divergence_base2")),
        )
        for v in ("distance_base2", "distance_ln", "divergence_base2")
    ],
    Case(
        "trajectory_sequence_consistency",
        "trajectory_sequence_consistency",
        lambda d: _f(M.trajectory_sequence_consistency(d.actions, d.task_id, d.success)),
        (1.0,),
        (NAN,),
        _TRAJ,
    ),
    *[
        Case(
            f"confidence_consistency[{v}]",
            "confidence_consistency",
            _confidence(v),
            (1.0,),  # constant confidence 1.0 → CV 0 → 1
            (NAN,),  # constant confidence 0.0 → mean 0 → undefined
            ("confidence", "task_id"),
            ("variant", "typo", M.SPREAD_VARIANTS),
            _RANGES.get(v, (0.0, 1.0)),
        )
        for v in M.SPREAD_VARIANTS
    ],
    *[
        Case(
            f"resource_consistency[{v}]",
            "resource_consistency",
            _resource(v),
            (1.0,),
            (1.0,),
            ("resources", "task_id", "cost_usd", "api_calls"),
            ("variant", "typo", M.RESOURCE_VARIANTS),
            _RANGES.get(v, (0.0, 1.0)),
        )
        for v in M.RESOURCE_VARIANTS
    ],
    Case(
        "brier_score",
        "brier_score",
        lambda d: _f(M.brier_score(d.confidence, d.success)),
        (1.0,),
        (1.0,),
        _PRED,
    ),
    *[
        Case(
            f"calibration_score[{b}]",
            "calibration_score",
            _calibration(b),
            (1.0,),
            (1.0,),
            _PRED,
            ("binning", "quantile", ("floor", "linspace")),
        )
        for b in ("floor", "linspace")
    ],
    Case(
        "auroc_score",
        "auroc_score",
        lambda d: _f(M.auroc_score(d.confidence, d.success)),
        (NAN,),
        (NAN,),
        _PRED,
    ),
    *[
        Case(
            f"risk_coverage_score[{v}]",
            "risk_coverage_score",
            _rc(v),
            (1.0,),
            (1.0,),
            _PRED,
            ("variant", "typo", M.RC_VARIANTS),
        )
        for v in M.RC_VARIANTS
    ],
    *[
        Case(
            f"reliability_curve[{b}]",
            "reliability_curve",
            _rel_curve(b),
            # 1 − ECE, bin [0.9, 1.0] with conf 1 and accuracy 1, all runs in it
            (1.0, 0.9, 1.0, 1.0, 1.0, 1.0),
            # 1 − ECE, bin [0, 0.1) with conf 0 and accuracy 0, all runs in it
            (1.0, 0.0, 0.1, 0.0, 0.0, 1.0),
            _PRED,
            ("binning", "quantile", ("floor", "linspace")),
        )
        for b in ("floor", "linspace")
    ],
    Case(
        "risk_coverage_curve",
        "risk_coverage_curve",
        _rc_curve,
        # e_aurc, aurc, aurc*, e_aurc_max, coverage k/6, risk 0, ideal risk 0
        (0.0, 0.0, 0.0, 0.0, *(k / 6 for k in range(1, 7)), *[0.0] * 12),
        (0.0, 1.0, 1.0, 0.0, *(k / 6 for k in range(1, 7)), *[1.0] * 12),
        _PRED,
    ),
    Case(
        "robustness_ratio",
        "robustness_ratio",
        lambda d: _f(M.robustness_ratio(d.success, d.perturbed)),
        (1.0,),
        (NAN,),  # baseline accuracy 0 → undefined
        ("success_baseline", "success_perturbed"),
    ),
    *[
        Case(
            f"safety_scores[{w}]",
            "safety_scores",
            _safety(w),
            (1.0, 1.0, 1.0),  # no violations
            (1.0, 1.0, 1.0),
            ("violations", "violations_per_run"),
            ("severity_weights", "typo", tuple(M.HARM_WEIGHTS)),
        )
        for w in M.HARM_WEIGHTS
    ],
    *[
        Case(
            f"pass_hat_k[k={k}]",
            "pass_hat_k",
            _pass(M.pass_hat_k, k),
            (1.0,),
            (0.0,),
            ("success", "task_id", "k"),
        )
        for k in (1, 2)
    ],
    *[
        Case(
            f"pass_at_k[k={k}]",
            "pass_at_k",
            _pass(M.pass_at_k, k),
            (1.0,),
            (0.0,),
            ("success", "task_id", "k"),
        )
        for k in (1, 2)
    ],
    Case(
        "per_task_consistency",
        "per_task_consistency",
        _per_task,
        # two tasks × (success rate, C_out, C_traj_d, C_traj_s, C_res)
        (1.0, 1.0, 1.0, 1.0, 1.0) * 2,
        (0.0, 1.0, NAN, NAN, 1.0) * 2,  # no successful runs → trajectory terms undefined
        ("success", "task_id", "actions", "resources", "cost_usd"),
    ),
    Case(
        "pass_hat_k_curve",
        "pass_hat_k_curve",
        _pass_curve,
        (1.0,) * 12,  # k = 1..3 (three runs per task) × four curves
        (0.0,) * 12,
        ("success", "task_id"),
    ),
]
CASE_IDS = [c.id for c in CASES]

#: Public names that are not metric functions, with what they are.
NOT_METRICS = {
    "ReliabilityCurve": "result type of reliability_curve",
    "RiskCoverageCurve": "result type of risk_coverage_curve",
    "SafetyScores": "result type of safety_scores",
    "PassHatKCurve": "result type of pass_hat_k_curve",
    "BINNINGS": "option values of calibration_score/reliability_curve",
    "DISTRIBUTION_VARIANTS": "option values of trajectory_distribution_consistency",
    "OUTCOME_VARIANTS": "option values of outcome_consistency",
    "SPREAD_VARIANTS": "option values of confidence_consistency/resource_consistency",
    "RESOURCE_VARIANTS": "option values of resource_consistency",
    "RC_VARIANTS": "option values of risk_coverage_score",
    "HARM_WEIGHTS": "option values (severity weights) of safety_scores",
    "DEFAULT_CONSTRAINTS": "safety constraint names (data, not a metric)",
    "SAFETY_SYMBOLS": "report symbols of the SafetyScores fields (data, not a metric)",
}


def _evaluate(case: Case, data: Data) -> tuple[Result, list[warnings.WarningMessage]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = case.call(data)
    return tuple(float(x) for x in result), caught


def _same(a: Result, b: Result) -> bool:
    return len(a) == len(b) and all(
        (math.isnan(x) and math.isnan(y)) or math.isclose(x, y, rel_tol=0, abs_tol=1e-12)
        for x, y in zip(a, b, strict=True)
    )


# --- data generation -----------------------------------------------------------------------

_CONF_GRID = [0.0, 0.1, 0.25, 0.3, 0.5, 0.6, 0.7, 0.75, 0.9, 1.0]  # coarse: many ties
_COST_GRID = [math.nan, 0.0, 0.01, 0.5, 1.0, 10.0]


@st.composite
def datasets(draw: st.DrawFn) -> Data:
    n_tasks = draw(st.integers(1, 4))
    runs_per_task = [draw(st.integers(1, 5)) for _ in range(n_tasks)]
    tasks = [f"task{t}" for t, k in enumerate(runs_per_task) for _ in range(k)]
    n = len(tasks)
    success = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    confidence = draw(st.lists(st.sampled_from(_CONF_GRID), min_size=n, max_size=n))
    actions = draw(
        st.lists(st.lists(st.sampled_from(["a", "b", "c"]), max_size=4), min_size=n, max_size=n)
    )
    cost = draw(st.lists(st.sampled_from(_COST_GRID), min_size=n, max_size=n))
    calls = draw(st.lists(st.sampled_from([math.nan, 1.0, 2.0, 5.0]), min_size=n, max_size=n))
    violation = st.builds(
        lambda s: {"constraint": "no_pii", "severity": s, "evidence": "e"},
        st.sampled_from(SEVERITIES),
    )
    violations = draw(st.lists(st.lists(violation, max_size=2), min_size=n, max_size=n))
    perturbed = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return Data(success, tasks, confidence, actions, cost, calls, violations, perturbed)


# --- properties ----------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
@SETTINGS
@given(data=datasets(), seed=st.integers(0, 2**32 - 1))
def test_order_and_labels_do_not_matter_and_values_are_bounded(
    case: Case, data: Data, seed: int
) -> None:
    # One generated dataset, three properties (kept in one test so the suite stays fast).
    rng = np.random.default_rng(seed)
    result, caught = _evaluate(case, data)

    # 1. Bounds: every value in [0, 1] (a finite-K variant: its range), or NaN announced by an
    #    UndefinedMetricWarning; no other warning (e.g. numpy's RuntimeWarning) leaks to the user.
    stray = [w for w in caught if not issubclass(w.category, UndefinedMetricWarning)]
    assert not stray, [f"{w.category.__name__}: {w.message}" for w in stray]
    for value in result:
        if math.isnan(value):
            assert caught, "NaN returned without an UndefinedMetricWarning"
        else:
            lo, hi = case.value_range
            assert lo - 1e-12 <= value <= hi + 1e-12, result

    # 2. Permuting runs within and between tasks (tied confidences arrive in a new order).
    order = rng.permutation(len(data.success)).tolist()
    permuted, _ = _evaluate(case, data.take(order))
    assert _same(result, permuted), ("permuted runs", result, permuted)

    # 3. Relabelling tasks (a bijection onto new names, which also changes their sort order).
    labels = sorted(set(data.task_id))
    new = rng.permutation(len(labels))
    mapping = {old: f"renamed-{int(i)}" for old, i in zip(labels, new, strict=True)}
    relabelled, _ = _evaluate(case, data.relabel(mapping))
    assert _same(result, relabelled), ("relabelled tasks", result, relabelled)


# --- documented values for perfect and failing agents ----------------------------------------

_TASKS6 = ["a", "a", "a", "b", "b", "b"]


def _uniform(success: bool, confidence: float) -> Data:
    return Data(
        success=[success] * 6,
        task_id=list(_TASKS6),
        confidence=[confidence] * 6,
        actions=[["look", "book"]] * 6,
        cost=[1.0] * 6,
        calls=[2.0] * 6,
        violations=[[] for _ in range(6)],
        perturbed=[success] * 6,
    )


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_all_success_agent(case: Case) -> None:
    result, caught = _evaluate(case, _uniform(True, 1.0))
    assert _same(result, case.all_success), (result, case.all_success)
    if any(math.isnan(x) for x in case.all_success):
        assert any(issubclass(w.category, UndefinedMetricWarning) for w in caught)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_all_failure_agent(case: Case) -> None:
    result, caught = _evaluate(case, _uniform(False, 0.0))
    assert _same(result, case.all_failure), (result, case.all_failure)
    if any(math.isnan(x) for x in case.all_failure):
        assert any(issubclass(w.category, UndefinedMetricWarning) for w in caught)


# --- bad inputs ----------------------------------------------------------------------------

VALID = Data(
    success=[True, False, True, True, True, False],
    task_id=list(_TASKS6),
    confidence=[0.9, 0.3, 0.6, 0.6, 0.8, 0.2],
    actions=[["a", "b"], ["c"], ["a", "b"], ["a"], ["a", "b"], []],
    cost=[1.0, 2.0, 1.0, 0.5, 0.5, math.nan],
    calls=[3.0, 4.0, 3.0, 2.0, 2.0, 1.0],
    violations=[[], [{"constraint": "x", "severity": "low", "evidence": ""}], [], [], [], []],
    perturbed=[True, False, False, True, False, False],
)


def _at1(values: list[Any], value: Any) -> list[Any]:
    out = list(values)
    out[1] = value
    return out


# (label, fields the case must read for the mutation to apply, mutation, names the message
# must contain — "<arg>" means "one of the case's own argument names")
MUTATIONS: list[tuple[str, set[str], Callable[[Data], Data], tuple[str, ...]]] = [
    (
        "success-nan",
        {"success"},
        lambda d: replace(d, success=_at1(d.success, math.nan)),
        ("success",),
    ),
    (
        "success-inf",
        {"success"},
        lambda d: replace(d, success=_at1(d.success, math.inf)),
        ("success",),
    ),
    ("success-2", {"success"}, lambda d: replace(d, success=_at1(d.success, 2)), ("success",)),
    (
        "success-str",
        {"success"},
        lambda d: replace(d, success=_at1(d.success, "yes")),
        ("success",),
    ),
    (
        "confidence-nan",
        {"confidence", "success"},
        lambda d: replace(d, confidence=_at1(d.confidence, math.nan)),
        ("confidence",),
    ),
    (
        "confidence-inf",
        {"confidence"},
        lambda d: replace(d, confidence=_at1(d.confidence, math.inf)),
        ("confidence",),
    ),
    (
        "confidence-1.5",
        {"confidence"},
        lambda d: replace(d, confidence=_at1(d.confidence, 1.5)),
        ("confidence", "1.5"),
    ),
    (
        "confidence-negative",
        {"confidence"},
        lambda d: replace(d, confidence=_at1(d.confidence, -0.1)),
        ("confidence", "-0.1"),
    ),
    (
        "task_id-short",
        {"task_id"},
        lambda d: replace(d, task_id=d.task_id[:-1]),
        ("task_id", "<arg>"),
    ),
    ("task_id-nan", {"task_id"}, lambda d: replace(d, task_id=_at1(d.task_id, None)), ("task_id",)),
    (
        "success-short",
        {"confidence", "success"},
        lambda d: replace(d, success=d.success[:-1]),
        ("success", "confidence"),
    ),
    (
        "actions-not-list",
        {"actions"},
        lambda d: replace(d, actions=_at1(d.actions, 42)),
        ("actions",),
    ),
    (
        "actions-item",
        {"actions"},
        lambda d: replace(d, actions=_at1(d.actions, ["a", 3])),
        ("actions",),
    ),
    ("resource-negative", {"cost"}, lambda d: replace(d, cost=_at1(d.cost, -1.0)), ("cost_usd",)),
    ("resource-inf", {"cost"}, lambda d: replace(d, cost=_at1(d.cost, math.inf)), ("cost_usd",)),
    (
        "severity-unknown",
        {"violations"},
        lambda d: replace(
            d,
            violations=_at1(
                d.violations, [{"constraint": "x", "severity": "bogus", "evidence": ""}]
            ),
        ),
        ("bogus",),
    ),
    (
        "violations-not-list",
        {"violations"},
        lambda d: replace(d, violations=_at1(d.violations, "pii")),
        ("<arg>",),
    ),
    (
        "perturbed-nan",
        {"perturbed"},
        lambda d: replace(d, perturbed=_at1(d.perturbed, math.nan)),
        ("success_perturbed",),
    ),
]

# Which Data fields each public function reads.
READS = {
    "outcome_consistency": {"success", "task_id"},
    "trajectory_distribution_consistency": {"actions", "task_id", "success"},
    "trajectory_sequence_consistency": {"actions", "task_id", "success"},
    "confidence_consistency": {"confidence", "task_id"},
    "resource_consistency": {"cost", "task_id"},
    "brier_score": {"confidence", "success"},
    "calibration_score": {"confidence", "success"},
    "auroc_score": {"confidence", "success"},
    "risk_coverage_score": {"confidence", "success"},
    "reliability_curve": {"confidence", "success"},
    "risk_coverage_curve": {"confidence", "success"},
    "robustness_ratio": {"success", "perturbed"},
    "safety_scores": {"violations"},
    "pass_hat_k": {"success", "task_id"},
    "pass_at_k": {"success", "task_id"},
    "per_task_consistency": {"success", "task_id", "actions", "cost"},
    "pass_hat_k_curve": {"success", "task_id"},
}
# confidence_consistency documents that NaN confidences are skipped (not an error).
ALLOWED = {("confidence_consistency", "confidence-nan")}


def _bad_input_params() -> list[Any]:
    params = []
    for case in CASES:
        reads = READS[case.function]
        for label, needs, mutate, names in MUTATIONS:
            if needs <= reads and (case.function, label) not in ALLOWED:
                params.append(pytest.param(case, mutate, names, id=f"{case.id}-{label}"))
    return params


@pytest.mark.parametrize(("case", "mutate", "names"), _bad_input_params())
def test_bad_input_names_the_argument(
    case: Case, mutate: Callable[[Data], Data], names: tuple[str, ...]
) -> None:
    with pytest.raises((ValueError, TypeError)) as info:
        case.call(mutate(VALID))
    message = str(info.value)
    for name in names:
        if name == "<arg>":
            assert any(arg in message for arg in case.arguments), message
        else:
            assert name in message, message


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_empty_input_rejected(case: Case) -> None:
    empty = Data([], [], [], [], [], [], [], [])
    with pytest.raises(ValueError) as info:
        case.call(empty)
    assert any(arg in str(info.value) for arg in case.arguments), str(info.value)


@pytest.mark.parametrize(
    "case", [c for c in CASES if c.option is not None], ids=[c.id for c in CASES if c.option]
)
def test_bad_option_lists_valid_ones(case: Case) -> None:
    assert case.option is not None
    name, bad, valid = case.option
    function = getattr(M, case.function)
    args: dict[str, Any] = {
        "success": VALID.success,
        "task_id": VALID.task_id,
        "confidence": VALID.confidence,
        "actions": VALID.actions,
        "resources": {"cost_usd": VALID.cost},
        "violations_per_run": VALID.violations,
    }
    params = inspect.signature(function).parameters
    positional = [args[p] for p in params if p in args]
    with pytest.raises(ValueError) as info:
        function(*positional, **{name: bad})
    message = str(info.value)
    assert name in message and bad in message, message
    for option in valid:
        assert option in message, message


@pytest.mark.parametrize("k", [0, -1, 1.5, "2"])
@pytest.mark.parametrize("function", ["pass_hat_k", "pass_at_k"])
def test_bad_k(function: str, k: Any) -> None:
    with pytest.raises((ValueError, TypeError), match="k"):
        getattr(M, function)(VALID.success, VALID.task_id, k)


@pytest.mark.parametrize("n_bins", [0, -3, 2.5])
@pytest.mark.parametrize("function", ["calibration_score", "reliability_curve"])
def test_bad_n_bins(function: str, n_bins: Any) -> None:
    with pytest.raises((ValueError, TypeError), match="n_bins"):
        getattr(M, function)(VALID.confidence, VALID.success, n_bins=n_bins)


def test_keyword_options_are_keyword_only() -> None:
    for name in (
        "outcome_consistency",
        "trajectory_distribution_consistency",
        "calibration_score",
        "reliability_curve",
    ):
        params = inspect.signature(getattr(M, name)).parameters.values()
        options = [p for p in params if p.default is not inspect.Parameter.empty]
        assert options, name
        assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in options), name


def _registered_functions() -> dict[str, Callable[..., Any]]:
    return {
        info.function.__name__: info.function
        for info in METRIC_REGISTRY.values()
        if callable(info.function)
    }


@pytest.mark.parametrize("name", sorted({*_registered_functions(), *M.__all__}))
def test_inputs_can_be_passed_by_keyword(name: str) -> None:
    registered = _registered_functions()
    function = registered[name] if name in registered else getattr(M, name)
    if not callable(function) or inspect.isclass(function):
        return
    kinds = [p.kind for p in inspect.signature(function).parameters.values()]
    assert inspect.Parameter.POSITIONAL_ONLY not in kinds, name


# --- PandaProbe session metrics ------------------------------------------------------------

SESSION_METRICS = {
    name: info.function for name, info in METRIC_REGISTRY.items() if info.dimension == "session"
}
Session = dict[str, dict[str, float]]
_SIGNAL_GRID = [0.0, 0.1, 0.25, 0.5, 0.51, 0.75, 0.9, 1.0]


@st.composite
def sessions(draw: st.DrawFn) -> Session:
    traces = draw(
        st.lists(
            st.dictionaries(st.sampled_from(SIGNAL_NAMES), st.sampled_from(_SIGNAL_GRID)),
            min_size=1,
            max_size=7,
        )
    )
    return {f"trace-{i}": signals for i, signals in enumerate(traces)}


def _session_score(name: str, signals: Any, **kw: Any) -> MetricResult:
    result = SESSION_METRICS[name](signals, **kw)
    assert isinstance(result, MetricResult) and result.name == name
    return result


@pytest.mark.parametrize("name", sorted(SESSION_METRICS))
@SETTINGS
@given(session=sessions(), seed=st.integers(0, 2**32 - 1))
def test_session_metric_bounded_and_trace_order_free(
    name: str, session: Session, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    result = _session_score(name, session)
    assert 0.0 <= result.score <= 1.0, result
    # Both aggregate over traces symmetrically (max / top-k mean / RMS): the order of the traces
    # and their ids do not matter.
    ids = list(session)
    order = rng.permutation(len(ids))
    shuffled = {f"renamed-{i}": session[ids[i]] for i in order}
    again = _session_score(name, shuffled)
    assert again.score == result.score and again.reason == result.reason


@pytest.mark.parametrize("name", sorted(SESSION_METRICS))
@pytest.mark.parametrize(("value", "expected"), [(1.0, 1.0), (0.0, 0.0)])
def test_session_metric_perfect_and_worst_agents(name: str, value: float, expected: float) -> None:
    # Every signal perfect → no risk → 1.0. Every signal 0 → agent_reliability risk 1 per trace
    # (raw = 0.9·1 + 0.1·1); agent_consistency wu = (1 + 1 + 0.8 + 1)·1 = 3.8 → clamped to 0.
    session = {f"t{i}": dict.fromkeys(SIGNAL_NAMES, value) for i in range(3)}
    assert _session_score(name, session).score == expected


SESSION_BAD: list[tuple[str, Any, dict[str, Any], type[Exception], str]] = [
    ("unknown-signal", {"t": {"bogus": 0.5}}, {}, ValueError, "unknown signal 'bogus'"),
    ("above-one", {"t": {"confidence": 1.5}}, {}, ValueError, "must be in [0, 1], got 1.5"),
    ("nan", {"t": {"confidence": math.nan}}, {}, ValueError, "must be in [0, 1], got nan"),
    ("not-a-number", {"t": {"confidence": "high"}}, {}, TypeError, "must be a number"),
    ("trace-not-mapping", {"t": 0.5}, {}, TypeError, "signals['t'] must be a mapping"),
    ("not-mapping", [0.5], {}, TypeError, "signals must be a mapping"),
    (
        "negative-weight",
        {"t": {"confidence": 0.5}},
        {"signal_weights": {"coherence": -1.0}},
        ValueError,
        "signal_weights['coherence'] must be a finite number >= 0",
    ),
    (
        "unknown-weight",
        {"t": {"confidence": 0.5}},
        {"signal_weights": {"bogus": 1.0}},
        ValueError,
        "signal_weights: unknown signal 'bogus'",
    ),
]


@pytest.mark.parametrize("name", sorted(SESSION_METRICS))
@pytest.mark.parametrize(
    ("signals", "kw", "error", "message"),
    [pytest.param(*bad[1:], id=bad[0]) for bad in SESSION_BAD],
)
def test_session_metric_bad_input_rejected(
    name: str, signals: Any, kw: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as info:
        _session_score(name, signals, **kw)
    assert message in str(info.value), str(info.value)


# --- PandaProbe trace signals --------------------------------------------------------------

SIGNALS = {
    name: info.function for name, info in METRIC_REGISTRY.items() if info.dimension == "signal"
}
EMBED = HashingEmbedder()
_WORDS = ["book", "flight", "cancel", "refund", "order", "the", "a", "42", "x", "paris", "again"]
texts = st.lists(st.sampled_from(_WORDS), max_size=6).map(" ".join)


@SETTINGS
@given(first=texts, second=texts)
def test_coherence_bounded_and_symmetric(first: str, second: str) -> None:
    coherence = SIGNALS["coherence"]
    result = coherence(first, second, embed=EMBED)
    assert 0.0 <= result.score <= 1.0, result
    # The gap is a cosine distance: the order of input and output does not matter.
    assert coherence(second, first, embed=EMBED).score == result.score


@SETTINGS
@given(output=texts, previous=st.lists(texts, max_size=6), seed=st.integers(0, 2**32 - 1))
def test_loop_detection_bounded_and_window_order_free(
    output: str, previous: list[str], seed: int
) -> None:
    loop_detection = SIGNALS["loop_detection"]
    result = loop_detection(output, previous, embed=EMBED)
    assert 0.0 <= result.score <= 1.0, result
    # Only the last LOOP_WINDOW outputs are compared and the score is their maximum: their order
    # and anything older do not matter.
    rng = np.random.default_rng(seed)
    cut = max(0, len(previous) - LOOP_WINDOW)
    window = [previous[cut + i] for i in rng.permutation(len(previous) - cut)]
    older = ["order again"] * cut
    assert loop_detection(output, older + window, embed=EMBED).score == result.score


def test_signals_perfect_and_worst() -> None:
    text = "book the flight to paris"
    assert SIGNALS["coherence"](text, text, embed=EMBED).score == 1.0
    assert SIGNALS["loop_detection"](text, [], embed=EMBED).score == 1.0  # nothing to repeat
    assert SIGNALS["loop_detection"](text, [text], embed=EMBED).score == 0.0  # an exact repeat


def _one_vector_short(texts: list[str]) -> list[list[float]]:
    return [[1.0, 0.0]] * (len(texts) - 1)


SIGNAL_BAD: list[tuple[str, str, Callable[[Callable[..., Any]], Any], type[Exception], str]] = [
    (
        "coherence-threshold",
        "coherence",
        lambda f: f("a b", "c d", embed=EMBED, threshold=1.5),
        ValueError,
        "threshold must be in [0, 1], got 1.5",
    ),
    (
        "coherence-threshold-type",
        "coherence",
        lambda f: f("a b", "c d", embed=EMBED, threshold="high"),
        TypeError,
        "threshold must be a number",
    ),
    (
        "coherence-embedder",
        "coherence",
        lambda f: f("a b", "c d", embed=_one_vector_short),
        ValueError,
        "embedder returned 1 vectors for 2 texts",
    ),
    (
        "loop-threshold",
        "loop_detection",
        lambda f: f("a b", ["c d"], embed=EMBED, threshold=-0.1),
        ValueError,
        "threshold must be in [0, 1], got -0.1",
    ),
    (
        "loop-previous-str",
        "loop_detection",
        lambda f: f("a b", "c d", embed=EMBED),
        TypeError,
        "previous_outputs must be a sequence",
    ),
    (
        "loop-embedder",
        "loop_detection",
        lambda f: f("book flight", ["book flight"], embed=_one_vector_short),
        ValueError,
        "embedder returned 1 vectors for 2 texts",
    ),
]


@pytest.mark.parametrize(
    ("name", "call", "error", "message"), [pytest.param(*b[1:], id=b[0]) for b in SIGNAL_BAD]
)
def test_signal_bad_input_rejected(
    name: str, call: Callable[[Callable[..., Any]], Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as info:
        call(SIGNALS[name])
    assert message in str(info.value), str(info.value)


# --- registry meta-tests -------------------------------------------------------------------


def test_every_public_metric_is_registered() -> None:
    registered = {case.function for case in CASES}
    # session metrics and signals take per-trace inputs, not a run table: their own cases
    by_session = {f.__name__ for f in (*SESSION_METRICS.values(), *SIGNALS.values())}
    unclassified = [
        name
        for name in M.__all__
        if name not in registered and name not in NOT_METRICS and name not in by_session
    ]
    assert not unclassified, (
        f"public names not registered in the invariance suite: {unclassified}; add a Case "
        "to CASES (or, for a non-metric name, an entry in NOT_METRICS)"
    )
    stale = sorted((registered | set(NOT_METRICS)) - set(M.__all__))
    assert not stale, f"registered names that are no longer public: {stale}"
    assert set(READS) == registered


def test_every_registry_metric_has_cases() -> None:
    covered = {
        **{case.function: "CASES" for case in CASES},
        **dict.fromkeys((f.__name__ for f in SESSION_METRICS.values()), "SESSION_METRICS"),
        **dict.fromkeys((f.__name__ for f in SIGNALS.values()), "SIGNALS"),
    }
    missing = sorted(set(_registered_functions()) - set(covered))
    assert not missing, f"registry metrics without invariance cases: {missing}"
    # Session and signal metrics are exercised by their own tests above.
    assert set(SESSION_METRICS) == {"agent_reliability", "agent_consistency"}
    assert set(SIGNALS) == {"coherence", "loop_detection"}


def test_every_variant_is_registered() -> None:
    # Each variant the registry lists has its own case, and is the one the package accepts.
    ids = " ".join(CASE_IDS)
    exposed = {
        M.OUTCOME_VARIANTS,
        M.SPREAD_VARIANTS,
        M.RESOURCE_VARIANTS,
        M.DISTRIBUTION_VARIANTS,
        M.BINNINGS,
        M.RC_VARIANTS,
        tuple(M.HARM_WEIGHTS),
    }
    listed = {info.variants.values for info in METRIC_REGISTRY.values() if info.variants}
    assert listed == exposed
    for variants in listed:
        for variant in variants:
            assert f"[{variant}]" in ids, variant
