"""Text embedders for the embedding-based PandaProbe signals (coherence, loop detection).

An embedder is any callable ``embed(texts: list[str]) -> vectors`` (one vector per text).

- :class:`HashingEmbedder` — the offline default. It needs no download and no network: a
  *hashed bag of words and character trigrams* with sublinear term-frequency weights,
  L2-normalised. It measures **lexical** overlap (shared words and word fragments), not meaning:
  "refund my order" and "give me my money back" look unrelated to it, while a semantic model
  would put them close together. Scores computed with it are therefore not comparable with
  PandaProbe scores computed with a neural embedding model; use it for offline runs and tests.
- :class:`LiteLLMEmbedder` — any litellm embedding model (``"openai/text-embedding-3-small"``,
  …) through :meth:`reliability_lab.llm.LLMClient.aembedding`, the project's single litellm
  boundary.
- :class:`SentenceTransformerEmbedder` — a sentence-transformers model the user has already
  downloaded to a local directory; only used if that package is installed; never downloads.
"""

from __future__ import annotations

import math
import os
import re
import zlib
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

if TYPE_CHECKING:
    from reliability_lab.llm import LLMClient

from reliability_lab._sync import run_sync

__all__ = [
    "Embedder",
    "HashingEmbedder",
    "LiteLLMEmbedder",
    "SentenceTransformerEmbedder",
    "default_embedder",
]


_WORD_RE = re.compile(r"\w+")


@runtime_checkable
class Embedder(Protocol):
    """Maps a list of texts to one vector (a sequence of floats) per text."""

    def __call__(self, texts: list[str]) -> Sequence[Any]:
        """Embed ``texts``; return one vector per text, all of one dimension."""
        ...


class HashingEmbedder:
    """Offline default embedder: hashed bag of words + character trigrams (not semantic).

    Each text is lower-cased and split into ``\\w+`` words. Every distinct word ``w`` with
    count ``c`` gets weight ``1 + ln(c)`` (sublinear TF); the word itself and its character
    trigrams (of ``"<w>"``, so prefixes and suffixes count) are hashed with CRC-32 into ``dim``
    buckets with a hash-derived sign (feature hashing), words with weight 1 and trigrams with
    ``char_weight``. The vector is L2-normalised; a text without words is the zero vector.

    What it is not: a semantic model. Two texts are close only if they share words or word
    fragments; synonyms and paraphrases are not recognised, and there is no IDF, so frequent
    words count as much as rare ones. It is deterministic across processes (CRC-32, not
    Python's salted ``hash``) and needs no download.

    Parameters
    ----------
    dim : int, default 2048
        Number of hash buckets; a power of two.
    char_weight : float, default 0.5
        Weight of each character trigram relative to a whole word.

    Examples
    --------
    >>> embed = HashingEmbedder()
    >>> a, b = embed(["book a flight", "book a flight"])
    >>> float(np.dot(a, b))
    1.0
    """

    def __init__(self, *, dim: int = 2048, char_weight: float = 0.5) -> None:
        if dim < 2 or dim & (dim - 1):
            raise ValueError(f"dim must be a power of two >= 2, got {dim!r}")
        if not (char_weight >= 0.0 and math.isfinite(char_weight)):
            raise ValueError(f"char_weight must be a finite number >= 0, got {char_weight!r}")
        self.dim = dim
        self.char_weight = float(char_weight)
        self._features: dict[str, tuple[list[int], list[float]]] = {}

    def __repr__(self) -> str:
        return f"HashingEmbedder(dim={self.dim}, char_weight={self.char_weight})"

    def _word_features(self, word: str) -> tuple[list[int], list[float]]:
        cached = self._features.get(word)
        if cached is not None:
            return cached
        padded = f"<{word}>"
        grams = [("w", word, 1.0)] + [
            ("c", padded[i : i + 3], self.char_weight) for i in range(len(padded) - 2)
        ]
        indices: list[int] = []
        values: list[float] = []
        for prefix, gram, weight in grams:
            h = zlib.crc32(f"{prefix}:{gram}".encode())
            indices.append(h & (self.dim - 1))
            values.append(weight if (h >> 31) & 1 else -weight)
        if len(self._features) < 200_000:
            self._features[word] = (indices, values)
        return indices, values

    def embed_one(self, text: str) -> np.ndarray:
        """Embed one text (see the class docstring)."""
        counts = Counter(_WORD_RE.findall(text.lower()))
        indices: list[int] = []
        values: list[float] = []
        for word, count in counts.items():
            tf = 1.0 + math.log(count)
            word_indices, word_values = self._word_features(word)
            indices.extend(word_indices)
            values.extend(v * tf for v in word_values)
        vector = np.bincount(
            np.asarray(indices, dtype=np.intp), weights=np.asarray(values), minlength=self.dim
        )
        norm = float(np.linalg.norm(vector))
        return vector / norm if norm > 0.0 else vector

    def __call__(self, texts: list[str]) -> list[np.ndarray]:
        """Embed each text; returns one unit-length (or zero) float64 vector per text."""
        return [self.embed_one(text) for text in texts]


