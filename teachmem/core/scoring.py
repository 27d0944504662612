"""How a memory store ranks: lexical relevance, time decay and three scores.

Lab equipment for :mod:`teachmem.memory.semantic`. Everything here works on
whole numpy arrays (one entry per stored memory), so ranking 100 000
memories is a handful of vector operations, not a Python loop.

* :class:`BM25Index` — the classic lexical scorer: a query word counts more
  when it is rare in the store (IDF) and when it is frequent in a short
  memory (saturating term frequency, length-normalised).
* :func:`hybrid_relevance` — BM25 and vector cosine blended into one [0, 1]
  relevance; :func:`thread_relevance` lets a reply inherit part of the
  relevance of the turn it answers.
* The three ways a store can turn relevance, importance and age into a rank:
  :func:`seed_score` (seed 000: similarity × importance × rate^days),
  :func:`generative_agents_score` (recency + importance + relevance, each
  min-max normalised) and :func:`memorybank_score` (relevance × the
  forgetting curve exp(-t/S), with S growing each time a memory is recalled).

Taught in notebooks/05_semantic_memory.ipynb.
"""
from __future__ import annotations

import math
from array import array
from datetime import datetime, timedelta

import numpy as np

from teachmem.core.clock import EPOCH
from teachmem.core.validate import require_fraction

__all__ = ["BM25Index", "hybrid_relevance", "thread_relevance", "decay_factor", "seed_score",
           "generative_agents_score", "memorybank_retention", "memorybank_score",
           "min_max", "time_signals", "SCORINGS", "DAY_US", "HOUR_US", "epoch_us", "require_ranking"]


class BM25Index:
    """An inverted index that scores every document against a query at once.

    Documents are lists of tokens (already stemmed and stopword-free); each
    gets the next integer id. ``remove(doc)`` takes a document out of the
    statistics (document count, lengths, document frequencies); the caller
    masks removed ids out of the scores.

    Taught in notebooks/05_semantic_memory.ipynb.
    """

    def __init__(self, k1: float = 1.2, b: float = 0.75):
        if not (math.isfinite(k1) and k1 >= 0):
            raise ValueError(f"k1 must be a finite number >= 0, got {k1!r}")
        if not (math.isfinite(b) and 0 <= b <= 1):
            raise ValueError(f"b must be a number between 0 and 1, got {b!r}")
        self.k1, self.b = float(k1), float(b)
        self._docs: dict[str, array] = {}     # term -> ids of documents containing it
        self._tfs: dict[str, array] = {}      # term -> its count in each of those
        self._df: dict[str, int] = {}         # term -> live documents containing it
        self._terms: list[tuple[str, ...]] = []   # id -> distinct terms (for remove)
        self._length = array("f")             # id -> number of tokens
        self._live_docs = 0
        self._live_length = 0.0

    def __len__(self) -> int:
        return len(self._length)

    def add(self, tokens: list[str]) -> int:
        doc = len(self._length)
        counts: dict[str, int] = {}
        for t in tokens:
            counts[t] = counts.get(t, 0) + 1
        for term, tf in counts.items():
            if term not in self._docs:
                self._docs[term], self._tfs[term], self._df[term] = array("i"), array("f"), 0
            self._docs[term].append(doc)
            self._tfs[term].append(tf)
            self._df[term] += 1
        self._terms.append(tuple(counts))
        self._length.append(len(tokens))
        self._live_docs += 1
        self._live_length += len(tokens)
        return doc

    def remove(self, doc: int) -> None:
        """Forget ``doc`` in the statistics (its postings stay; callers mask it)."""
        for term in self._terms[doc]:
            self._df[term] -= 1
        self._terms[doc] = ()
        self._live_docs -= 1
        self._live_length -= self._length[doc]

    def idf(self, term: str) -> float:
        """ln(1 + (N - df + 0.5) / (df + 0.5)): large for rare terms, never negative."""
        df = self._df.get(term, 0)
        return math.log(1.0 + (self._live_docs - df + 0.5) / (df + 0.5))

    def scores(self, tokens: list[str], size: int | None = None) -> np.ndarray:
        """BM25 score of every document for the query ``tokens`` (float32, length ``size``)."""
        size = len(self._length) if size is None else size
        out = np.zeros(size, dtype=np.float32)
        if not self._live_docs:
            return out
        avg = self._live_length / self._live_docs or 1.0
        length = np.frombuffer(self._length, dtype=np.float32)
        base, slope = np.float32(self.k1 * (1.0 - self.b)), np.float32(self.k1 * self.b / avg)
        for term in set(tokens):
            if not self._df.get(term):
                continue
            docs = np.frombuffer(self._docs[term], dtype=np.int32)
            tf = np.frombuffer(self._tfs[term], dtype=np.float32)
            # tf·(k1+1) / (tf + k1·(1 - b + b·length/avg)): saturates in tf, shorter docs weigh more
            out[docs] += np.float32(self.idf(term) * (self.k1 + 1.0)) * tf / (tf + base + slope * length[docs])
        return out


