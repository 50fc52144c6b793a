"""coherence and loop_detection: expected values derived by hand in the comments.

Rules: docs/pandaprobe.md, "Coherence" and "Loop detection".
"""

from __future__ import annotations

import datetime as dt
import math

import pytest

from reliability_lab.metrics.signals import (
    STOP_WORDS,
    coherence,
    cosine_distance,
    jaccard_similarity,
    loop_detection,
    text_of,
    tokenize,
)
from tests.sessions.fakes import const_embed, letter_embed


def test_text_of_rules() -> None:
    assert text_of(None) == ""
    assert text_of("") == ""
    assert text_of("plain") == "plain"
    # json.dumps: ASCII escapes, insertion order kept, ", " and ": " separators
    assert text_of({"b": 1, "a": "é"}) == '{"b": 1, "a": "\\u00e9"}'
    assert text_of([1, None]) == "[1, null]"
    assert text_of({"t": dt.date(2024, 5, 1)}) == '{"t": "2024-05-01"}'  # default=str


def test_stop_words_are_the_70_of_spec() -> None:
    assert len(STOP_WORDS) == 70
    assert {"a", "its", "neither", "shall", "own"} <= STOP_WORDS
    assert "not" in STOP_WORDS and "it" in STOP_WORDS


def test_tokenize_and_jaccard() -> None:
    # lower-cased \w+ tokens; "a", "x" (1 char) and stop words dropped; digits/underscores kept
    assert tokenize("The X-ray of get_order A1 is NOT ready") == {"ray", "get_order", "a1", "ready"}
    assert jaccard_similarity(set(), set()) == 0.0
    assert jaccard_similarity({"a"}, set()) == 0.0
    assert jaccard_similarity({"a", "b"}, {"b", "c", "d"}) == 0.25  # 1 shared of 4


def test_cosine_distance_edge_cases() -> None:
    assert cosine_distance([0.0, 0.0], [1.0, 0.0]) == 1.0  # zero vector
    assert cosine_distance([1.0, 0.0], [0.0, 1.0]) == 1.0  # orthogonal
    assert cosine_distance([1.0, 0.0], [-1.0, 0.0]) == 1.0  # 1 - (-1) = 2, clamped
    # [1,1]·[1,0] = 1, norms sqrt2 and 1: distance 1 - 1/sqrt2 = 0.29289
    assert cosine_distance([1.0, 1.0], [1.0, 0.0]) == pytest.approx(1 - 1 / math.sqrt(2))
    with pytest.raises(ValueError, match="one length"):
        cosine_distance([1.0], [1.0, 2.0])


@pytest.mark.parametrize("inp,out", [(None, "x"), ("x", None), ("", "x"), ("x", "")])
def test_coherence_empty(inp: object, out: object) -> None:
    r = coherence(inp, out, embed=letter_embed)
    assert (r.score, r.reason) == (1.0, "Input or output is empty; coherence assumed.")
    assert r.metadata == {"coherence_gap": 0.0, "note": "empty_input_or_output"}


def test_coherence_values() -> None:
    # "ab" -> (1, 1), "a" -> (1, 0): cos = 1/sqrt2 = 0.707107, gap = 0.292893
    r = coherence("ab", "a", embed=letter_embed)
    assert r.score == 0.7071
    assert r.reason == "Coherence gap: 0.2929"
    assert r.metadata == {"coherence_gap": 0.2929, "threshold": 0.5, "success": True}
    assert coherence("ab", "a", embed=letter_embed, threshold=0.75).metadata["success"] is False
    # orthogonal: "a" -> (1,0), "b" -> (0,1): gap 1, score 0; threshold 0 is honoured
    r0 = coherence("a", "b", embed=letter_embed, threshold=0)
    assert r0.score == 0.0 and r0.metadata == {
        "coherence_gap": 1.0,
        "threshold": 0.0,
        "success": True,
    }
    # non-string input: text is '{"a": 1}' -> (1, 0); output "a" -> (1, 0): gap 0
    assert coherence({"a": 1}, "a", embed=letter_embed).score == 1.0


def test_coherence_rejects_bad_threshold_and_embedder() -> None:
    with pytest.raises(ValueError, match="threshold"):
        coherence("a", "b", embed=letter_embed, threshold=1.5)
    with pytest.raises(ValueError, match="one vector per text"):
        coherence("a", "b", embed=lambda texts: [[1.0]])


