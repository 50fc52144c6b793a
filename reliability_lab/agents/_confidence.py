"""Post-hoc confidence elicitation: the question asked and a robust parser for the reply."""

from __future__ import annotations

import math
import re

__all__ = ["CONFIDENCE_QUESTION", "parse_confidence"]

CONFIDENCE_QUESTION = (
    "Before we finish: how confident are you that you completed the customer's task fully and "
    "correctly? Answer with a single number from 0 (certainly failed) to 100 (certainly "
    "succeeded)."
)
_NUM = r"(?<![\w.\-])(\d+(?:\.\d+)?|\.\d+)"
_PATTERNS = (
    (re.compile(_NUM + r"\s*/\s*100\b"), 100.0),
    (re.compile(_NUM + r"\s*/\s*10\b(?!\d)"), 10.0),
    (re.compile(_NUM + r"\s*(?:%|percent\b|per cent\b)", re.I), 100.0),
    (re.compile(_NUM + r"\s+out\s+of\s+100\b", re.I), 100.0),
    (re.compile(_NUM + r"\s+out\s+of\s+10\b(?!\d)", re.I), 10.0),
)
_BARE = re.compile(r"(?<!/)" + _NUM + r"(?![\w/]|\.\d)")


def parse_confidence(text: str | None) -> float:
    """Turn a confidence reply into a probability in [0, 1]; NaN if nothing parses.

    Explicit scales win (``85/100``, ``8.5/10``, ``85%``, ``85 percent``, ``85 out of 100``);
    otherwise the first bare number is used: a number with a decimal point that is ≤ 1 is a
    probability (``0.85``), anything else in [0, 100] is a percentage (``85``, ``1`` → 0.01).
    Values outside the scale are rejected (NaN), never clipped.

    >>> [parse_confidence(s) for s in ["85", "0.85", "85%", "Confidence: 85/100"]]
    [0.85, 0.85, 0.85, 0.85]
    >>> parse_confidence("I am not sure")
    nan
    """
    if not text:
        return math.nan
    for pattern, scale in _PATTERNS:
        m = pattern.search(text)
        if m:
            value = float(m.group(1)) / scale
            return value if 0.0 <= value <= 1.0 else math.nan
    m = _BARE.search(text)
    if not m:
        return math.nan
    raw = m.group(1)
    value = float(raw)
    if "." in raw and value <= 1.0:
        return value
    return value / 100.0 if 0.0 <= value <= 100.0 else math.nan
