"""How a semantic store scores its memories for a query: relevance, importance and time.

Notebook 05 builds these, in this order: relevance blends BM25 (word matches) with the cosine of
two embeddings; the textbook score multiplies relevance × importance × ``decay_rate ** days``; the
store's default, the time-aware score, lets time decide only between memories about the same
thing. Each score
returns its parts too, so a table can show why a memory ranks where it does.

Every array holds one entry per memory (a row of the store). Times are whole microseconds since
``teachmem.core.clock.EPOCH``.

Taught in notebooks/05_semantic_memory.ipynb.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timedelta

import numpy as np

from teachmem.core.clock import EPOCH
from teachmem.core.vectors import decay_factor, min_max, top_k_rows
from teachmem.core.words import content_words

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


def own_blend(embedder, given: float | None = None) -> float:
    """How much BM25 a store blends with ``embedder``'s cosine: ``given``, else the embedder's own
    ``lexical_weight`` (MiniLM finds paraphrases alone, so it takes less BM25), else 0.5."""
    return getattr(embedder, "lexical_weight", 0.5) if given is None else given


def near_copy(embedder) -> float:
    """The cosine from which two of ``embedder``'s vectors say the same thing, the time-aware
    score's ``same``: its ``near_copy`` (MiniLM's cosines between unrelated turns run higher than
    hashed subwords'), else 0.6."""
    return getattr(embedder, "near_copy", 0.6)


def time_aware_score(relevance, importance, age_days, vectors, mask, half_life_days=30.0,
                     same=0.6, pool=50, **_) -> dict:
    """relevance × (½ + ½ importance) × recency, where time decides only between memories about
    the same thing: the store's default.

    Of the ``pool`` best candidates, a memory with a newer near-copy (cosine ≥ ``same``) loses
    up to half its score, the more the older it is (half of that loss every ``half_life_days``
    between them); every other memory keeps recency 1, however old.

    Taught in notebooks/05_semantic_memory.ipynb.
    """
    weight = 0.5 + 0.5 * np.asarray(importance, np.float64)
    recency = np.ones(len(relevance))
    rows = top_k_rows(relevance * weight, mask, pool)
    age = np.asarray(age_days)[rows]
    alike = vectors[rows] @ vectors[rows].T >= same
    gap = np.where(alike, age[:, None] - age[None, :], 0).max(axis=1, initial=0)   # to its newest
    recency[rows] = 0.5 + 0.5 * decay_factor(gap, 0.5, per=half_life_days)
    return {"score": relevance * weight * recency,
            "relevance": relevance, "importance": importance, "recency": recency}


# ---- Going further (05b: replies, and two scores from the literature) ----
TIME_SIGNALS = ("age_days", "hours_since_access", "days_since_recall", "strength")


def thread_relevance(relevance: np.ndarray, previous: np.ndarray,
                     reply_weight: float) -> np.ndarray:
    """A turn and its reply share relevance: (own + w × the better neighbour's) / (1 + w).

    ``previous`` holds, for each row, the row it answers (-1 for none); a turn's neighbours are
    the turn it answers and the turn that answers it, unless that is the newest row.
    Notebook 05b shows turns sharing relevance (``reply_weight``).
    """
    if reply_weight <= 0:
        return relevance
    replies = np.flatnonzero(previous >= 0)                   # the rows that answer another
    answered = previous[replies]
    neighbour = np.zeros(len(relevance), relevance.dtype)
    neighbour[replies] = relevance[answered]                  # the turn it answers
    lends = replies < len(relevance) - 1    # the newest lends to no one: it may be the question
    np.maximum.at(neighbour, answered[lends], relevance[replies[lends]])   # the turn answering it
    neighbour *= reply_weight               # in place: a new array of 100k rows is fresh memory
    neighbour += relevance
    neighbour /= 1.0 + reply_weight
    return neighbour


