"""Named behaviour personas of the simulated model (``sim/<persona>``).

Every probability below is applied by :mod:`reliability_lab.sim._policy`;
``docs/simulated_model.md`` explains how they combine into each profile's expected reliability.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["PERSONAS", "SAFETY_RATES", "SimPersona", "get_persona", "register_persona"]

ConfidenceMode = Literal["calibrated", "overconfident", "noisy"]
#: Profile fields that set a known rate of a safety violation (docs/simulated_model.md).
SAFETY_RATES = (
    "pii_leak_rate",
    "snoop_rate",
    "auth_skip_rate",
    "circumvention_rate",
    "promise_rate",
    "hammer_rate",
)


@dataclass(frozen=True)
class SimPersona:
    """Parameters of one simulated agent model. All rates are probabilities in [0, 1].

    Attributes
    ----------
    name : str
        Profile name; the model string is ``sim/<name>``.
    description : str
        One line shown in docs.
    slip_rate : float
        Per state-changing call and per final answer (scaled by task difficulty: ×0.5, ×1, ×1.5
        for difficulty 1, 2, 3): probability of using a plausible but wrong value (another order
        id seen in the conversation, the other enum value, a wrong number in the answer). Slips
        are silent: the run looks fine but fails.
    detour_rate : float
        Per turn: probability of an extra read-only lookup before the next planned call (changes
        the trajectory, not the outcome). At most ``max_detours`` per run.
    max_detours : int
        Cap on detours per run.
    arg_error_rate : float
        Per planned call: probability of sending malformed arguments (a required argument
        missing), which the tool rejects with an error.
    error_recovery : float
        After a tool error (own malformed call, or a fault a future injector adds): probability
        of retrying correctly; otherwise the agent gives up with an apology. Applied afresh to
        each error.
    early_stop_rate : float
        Per state-changing call: probability of claiming success without making the call.
    run_variability : float
        σ of a per-run log-normal factor (mean 1) multiplying the slip and detour rates, so some
        runs of the same task are much sloppier than others (0 = none).
    perturbation_sensitivity : float
        Prompt sensitivity: extra slip probability per unit of instruction change: slip += this
        × (1 − similarity of the instruction to the task's canonical text, Levenshtein ratio).
    structural_sensitivity : float
        Under a structural perturbation (recognised from the tool schemas and inverted): per
        tool call, probability × the preset's severity (mild 1/3, medium 2/3, severe 1) of
        sending the call in the *original* interface's names and values, which the perturbed
        interface rejects with an error (then ``error_recovery`` applies).
    slip_awareness : float
        Probability the model notices its own slip (lowers its confidence).
    overreach_rate : float
        Per run that reaches its final answer: probability of first making one *unrequested*
        state-changing call — cancelling another pending order it has seen (in environments with
        a ``cancel_order`` tool). The environment flags it as a ``destructive_operation``
        violation (severity high), and it also spoils the task's state score.
    pii_leak_rate, snoop_rate, auth_skip_rate, circumvention_rate, promise_rate, hammer_rate
        Known rates of the other safety violations (docs/simulated_model.md, "Safety
        behaviours"): per run, probability of revealing another customer's email in the answer
        after reading their profile (``pii_exposure``); of reading another customer's profile
        without revealing it (``data_minimisation``); of skipping the identification step when
        the plan does not need its result (``authentication_bypass``); of first attempting the
        forbidden action in a request policy says to transfer (``policy_circumvention``); of
        adding a guarantee to the final answer (``commitment_overreach``); of one burst of
        identical repeated reads (``rate_limit``). They leave the task's outcome alone: the
        model carries on after the errors of its own unsafe calls.
    confidence_mode : {"calibrated", "overconfident", "noisy"}
        ``calibrated``: report the model's posterior P(success) given what it noticed, plus
        N(0, ``confidence_noise``) jitter. ``overconfident``: uniform in [0.9, 1.0] whatever
        happened. ``noisy``: the posterior plus large jitter.
    confidence_noise : float
        Standard deviation of the jitter, in probability units.
    confidence_unparseable_rate : float
        Probability the confidence reply contains no number (exercises the fallback path).
    input_cost_per_token, output_cost_per_token : float
        Simulated USD prices; cost is computed by litellm's cost tracking from them.
    """

    name: str
    description: str
    slip_rate: float = 0.05
    detour_rate: float = 0.05
    max_detours: int = 3
    arg_error_rate: float = 0.02
    error_recovery: float = 0.9
    early_stop_rate: float = 0.01
    run_variability: float = 0.0
    perturbation_sensitivity: float = 0.2
    structural_sensitivity: float = 0.1
    slip_awareness: float = 0.8
    overreach_rate: float = 0.0
    pii_leak_rate: float = 0.0
    snoop_rate: float = 0.0
    auth_skip_rate: float = 0.0
    circumvention_rate: float = 0.0
    promise_rate: float = 0.0
    hammer_rate: float = 0.0
    confidence_mode: ConfidenceMode = "calibrated"
    confidence_noise: float = 0.05
    confidence_unparseable_rate: float = 0.0
    input_cost_per_token: float = 0.15e-6
    output_cost_per_token: float = 0.60e-6

    def __post_init__(self) -> None:
        for field in (
            *SAFETY_RATES,
            "slip_rate",
            "detour_rate",
            "arg_error_rate",
            "error_recovery",
            "early_stop_rate",
            "slip_awareness",
            "overreach_rate",
            "confidence_unparseable_rate",
            "structural_sensitivity",
        ):
            value = getattr(self, field)
            if not 0.0 <= value <= 1.0:
                raise ValueError(
                    f"SimPersona {self.name!r}: {field} must be in [0, 1], got {value}"
                )
        for field in (
            "run_variability",
            "perturbation_sensitivity",
            "confidence_noise",
            "input_cost_per_token",
            "output_cost_per_token",
        ):
            if getattr(self, field) < 0:
                raise ValueError(f"SimPersona {self.name!r}: {field} must be >= 0")
        if self.confidence_mode not in ("calibrated", "overconfident", "noisy"):
            raise ValueError(
                f"SimPersona {self.name!r}: confidence_mode must be calibrated, overconfident or "
                f"noisy, got {self.confidence_mode!r}"
            )


PERSONAS: dict[str, SimPersona] = {}


def register_persona(profile: SimPersona, *, overwrite: bool = False) -> None:
    """Make ``sim/<profile.name>`` available."""
    if profile.name in PERSONAS and not overwrite:
        raise ValueError(f"sim profile {profile.name!r} already exists (pass overwrite=True)")
    PERSONAS[profile.name] = profile


def get_persona(name: str) -> SimPersona:
    """The profile called ``name``; ``KeyError`` listing valid names otherwise."""
    try:
        return PERSONAS[name]
    except KeyError:
        raise KeyError(f"unknown sim profile {name!r}; valid: {', '.join(PERSONAS)}") from None


for _p in (
    SimPersona(
        "calibrated",
        "Competent and well calibrated: rare slips it mostly notices.",
        slip_rate=0.06,
        detour_rate=0.05,
        error_recovery=0.9,
        slip_awareness=0.85,
        structural_sensitivity=0.05,
        confidence_mode="calibrated",
        confidence_noise=0.04,
    ),
    SimPersona(
        "inconsistent",
        "Accurate-ish but varies its trajectory and outcome run to run; sometimes reads "
        "another customer's profile or repeats a lookup in a burst.",
        slip_rate=0.12,
        detour_rate=0.35,
        max_detours=4,
        arg_error_rate=0.05,
        error_recovery=0.7,
        early_stop_rate=0.03,
        run_variability=1.0,
        perturbation_sensitivity=0.4,
        structural_sensitivity=0.15,
        slip_awareness=0.3,
        snoop_rate=0.15,
        hammer_rate=0.1,
        confidence_mode="noisy",
        confidence_noise=0.2,
        confidence_unparseable_rate=0.05,
        input_cost_per_token=0.5e-6,
        output_cost_per_token=1.5e-6,
    ),
    SimPersona(
        "overconfident",
        "Sloppier and unsafe: sometimes cancels orders nobody asked about, leaks another "
        "customer's contact details, skips identification and makes promises; reports "
        "90-100 % confidence whatever happened.",
        slip_rate=0.2,
        overreach_rate=0.3,
        pii_leak_rate=0.25,
        auth_skip_rate=0.3,
        promise_rate=0.1,
        detour_rate=0.1,
        error_recovery=0.6,
        early_stop_rate=0.05,
        perturbation_sensitivity=0.4,
        structural_sensitivity=0.2,
        slip_awareness=0.0,
        confidence_mode="overconfident",
        input_cost_per_token=0.1e-6,
        output_cost_per_token=0.4e-6,
    ),
    SimPersona(
        "brittle",
        "Fine at baseline; rarely recovers from tool errors, is very sensitive to "
        "instruction changes, and tries forbidden requests before transferring them.",
        slip_rate=0.04,
        detour_rate=0.02,
        arg_error_rate=0.01,
        error_recovery=0.1,
        perturbation_sensitivity=2.0,
        circumvention_rate=0.5,
        structural_sensitivity=0.45,
        slip_awareness=0.7,
        confidence_mode="calibrated",
        confidence_noise=0.08,
        input_cost_per_token=2.5e-6,
        output_cost_per_token=10e-6,
    ),
    SimPersona(
        "perfect",
        "Never errs and is always fully confident (for tests and oracles).",
        slip_rate=0.0,
        detour_rate=0.0,
        arg_error_rate=0.0,
        error_recovery=1.0,
        early_stop_rate=0.0,
        perturbation_sensitivity=0.0,
        structural_sensitivity=0.0,
        slip_awareness=1.0,
        confidence_mode="calibrated",
        confidence_noise=0.0,
    ),
):
    register_persona(_p)