def min_max(values: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """Rescale ``values`` to [0, 1] over the entries ``mask`` selects (all equal -> all 0.5).

    Taught in notebooks/05_semantic_memory.ipynb.
    """
    values = np.asarray(values, dtype=np.float64)
    chosen = values if mask is None else values[mask]
    if chosen.size == 0:
        return np.zeros_like(values)
    low, high = chosen.min(), chosen.max()
    if high - low <= 1e-12:
        return np.full_like(values, 0.5)
    return (values - low) / (high - low)


def hybrid_relevance(lexical: np.ndarray, cosine: np.ndarray, lexical_weight: float,
                     mask: np.ndarray | None = None) -> np.ndarray:
    """Blend BM25 and cosine into one relevance in [0, 1].

    BM25 has no upper bound, so it is divided by the best BM25 score among
    the candidates: the best lexical match gets 1. When no candidate shares
    a word with the query, the cosine alone is the relevance. Negative
    cosines (possible with signed hashing) count as 0: "unrelated" is as low
    as relevance goes.

    Taught in notebooks/05_semantic_memory.ipynb.
    """
    vector = np.clip(cosine, 0.0, 1.0)
    best = float(lexical[mask].max(initial=0.0)) if mask is not None else float(lexical.max(initial=0.0))
    if lexical_weight <= 0 or best <= 0:
        return vector
    return lexical_weight * (lexical / best) + (1.0 - lexical_weight) * vector


def thread_relevance(relevance: np.ndarray, previous: np.ndarray, reply_weight: float) -> np.ndarray:
    """Let each memory inherit part of the relevance of the one before it in its thread.

    In a conversation the answer often shares no words with the question
    asked about it: "What did you cook?" matches the query, the reply "My
    grandmother's mole recipe" does not. So a turn's relevance becomes
    ``(own + reply_weight × previous turn's) / (1 + reply_weight)``, still in
    [0, 1]. ``previous`` holds each row's predecessor (-1 for none).

    Taught in notebooks/05_semantic_memory.ipynb.
    """
    if reply_weight <= 0:
        return relevance
    inherited = np.where(previous >= 0, relevance[np.maximum(previous, 0)], 0.0)
    return (relevance + reply_weight * inherited) / (1.0 + reply_weight)


def decay_factor(days: np.ndarray, rate: float) -> np.ndarray:
    """``rate ** days`` for every memory (one vectorised exp, not a loop).

    With rate 0.95, 10 days leave 0.599 of a score and 20 days 0.358. (Seed
    000 quotes 0.59 and 0.36 for "a memory that scored 0.9"; those are the
    multipliers themselves: 0.9 becomes 0.54 and 0.32.)

    Taught in notebooks/05_semantic_memory.ipynb.
    """
    days = np.asarray(days, dtype=np.float64)
    if rate == 1.0:
        return np.ones_like(days)
    return np.exp(days * math.log(rate)) if rate > 0 else (days <= 0).astype(np.float64)


DAY_US, HOUR_US = 86_400_000_000, 3_600_000_000     # time is kept in whole microseconds


def epoch_us(when: datetime) -> int:
    """``when`` in whole microseconds since ``teachmem.core.clock.EPOCH``: whole days stay exact.

    Taught in notebooks/05_semantic_memory.ipynb.
    """
    return (when - EPOCH) // timedelta(microseconds=1)


def _needs(*signals):
    """Mark which time signals a score uses, so a store computes only those."""
    def mark(score):
        score.needs = signals
        return score
    return mark


def time_signals(created_us, accessed_us, recalls, now_us: int, names) -> dict:
    """The time inputs of a score for every row at ``now_us`` (only those in ``names``).

    ``age_days``: whole days since stored (seed 000 used ``timedelta.days``);
    ``hours_since_access`` and ``days_since_recall``: since stored or last
    retrieved; ``strength``: 1 + times recalled. Memories stamped after
    ``now`` count as brand new (age 0).

    Taught in notebooks/05_semantic_memory.ipynb.
    """
    out = {}
    if "age_days" in names:
        out["age_days"] = np.maximum(now_us - created_us, 0) // DAY_US
    if {"hours_since_access", "days_since_recall"} & set(names):
        since = np.maximum(now_us - accessed_us, 0)
        out["hours_since_access"] = since / HOUR_US
        out["days_since_recall"] = since // DAY_US
    if "strength" in names:
        out["strength"] = recalls + 1.0
    return out


@_needs("age_days")
def seed_score(relevance, importance, age_days, decay_rate, **_unused) -> dict:
    """Seed 000's score: similarity × importance × decay_rate ** whole days old.

    Returns the parts too (``relevance``, ``importance``, ``decay``), so a
    notebook can show why each memory ranked where it did.

    Taught in notebooks/05_semantic_memory.ipynb.
    """
    decay = decay_factor(age_days, decay_rate)
    return {"score": relevance * importance * decay, "relevance": relevance,
            "importance": importance, "decay": decay}


@_needs("hours_since_access")
def generative_agents_score(relevance, importance, hours_since_access, mask,
                            recency_decay: float = 0.995, weights=(1.0, 1.0, 1.0), **_unused) -> dict:
    """The Generative Agents retrieval score (Park et al., 2023).

    recency = ``recency_decay ** hours`` since the memory was last accessed,
    so the memory touched most recently gets the highest recency; then
    recency, importance and relevance are each min-max normalised over the
    candidates and added with ``weights`` (all 1 in the paper).

    Taught in notebooks/05_semantic_memory.ipynb.
    """
    recency = decay_factor(hours_since_access, recency_decay)
    parts = {"recency": min_max(recency, mask), "importance": min_max(importance, mask),
             "relevance": min_max(relevance, mask)}
    w_rec, w_imp, w_rel = weights
    score = w_rec * parts["recency"] + w_imp * parts["importance"] + w_rel * parts["relevance"]
    return {"score": score, **parts}


def memorybank_retention(days, strength) -> np.ndarray:
    """The MemoryBank forgetting curve R = exp(-t / S) (Zhong et al., 2023).

    ``t`` is days since the memory was stored or last recalled and ``S`` its
    strength; a larger S means a flatter curve, so a reinforced memory fades
    more slowly. (The public reference code writes ``exp(-t / 5*S)``, which
    Python reads as ``exp(-(t/5) * S)``: strong memories fade *faster*.)

    Taught in notebooks/05_semantic_memory.ipynb.
    """
    days = np.maximum(np.asarray(days, dtype=np.float64), 0.0)
    return np.exp(-days / np.asarray(strength, dtype=np.float64))


@_needs("days_since_recall", "strength")
def memorybank_score(relevance, importance, days_since_recall, strength, **_unused) -> dict:
    """Relevance × importance × MemoryBank retention; every recall adds 1 to S.

    Taught in notebooks/05_semantic_memory.ipynb.
    """
    retention = memorybank_retention(days_since_recall, strength)
    return {"score": relevance * importance * retention, "relevance": relevance,
            "importance": importance, "retention": retention, "strength": np.asarray(strength, float)}


#: The scores a :class:`~teachmem.memory.semantic.SemanticMemoryStore` can rank by.
SCORINGS = {"seed": seed_score, "generative_agents": generative_agents_score,
            "memorybank": memorybank_score}


def require_ranking(decay_rate, lexical_weight, reply_weight, scoring: str) -> tuple[float, float, float, str]:
    """A store's ranking settings, checked (each error names its argument), in the order given.

    Taught in notebooks/05_semantic_memory.ipynb.
    """
    if require_fraction("decay_rate", decay_rate) == 0:
        raise ValueError("decay_rate must be in (0, 1]: 0 would erase every memory after one day")
    if scoring not in SCORINGS:
        raise ValueError(f"scoring must be one of {sorted(SCORINGS)}, got {scoring!r}")
    return (float(decay_rate), require_fraction("lexical_weight", lexical_weight),
            require_fraction("reply_weight", reply_weight), scoring)
