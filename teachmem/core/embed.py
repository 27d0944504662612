"""Embeddings built by hand, compared: text in, unit vectors out.

Notebook 05 builds four embedders, from "not an embedding at all" to "good
enough to teach with", all deterministic and offline except the last:

* :class:`RandomEmbedder` — a random vector seeded by the text's hash. Same
  text, same vector; but "seat" and "seats" are unrelated, so it cannot find
  anything it was not asked about word for word.
* :class:`BagOfWordsEmbedder` — hashing bag-of-words: each content word
  (stopwords dropped, crudely stemmed) is hashed into one of ``dim`` slots.
  Texts that share words share slots.
* :class:`~teachmem.core.subword.SubwordEmbedder` — also hashes character
  n-grams of every word; the default of a semantic store, so it lives with
  its hashing base in :mod:`teachmem.core.subword`.
* :class:`SentenceTransformerEmbedder` — an adapter for a trained model, used
  only when the optional ``sentence-transformers`` package is installed.

Anything with a ``dim`` attribute and an ``embed(texts) -> (n, dim) float32``
method is an :class:`Embedder`; the store does not care which one it gets.

Taught in notebooks/05_semantic_memory.ipynb.
"""
from __future__ import annotations

from typing import Protocol, Sequence, runtime_checkable

import numpy as np

from teachmem.core.subword import (EMBEDDERS, HashingEmbedder, SubwordEmbedder, check_dim,
                                   check_texts, embedder_from_config, hash_stable, unit_rows)

__all__ = ["Embedder", "RandomEmbedder", "BagOfWordsEmbedder", "SubwordEmbedder",
           "SentenceTransformerEmbedder", "hash_stable", "cosine_matrix", "embedder_from_config"]


@runtime_checkable
class Embedder(Protocol):
    """Anything that turns texts into unit vectors.

    ``embed(texts)`` returns a float32 array of shape ``(len(texts), dim)``
    whose rows have length 1 (or 0 for a text with nothing to match), so a
    dot product is a cosine similarity. ``config()`` returns JSON-ready data
    that :func:`embedder_from_config` turns back into an equal embedder. It may say, as
    ``near_copy``, the cosine from which two texts say the same thing (a store's time-aware score
    lets time decide between those only); without it, 0.6. And as ``lexical_weight``, how much
    BM25 a store blends with its cosine by default; without it, 0.5.
    """

    dim: int
    name: str

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...

    def config(self) -> dict: ...


class RandomEmbedder:
    """A random unit vector seeded by a hash of the text: the stand-in that is no embedding.

    Deterministic (a stable hash replaces Python's salted ``hash``), but two
    texts that differ by one letter get unrelated vectors, so their cosine
    similarity is noise around 0.

    Taught in notebooks/05_semantic_memory.ipynb.
    """

    name = "random"

    def __init__(self, dim: int = 64):
        self.dim = check_dim(dim)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = check_texts(texts)
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            out[i] = np.random.default_rng(hash_stable(text)).standard_normal(self.dim)
        return unit_rows(out)

    def config(self) -> dict:
        return {"name": self.name, "dim": self.dim}


class BagOfWordsEmbedder(HashingEmbedder):
    """Hashing bag-of-words: one slot per content word, counted.

    Stopwords are dropped and words crudely stemmed first, so "seat" and
    "seats" share a slot. Unsigned by default; pass ``signed=True`` to let
    colliding words cancel instead.

    Taught in notebooks/05_semantic_memory.ipynb.
    """

    name = "bow"

    def __init__(self, dim: int = 256, *, signed: bool = False):
        super().__init__(dim, signed)

    def features(self, word: str) -> list[tuple[str, float]]:
        return [(word, 1.0)]

    def config(self) -> dict:
        return {"name": self.name, "dim": self.dim, "signed": self.signed}


class SentenceTransformerEmbedder:
    """Adapter for a trained model from the optional ``sentence-transformers`` package.

    Never required and never downloaded by the tests: the package is imported
    only when this class is given a model name, and the model must already be
    in the local cache (or ``model`` may be a ready model object with an
    ``encode`` method).
    """

    name = "sentence-transformers"
    near_copy = 0.9      # as MiniLM's (the default model): a trained model's cosines run high
    lexical_weight = 0.4      # and MiniLM's BM25 share

    def __init__(self, model="all-MiniLM-L6-v2"):
        if isinstance(model, str):
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError as err:   # pragma: no cover - depends on the machine
                raise ImportError("SentenceTransformerEmbedder needs the optional package "
                                  "sentence-transformers (pip install sentence-transformers)"
                                  ) from err
            self.model_name = model
            self.model = SentenceTransformer(model)
        else:
            self.model_name = getattr(model, "name", type(model).__name__)
            self.model = model
        self.dim = int(len(self.model.encode(["dimension probe"])[0]))

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = check_texts(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = np.asarray(self.model.encode(texts), dtype=np.float32)
        return unit_rows(vectors.reshape(len(texts), self.dim))

    def config(self) -> dict:
        return {"name": self.name, "model": self.model_name}


for _embedder in (RandomEmbedder, BagOfWordsEmbedder, SentenceTransformerEmbedder):
    EMBEDDERS[_embedder.name] = _embedder


def cosine_matrix(embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
    """Pairwise cosine similarities of ``texts`` under ``embedder`` (for heatmaps).

    >>> texts = ["window seat", "window seats", "database"]
    >>> cosine_matrix(BagOfWordsEmbedder(64), texts).round(2).tolist()
    [[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]

    Taught in notebooks/05_semantic_memory.ipynb.
    """
    vectors = embedder.embed(texts)
    return vectors @ vectors.T
