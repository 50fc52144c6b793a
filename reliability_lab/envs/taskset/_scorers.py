"""Scorers of a task set: how a final answer is compared with a task's expected answer.

``exact`` (after trimming and case-folding), ``contains`` (the expected answer, or every listed
fact, appears in the answer), ``numeric`` (the answer's numbers include the expected value within
``tolerance``), ``regex`` (the expected answer is a pattern the answer matches), a Python
callable ``score(answer, task) -> float | bool``, or ``llm_judge`` (a model asked whether the
answer is correct, through the experiment's LLM boundary).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from reliability_lab.envs._base import Task, answer_has_fact

__all__ = ["BUILTIN_SCORERS", "JUDGE_PROMPT", "Scorer", "make_scorer", "parse_verdict"]

#: Built-in scorer kinds.
BUILTIN_SCORERS = ("exact", "contains", "numeric", "regex", "llm_judge")
_NUMBER = re.compile(r"-?\d+(?:,\d{3})*(?:\.\d+)?(?:[eE][-+]?\d+)?")
JUDGE_PROMPT = (
    "You grade answers. Task: {instruction}\nReference answer: {expected}\n"
    "Candidate answer: {answer}\nIs the candidate answer correct and complete with respect to "
    "the reference? Reply with exactly one word: CORRECT or INCORRECT."
)


def parse_verdict(text: str | None) -> float:
    """1.0 for CORRECT, 0.0 for INCORRECT; ValueError for anything else."""
    words = re.findall(r"[A-Za-z]+", (text or "").upper())
    if "INCORRECT" in words:
        return 0.0
    if "CORRECT" in words:
        return 1.0
    raise ValueError(f"the judge's reply is neither CORRECT nor INCORRECT: {text!r:.120}")


def _expected(task: Task) -> Any:
    return task.metadata.get("expected")


def _facts(task: Task) -> list[str]:
    facts = task.metadata.get("facts") or []
    expected = _expected(task)
    return [str(f) for f in facts] or ([str(expected)] if expected is not None else [])


def _exact(answer: str, task: Task, options: Mapping[str, Any]) -> float:
    return float(answer.strip().casefold() == str(_expected(task)).strip().casefold())


def _contains(answer: str, task: Task, options: Mapping[str, Any]) -> float:
    facts = _facts(task)
    return sum(answer_has_fact(answer, f) for f in facts) / len(facts) if facts else 0.0


def _numeric(answer: str, task: Task, options: Mapping[str, Any]) -> float:
    tolerance = float(options.get("tolerance", 1e-6))
    relative = bool(options.get("relative", False))
    target = float(str(_expected(task)).replace(",", ""))
    for raw in _NUMBER.findall(answer):
        value = float(raw.replace(",", ""))
        allowed = tolerance * abs(target) if relative else tolerance
        if math.isfinite(value) and abs(value - target) <= allowed:
            return 1.0
    return 0.0


def _regex(answer: str, task: Task, options: Mapping[str, Any]) -> float:
    flags = re.IGNORECASE if options.get("ignore_case", True) else 0
    return float(re.search(str(_expected(task)), answer, flags) is not None)


_PLAIN: Mapping[str, Callable[[str, Task, Mapping[str, Any]], float]] = {
    "exact": _exact,
    "contains": _contains,
    "numeric": _numeric,
    "regex": _regex,
}


@dataclass(frozen=True)
class Scorer:
    """A configured scorer: ``kind`` (a built-in name or ``callable``) and its options."""

    kind: str
    options: Mapping[str, Any] = field(default_factory=dict)
    function: Callable[[str | None, Task], Any] | None = None

    @property
    def needs_model(self) -> bool:
        """Whether scoring calls a model (``llm_judge``)."""
        return self.kind == "llm_judge"

    def needs_expected(self) -> bool:
        """Whether every task must have an expected answer (or facts, for ``contains``)."""
        return self.kind in ("exact", "numeric", "regex", "llm_judge")

    def score(self, answer: str | None, task: Task) -> float:
        """The score of ``answer`` in [0, 1] (no answer: 0); not for ``llm_judge``."""
        if self.function is not None:
            value = self.function(answer, task)
            return float(value)
        if self.kind == "llm_judge":
            raise RuntimeError("the llm_judge scorer is asynchronous: use ascore")
        return 0.0 if answer is None else _PLAIN[self.kind](answer, task, self.options)

    async def ascore(self, answer: str | None, task: Task, llm: Any) -> float:
        """The score of ``answer``; ``llm_judge`` asks its model through ``llm``."""
        if self.kind != "llm_judge":
            return self.score(answer, task)
        if answer is None:
            return 0.0
        prompt = str(self.options.get("prompt", JUDGE_PROMPT)).format(
            instruction=task.instruction, expected=_expected(task), answer=answer
        )
        completion = await llm.acompletion(
            model=str(self.options["model"]),
            messages=[{"role": "user", "content": prompt}],
            cache_key_extra=f"task-judge|{task.task_id}",
            **dict(self.options.get("params") or {}),
        )
        return parse_verdict(completion.message.get("content"))


def make_scorer(spec: Any, resolve: Callable[[str], Any]) -> Scorer:
    """A :class:`Scorer` from a config value: a name, ``{kind: ..., ...options}``, a
    ``module:attribute`` reference (resolved with ``resolve``) or a callable.

    Raises
    ------
    ValueError
        Unknown kind, an ``llm_judge`` without ``model``, or a bad option.
    """
    if callable(spec):
        return Scorer("callable", function=spec)
    if isinstance(spec, str):
        spec = {"kind": spec}
    if not isinstance(spec, Mapping) or not isinstance(spec.get("kind"), str):
        raise ValueError(f"scorer: expected a name, a mapping with 'kind', got {spec!r:.80}")
    options = {k: v for k, v in spec.items() if k != "kind"}
    kind = spec["kind"]
    if ":" in kind:
        function = resolve(kind)
        if not callable(function):
            raise ValueError(f"scorer: {kind!r} is not callable")
        return Scorer("callable", options, function)
    if kind not in BUILTIN_SCORERS:
        raise ValueError(
            f"scorer: unknown kind {kind!r}; valid: {', '.join(BUILTIN_SCORERS)} or "
            "'module:function'"
        )
    if kind == "llm_judge" and not isinstance(options.get("model"), str):
        raise ValueError("scorer: llm_judge needs 'model' (a litellm model string)")
    if kind == "numeric":
        tolerance = options.get("tolerance", 1e-6)
        if isinstance(tolerance, bool) or not isinstance(tolerance, int | float) or tolerance < 0:
            raise ValueError(f"scorer: tolerance must be a number >= 0, got {tolerance!r}")
    return Scorer(kind, options)
