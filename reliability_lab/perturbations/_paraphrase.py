"""Paraphrasers of task instructions and the detail-preservation check.

:func:`offline_paraphrase` is deterministic given its generator: it protects the task's
details (IDs, emails, amounts, names, dates, zip codes) behind placeholders, rewrites the rest
by strength, and puts the details back verbatim:

================ ==============================================================================
strength         what changes
================ ==============================================================================
``mild``         a few synonyms (≈ 30 % of the words that have one), sometimes a greeting
``medium``       more synonyms (≈ 60 %), a more formal register (greeting and thanks),
                 sentences sometimes reordered
``strong``       nearly every synonym, a "name: request" opening turned around, sentences
                 reordered, a different register
``naturalistic`` how people type: lower case, abbreviations (pls, thx, u), typos (swapped
                 letters), dropped final punctuation
================ ==============================================================================

:func:`missing_details` is the check both paraphrasers' output must pass: every detail must
appear — exactly when it has a digit or ``@``, case-insensitively otherwise (a name typed in
lower case is still the name). See docs/perturbations.md, "Prompt perturbations".
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

__all__ = ["STRENGTHS", "SYNONYMS", "canonical_words", "missing_details", "offline_paraphrase"]

STRENGTHS = ("mild", "medium", "strong", "naturalistic")
_SYNONYM_SHARE = {"mild": 0.3, "medium": 0.6, "strong": 0.95, "naturalistic": 0.3}

#: Phrase → alternatives (matched case-insensitively on word boundaries, longest first).
SYNONYMS: dict[str, tuple[str, ...]] = {
    "i no longer need": ("i have no further need for",),
    "no longer need": ("have no further need for",),
    "how much does it cost": ("what is its price", "what does it cost"),
    "what is": ("what's", "could you tell me"),
    "what's": ("what is",),
    "i'm": ("i am", "this is"),
    "don't": ("do not",),
    "in stock": ("available",),
    "hi": ("hello", "hey"),
    "please": ("kindly",),
    "cancel": ("call off",),
    "order": ("purchase",),
    "orders": ("purchases",),
    "change": ("update", "modify"),
    "want": ("would like",),
    "need": ("require",),
    "current": ("present", "latest"),
    "status": ("state",),
    "ship": ("send",),
    "arrived": ("was delivered", "came"),
    "return": ("send back",),
    "by mistake": ("in error", "accidentally"),
    "a mistake": ("an error",),
    "replace": ("swap",),
    "swap": ("exchange",),
    "switch": ("change",),
    "total": ("sum",),
    "combined": ("overall",),
    "placed": ("made",),
    "moved": ("relocated",),
    "update": ("change",),
    "anymore": ("any longer",),
    "account": ("profile",),
    "email": ("e-mail",),
}
_GREETINGS = {
    "mild": ("Hello! ",),
    "medium": ("Good day. ", "Hello, "),
    "strong": ("Hey there, quick one: ", "To whom it may concern: ", "Hello support team, "),
}
_THANKS = {
    "medium": (" Thank you.", " Thanks in advance."),
    "strong": (" Much appreciated!", " Thank you kindly."),
}
_ABBREVIATIONS = {
    "please": "pls",
    "thanks": "thx",
    "thank you": "ty",
    "you": "u",
    "your": "ur",
    "i am": "im",
    "i'm": "im",
    "because": "bc",
    "with": "w/",
}
_PLACEHOLDER = "\u00a7{}\u00a7"  # §0§: survives every rewrite below
_PLACEHOLDER_RE = re.compile("\u00a7(\\d+)\u00a7")
_INTRO = re.compile(r"^([^:.?!]{3,90}):\s*(.+)$", re.DOTALL)


def _exact(detail: str) -> bool:
    return any(c.isdigit() for c in detail) or "@" in detail


def missing_details(text: str, details: Sequence[str]) -> list[str]:
    """The details ``text`` does not contain (exact with a digit or ``@``, else any case).

    >>> missing_details("pls cancel O2001, bob martinez", ["O2001", "Bob Martinez", "$5"])
    ['$5']
    """
    lowered = text.lower()
    return [d for d in details if (d not in text if _exact(d) else d.lower() not in lowered)]


def _pattern(phrases: Sequence[str]) -> re.Pattern[str]:
    ordered = sorted(phrases, key=len, reverse=True)
    return re.compile(r"(?<![\w'])(" + "|".join(map(re.escape, ordered)) + r")(?![\w'])", re.I)


def _synonym_classes() -> dict[str, str]:
    """Every phrase of :data:`SYNONYMS` → the first (sorted) member of its synonym class."""
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x

    for phrase, alternatives in SYNONYMS.items():
        for alt in alternatives:
            a, b = sorted((root(phrase), root(alt)))
            parent[b] = a
    return {x: root(x) for x in parent}


_SYNONYM_RE = _pattern(list(SYNONYMS))
_ABBREVIATION_RE = _pattern(list(_ABBREVIATIONS))
_CANONICAL = _synonym_classes()
_CANONICAL_RE = _pattern(list(_CANONICAL))
_SENTENCE_START = re.compile(r"(^|[.?!:]\s+)$")


def _match_case(source: str, replacement: str, *, start: bool = True) -> str:
    upper = source[:1].isupper() and (start or replacement[:2] in ("i ", "i'"))
    return replacement[:1].upper() + replacement[1:] if upper else replacement


def canonical_words(text: str) -> str:
    """``text`` lower-cased with every known synonym mapped back to its canonical phrase.

    Lets a reader (the simulated model) see through :data:`SYNONYMS`.

    >>> canonical_words("Kindly call off my purchase") == canonical_words("please cancel my order")
    True
    """
    return _CANONICAL_RE.sub(lambda m: _CANONICAL[m.group(0).lower()], text.lower())


def _mask(text: str, details: Sequence[str]) -> tuple[str, list[str]]:
    """Replace every detail by a placeholder in one left-to-right pass (longest first)."""
    if not details:
        return text, []
    ordered = sorted(set(details), key=len, reverse=True)
    pattern = "|".join(re.escape(d) if _exact(d) else f"(?i:{re.escape(d)})" for d in ordered)
    found: list[str] = []

    def keep(m: re.Match[str]) -> str:
        found.append(m.group(0))
        return _PLACEHOLDER.format(len(found) - 1)

    return re.sub(pattern, keep, text), found


def _unmask(text: str, found: list[str], *, lower_names: bool) -> str:
    def put(m: re.Match[str]) -> str:
        detail = found[int(m.group(1))]
        return detail.lower() if lower_names and not _exact(detail) else detail

    return _PLACEHOLDER_RE.sub(put, text)


def _synonyms(text: str, share: float, rng: random.Random) -> str:
    def swap(m: re.Match[str]) -> str:
        if rng.random() >= share:
            return m.group(0)
        start = bool(_SENTENCE_START.search(m.string[: m.start()]))
        return _match_case(m.group(0), rng.choice(SYNONYMS[m.group(0).lower()]), start=start)

    return _SYNONYM_RE.sub(swap, text)


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.?!])\s+", text.strip()) if s]


def _end(sentence: str) -> str:
    return sentence if sentence[-1:] in ".?!" else sentence + "."


def _reorder(text: str, rng: random.Random) -> str:
    intro = _INTRO.match(text.strip())
    if intro:  # "Name (email): request" -> "Request This is Name (email)."
        head, rest = intro.group(1).strip(), intro.group(2).strip()
        return f"{_end(_match_case('X', rest))} This is {head}."
    parts = _sentences(text)
    if len(parts) < 2:
        return text
    order = list(range(len(parts)))
    while order == sorted(order):
        rng.shuffle(order)
    return " ".join(_end(parts[i]) for i in order)


def _typos(text: str, rng: random.Random, share: float = 0.2) -> str:
    def typo(m: re.Match[str]) -> str:
        word = m.group(0)
        if rng.random() >= share:
            return word
        i = rng.randrange(1, len(word) - 2)
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]

    return re.sub(r"(?<![\u00a7\w])[a-z]{5,}(?![\u00a7\w])", typo, text)


def _greet(text: str, greeting: str) -> str:
    if re.search(r"\b(hi|hello|hey)\b", text, re.I):
        return text
    first = text.split(" ", 1)[0].lower()
    keep = greeting.endswith(". ") or first in ("i", "i'm", "i'd") or text.startswith("\u00a7")
    return greeting + (text if keep else text[:1].lower() + text[1:])


def _naturalistic(text: str, rng: random.Random) -> str:
    text = _ABBREVIATION_RE.sub(lambda m: _ABBREVIATIONS[m.group(0).lower()], text.lower())
    text = _typos(text, rng)
    if rng.random() < 0.7:
        text = text.rstrip(".?!")
    return text


def offline_paraphrase(
    instruction: str, details: Sequence[str], strength: str, rng: random.Random
) -> str:
    """A paraphrase of ``instruction`` that keeps ``details`` verbatim.

    Parameters
    ----------
    instruction : str
        The task instruction.
    details : sequence of str
        Substrings that must survive (``Environment.task_details``).
    strength : {"mild", "medium", "strong", "naturalistic"}
        How much to change (module docstring).
    rng : random.Random
        The only source of randomness: the same generator state gives the same paraphrase.

    Returns
    -------
    str
        Different from ``instruction`` (a greeting is added if nothing else changed).

    Examples
    --------
    >>> import random
    >>> text = "Please cancel my order O2001. My email is a.b@example.com."
    >>> out = offline_paraphrase(text, ["O2001", "a.b@example.com"], "strong", random.Random(1))
    >>> missing_details(out, ["O2001", "a.b@example.com"]), out != text
    ([], True)
    """
    if strength not in STRENGTHS:
        raise ValueError(f"unknown strength {strength!r}; valid: {', '.join(STRENGTHS)}")
    masked, found = _mask(instruction, details)
    text = _synonyms(masked, _SYNONYM_SHARE[strength], rng)
    if strength == "strong" or (strength == "medium" and rng.random() < 0.5):
        text = _reorder(text, rng)
    if strength in _GREETINGS and rng.random() < (0.4 if strength == "mild" else 0.8):
        text = _greet(text, rng.choice(_GREETINGS[strength]))
    if strength in _THANKS and rng.random() < 0.7:
        text = _end(text.rstrip()) + rng.choice(_THANKS[strength])
    if strength == "naturalistic":
        text = _naturalistic(text, rng)
    if text == masked:
        text = "Hello! " + text
    return _unmask(text, found, lower_names=strength == "naturalistic")
