"""Safety of agent runs: constraints, rule detectors, the LLM safety judge, merged findings.

Every environment declares its constraints (each with a written flag / do-not-flag rule) and
the rule detectors that check them; the agent loop runs the detectors on every run, and an
experiment may also run the LLM safety judge, whose findings are merged with the rules' and
record their source. See docs/safety.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reliability_lab._lazy import lazy_exports

if TYPE_CHECKING:
    from reliability_lab.safety._constraints import (
        AUTHENTICATION_BYPASS,
        COMMITMENT_OVERREACH,
        DATA_MINIMISATION,
        DEFAULT_CONSTRAINTS,
        DESTRUCTIVE_OPERATION,
        FINANCIAL_ACCURACY,
        PII_EXPOSURE,
        POLICY_CIRCUMVENTION,
        RATE_LIMIT,
        SEVERITIES,
        Constraint,
        constraint_names,
    )
    from reliability_lab.safety._datablock import decode_data_block, encode_data_block
    from reliability_lab.safety._findings import (
        SOURCES,
        Detector,
        Finding,
        Hit,
        merge_findings,
        run_detectors,
    )
    from reliability_lab.safety._judge import (
        JudgeOutcome,
        SafetyJudge,
        SafetyRecord,
        evidence_in_data,
        judge_prompt,
        run_data,
    )
    from reliability_lab.safety._rules import (
        RateLimit,
        is_rate_limit_error,
        rate_limit_detector,
        unrequested_change_detector,
    )
    from reliability_lab.safety._view import AgentCall, RunView, ToolCall

_WHERE = {
    **dict.fromkeys(
        (
            "AUTHENTICATION_BYPASS",
            "COMMITMENT_OVERREACH",
            "DATA_MINIMISATION",
            "DEFAULT_CONSTRAINTS",
            "DESTRUCTIVE_OPERATION",
            "FINANCIAL_ACCURACY",
            "PII_EXPOSURE",
            "POLICY_CIRCUMVENTION",
            "RATE_LIMIT",
            "SEVERITIES",
            "Constraint",
            "constraint_names",
        ),
        "_constraints",
    ),
    **dict.fromkeys(("decode_data_block", "encode_data_block"), "_datablock"),
    **dict.fromkeys(
        ("SOURCES", "Detector", "Finding", "Hit", "merge_findings", "run_detectors"),
        "_findings",
    ),
    **dict.fromkeys(
        (
            "JudgeOutcome",
            "SafetyJudge",
            "SafetyRecord",
            "evidence_in_data",
            "judge_prompt",
            "run_data",
        ),
        "_judge",
    ),
    **dict.fromkeys(
        (
            "RateLimit",
            "is_rate_limit_error",
            "rate_limit_detector",
            "unrequested_change_detector",
        ),
        "_rules",
    ),
    **dict.fromkeys(("AgentCall", "RunView", "ToolCall"), "_view"),
}
__getattr__, __dir__ = lazy_exports(
    __name__, {name: f"{__name__}.{module}" for name, module in _WHERE.items()}
)

__all__ = [
    "AUTHENTICATION_BYPASS",
    "COMMITMENT_OVERREACH",
    "DATA_MINIMISATION",
    "DEFAULT_CONSTRAINTS",
    "DESTRUCTIVE_OPERATION",
    "FINANCIAL_ACCURACY",
    "PII_EXPOSURE",
    "POLICY_CIRCUMVENTION",
    "RATE_LIMIT",
    "SEVERITIES",
    "SOURCES",
    "AgentCall",
    "Constraint",
    "Detector",
    "Finding",
    "Hit",
    "JudgeOutcome",
    "RateLimit",
    "RunView",
    "SafetyJudge",
    "SafetyRecord",
    "ToolCall",
    "constraint_names",
    "decode_data_block",
    "encode_data_block",
    "evidence_in_data",
    "is_rate_limit_error",
    "judge_prompt",
    "merge_findings",
    "rate_limit_detector",
    "run_data",
    "run_detectors",
    "unrequested_change_detector",
]
