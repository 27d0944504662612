"""How a semantic store scores its memories for a query: relevance, importance and time.

Notebook 05 builds these, in this order: relevance blends BM25 (word matches) with the cosine of
two embeddings; the textbook score multiplies relevance × importance × ``decay_rate ** days``; the
store's default, the half-life score, lets age cost a memory half its score at most. Each score
returns its parts too, so a table can show why a memory ranks where it does.

Every array holds one entry per memory (a row of the store). Times are whole microseconds since
``teachmem.core.clock.EPOCH``.

Taught in notebooks/05_semantic_memory.ipynb.
"""
from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

import numpy as np

from teachmem.core.clock import EPOCH
from teachmem.core.vectors import decay_factor, min_max

DAY_US = 86_400_000_000       # a day in microseconds
HOUR_US = 3_600_000_000       # an hour in microseconds


def epoch_us(when: datetime) -> int:
    """``when`` in whole microseconds since ``EPOCH``: whole days stay exact."""
    return (when - EPOCH) // timedelta(microseconds=1)


def hybrid_relevance(lexical: np.ndarray, cosine: np.ndarray, lexical_weight: float,
                     mask=None) -> np.ndarray:
    """BM25 blended with the cosine: ``w × lexical / best + (1 - w) × cosine``.

    BM25 has no upper bound, so it is divided by the best BM25 among the candidates (``mask``)
    and the best word match gets 1. A negative cosine counts as 0 (nothing in common). With no
    word match at all, or ``lexical_weight`` 0, relevance is the cosine alone. Notebook 05's
    ``MyStore.relevance`` computes the same.
    """
    vector = np.clip(cosine, 0.0, 1.0)
    if mask is None:
        mask = True
    best = float(np.max(lexical, initial=0.0, where=mask))
    if lexical_weight <= 0 or best <= 0:
        return vector
    return lexical_weight * (lexical / best) + (1.0 - lexical_weight) * vector


def product_score(relevance, importance, age_days, decay_rate, **_) -> dict:
    """relevance × importance × ``decay_rate ** whole days old``, with its parts: the textbook
    score, ``scoring="product"``, which notebook 05 shows burying old answers."""
    decay = decay_factor(age_days, decay_rate)
    return {"score": relevance * importance * decay,
            "relevance": relevance, "importance": importance, "decay": decay}


def half_life_score(relevance, importance, days_since_recall, half_life_days=30.0, floor=0.5,
                    **_) -> dict:
    """relevance × recency × (½ + ½ importance), with its parts: the store's default.

    Recency is ``floor`` plus a part that halves every ``half_life_days`` since the memory was
    stored or last recalled: age costs a memory that matches well half its score at most.

    Taught in notebooks/05_semantic_memory.ipynb.
    """
    recency = floor + (1.0 - floor) * decay_factor(days_since_recall, 0.5, per=half_life_days)
    weight = 0.5 + 0.5 * np.asarray(importance, np.float64)
    return {"score": relevance * recency * weight,
            "relevance": relevance, "importance": importance, "recency": recency}


# ---- Going further (05b: replies, and two scores from the literature) ----
TIME_SIGNALS = ("age_days", "hours_since_access", "days_since_recall", "strength")


def thread_relevance(relevance: np.ndarray, previous: np.ndarray,
                     reply_weight: float) -> np.ndarray:
    """A reply inherits from the turn it answers: (own + w × the answered turn's) / (1 + w).

    ``previous`` holds, for each row, the row it answers (-1 for none).
    Notebook 05b shows replies inheriting relevance (``reply_weight``).
    """
    if reply_weight <= 0:
        return relevance
    padded = np.append(relevance, np.zeros(1, relevance.dtype))   # row -1 reads the 0 appended
    inherited = padded[previous]
    return (relevance + reply_weight * inherited) / (1.0 + reply_weight)


def time_signals(created_us, accessed_us, recalls, now_us: int, names=None) -> dict:
    """The time signals a score may read, each an array (only those ``names`` lists, if given).

    ``age_days``: whole days since stored; ``hours_since_access`` and ``days_since_recall``:
    since stored or last recalled; ``strength``: 1 + the number of recalls. A time in the future
    counts as now.
    """
    wanted = TIME_SIGNALS if names is None else names
    since_access = np.maximum(now_us - accessed_us, 0)
    signals = {}
    if "age_days" in wanted:
        signals["age_days"] = np.maximum(now_us - created_us, 0) // DAY_US
    if "hours_since_access" in wanted:
        signals["hours_since_access"] = since_access / HOUR_US
    if "days_since_recall" in wanted:
        signals["days_since_recall"] = since_access // DAY_US
    if "strength" in wanted:
        signals["strength"] = recalls + 1.0
    return signals


def generative_agents_score(relevance, importance, hours_since_access, mask,
                            recency_decay: float = 0.995, weights=(1.0, 1.0, 1.0), **_) -> dict:
    """Generative Agents (Park et al., 2023): recency (``recency_decay ** hours`` since last
    access), importance and relevance, each min-max normalised over the candidates, added with
    ``weights``.
    Notebook 05b compares it with the default (``scoring=...``).
    """
    recency = min_max(decay_factor(hours_since_access, recency_decay), mask)
    parts = {"recency": recency,
             "importance": min_max(importance, mask),
             "relevance": min_max(relevance, mask)}
    score = sum(w * part for w, part in zip(weights, parts.values(), strict=True))
    return {"score": score, **parts}


def memorybank_score(relevance, importance, days_since_recall, strength, **_) -> dict:
    """relevance × importance × MemoryBank's retention exp(-days since recalled / strength),
    where strength is 1 + the number of recalls (Zhong et al., 2024).
    Notebook 05b compares it with the default (``scoring=...``).
    """
    strength = np.asarray(strength, float)
    days = np.maximum(np.asarray(days_since_recall, np.float64), 0.0)
    retention = np.exp(-days / strength)
    return {"score": relevance * importance * retention,
            "relevance": relevance, "importance": importance,
            "retention": retention, "strength": strength}


# A store's ``scoring`` names one of these. Each is called with every time signal and reads the
# ones it names (the rest fall into its ``**_``).
SCORINGS: dict[str, Callable[..., dict]] = {"product": product_score,
                                            "generative_agents": generative_agents_score,
                                            "memorybank": memorybank_score,
                                            "half_life": half_life_score}
