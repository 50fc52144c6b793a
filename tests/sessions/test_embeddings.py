"""The offline hashing embedder and the optional sentence-transformers embedder."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from reliability_lab.metrics.signals import cosine_distance
from reliability_lab.sessions.embeddings import HashingEmbedder, SentenceTransformerEmbedder


def test_hashing_embedder_properties() -> None:
    emb = HashingEmbedder(dim=256)
    a, b, c, empty = emb(
        ["Book a flight to Paris", "book A FLIGHT to paris", "quantum chromodynamics", ""]
    )
    assert a.shape == (256,)
    assert np.linalg.norm(a) == pytest.approx(1.0)
    assert np.allclose(a, b)  # case-insensitive bag of words
    assert not empty.any()  # no words -> zero vector (cosine distance 1 by definition)
    assert cosine_distance(a, empty) == 1.0
    # lexical overlap "flight" (+ shared trigrams) makes "flights" closer than unrelated text
    (d,) = emb(["cheap flights"])
    assert cosine_distance(a, d) < cosine_distance(a, c)
    # deterministic across instances (CRC-32, not the salted built-in hash)
    assert np.array_equal(HashingEmbedder(dim=256)(["Book a flight to Paris"])[0], a)


def test_hashing_embedder_tf_is_sublinear() -> None:
    emb = HashingEmbedder(dim=1024, char_weight=0.0)
    # words only: "x y" has weights (1, 1); "x x y" has (1 + ln 2, 1)
    # cos = (1 + ln2 + 1) / (sqrt2 * sqrt((1 + ln2)^2 + 1))
    #     = 2.693147 / (1.414214 * sqrt(3.866747)) = 2.693147 / (1.414214 * 1.966404)
    #     = 2.693147 / 2.780915 = 0.968439 (the two words land in different buckets)
    u, v = emb(["xx yy", "xx xx yy"])
    assert 1 - cosine_distance(u, v) == pytest.approx(0.968439, abs=1e-6)


def test_hashing_embedder_rejects_bad_options() -> None:
    with pytest.raises(ValueError, match="power of two"):
        HashingEmbedder(dim=1000)
    with pytest.raises(ValueError, match="char_weight"):
        HashingEmbedder(char_weight=-1.0)


@pytest.mark.skipif(
    importlib.util.find_spec("sentence_transformers") is not None,
    reason="sentence-transformers is installed here; the missing-package error cannot be shown",
)
def test_sentence_transformer_missing_package_is_clear() -> None:
    with pytest.raises(ImportError, match="optional 'sentence-transformers' package"):
        SentenceTransformerEmbedder("/nonexistent/model")
