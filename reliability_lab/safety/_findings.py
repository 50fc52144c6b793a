"""Findings (one violation each), rule detectors, and merging rule with judge findings.

A finding becomes one entry of the run table's ``violations`` list: ``{constraint, severity,
evidence, source}`` plus, where they apply, ``detector``, ``judge_evidence``,
``judge_severity``, ``evidence_verified`` and ``explanation`` (docs/safety.md, "Merging").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from reliability_lab.safety._constraints import SEVERITIES, Constraint, check_severity
from reliability_lab.safety._view import RunView

__all__ = [
    "SOURCES",
    "Detector",
    "Finding",
    "Hit",
    "findings_to_dicts",
    "max_severity",
    "merge_findings",
    "run_detectors",
]

#: Values of a finding's ``source``.
SOURCES = ("rule", "judge", "rule+judge")


def max_severity(*severities: str) -> str:
    """The most severe of ``severities`` (order low < medium < high < critical).

    >>> max_severity("low", "high", "medium")
    'high'
    """
    return max(severities, key=SEVERITIES.index)


@dataclass(frozen=True)
class Finding:
    """One violation of one constraint in one run.

    Attributes
    ----------
    constraint : str
        Constraint name.
    severity : str
        low, medium, high or critical.
    evidence : str
        What shows the violation (a rule's description, or the judge's quote of the trace).
    source : str
        ``rule``, ``judge`` or ``rule+judge`` (both flagged the constraint in this run).
    detector : str
        Name of the rule detector ("" for a judge-only finding).
    judge_evidence : str or None
        The judge's quote when the judge also flagged this constraint.
    judge_severity : str or None
        The severity the judge gave, when the judge flagged this constraint.
    evidence_verified : bool or None
        Whether the judge's quote occurs in the trace (None when the judge was not involved).
    explanation : str
        The judge's explanation ("" for rule findings).
    """

    constraint: str
    severity: str
    evidence: str
    source: str = "rule"
    detector: str = ""
    judge_evidence: str | None = None
    judge_severity: str | None = None
    evidence_verified: bool | None = None
    explanation: str = ""

    def __post_init__(self) -> None:
        check_severity(self.severity, where=f"finding of {self.constraint!r}: severity")
        if self.source not in SOURCES:
            raise ValueError(f"finding source must be one of {SOURCES}, got {self.source!r}")

    def to_dict(self) -> dict[str, Any]:
        """The ``violations`` entry: the four core keys, then the optional ones that are set."""
        out: dict[str, Any] = {
            "constraint": self.constraint,
            "severity": self.severity,
            "evidence": self.evidence,
            "source": self.source,
        }
        optional = {
            "detector": self.detector or None,
            "judge_evidence": self.judge_evidence,
            "judge_severity": self.judge_severity,
            "evidence_verified": self.evidence_verified,
            "explanation": self.explanation or None,
        }
        out.update({k: v for k, v in optional.items() if v is not None})
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Finding:
        """Read a ``violations`` entry back (``source`` defaults to ``rule`` for old records)."""
        fields = {
            k: data[k]
            for k in (
                "detector",
                "judge_evidence",
                "judge_severity",
                "evidence_verified",
                "explanation",
            )
            if data.get(k) is not None
        }
        return cls(
            constraint=str(data["constraint"]),
            severity=str(data["severity"]),
            evidence=str(data.get("evidence", "")),
            source=str(data.get("source", "rule")),
            **fields,
        )


@dataclass(frozen=True)
class Hit:
    """What a detector function reports: evidence and, optionally, a non-default severity."""

    evidence: str
    severity: str | None = None


@dataclass(frozen=True)
class Detector:
    """A rule detector for one constraint.

    Attributes
    ----------
    name : str
        Identifier recorded on each finding (``detector``).
    constraint : Constraint
        The constraint it checks; its severity is the default of every hit.
    detect : Callable[[RunView], Iterable[Hit]]
        The check; must not mutate the view.
    """

    name: str
    constraint: Constraint
    detect: Callable[[RunView], Iterable[Hit]]

    def findings(self, view: RunView) -> list[Finding]:
        """This detector's findings on ``view``."""
        return [
            Finding(
                constraint=self.constraint.name,
                severity=hit.severity or self.constraint.severity,
                evidence=hit.evidence,
                detector=self.name,
            )
            for hit in self.detect(view)
        ]


def run_detectors(
    view: RunView, detectors: Sequence[Detector], constraints: Sequence[Constraint]
) -> list[Finding]:
    """All findings of ``detectors`` on ``view``, in constraint order, duplicates removed.

    Raises
    ------
    ValueError
        A detector checks a constraint that is not in ``constraints``.
    """
    order = {c.name: i for i, c in enumerate(constraints)}
    found: list[Finding] = []
    seen: set[tuple[str, str]] = set()
    for detector in detectors:
        if detector.constraint.name not in order:
            raise ValueError(
                f"detector {detector.name!r} checks {detector.constraint.name!r}, which is not "
                f"a declared constraint ({', '.join(order)})"
            )
        for finding in detector.findings(view):
            key = (finding.constraint, finding.evidence)
            if key not in seen:
                seen.add(key)
                found.append(finding)
    return sorted(found, key=lambda f: order[f.constraint])


def merge_findings(rule: Sequence[Finding], judge: Sequence[Finding]) -> list[Finding]:
    """Merge rule and judge findings of one run (docs/safety.md, "Merging").

    Per constraint: if the judge and a rule both flagged it, every rule finding of that
    constraint becomes ``source="rule+judge"`` with severity = the maximum of its own and the
    judge's (the stricter reading wins) and carries the judge's quote(s), severity and
    verification; judge findings of constraints no rule flagged are kept as ``source="judge"``.
    Nothing is dropped.

    Examples
    --------
    >>> r = [Finding("rate_limit", "low", "6 calls in turn 2")]
    >>> j = [Finding("rate_limit", "medium", "get_order x6", source="judge",
    ...              evidence_verified=True)]
    >>> m = merge_findings(r, j)[0]
    >>> m.source, m.severity, m.judge_evidence
    ('rule+judge', 'medium', 'get_order x6')
    """
    by_constraint: dict[str, list[Finding]] = {}
    for finding in judge:
        by_constraint.setdefault(finding.constraint, []).append(finding)
    ruled = {f.constraint for f in rule}
    merged: list[Finding] = []
    for finding in rule:
        hits = by_constraint.get(finding.constraint)
        if not hits:
            merged.append(finding)
            continue
        judge_severity = max_severity(*(h.severity for h in hits))
        merged.append(
            replace(
                finding,
                source="rule+judge",
                severity=max_severity(finding.severity, judge_severity),
                judge_evidence=" | ".join(h.evidence for h in hits),
                judge_severity=judge_severity,
                evidence_verified=all(bool(h.evidence_verified) for h in hits),
                explanation=" | ".join(h.explanation for h in hits if h.explanation),
            )
        )
    merged += [f for f in judge if f.constraint not in ruled]
    return merged


def findings_to_dicts(findings: Iterable[Finding]) -> list[dict[str, Any]]:
    """``violations`` entries of ``findings``."""
    return [f.to_dict() for f in findings]
