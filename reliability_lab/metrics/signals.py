"""Embedding-based trace signals of PandaProbe: ``coherence`` and ``loop_detection``.

Conventions: docs/pandaprobe.md, "Coherence" and "Loop detection".

Both are deterministic given the embedder: no LLM generation is involved. ``embed`` is any
callable mapping a list of texts to one vector per text (see
:mod:`reliability_lab.sessions.embeddings`; the offline default is a hashed bag of words, not a
semantic model).

Text of a value (docs/pandaprobe.md, "Text, distances and rounding"): ``None`` → ``""``; a
``str`` unchanged; anything else → ``json.dumps(value, default=str)`` (ASCII escapes, insertion
order), exactly as PandaProbe serialises trace inputs and outputs before embedding and
tokenising them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "STOP_WORDS",
    "EmbedFn",
    "MetricResult",
    "coherence",
    "cosine_distance",
    "jaccard_similarity",
    "loop_detection",
    "text_of",
    "tokenize",
]

#: ``embed(texts) -> vectors``: one vector (a sequence of floats) per input text.
EmbedFn = Callable[[list[str]], Sequence[Any]]

#: PandaProbe's 70 English stop words (docs/pandaprobe.md, "Stop words"), dropped before the
#: Jaccard comparison.
STOP_WORDS: frozenset[str] = frozenset(
    """a an the is are was were be been being have has had do does did will would shall should
    may might can could of in to for on with at by from as into through during before after above
    below and but or nor not so yet both either neither each every all any few more most other
    some such no only own same than too very it its""".split()
)

#: How many earlier traces loop detection compares against (PandaProbe's default window).
LOOP_WINDOW = 3

_TOKEN_RE = re.compile(r"\w+")


@dataclass(frozen=True)
class MetricResult:
    """Outcome of one PandaProbe metric (trace signal, LLM judge or session metric).

    Attributes
    ----------
    name : str
        Registry name of the metric, e.g. ``"coherence"`` or ``"agent_reliability"``.
    score : float
        Score in [0, 1], higher is better.
    reason : str
        Human-readable explanation, worded as PandaProbe words it.
    metadata : dict
        Metric-specific details (keys as in docs/pandaprobe.md); JSON-serialisable.
    """

    name: str
    score: float
    reason: str
    metadata: dict[str, Any] = field(default_factory=dict)


def text_of(value: object) -> str:
    """Return the text PandaProbe embeds and tokenises for a trace input or output.

    Parameters
    ----------
    value : object
        A trace input/output: ``None``, a string, or any JSON-like value.

    Returns
    -------
    str
        ``""`` for ``None``, the string itself, else ``json.dumps(value, default=str)``.

    Examples
    --------
    >>> text_of(None), text_of("hi"), text_of({"q": "café"})
    ('', 'hi', '{"q": "caf\\\\u00e9"}')
    """
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, default=str)


def cosine_distance(a: npt.ArrayLike, b: npt.ArrayLike) -> float:
    """Cosine distance ``clamp(1 - cos(a, b), 0, 1)``; 1.0 if either vector is all zeros.

    Examples
    --------
    >>> cosine_distance([1.0, 0.0], [1.0, 0.0]), cosine_distance([1.0, 0.0], [0.0, 0.0])
    (0.0, 1.0)
    >>> cosine_distance([1.0, 0.0], [-1.0, 0.0])  # opposite vectors are clamped to 1
    1.0
    """
    va = np.asarray(a, dtype=np.float64)
    vb = np.asarray(b, dtype=np.float64)
    if va.ndim != 1 or va.shape != vb.shape:
        raise ValueError(
            f"embedding vectors must be 1-D and of one length, got shapes {va.shape} and "
            f"{vb.shape}; the embedder must return vectors of one dimension"
        )
    if not (np.isfinite(va).all() and np.isfinite(vb).all()):
        raise ValueError("embedding vectors contain NaN or infinite values")
    dot = float(np.dot(va, vb))
    norm_a = float(np.sqrt(np.dot(va, va)))
    norm_b = float(np.sqrt(np.dot(vb, vb)))
    if norm_a == 0.0 or norm_b == 0.0:
        return 1.0
    return max(0.0, min(1.0, 1.0 - dot / (norm_a * norm_b)))


def tokenize(text: str) -> set[str]:
    """Token set for loop detection: ``\\w+`` matches of the lower-cased text, without
    one-character tokens and the 70 stop words (docs/pandaprobe.md, "Stop words").

    Examples
    --------
    >>> sorted(tokenize("The cat sat on a MAT, and it sat again: x 42!"))
    ['42', 'again', 'cat', 'mat', 'sat']
    """
    return {t for t in _TOKEN_RE.findall(text.lower()) if len(t) > 1 and t not in STOP_WORDS}


def jaccard_similarity(a: set[str], b: set[str]) -> float:
    """``|a ∩ b| / |a ∪ b|``; two empty sets give 0.0 (PandaProbe's convention).

    Examples
    --------
    >>> jaccard_similarity({"x", "y"}, {"y", "z"}), jaccard_similarity(set(), set())
    (0.3333333333333333, 0.0)
    """
    union = a | b
    if not union:
        return 0.0
    return len(a & b) / len(union)


def _check_threshold(threshold: float) -> float:
    if isinstance(threshold, bool) or not isinstance(threshold, int | float):
        raise TypeError(f"threshold must be a number in [0, 1], got {threshold!r}")
    if not 0.0 <= float(threshold) <= 1.0:
        raise ValueError(f"threshold must be in [0, 1], got {threshold!r}")
    return float(threshold)


def _embed_checked(embed: EmbedFn, texts: list[str]) -> list[Sequence[float]]:
    vectors = list(embed(texts))
    if len(vectors) != len(texts):
        raise ValueError(
            f"embedder returned {len(vectors)} vectors for {len(texts)} texts; "
            "it must return exactly one vector per text"
        )
    return vectors


def coherence(
    input: object, output: object, *, embed: EmbedFn, threshold: float = 0.5
) -> MetricResult:
    """PandaProbe's coherence: how close a trace's output is to its input in embedding space.

    ``gap = cosine_distance(embed(text(input)), embed(text(output)))``;
    ``score = clamp(1 - gap, 0, 1)`` rounded to 4 decimals; ``success = score >= threshold``.

    Parameters
    ----------
    input, output : object
        The trace's input and output (any JSON-like value, see :func:`text_of`).
    embed : callable
        ``embed(texts) -> vectors``.
    threshold : float, default 0.5
        Success threshold in [0, 1] (0 is honoured).

    Returns
    -------
    MetricResult
        Reason ``"Coherence gap: {gap:.4f}"``; metadata ``{coherence_gap, threshold, success}``.
        If either text is empty: score 1.0, reason
        ``"Input or output is empty; coherence assumed."`` and metadata
        ``{"coherence_gap": 0.0, "note": "empty_input_or_output"}`` (no embedding call).

    References
    ----------
    docs/pandaprobe.md, "Coherence"; PandaProbe's published trace-metric documentation,
    "Coherence".

    Examples
    --------
    >>> def embed(texts):  # toy embedder: (count of "a", count of "b")
    ...     return [[t.count("a"), t.count("b")] for t in texts]
    >>> r = coherence("aa", "ab", embed=embed)
    >>> r.score, r.reason  # cos = 2 / (2 * sqrt(2)) = 0.70711, gap = 0.29289
    (0.7071, 'Coherence gap: 0.2929')
    """
    threshold = _check_threshold(threshold)
    input_text, output_text = text_of(input), text_of(output)
    if not input_text or not output_text:
        return MetricResult(
            name="coherence",
            score=1.0,
            reason="Input or output is empty; coherence assumed.",
            metadata={"coherence_gap": 0.0, "note": "empty_input_or_output"},
        )
    vec_in, vec_out = _embed_checked(embed, [input_text, output_text])
    gap = cosine_distance(vec_in, vec_out)
    score = round(max(0.0, min(1.0, 1.0 - gap)), 4)
    return MetricResult(
        name="coherence",
        score=score,
        reason=f"Coherence gap: {gap:.4f}",
        metadata={
            "coherence_gap": round(gap, 4),
            "threshold": threshold,
            "success": score >= threshold,
        },
    )


def loop_detection(
    output: object,
    previous_outputs: Sequence[object],
    *,
    embed: EmbedFn,
    threshold: float = 0.5,
) -> MetricResult:
    """PandaProbe's loop detection: is this output a repeat of one of the last 3 outputs?

    The window is the last 3 earlier traces, taken *before* empty outputs are dropped. For each
    non-empty output in it, ``hybrid = cosine_similarity × jaccard_similarity`` where
    ``cosine_similarity = 1 - cosine_distance`` of the embeddings and the Jaccard index is over
    :func:`tokenize` token sets. ``score = clamp(1 - max hybrid, 0, 1)`` rounded to 4 decimals.

    Parameters
    ----------
    output : object
        The current trace's output.
    previous_outputs : sequence
        Outputs of **all** earlier traces of the session, oldest first, so that position ``i``
        is the trace's index in the session.
    embed : callable
        ``embed(texts) -> vectors``.
    threshold : float, default 0.5
        Success threshold in [0, 1] (0 is honoured).

    Returns
    -------
    MetricResult
        Reason ``"Max hybrid repetition score: {m:.4f}"``; metadata ``{window_size, max_hybrid,
        comparisons: [{trace_index, cosine_similarity, jaccard_similarity, hybrid_score}],
        threshold, success}`` with ``window_size`` the number of non-empty outputs compared and
        ``trace_index`` the compared trace's true index in the session. Score 1.0 with a
        ``note`` (no embedding call) when there are no earlier traces
        (``"no session context provided"``), the current output is empty (``"empty_output"``)
        or the window holds no non-empty output (``"no_previous_outputs"``).

    References
    ----------
    docs/pandaprobe.md, "Loop detection"; PandaProbe's published trace-metric documentation,
    "Loop Detection".

    Examples
    --------
    >>> def embed(texts):
    ...     return [[1.0, 0.0] for _ in texts]  # every text looks identical to this embedder
    >>> r = loop_detection("book flight", ["book flight now"], embed=embed)
    >>> r.score  # cosine 1.0 × Jaccard |{book, flight}| / |{book, flight, now}| = 0.6667
    0.3333
    """
    threshold = _check_threshold(threshold)
    if isinstance(previous_outputs, str | bytes):
        raise TypeError(
            "previous_outputs must be a sequence of earlier outputs (oldest first), "
            f"not a single string: {previous_outputs!r:.60}"
        )
    if len(previous_outputs) == 0:
        return MetricResult(
            name="loop_detection",
            score=1.0,
            reason="No session context provided; looping cannot be assessed.",
            metadata={"note": "no session context provided"},
        )
    start = max(0, len(previous_outputs) - LOOP_WINDOW)
    current_text = text_of(output)
    if not current_text:
        return MetricResult(
            name="loop_detection",
            score=1.0,
            reason="Empty output; looping cannot be assessed.",
            metadata={"note": "empty_output"},
        )
    window = [(start + i, text_of(v)) for i, v in enumerate(previous_outputs[start:])]
    window = [(index, text) for index, text in window if text]
    if not window:
        return MetricResult(
            name="loop_detection",
            score=1.0,
            reason="No previous outputs to compare.",
            metadata={"note": "no_previous_outputs"},
        )
    vectors = _embed_checked(embed, [current_text] + [text for _, text in window])
    current_tokens = tokenize(current_text)
    max_hybrid = 0.0
    comparisons: list[dict[str, Any]] = []
    for (index, text), vector in zip(window, vectors[1:], strict=True):
        cos_sim = 1.0 - cosine_distance(vectors[0], vector)
        jac_sim = jaccard_similarity(current_tokens, tokenize(text))
        hybrid = cos_sim * jac_sim
        max_hybrid = max(max_hybrid, hybrid)
        comparisons.append(
            {
                "trace_index": index,
                "cosine_similarity": round(cos_sim, 4),
                "jaccard_similarity": round(jac_sim, 4),
                "hybrid_score": round(hybrid, 4),
            }
        )
    score = round(max(0.0, min(1.0, 1.0 - max_hybrid)), 4)
    return MetricResult(
        name="loop_detection",
        score=score,
        reason=f"Max hybrid repetition score: {max_hybrid:.4f}",
        metadata={
            "window_size": len(window),
            "max_hybrid": round(max_hybrid, 4),
            "comparisons": comparisons,
            "threshold": threshold,
            "success": score >= threshold,
        },
    )
