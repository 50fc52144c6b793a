"""The simulated model's known violation rates, measured by the rule detectors.

Each test runs a profile whose only unsafe knob is the one under test, on a task where the
opportunity is certain, and checks the measured share of runs with the targeted violation
against the configured rate with an exact binomial test; every other constraint must stay
silent (docs/simulated_model.md, "Safety behaviours").
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from scipy.stats import binomtest

from reliability_lab.sim import PERSONAS, SimPersona
from reliability_lab.sim._unsafe import PROMISE
from tests.safety.helpers import run_sim

N_RUNS = 120
RATE = 0.3
#: Never slips, detours, errs or stops early; recovers from every tool error.
CLEAN = SimPersona(
    "test-clean",
    "no unsafe behaviour",
    slip_rate=0.0,
    detour_rate=0.0,
    arg_error_rate=0.0,
    early_stop_rate=0.0,
    error_recovery=1.0,
    perturbation_sensitivity=0.0,
)
# knob, task with a certain opportunity, constraints it must produce
CASES = [
    ("pii_leak_rate", "cs_02", {"pii_exposure", "data_minimisation"}),  # U1002: U1001/U1003
    ("snoop_rate", "cs_02", {"data_minimisation"}),
    ("auth_skip_rate", "cs_01", {"authentication_bypass"}),  # the lookup needs no user id
    ("circumvention_rate", "cs_10", {"policy_circumvention"}),  # "please cancel order O2003"
    ("promise_rate", "cs_05", {"commitment_overreach"}),
    ("hammer_rate", "cs_06", {"rate_limit"}),
    ("overreach_rate", "cs_04", {"destructive_operation"}),  # O2009 is pending, in view
]


def _measure(profile: SimPersona, task_id: str) -> list[tuple[set[str], bool]]:
    out = []
    for seed in range(N_RUNS):
        result = run_sim(profile, task_id, seed)
        out.append(({v["constraint"] for v in result.violations}, result.success))
    return out


def _consistent(k: int, n: int, p: float) -> bool:
    return binomtest(k, n, p).pvalue > 1e-3


@pytest.mark.parametrize(("knob", "task_id", "expected"), CASES)
def test_measured_violation_rate_matches_the_configured_rate(
    knob: str, task_id: str, expected: set[str]
) -> None:
    runs = _measure(replace(CLEAN, name=f"test-{knob}", **{knob: RATE}), task_id)
    flagged = [found for found, _ in runs if found]
    assert all(found == expected for found in flagged), flagged  # nothing else is flagged
    assert _consistent(len(flagged), N_RUNS, RATE), f"{len(flagged)}/{N_RUNS} vs {RATE}"
    if knob != "overreach_rate":  # the others never change the outcome
        assert all(ok for _, ok in runs)


def test_clean_profile_has_no_violation_on_any_task() -> None:
    for task_id in (f"cs_{i:02d}" for i in range(1, 25)):
        assert run_sim(CLEAN, task_id, seed=3).violations == []


def test_combined_knobs_give_the_independent_union_rate() -> None:
    # snooping happens when either knob draws: P = 1 - (1 - 0.2)(1 - 0.3) = 0.44
    profile = replace(CLEAN, name="test-combined", pii_leak_rate=0.2, snoop_rate=0.3)
    runs = _measure(profile, "cs_02")
    pii = sum("pii_exposure" in found for found, _ in runs)
    snooped = sum("data_minimisation" in found for found, _ in runs)
    assert _consistent(pii, N_RUNS, 0.2)
    assert _consistent(snooped, N_RUNS, 1 - 0.8 * 0.7)


def test_unsafe_knobs_draw_from_their_own_streams() -> None:
    # Same profile name and seed, with and without a promise: same calls, same outcome.
    base = PERSONAS["inconsistent"]
    promising = replace(base, promise_rate=1.0)
    for seed in range(8):
        plain, changed = run_sim(base, "cs_11", seed), run_sim(promising, "cs_11", seed)
        assert changed.actions == plain.actions and changed.score == plain.score
        if plain.final_answer and not plain.final_answer.startswith("I'm sorry"):
            assert changed.final_answer == plain.final_answer + PROMISE


def test_safety_rates_are_validated() -> None:
    with pytest.raises(ValueError, match="pii_leak_rate must be in"):
        SimPersona("bad", "x", pii_leak_rate=1.2)


@pytest.mark.parametrize(
    ("knob", "task_id"), [("snoop_rate", "cs_03"), ("circumvention_rate", "cs_10")]
)
def test_errors_of_its_own_unsafe_calls_never_make_the_model_give_up(
    knob: str, task_id: str
) -> None:
    # cs_03 serves U1001: the snooped neighbour is U1000 (no such user) or U1002; cs_10's
    # forbidden cancellation of a shipped order is refused. A model that never recovers from
    # a tool error still finishes.
    profile = replace(CLEAN, name=f"test-no-giveup-{knob}", error_recovery=0.0, **{knob: 1.0})
    runs = [run_sim(profile, task_id, seed) for seed in range(12)]
    assert any(r.num_errors for r in runs)  # some unsafe call did fail
    assert all(r.success for r in runs)
