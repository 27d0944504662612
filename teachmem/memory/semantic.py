"""Semantic long-term memory: store moments, find them by meaning, let them fade.

A query ranks every memory at once by seed 000's score, relevance ×
importance × ``decay_rate ** whole_days_old``. Relevance blends BM25 word
matching with subword-vector cosine, and a conversation turn inherits part
of the relevance of the turn before it (answers rarely repeat the question's
words). A *fact* (``memory_type="fact"``) has a key — who, and what about —
so "favorite color is green" retires "favorite color is blue" (kept as
history, never returned). The machinery is lab equipment: ``teachmem.core.embed``,
``teachmem.core.scoring``, ``teachmem.core.vectors``, ``teachmem.core.upkeep`` (consolidate,
prune) and ``teachmem.core.state`` (save and load).

Taught in notebooks/05_semantic_memory.ipynb.
"""
from __future__ import annotations

from datetime import datetime

import numpy as np

from teachmem.core.clock import ManualClock
from teachmem.core.embed import SubwordEmbedder
from teachmem.core.words import content_words, stem
from teachmem.memory.message import next_message
from teachmem.core.scoring import (SCORINGS, BM25Index, epoch_us, hybrid_relevance, require_ranking, thread_relevance,
                              time_signals)
from teachmem.core.state import semantic_from_state, semantic_state
from teachmem.core.upkeep import merge_near_duplicates, prune_stale
from teachmem.core.validate import require_datetime, require_fraction, require_positive_int, require_text
from teachmem.core.vectors import MemoryTable, require_labels, top_k_rows

SETTINGS = ("decay_rate", "lexical_weight", "reply_weight", "scoring", "context_top_k")


def fact_key(fact: str) -> str:
    """What a fact is about, minus its value: two facts with one key cannot both be true.

    "favorite color is blue" -> "favorite color"; "lives in lisbon" -> "lives in";
    "prefers window seats" -> "prefers seat". (Seed 004 keyed every preference
    on "prefers", so "prefers tea" erased the seat.) "is vegetarian" names no
    attribute apart from its value, so it is its own key and replaces nothing.
    """
    words = fact.lower().split()
    if " is " in fact.lower() and words[0] != "is":
        return fact.lower()[: fact.lower().rindex(" is ")]
    if words[0] in ("prefers", "likes", "uses") and len(words) > 1:
        return f"{words[0]} {stem(words[-1])}"
    if len(words) > 2 and words[1] in ("in", "at", "for", "on", "as"):
        return " ".join(words[:2])
    return " ".join(words)


