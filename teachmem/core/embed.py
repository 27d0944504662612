"""Embeddings built by hand: text in, unit vectors out.

An *embedding* turns a text into a list of numbers so that texts about the
same thing land near each other; with unit-length vectors the cosine
similarity of two texts is just the dot product of their vectors.

This module builds four of them, from "not an embedding at all" to "good
enough to teach with", all deterministic and offline:

* :class:`RandomEmbedder` — seed 000's stand-in: a random vector seeded by the
  text's hash. Same text, same vector; but "seat" and "seats" are unrelated,
  so it cannot find anything it was not asked about word for word.
* :class:`BagOfWordsEmbedder` — seed 004's hashing bag-of-words: each content
  word (stopwords dropped, crudely stemmed) is hashed into one of ``dim``
  slots. Texts that share words share slots.
* :class:`SubwordEmbedder` — also hashes character n-grams of every word
  ("<py", "pyt", "yte", "tes", "est", "st>"), so "pytest" and "tests" meet
  even though they are different words.
* :class:`SentenceTransformerEmbedder` — an adapter for a trained model, used
  only when the optional ``sentence-transformers`` package is installed.

Anything with a ``dim`` attribute and an ``embed(texts) -> (n, dim) float32``
method is an :class:`Embedder`; the store does not care which one it gets.
The lexical BM25 scorer lives in :mod:`teachmem.core.scoring`.

Taught in notebooks/05_semantic_memory.ipynb.
"""
from __future__ import annotations

from typing import Protocol, Sequence, runtime_checkable

import numpy as np

from teachmem.core.words import content_words

__all__ = [
    "Embedder", "RandomEmbedder", "BagOfWordsEmbedder", "SubwordEmbedder",
    "SentenceTransformerEmbedder", "hash_stable",
    "cosine_matrix", "embedder_from_config",
]

def hash_stable(token: str) -> int:
    """32-bit FNV-1a hash of ``token``'s UTF-8 bytes: the same on every run.

    Python's built-in ``hash`` of a string is salted per process, so vectors
    built with it would change every time the notebook restarts.

    Taught in notebooks/05_semantic_memory.ipynb.
    """
    h = 2166136261
    for byte in token.encode("utf-8"):
        h = ((h ^ byte) * 16777619) & 0xFFFFFFFF
    return h


def _unit_rows(matrix: np.ndarray) -> np.ndarray:
    """Scale every row to length 1; all-zero rows (no content words) stay zero."""
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    np.divide(matrix, norms, out=matrix, where=norms > 0)
    return matrix


@runtime_checkable
class Embedder(Protocol):
    """Anything that turns texts into unit vectors.

    ``embed(texts)`` returns a float32 array of shape ``(len(texts), dim)``
    whose rows have length 1 (or 0 for a text with nothing to match), so a
    dot product is a cosine similarity. ``config()`` returns JSON-ready data
    that :func:`embedder_from_config` turns back into an equal embedder.

    Taught in notebooks/05_semantic_memory.ipynb.
    """

    dim: int
    name: str

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...

    def config(self) -> dict: ...


def _check_dim(dim) -> int:
    if isinstance(dim, bool) or not isinstance(dim, int) or dim < 2:
        raise ValueError(f"dim must be an int >= 2, got {dim!r}")
    return dim


def _check_texts(texts) -> list[str]:
    if isinstance(texts, str):
        raise TypeError("texts must be a list of strings, got a single str (wrap it in a list)")
    texts = list(texts)
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"texts[{i}] must be a str, got {type(text).__name__}")
    return texts


class RandomEmbedder:
    """Seed 000's stand-in: a random unit vector seeded by a hash of the text.

    Deterministic (a stable hash replaces Python's salted ``hash``), but it is
    no embedding: two texts that differ by one letter get unrelated vectors,
    so their cosine similarity is noise around 0.

    Taught in notebooks/05_semantic_memory.ipynb.
    """

    name = "random"

    def __init__(self, dim: int = 64):
        self.dim = _check_dim(dim)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = _check_texts(texts)
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            out[i] = np.random.default_rng(hash_stable(text)).standard_normal(self.dim)
        return _unit_rows(out)

    def config(self) -> dict:
        return {"name": self.name, "dim": self.dim}


