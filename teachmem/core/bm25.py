"""BM25: the classic lexical scorer, over a whole store at once.

A query word counts more when it is rare in the store (IDF) and frequent in a short memory
(saturating, length-normalised term frequency). ``scores`` returns one float32 per document id:
ranking 100 000 memories is a few array operations per query word, not a Python loop.

>>> index = BM25Index()
>>> index.add(["window", "seat"]), index.add(["postgr", "databas"])
(0, 1)
>>> [round(float(s), 2) for s in index.scores(["seat"])]
[0.69, 0.0]
>>> index.remove(0); [round(float(s), 2) for s in index.scores(["seat"])]
[0.0, 0.0]

Taught in notebooks/05_semantic_memory.ipynb.
"""
from __future__ import annotations

import math
from array import array
from collections import Counter

import numpy as np

__all__ = ["BM25Index"]


class BM25Index:
    """An inverted index: term -> (document ids, counts).

    Taught in notebooks/05_semantic_memory.ipynb.
    """

    def __init__(self, k1: float = 1.2, b: float = 0.75):
        if not (isinstance(k1, (int, float)) and math.isfinite(k1) and k1 >= 0):
            raise ValueError(f"k1 must be a finite number >= 0, got {k1!r}")
        if not (isinstance(b, (int, float)) and math.isfinite(b) and 0 <= b <= 1):
            raise ValueError(f"b must be a number between 0 and 1, got {b!r}")
        self.k1 = float(k1)
        self.b = float(b)
        self.docs: dict[str, array] = {}          # term -> ids of the documents containing it
        self.tfs: dict[str, array] = {}           # term -> its count in each of those
        self.terms: list[tuple[str, ...] | None] = []   # id -> its distinct terms (None: removed)
        self.length = array("f")                  # id -> number of tokens (0 once removed)
        self.live_docs = 0                        # documents not removed
        self.live_length = 0.0                    # their tokens, in all

    def __len__(self) -> int:
        return len(self.length)

    def add(self, tokens: list[str], doc: int | None = None) -> int:
        """Index ``tokens`` under a new id, or under ``doc`` after ``remove(doc)`` (a re-indexed
        edit)."""
        if doc is None:
            doc = len(self.length)
            self.terms.append(None)
            self.length.append(0)
        elif self.terms[doc] is not None:
            raise ValueError(f"doc {doc} is indexed; remove it first")
        counts = Counter(tokens)
        for term, tf in counts.items():
            if term not in self.docs:
                self.docs[term], self.tfs[term] = array("i"), array("f")
            self.docs[term].append(doc)
            self.tfs[term].append(tf)
        self.terms[doc] = tuple(counts)
        self.length[doc] = len(tokens)
        self.live_docs += 1
        self.live_length += len(tokens)
        return doc

    def remove(self, doc: int) -> None:
        """Take ``doc`` out of the postings and the statistics (once); its id scores 0 from now
        on."""
        terms = self.terms[doc]
        if terms is None:
            return
        for term in terms:
            at = _position(self.docs[term], doc)
            del self.docs[term][at]               # in place: the list is not copied
            del self.tfs[term][at]
            if not self.docs[term]:
                del self.docs[term]
                del self.tfs[term]
        self.live_docs -= 1
        self.live_length -= self.length[doc]
        self.terms[doc] = None
        self.length[doc] = 0

    def idf(self, term: str) -> float:
        """ln(1 + (N - df + 0.5) / (df + 0.5)): large for rare terms, never negative."""
        df = len(self.docs.get(term, ()))
        return math.log(1.0 + (self.live_docs - df + 0.5) / (df + 0.5))

    def scores(self, tokens: list[str], size: int | None = None) -> np.ndarray:
        """BM25 score of every document for the query ``tokens`` (float32, length ``size``)."""
        out = np.zeros(len(self.length) if size is None else size, dtype=np.float32)
        if not self.live_docs:
            return out
        avg = self.live_length / self.live_docs or 1.0
        length = np.frombuffer(self.length, dtype=np.float32)
        base = np.float32(self.k1 * (1.0 - self.b))
        slope = np.float32(self.k1 * self.b / avg)
        for term in sorted(set(tokens) & self.docs.keys()):   # one order: float sums differ by it
            docs = np.frombuffer(self.docs[term], dtype=np.int32)
            tf = np.frombuffer(self.tfs[term], dtype=np.float32)
            # tf·(k1+1) / (tf + k1·(1 - b + b·length/avg)): saturates in tf; short docs weigh more
            weight = np.float32(self.idf(term) * (self.k1 + 1.0))
            out[docs] += weight * tf / (tf + base + slope * length[docs])
        return out


def _position(ids: array, doc: int) -> int:
    """Where ``doc`` is in the postings ``ids``: looked for among the last eight first (a store
    indexes its newest turns again as their neighbours arrive), then in one vectorised pass."""
    for at in range(len(ids) - 1, max(len(ids) - 9, -1), -1):
        if ids[at] == doc:
            return at
    return int(np.flatnonzero(np.frombuffer(ids, dtype=np.int32) == doc)[0])
