"""The default embedder of a semantic store: words and their character n-grams, hashed.

Each content word and each of its character n-grams ("<py", "pyt", …, "st>") is hashed into one of
``dim`` slots, so "pytest" and "tests" share features (the fastText idea, untrained); unit vectors
make a dot product a cosine. The other embedders notebook 05 compares live in
:mod:`teachmem.core.embed`.

>>> v = SubwordEmbedder(256).embed(["pytest", "tests", "window"])
>>> round(float(v[0] @ v[1]), 2), round(float(v[0] @ v[2]), 2)
(0.25, 0.0)

Taught in notebooks/05_semantic_memory.ipynb.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from teachmem.core.validate import require_int_at_least
from teachmem.core.words import content_words

__all__ = ["hash_stable", "unit_rows", "check_texts", "HashingEmbedder", "SubwordEmbedder",
           "EMBEDDERS", "embedder_from_config", "embedder_from"]

#: Bounds on the work one text costs: a vector is built from a text's first MAX_TEXT_CHARS
#: characters (a store's BM25 index still sees every word), and a word is hashed from its first
#: MAX_WORD_CHARS characters.
MAX_TEXT_CHARS = 20_000
MAX_WORD_CHARS = 64


def hash_stable(token: str) -> int:
    """32-bit FNV-1a hash of ``token``'s UTF-8 bytes: the same on every run (Python's ``hash``
    is salted).

    >>> hash_stable("seat")
    1884322920

    Taught in notebooks/05_semantic_memory.ipynb.
    """
    h = 2166136261
    for byte in token.encode("utf-8", "surrogatepass"):
        h = ((h ^ byte) * 16777619) & 0xFFFFFFFF
    return h


def unit_rows(matrix: np.ndarray) -> np.ndarray:
    """Scale every row to length 1 in place; all-zero rows (nothing to match) stay zero.

    >>> unit_rows(np.array([[3.0, 4.0], [0.0, 0.0]])).tolist()
    [[0.6, 0.8], [0.0, 0.0]]
    """
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    np.divide(matrix, norms, out=matrix, where=norms > 0)
    return matrix


def check_dim(dim) -> int:
    """An embedding size: an int >= 2.

    >>> check_dim(64)
    64
    """
    if isinstance(dim, bool) or not isinstance(dim, int) or dim < 2:
        raise ValueError(f"dim must be an int >= 2, got {dim!r}")
    return dim


def check_texts(texts) -> list[str]:
    """``texts`` as a list of str; a bare str is refused (it would embed letter by letter).

    >>> check_texts(("seat", "window"))
    ['seat', 'window']
    """
    if isinstance(texts, str):
        raise TypeError("texts must be a list of strings, got a single str (wrap it in a list)")
    texts = list(texts)
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"texts[{i}] must be a str, got {type(text).__name__}")
    return texts


class HashingEmbedder:
    """Each text is a sum of hashed features, then unit length; subclasses say what a word's
    features are.

    A feature gets a slot *and* a sign (+1 or -1): unrelated features colliding in a slot cancel
    out on average instead of always looking alike.
    """

    name = "hashing"

    def __init__(self, dim: int, signed: bool):
        self.dim = check_dim(dim)
        self.signed = bool(signed)
        self.cache: dict[str, tuple[np.ndarray, np.ndarray]] = {}    # word -> (slots, weights)

    def features(self, word: str) -> list[tuple[str, float]]:
        raise NotImplementedError

    def slots(self, word: str) -> tuple[np.ndarray, np.ndarray]:
        """(slot indices, signed weights) of ``word``; cached, words repeat a lot."""
        hit = self.cache.get(word)
        if hit is None:
            feats = self.features(word[:MAX_WORD_CHARS])
            hashes = [hash_stable(f) for f, _ in feats]
            signs = [1 - 2 * ((h >> 31) & 1) if self.signed else 1 for h in hashes]
            weights = [sign * weight for sign, (_, weight) in zip(signs, feats, strict=True)]
            hit = (np.array([h % self.dim for h in hashes], dtype=np.intp),
                   np.array(weights, dtype=np.float64))
            if len(self.cache) > 200_000:     # bound memory on endless vocabularies
                self.cache.clear()
            self.cache[word] = hit
        return hit

    def clear_cache(self) -> None:
        """Forget the words seen so far (vectors do not change: they depend only on the
        settings)."""
        self.cache.clear()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = check_texts(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            parts = [self.slots(w) for w in content_words(text[:MAX_TEXT_CHARS])]
            if parts:
                out[i] = np.bincount(np.concatenate([p[0] for p in parts]),
                                     np.concatenate([p[1] for p in parts]), minlength=self.dim)
        return unit_rows(out)


class SubwordEmbedder(HashingEmbedder):
    """Words *and* their character n-grams, hashed: a typo or a new inflection still lands close.

    The word carries ``word_weight`` of its squared length, its n-grams share the rest equally.

    Taught in notebooks/05_semantic_memory.ipynb.
    """

    name = "subword"

    def __init__(self, dim: int = 256, *, n_min: int = 3, n_max: int = 5,
                 word_weight: float = 0.5, signed: bool = True):
        super().__init__(dim, signed)
        if not (isinstance(n_min, int) and isinstance(n_max, int) and 1 <= n_min <= n_max):
            raise ValueError("n_min and n_max must be ints with 1 <= n_min <= n_max, "
                             f"got {n_min!r}, {n_max!r}")
        is_number = isinstance(word_weight, (int, float)) and not isinstance(word_weight, bool)
        if not is_number or not 0 <= word_weight <= 1:
            raise ValueError(f"word_weight must be a number between 0 and 1, got {word_weight!r}")
        self.n_min = n_min
        self.n_max = n_max
        self.word_weight = float(word_weight)

    def ngrams(self, word: str) -> list[str]:
        """Character n-grams of ``<word>`` (angle brackets mark where it starts and ends).

        >>> SubwordEmbedder(64).ngrams("tea")
        ['<te', 'tea', 'ea>', '<tea', 'tea>', '<tea>']
        """
        marked = f"<{word}>"
        grams = []
        for n in range(self.n_min, self.n_max + 1):
            grams += [marked[i:i + n] for i in range(len(marked) - n + 1)]
        return grams

    def features(self, word: str) -> list[tuple[str, float]]:
        grams = self.ngrams(word) if len(word) > 2 and word.isascii() else []
        if not grams:
            return [(word, 1.0)]
        # The squared weights sum to 1: the word gets word_weight of it, the n-grams share the rest.
        # "#" keeps the whole-word feature apart from an n-gram spelled the same.
        share = ((1.0 - self.word_weight) / len(grams)) ** 0.5
        return [("#" + word, self.word_weight ** 0.5)] + [(g, share) for g in grams]

    def config(self) -> dict:
        return {"name": self.name, "dim": self.dim, "n_min": self.n_min, "n_max": self.n_max,
                "word_weight": self.word_weight, "signed": self.signed}


#: Embedder classes by their ``name``, for :func:`embedder_from_config`; teachmem.core.embed adds
#: the others.
EMBEDDERS: dict[str, type] = {SubwordEmbedder.name: SubwordEmbedder}


def embedder_from_config(config: dict):
    """Rebuild an embedder from its ``config()`` (how a saved store gets its embedder back).

    >>> embedder_from_config(SubwordEmbedder(64).config()).dim
    64
    """
    if not isinstance(config, dict) or "name" not in config:
        raise ValueError(f"config must be a dict with a 'name', got {config!r}")
    if config["name"] not in EMBEDDERS:
        raise ValueError(f"unknown embedder {config['name']!r}; known: {sorted(EMBEDDERS)}")
    return EMBEDDERS[config["name"]](**{k: v for k, v in config.items() if k != "name"})


def embedder_from(embedder, embed_dim: int):
    """The embedder a store uses: ``embedder`` itself (any object with an int ``dim`` and an
    ``embed(texts)`` method), one named by a str ("subword"), or by default a ``SubwordEmbedder``
    of ``embed_dim`` slots.

    >>> embedder_from(None, 64).dim
    64
    """
    if embedder is None:
        return SubwordEmbedder(require_int_at_least("embed_dim", embed_dim, 2))
    if isinstance(embedder, str):
        return embedder_from_config({"name": embedder})
    if not isinstance(getattr(embedder, "dim", None), int) or not hasattr(embedder, "embed"):
        raise TypeError("embedder must have an int dim and an embed(texts) method, "
                        f"got {type(embedder).__name__}")
    return embedder


class Embedded:
    """``embedder`` with ``texts`` embedded beforehand, in one call (a batch write): ``embed`` of
    one of them looks its vector up; any other text goes to ``embedder``."""

    def __init__(self, embedder, texts: list[str]):
        self.embedder, self.dim = embedder, embedder.dim
        self.vectors = dict(zip(texts, embedder.embed(texts), strict=True)) if texts else {}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if len(texts) == 1 and texts[0] in self.vectors:
            return self.vectors[texts[0]][None]
        return self.embedder.embed(texts)