class _HashingEmbedder:
    """Shared machinery: each text is a sum of hashed features, then unit length.

    A feature is hashed to a slot *and* a sign (+1 or -1). With signs, two
    unrelated features that collide in one slot cancel out on average instead
    of always looking alike.
    """

    name = "hashing"

    def __init__(self, dim: int, signed: bool):
        self.dim = _check_dim(dim)
        self.signed = bool(signed)
        self._cache: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def _features(self, word: str) -> list[tuple[str, float]]:
        raise NotImplementedError

    def _slots(self, word: str) -> tuple[np.ndarray, np.ndarray]:
        """(slot indices, signed weights) of ``word``; cached, words repeat a lot."""
        hit = self._cache.get(word)
        if hit is None:
            feats = self._features(word)
            hashes = [hash_stable(f) for f, _ in feats]
            slots = np.array([h % self.dim for h in hashes], dtype=np.intp)
            weights = np.array([w * (1 - 2 * ((h >> 31) & 1) if self.signed else w)
                                for h, (_, w) in zip(hashes, feats)], dtype=np.float64)
            hit = self._cache[word] = (slots, weights)
            if len(self._cache) > 200_000:     # bound memory on endless vocabularies
                self._cache.clear()
        return hit

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = _check_texts(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            words = content_words(text)
            if words:
                parts = [self._slots(w) for w in words]
                slots = np.concatenate([p[0] for p in parts])
                weights = np.concatenate([p[1] for p in parts])
                out[i] = np.bincount(slots, weights, minlength=self.dim)
        return _unit_rows(out)


class BagOfWordsEmbedder(_HashingEmbedder):
    """Seed 004's hashing bag-of-words: one slot per content word, counted.

    Stopwords are dropped and words crudely stemmed first, so "seat" and
    "seats" share a slot. Unsigned by default, exactly like the seed; pass
    ``signed=True`` to let colliding words cancel instead.

    Taught in notebooks/05_semantic_memory.ipynb.
    """

    name = "bow"

    def __init__(self, dim: int = 256, *, signed: bool = False):
        super().__init__(dim, signed)

    def _features(self, word):
        return [(word, 1.0)]

    def config(self) -> dict:
        return {"name": self.name, "dim": self.dim, "signed": self.signed}


class SubwordEmbedder(_HashingEmbedder):
    """Words *and* their character n-grams, hashed (the fastText idea, untrained).

    "pytest" becomes the word plus "<py", "pyt", "yte", "tes", "est", "st>",
    … so it shares features with "tests", and a typo or a new inflection
    still lands close to the original. The whole word carries
    ``word_weight`` of each word's squared length; its n-grams share the rest
    equally, so a long word does not outweigh a short one.

    Taught in notebooks/05_semantic_memory.ipynb.
    """

    name = "subword"

    def __init__(self, dim: int = 256, *, n_min: int = 3, n_max: int = 5,
                 word_weight: float = 0.5, signed: bool = True):
        super().__init__(dim, signed)
        if not (isinstance(n_min, int) and isinstance(n_max, int) and 1 <= n_min <= n_max):
            raise ValueError(f"n_min and n_max must be ints with 1 <= n_min <= n_max, got {n_min!r}, {n_max!r}")
        if not 0 <= word_weight <= 1:
            raise ValueError(f"word_weight must be a number between 0 and 1, got {word_weight!r}")
        self.n_min, self.n_max, self.word_weight = n_min, n_max, float(word_weight)

    def ngrams(self, word: str) -> list[str]:
        """Character n-grams of ``<word>`` (angle brackets mark where it starts and ends)."""
        marked = f"<{word}>"
        return [marked[i:i + n] for n in range(self.n_min, self.n_max + 1)
                for i in range(len(marked) - n + 1)]

    def _features(self, word):
        grams = self.ngrams(word) if len(word) > 2 and word.isascii() else []
        if not grams:
            return [(word, 1.0)]
        # Weights split the word's *squared* length: the word itself gets
        # ``word_weight`` of it and the n-grams share the rest. (Splitting the
        # plain weights instead would let the one word feature drown its
        # n-grams once the vector is normalised.) "#" keeps the whole-word
        # feature apart from an n-gram spelled the same.
        share = ((1.0 - self.word_weight) / len(grams)) ** 0.5
        return [("#" + word, self.word_weight ** 0.5)] + [(g, share) for g in grams]

    def config(self) -> dict:
        return {"name": self.name, "dim": self.dim, "n_min": self.n_min, "n_max": self.n_max,
                "word_weight": self.word_weight, "signed": self.signed}


class SentenceTransformerEmbedder:
    """Adapter for a trained model from the optional ``sentence-transformers`` package.

    Never required and never downloaded by the tests: the package is imported
    only when this class is instantiated, and the model must already be in
    the local cache (or ``model`` may be a ready model object with an
    ``encode`` method).

    Taught in notebooks/05_semantic_memory.ipynb.
    """

    name = "sentence-transformers"

    def __init__(self, model="all-MiniLM-L6-v2"):
        if isinstance(model, str):
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError as err:   # pragma: no cover - depends on the machine
                raise ImportError("SentenceTransformerEmbedder needs the optional package "
                                  "sentence-transformers (pip install sentence-transformers)") from err
            self.model_name, self.model = model, SentenceTransformer(model)
        else:
            self.model_name, self.model = getattr(model, "name", type(model).__name__), model
        self.dim = int(len(self.model.encode(["dimension probe"])[0]))

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = _check_texts(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return _unit_rows(np.asarray(self.model.encode(texts), dtype=np.float32).reshape(len(texts), self.dim))

    def config(self) -> dict:
        return {"name": self.name, "model": self.model_name}


_EMBEDDERS = {cls.name: cls for cls in (RandomEmbedder, BagOfWordsEmbedder, SubwordEmbedder)}


def embedder_from_config(config: dict) -> Embedder:
    """Rebuild an embedder from its ``config()`` (used when a store is loaded).

    Taught in notebooks/05_semantic_memory.ipynb.
    """
    if not isinstance(config, dict) or "name" not in config:
        raise ValueError(f"config must be a dict with a 'name', got {config!r}")
    options = {k: v for k, v in config.items() if k != "name"}
    if config["name"] == SentenceTransformerEmbedder.name:
        return SentenceTransformerEmbedder(options["model"])
    if config["name"] not in _EMBEDDERS:
        raise ValueError(f"unknown embedder {config['name']!r}; known: {sorted(_EMBEDDERS)}")
    return _EMBEDDERS[config["name"]](**options)


def cosine_matrix(embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
    """Pairwise cosine similarities of ``texts`` under ``embedder`` (for heatmaps).

    Taught in notebooks/05_semantic_memory.ipynb.
    """
    vectors = embedder.embed(texts)
    return vectors @ vectors.T
