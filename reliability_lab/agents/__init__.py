"""The tool-calling agent: what to run (:class:`RunSpec`), the loop (:func:`execute_run`) and
the record of one run (:class:`RunResult`)."""

from __future__ import annotations

from reliability_lab.agents._confidence import CONFIDENCE_QUESTION, parse_confidence
from reliability_lab.agents._loop import execute_run
from reliability_lab.agents._records import RunResult, RunSpec

__all__ = [
    "CONFIDENCE_QUESTION",
    "RunResult",
    "RunSpec",
    "execute_run",
    "parse_confidence",
]