_DEFAULT = HashingEmbedder()


def default_embedder() -> HashingEmbedder:
    """The shared offline :class:`HashingEmbedder` (default settings)."""
    return _DEFAULT


class LiteLLMEmbedder:
    """Embeddings from any litellm embedding model, through the project's ``LLMClient``.

    Vectors are cached in memory per text, so a session's repeated outputs are embedded once.

    Parameters
    ----------
    model : str
        A litellm embedding model string, e.g. ``"openai/text-embedding-3-small"``.
    llm : LLMClient, optional
        Client to use; a default ``LLMClient()`` is created when omitted.
    **params
        Extra parameters for ``LLMClient.aembedding`` (``api_base``, ``dimensions``, …).
    """

    def __init__(self, model: str, *, llm: LLMClient | None = None, **params: Any) -> None:
        if not isinstance(model, str) or not model:
            raise ValueError(f"model must be a non-empty litellm model string, got {model!r}")
        self.model = model
        self._llm = llm
        self._params = params
        self._cache: dict[str, list[float]] = {}

    def __repr__(self) -> str:
        return f"LiteLLMEmbedder(model={self.model!r})"

    def _client(self) -> LLMClient:
        if self._llm is None:
            from reliability_lab.llm import LLMClient

            self._llm = LLMClient()
        return self._llm

    async def aembed(self, texts: list[str]) -> list[list[float]]:
        """Embed ``texts`` asynchronously (only uncached distinct texts are sent)."""
        missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if missing:
            vectors = await self._client().aembedding(
                model=self.model, texts=missing, **self._params
            )
            if len(vectors) != len(missing):
                raise ValueError(
                    f"embedding model {self.model!r} returned {len(vectors)} vectors "
                    f"for {len(missing)} texts"
                )
            self._cache.update(zip(missing, (list(v) for v in vectors), strict=True))
        return [self._cache[t] for t in texts]

    def __call__(self, texts: list[str]) -> list[list[float]]:
        """Embed ``texts`` synchronously (see :meth:`aembed`)."""
        return run_sync(self.aembed(texts))


class SentenceTransformerEmbedder:
    """A locally installed sentence-transformers model, loaded from a local directory.

    Requires the ``sentence-transformers`` package (not a dependency of reliability_lab;
    install it yourself) and a model already on disk. Nothing is downloaded at run time:
    ``model_path`` must be an existing directory and the model is loaded with
    ``local_files_only=True``.

    Parameters
    ----------
    model_path : str or PathLike
        Directory holding a saved sentence-transformers model.
    device : str, optional
        Torch device, e.g. ``"cpu"``.
    """

    def __init__(self, model_path: str | os.PathLike[str], *, device: str | None = None) -> None:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise ImportError(
                "SentenceTransformerEmbedder needs the optional 'sentence-transformers' package, "
                "which is not installed; install it yourself (pip install sentence-transformers) "
                "or use HashingEmbedder (offline default) or LiteLLMEmbedder"
            ) from exc
        path = os.fspath(model_path)
        if not os.path.isdir(path):
            raise ValueError(
                f"model_path must be an existing local directory holding a saved "
                f"sentence-transformers model (this class never downloads), got {path!r}"
            )
        self.model_path = path
        self._model = SentenceTransformer(path, device=device, local_files_only=True)

    def __repr__(self) -> str:
        return f"SentenceTransformerEmbedder(model_path={self.model_path!r})"

    def __call__(self, texts: list[str]) -> list[list[float]]:
        """Embed ``texts`` with the local model (unnormalised; cosine needs no normalising)."""
        vectors = self._model.encode(list(texts), convert_to_numpy=True)
        return [list(map(float, row)) for row in vectors]