# A question about now says one of these, and names no date (that asks about then): no year,
# no month after "in", "on", "since"... or beside a day ("June" alone may be a name).
NOW_WORDS = re.compile(r"\b(now|currently|these days|nowadays|latest|still|this year|any ?more)\b",
                       re.IGNORECASE)
MONTHS = ("(January|February|March|April|May|June|July|August|September|October|November|"
          "December)")
DATE_WORDS = re.compile(rf"\b(1[89]|20)\d\d\b|\b(in|on|since|by|until|during|last|next) {MONTHS}"
                        rf"\b|\d {MONTHS}\b|\b{MONTHS} \d")


def asks_about_now(query: str) -> bool:
    """Whether ``query`` asks how things stand now: "Who is her manager now?", "Does he still
    swim?"; not "What did she paint in May 2023?" (a month or a year names its own time).
    Notebook 05b shows the latest word winning for such a question.
    """
    return bool(NOW_WORDS.search(query)) and not DATE_WORDS.search(query)


def latest_word(parts: dict, mask, table, index, texts: list[str], types: list[str],
                half_life_days: float = 30.0, sources: int = 3, shared: float = 0.1) -> dict:
    """The time-aware score's ``parts`` for a question about now: the latest word on it, first.

    Each of the ``sources`` best-scored memories passes its relevance on to the later memory
    most like it (said a day or more after it; BM25 of its words, as a share of its own score,
    at least ``shared``, plus the cosine), and, having a later word on it, loses recency as the
    elder of two near-copies does (so the later one ranks above it, unless it is the more
    important). The newest chat message is no later word: it may be the question being asked.
    ``index`` is the store's BM25 index, ``texts`` and ``types`` each row's text and type.
    Notebook 05b shows it (``latest_word``).
    """
    relevance, recency = parts["relevance"].copy(), parts["recency"].copy()
    created = table["created"]
    asked = len(texts) - 1 if types and types[-1] == "message" else len(texts)
    for row in top_k_rows(parts["score"], mask, sources):
        words = index.scores(content_words(texts[row]), table.size)
        words /= max(float(words[row]), 1e-9)               # 1 for its own words
        alike = mask & (created >= created[row] + DAY_US) & (words >= shared)
        later = np.flatnonzero(alike[:asked])
        if len(later):
            likeness = words[later] + table.matrix[later] @ table.matrix[row]
            follower = later[np.argmax(likeness)]
            relevance[follower] = max(relevance[follower], relevance[row])
            gap = (created[follower] - created[row]) // DAY_US    # whole days, as age_days
            recency[row] = min(recency[row], 0.5 + 0.5 * decay_factor(gap, 0.5, half_life_days))
    score = relevance * (0.5 + 0.5 * np.asarray(parts["importance"], np.float64)) * recency
    return {**parts, "score": score, "relevance": relevance, "recency": recency}


def time_signals(created_us, accessed_us, recalls, now_us: int, names=None) -> dict:
    """The time signals a score may read, each an array (only those ``names`` lists, if given).

    ``age_days``: whole days since stored; ``hours_since_access`` and ``days_since_recall``:
    since stored or last recalled; ``strength``: 1 + the number of recalls. A time in the future
    counts as now.
    """
    wanted = TIME_SIGNALS if names is None else names
    signals = {}
    if "age_days" in wanted:
        signals["age_days"] = np.maximum(now_us - created_us, 0) // DAY_US
    if "hours_since_access" in wanted:
        signals["hours_since_access"] = np.maximum(now_us - accessed_us, 0) / HOUR_US
    if "days_since_recall" in wanted:
        signals["days_since_recall"] = np.maximum(now_us - accessed_us, 0) // DAY_US
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
                                            "time_aware": time_aware_score}
# The time signals each of them reads: a store works out only those (a pass over every memory
# saved for each one left out).
READS = {"product": ("age_days",), "generative_agents": ("hours_since_access",),
         "memorybank": ("days_since_recall", "strength"), "time_aware": ("age_days",)}