def test_loop_no_context_empty_output_no_previous() -> None:
    r = loop_detection("x", [], embed=const_embed)
    assert (r.score, r.metadata) == (1.0, {"note": "no session context provided"})
    assert r.reason == "No session context provided; looping cannot be assessed."
    r = loop_detection(None, ["earlier"], embed=const_embed)
    assert (r.score, r.metadata) == (1.0, {"note": "empty_output"})
    assert r.reason == "Empty output; looping cannot be assessed."
    # the window is the last 3 earlier traces *before* dropping empties: "old words" at index 0
    # is outside it, so nothing is left to compare
    r = loop_detection("old words", ["old words", "", None, ""], embed=const_embed)
    assert (r.score, r.metadata) == (1.0, {"note": "no_previous_outputs"})
    assert r.reason == "No previous outputs to compare."


def test_loop_true_trace_index_and_hybrid_arithmetic() -> None:
    # window = indices 1, 2, 3; index 2 is empty and dropped -> compared: 1 and 3
    # const_embed -> cosine similarity 1, so hybrid = Jaccard
    # current {book, flight, paris}; idx1 "book a flight to rome" -> {book, flight, rome}: 2/4
    # idx3 "the cat" -> {cat}: 0/4 = 0; max hybrid 0.5 -> score 0.5, success at 0.5
    prev = ["book flight paris", "book a flight to rome", "", "the cat"]
    r = loop_detection("book flight paris", prev, embed=const_embed)
    assert r.score == 0.5
    assert r.reason == "Max hybrid repetition score: 0.5000"
    assert r.metadata == {
        "window_size": 2,
        "max_hybrid": 0.5,
        "comparisons": [
            {
                "trace_index": 1,
                "cosine_similarity": 1.0,
                "jaccard_similarity": 0.5,
                "hybrid_score": 0.5,
            },
            {
                "trace_index": 3,
                "cosine_similarity": 1.0,
                "jaccard_similarity": 0.0,
                "hybrid_score": 0.0,
            },
        ],
        "threshold": 0.5,
        "success": True,
    }


def test_loop_cosine_times_jaccard() -> None:
    # letter_embed: "aab" -> (2, 1); "abba cab" -> a: 3, b: 3 -> (3, 3)
    # cos = (6 + 3) / (sqrt5 * sqrt18) = 9 / sqrt90 = 0.948683
    # tokens {aab} vs {abba, cab}: Jaccard 0 -> hybrid 0 -> score 1.0
    r = loop_detection("aab", ["abba cab"], embed=letter_embed)
    assert r.score == 1.0
    assert r.metadata["comparisons"][0] == {
        "trace_index": 0,
        "cosine_similarity": 0.9487,
        "jaccard_similarity": 0.0,
        "hybrid_score": 0.0,
    }
    # "aab cab" -> (3, 2) vs "abba cab" (3, 3): cos = (9 + 6) / (sqrt13 * sqrt18) = 15/sqrt234
    # = 0.980581; Jaccard {aab, cab} vs {abba, cab} = 1/3; hybrid = 0.326860
    # score = 1 - 0.326860 = 0.673140
    r = loop_detection("aab cab", ["abba cab"], embed=letter_embed)
    assert r.score == 0.6731
    assert r.reason == "Max hybrid repetition score: 0.3269"
    assert r.metadata["comparisons"][0]["cosine_similarity"] == 0.9806
    assert r.metadata["comparisons"][0]["jaccard_similarity"] == 0.3333
    assert r.metadata["comparisons"][0]["hybrid_score"] == 0.3269


def test_loop_exact_repeat_and_threshold_zero() -> None:
    out = [{"name": "get_order", "arguments": {"order_id": "A1"}}]
    r = loop_detection(out, [out], embed=const_embed)  # identical JSON text: hybrid 1 -> 0
    assert r.score == 0.0 and r.metadata["success"] is False
    r0 = loop_detection(out, [out], embed=const_embed, threshold=0)
    assert r0.metadata["threshold"] == 0.0 and r0.metadata["success"] is True


def test_loop_all_stop_words_gives_jaccard_zero() -> None:
    # both token sets empty -> Jaccard 0 (not 1): no loop reported
    r = loop_detection("it is the", ["it is the"], embed=const_embed)
    assert r.score == 1.0
    assert r.metadata["comparisons"][0]["jaccard_similarity"] == 0.0


def test_loop_rejects_string_previous_outputs() -> None:
    with pytest.raises(TypeError, match="previous_outputs"):
        loop_detection("x", "earlier", embed=const_embed)