class SemanticMemoryStore:
    """Long-term memory ranked by relevance × importance × decay.

    Taught in notebooks/05_semantic_memory.ipynb.
    """

    def __init__(self, decay_rate: float = 0.95, embed_dim: int = 256, *, embedder=None, clock=None,
                 lexical_weight: float = 0.5, reply_weight: float = 0.5, scoring: str = "seed",
                 context_top_k: int = 3):
        self.decay_rate, self.lexical_weight, self.reply_weight, self.scoring = require_ranking(
            decay_rate, lexical_weight, reply_weight, scoring)
        self.context_top_k = require_positive_int("context_top_k", context_top_k)
        self.embedder = embedder if embedder is not None else SubwordEmbedder(embed_dim)
        self.clock = clock if clock is not None else ManualClock()
        self.lexical = BM25Index()
        self.table = MemoryTable(self.embedder.dim, {
            "importance": np.float64, "created": np.int64, "accessed": np.int64,
            "recalls": np.int32, "previous": np.int64, "live": bool})
        self.texts, self.types, self.metadata = [], [], []
        self.keys: dict[tuple, list[int]] = {}     # (user_id, fact key) -> its rows, newest last
        self.threads: dict[tuple, int] = {}        # (user_id, session_id, type) -> latest row
        self.retired: dict[int, str] = {}           # row -> why it is no longer returned
        self.last_turn = None

    def __len__(self) -> int:
        return int(np.count_nonzero(self.table["live"]))

    def store(self, text: str, memory_type: str = "general", importance: float = 0.5,
              timestamp: datetime | None = None, **metadata) -> int:
        """Remember ``text`` and return its row. Every check runs before anything changes."""
        require_text("text", text)
        require_text("memory_type", memory_type)
        importance = require_fraction("importance", importance)
        when = require_datetime("timestamp", timestamp) or self.clock()
        require_labels(metadata)
        vector = self.embedder.embed([text])[0]
        row = self._append(text, memory_type, vector, {**metadata, "timestamp": when.isoformat()},
                           importance=importance, created=epoch_us(when), accessed=epoch_us(when), recalls=0)
        if memory_type == "fact":       # a new value for a key retires the old one
            rows = self.keys.setdefault((metadata.get("user_id"), fact_key(text)), [])
            if rows:
                self._retire(rows[-1], f"replaced by #{row}")
            rows.append(row)
        return row

    def _append(self, text, memory_type, vector, metadata, **numbers) -> int:
        thread = (metadata.get("user_id"), metadata.get("session_id"), memory_type)
        previous = -1 if memory_type == "fact" else self.threads.get(thread, -1)   # facts stand alone
        labels = {k: v for k, v in metadata.items() if k != "timestamp"}
        row = self.table.append(vector, {**labels, "memory_type": memory_type},
                                **{"previous": previous, "live": True, **numbers})
        self.lexical.add(content_words(text))
        self.texts.append(text)
        self.types.append(memory_type)
        self.metadata.append(metadata)
        if memory_type != "fact":
            self.threads[thread] = row
        return row

    def _retire(self, row: int, why: str) -> None:
        self.table["live"][row] = False
        self.lexical.remove(row)
        self.retired[row] = why

    def remember(self, turn: str, *, importance: float = 0.5, timestamp=None, **metadata) -> list[int]:
        """Extract the atomic facts of a user turn and store each one as a ``fact``."""
        from teachmem.llm.extract import extract_facts
        require_text("turn", turn)
        return [self.store(f, "fact", importance, timestamp, **metadata) for f in extract_facts(turn)]

    def scores(self, query: str, now: datetime | None = None, **filters) -> tuple[dict, np.ndarray]:
        """Every part of every memory's score (arrays, one entry per row) and the candidate mask."""
        require_text("query", query)
        require_labels({k: list(v) if isinstance(v, (tuple, set, frozenset)) else v for k, v in filters.items()})
        now_us, t = epoch_us(require_datetime("now", now) or self.clock()), self.table
        mask = t["live"] & t.mask(filters) if filters else t["live"].copy()
        cosine = t.matrix @ self.embedder.embed([query])[0]
        lexical = self.lexical.scores(content_words(query), t.size)
        match = hybrid_relevance(lexical, cosine, self.lexical_weight, mask)
        relevance = thread_relevance(match, t["previous"], self.reply_weight)
        score = SCORINGS[self.scoring]
        when = time_signals(t["created"], t["accessed"], t["recalls"], now_us, score.needs)
        parts = score(relevance=relevance, importance=t["importance"], mask=mask,
                      decay_rate=self.decay_rate, **when)
        return {"lexical": lexical, "cosine": cosine, "match": match, **parts}, mask

    def explain(self, query: str, top_k: int = 3, now: datetime | None = None, **filters) -> list[dict]:
        """The best ``top_k`` memories with every part of their scores. Records no recall."""
        require_positive_int("top_k", top_k)
        parts, mask = self.scores(query, now, **filters)
        return [{"row": int(r), "text": self.texts[r], "memory_type": self.types[r],
                 **{name: float(values[r]) for name, values in parts.items()}}
                for r in top_k_rows(parts["score"], mask, top_k)]

    def retrieve(self, query: str, top_k: int = 3, now: datetime | None = None, **filters) -> list[tuple]:
        """``(score, text, memory_type)`` best first. Each returned memory counts as recalled."""
        hits = self.explain(query, top_k, now, **filters)
        self._recall([h["row"] for h in hits], now)
        return [(h["score"], h["text"], h["memory_type"]) for h in hits]

    def _recall(self, rows: list[int], now: datetime | None = None) -> None:
        self.table["accessed"][rows] = epoch_us(now or self.clock())
        self.table["recalls"][rows] += 1

    def history(self, fact: str, user_id=None) -> list[tuple[str, bool]]:
        """Every fact stored under ``fact``'s key, oldest first, each with "still live?"."""
        require_text("fact", fact)
        require_labels({"user_id": user_id})
        return [(self.texts[r], r not in self.retired) for r in self.keys.get((user_id, fact_key(fact)), [])]

    def consolidate(self, threshold: float = 0.9) -> list[tuple[int, list[int]]]:
        """Merge live near-duplicates (same user, same type, not facts) into the newest copy, which keeps
        their highest importance and total recalls. Returns ``(kept row, merged rows)`` pairs."""
        return merge_near_duplicates(self, threshold)

    def prune(self, max_age_days: int = 90, now: datetime | None = None) -> list[int]:
        """Retire live memories older than ``max_age_days`` that were never recalled."""
        return prune_stale(self, max_age_days, now)

    # The Memory protocol every strategy shares: each message becomes one memory.
    def add(self, role: str, content: str, *, turn: int | None = None, timestamp=None) -> None:
        message = next_message(role, content, turn, timestamp, after=self.last_turn)
        self.last_turn = message.turn
        if content.strip():
            self.store(f"{role}: {content}", "message", timestamp=timestamp, role=role, turn=message.turn)

    def context(self, query: str | None = None) -> list[dict]:
        if query is not None:
            require_text("query", query, allow_empty=True)
        if not query or not query.strip() or not len(self):
            return []
        # The query is the message just added, so its own memory ("user: <query>") would always
        # come first: an echo of text the prompt already holds, not a memory. Skip it, asking
        # for more candidates only when echoes crowd out the top k.
        k = self.context_top_k + 1
        while True:
            hits = [h for h in self.explain(query, k) if h["text"].partition(": ")[2] != query]
            if len(hits) >= self.context_top_k or k >= len(self):
                break
            k *= 2
        hits = hits[:self.context_top_k]
        if not hits:                  # the echo was all there was
            return []
        self._recall([h["row"] for h in hits])
        lines = [f"- {h['text']}" for h in hits]
        return [{"role": "system", "content": "Relevant memories:\n" + "\n".join(lines)}]

    def to_state(self) -> dict:
        """Everything as JSON-ready data, vectors included (as lists), and the clock's time."""
        return semantic_state(self, SETTINGS)

    @classmethod
    def from_state(cls, state: dict, *, embedder=None, clock=None) -> "SemanticMemoryStore":
        """Rebuild a store saved by ``to_state``; its clock resumes at the saved time."""
        return semantic_from_state(cls, state, SETTINGS, embedder=embedder, clock=clock)
