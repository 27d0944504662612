"""Semantic long-term memory: store moments, find them by meaning, let them fade.

Notebook 05 builds the core, in this order: ``add`` stores each message as a memory with an
importance and a time; ``retrieve`` (and ``context``) rank every memory for a query by relevance ×
importance × recency, where time decides only between memories about the same thing
(``teachmem.memory.semantic_scores``); a fact's key lets "favorite color is green" replace
"favorite color is blue". What later notebooks add comes after the marks: turns that share
relevance and words with their neighbours, the latest word for a question about now, merging and
pruning (05b); edits, deletion, erasure and saving (09). Every write returns its Changes; every
memory has a stable id, "s" and its row.

Taught in notebooks/05_semantic_memory.ipynb.
"""
from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime

import numpy as np

from teachmem.core.bm25 import BM25Index
from teachmem.core.change import Change
from teachmem.core.clock import ManualClock
from teachmem.core.spans import locate
from teachmem.core.subword import embedder_from, embedder_from_config
from teachmem.core.text import fenced, quote
from teachmem.core.validate import (require_bool, require_callable, require_choice,
                                    require_datetime, require_decay_rate, require_fraction,
                                    require_positive_int, require_role, require_text, require_turn)
from teachmem.core.vectors import MemoryTable, decay_factor, min_max, require_labels, top_k_rows
from teachmem.core.words import content_words, stem
from teachmem.llm import extract_facts
from teachmem.memory.semantic_scores import (READS, SCORINGS, asks_about_now, epoch_us,
                                             generative_agents_score, hybrid_relevance,
                                             latest_word, memorybank_score, near_copy,
                                             own_blend, product_score, thread_relevance,
                                             time_aware_score, time_signals)
from teachmem.memory.semantic_upkeep import MEMORY_ID, SemanticUpkeep

__all__ = ["SCORINGS", "SemanticMemoryStore", "decay_factor", "epoch_us", "fact_key",
           "generative_agents_score", "hybrid_relevance", "memorybank_score", "min_max",
           "product_score", "thread_relevance", "time_aware_score", "time_signals"]

# What a memory's row holds besides its vector, text, type and labels.
COLUMNS = {"importance": np.float64, "created": np.int64, "accessed": np.int64,
           "recalls": np.int32, "previous": np.int64, "live": bool}
SETTINGS = ("decay_rate", "lexical_weight", "reply_weight", "scoring", "context_top_k",
            "neighbour_words", "latest_word")
REPLY_GAP_US = 21_600_000_000     # a message within six hours of the last one answers it


def fact_key(fact: str) -> str:
    """What a fact is about, minus its value: one key, one true value.

    "favorite color is blue" -> "favorite color"; "lives in lisbon" -> "lives in";
    "prefers window seats" -> "prefers seat" (so "prefers tea" keeps its own key);
    "is vegetarian" -> itself.

    Taught in notebooks/05_semantic_memory.ipynb.
    """
    low = fact.lower()
    words = low.split()
    if " is " in low and words[0] != "is":
        return low[: low.rindex(" is ")]
    if words[0] in ("prefers", "likes", "uses") and len(words) > 1:
        return f"{words[0]} {stem(words[-1])}"
    if len(words) > 2 and words[1] in ("in", "at", "for", "on", "as"):
        return " ".join(words[:2])
    return " ".join(words)


class SemanticMemoryStore(SemanticUpkeep):
    """Long-term memory ranked by relevance × recency × importance (see ``SCORINGS``).

    Notebook 05's ``MyStore`` in full: each memory is a row of ``table`` (its vector, importance,
    times) and of ``texts``, ``types`` and ``metadata``; row i is document i of the BM25 index
    ``lexical``; a retired row stays, marked not ``live``. It inherits merging, pruning, deletion
    and erasure from ``SemanticUpkeep``.

    Taught in notebooks/05_semantic_memory.ipynb.
    """

    kind = "semantic"

    def __init__(self, decay_rate: float = 0.95, embed_dim: int = 256, *, embedder=None,
                 clock=None, lexical_weight: float | None = None, reply_weight: float = 0.5,
                 scoring: str = "time_aware", context_top_k: int = 3,
                 neighbour_words: bool = True, latest_word: bool = True):
        self.neighbour_words = require_bool("neighbour_words", neighbour_words)
        self.latest_word = require_bool("latest_word", latest_word)
        self.decay_rate = require_decay_rate("decay_rate", decay_rate)
        self.scoring = require_choice("scoring", scoring, SCORINGS)
        self.embedder = embedder_from(embedder, embed_dim)
        blend = own_blend(self.embedder, lexical_weight)      # None: the embedder's own share
        self.lexical_weight = require_fraction("lexical_weight", blend)
        self.reply_weight = require_fraction("reply_weight", reply_weight)
        self.context_top_k = require_positive_int("context_top_k", context_top_k)
        self.clock = require_callable("clock", clock) or ManualClock()
        self.lexical = BM25Index(0.8, 0.4) if neighbour_words else BM25Index()  # BM25, see _index
        self.table = MemoryTable(self.embedder.dim, COLUMNS)   # row -> vector and COLUMNS
        self.texts: list[str] = []       # row -> text ("" once erased)
        self.types: list[str] = []       # row -> memory type
        self.metadata: list[dict] = []   # row -> labels and the ISO timestamp
        self.keys: dict[tuple, list[int]] = {}    # (user_id, fact key) -> its rows, newest last
        self.retired: dict[int, str] = {}         # row -> why it is no longer returned
        self.replaced: dict[int, int] = {}        # row -> the row that replaced it (or took it in)
        self.threads: dict[tuple, int] = {}       # (user_id, session_id, type) -> latest row
        self.replies: dict[int, int] = {}         # row -> the row that answers it
        self.edits: dict[int, list[str]] = {}     # row -> what it said before each update()
        self.last_turn: int | None = None

    def __len__(self) -> int:
        return int(np.count_nonzero(self.table["live"]))

    def now(self, now: datetime | None = None) -> datetime:
        """``now`` if given, else the clock's time; naive UTC either way."""
        if now is not None:
            return require_datetime("now", now)
        return require_datetime("clock()", self.clock(), False)

    # ---- 05: store a memory ----
    def add(self, role: str, content: str, *, turn: int | None = None,
            timestamp=None) -> list[Change]:
        """Store a chat message as a ``message`` memory, "role: content".

        A refused message changes nothing, not even ``last_turn``; an empty one stores nothing.
        """
        require_role("role", role)
        require_text("content", content, allow_empty=True)
        turn = require_turn("turn", turn, self.last_turn)
        when = require_datetime("timestamp", timestamp)
        changes = []
        if content.strip():
            changes = self.store(f"{role}: {content}", "message", timestamp=when,
                                 role=role, turn=turn)
        self.last_turn = turn
        return changes

    def store(self, text: str, memory_type: str = "general", importance: float = 0.5,
              timestamp: datetime | None = None, **metadata) -> list[Change]:
        """Remember ``text``: an ADD (and the DELETE of a fact it replaces), or a NOOP for a
        fact already held in the same words."""
        require_text("text", text)
        require_text("memory_type", memory_type)
        importance = require_fraction("importance", importance)
        when = self.now() if timestamp is None else require_datetime("timestamp", timestamp)
        require_labels(metadata)
        if memory_type == "fact":
            rows = self.keys.get((metadata.get("user_id"), fact_key(text)), [])
            if rows and rows[-1] not in self.retired:
                if self.texts[rows[-1]].lower().split() == text.lower().split():
                    return [Change("NOOP", f"s{rows[-1]}", text, reason="already stored")]
        vector = self.embedder.embed([text])[0]
        labels = {**metadata, "timestamp": when.isoformat()}
        stored_at = epoch_us(when)
        row = self._append(text, memory_type, vector, labels, importance=importance,
                           created=stored_at, accessed=stored_at, recalls=0)
        return [Change("ADD", f"s{row}", text, reason=f"new {memory_type}"), *self._keyed(row)]

    def _append(self, text: str, memory_type: str, vector, metadata: dict, **numbers) -> int:
        """A new row: its vector and ``numbers`` in the table, its words in the BM25 index."""
        thread = (metadata.get("user_id"), metadata.get("session_id"), memory_type)
        previous = -1                                # the row this one answers; -1 for none
        if memory_type != "fact":                    # facts stand alone
            last = self.threads.get(thread, -1)
            if last >= 0 and numbers["created"] - self.table["created"][last] <= REPLY_GAP_US:
                previous = last
        labels = {key: value for key, value in metadata.items() if key != "timestamp"}
        labels["memory_type"] = memory_type
        columns = {"previous": previous, "live": True, **numbers}   # a saved row brings its own
        row = self.table.append(vector, labels, **columns)
        self.texts.append(text)
        self.types.append(memory_type)
        self.metadata.append(metadata)
        if memory_type != "fact":
            self.threads[thread] = row
        answered = int(self.table["previous"][row])
        if answered >= 0:
            self.replies[answered] = row
        self.lexical.add([])                         # its place in the index, filled by _index
        self._index(*self._neighbours(row - 1), row)   # the turn before now lends its words
        return row

    def _index(self, *rows: int) -> None:
        """Index each of ``rows`` again by its words, the month and year it was said (a question
        may name them), and its neighbours' words (05b; with them BM25 takes k1 0.8, b 0.4)."""
        for row in rows:
            self.lexical.remove(row)
            said = datetime.fromisoformat(self.metadata[row]["timestamp"])
            words = content_words(said.strftime("%B %Y"))     # "May 2023", in English
            for source in (row, *self._neighbours(row)):
                words += content_words(self.texts[source])
            self.lexical.add(words, row)

    # ---- 05: rank every memory for a query ----
    def scores(self, query: str, now: datetime | None = None,
               **filters) -> tuple[dict, np.ndarray]:
        """Every part of every memory's score (arrays, one entry per row) and the mask of the
        candidates: the live rows that match ``filters`` (``user_id="dana"``)."""
        require_labels(filters, True)
        now_us = epoch_us(self.now(now))
        table = self.table
        mask = table["live"] & table.mask(filters)
        cosine = table.matrix @ self.embedder.embed([require_text("query", query)])[0]
        lexical = self.lexical.scores(content_words(query), table.size)
        match = hybrid_relevance(lexical, cosine, self.lexical_weight, mask)
        # A turn shares relevance with its neighbours (05b); a retired turn lends nothing.
        relevance = thread_relevance(match * table["live"], table["previous"], self.reply_weight)
        signals = time_signals(table["created"], table["accessed"], table["recalls"], now_us,
                               READS.get(self.scoring))   # None: every signal
        parts = SCORINGS[self.scoring](relevance=relevance, importance=table["importance"],
                                       mask=mask, decay_rate=self.decay_rate, vectors=table.matrix,
                                       same=near_copy(self.embedder), **signals)
        if self.latest_word and self.scoring == "time_aware" and asks_about_now(query):   # 05b
            parts = latest_word(parts, mask, table, self.lexical, self.texts, self.types)
        return {"lexical": lexical, "cosine": cosine, "match": match, **parts}, mask

    def explain(self, query: str, top_k: int = 3, now: datetime | None = None,
                **filters) -> list[dict]:
        """The best ``top_k`` memories with every part of their scores. Records no recall."""
        parts, mask = self.scores(query, now, **filters)
        best_rows = top_k_rows(parts["score"], mask, require_positive_int("top_k", top_k))
        hits = []
        for row in best_rows:
            hit = {"row": int(row), "text": self.texts[row], "memory_type": self.types[row]}
            for name, values in parts.items():
                hit[name] = float(values[row])
            hits.append(hit)
        return hits

    def retrieve(self, query: str, top_k: int = 3, now: datetime | None = None,
                 **filters) -> list[tuple]:
        """``(score, text, memory_type)`` best first, as ``explain`` ranks them. Each returned
        memory counts as recalled: MemoryBank's score reads that (05b), the default does not."""
        hits = self.explain(query, top_k, now, **filters)
        self._recall([hit["row"] for hit in hits], now)
        return [(hit["score"], hit["text"], hit["memory_type"]) for hit in hits]

    def _recall(self, rows: list[int], now: datetime | None = None) -> None:
        """Note that ``rows`` were used now (and once more), for the scores that read it."""
        self.table["accessed"][rows] = epoch_us(self.now(now))
        self.table["recalls"][rows] += 1

    def context(self, query: str | None = None) -> list[dict]:
        """The memories most relevant to ``query`` as one system message of quoted data."""
        if query is None:
            return []
        if not require_text("query", query, allow_empty=True).strip() or not len(self):
            return []
        # The query is the message just added: skip its echo ("user: <query>"), the prompt
        # already holds it.
        echoes = sum(text.partition(": ")[2] == query for text in self.texts)
        hits = self.explain(query, self.context_top_k + echoes)
        hits = [hit for hit in hits if hit["text"].partition(": ")[2] != query]
        hits = hits[:self.context_top_k]
        self._recall([hit["row"] for hit in hits])
        if not hits:
            return []
        quoted = [quote(hit["text"]) for hit in hits]
        return [{"role": "system", "content": fenced("Relevant memories", quoted)}]

    # ---- 05: facts, one value per key ----
    def remember(self, turn: str, *, importance: float = 0.5, timestamp=None,
                 **metadata) -> list[Change]:
        """Store each fact extracted from a user turn; its Change carries the ``span`` of the
        turn it came from."""
        require_text("turn", turn)
        changes = []
        for fact in extract_facts(turn):
            for change in self.store(fact, "fact", importance, timestamp, **metadata):
                span = None if change.event == "DELETE" else locate(fact, turn)
                changes.append(replace(change, span=span))
        return changes

    def _keyed(self, row: int) -> list[Change]:
        """File a fact under its key; the value it replaces is retired (returned as a DELETE)."""
        if self.types[row] != "fact":
            return []
        key = (self.metadata[row].get("user_id"), fact_key(self.texts[row]))
        rows = self.keys.setdefault(key, [])
        if row in rows:
            return []
        rows.append(row)
        if len(rows) < 2 or rows[-2] in self.retired:
            return []
        self.replaced[rows[-2]] = row
        return [self._retire(rows[-2], f"replaced by s{row}")]

    def _retire(self, row: int, why: str) -> Change:
        """Stop returning ``row``; it stays as history."""
        self.table["live"][row] = False
        self.retired[row] = why
        self.lexical.remove(row)
        self._index(*self._neighbours(row))          # its words leave its neighbours' entries
        return Change("DELETE", f"s{row}", self.texts[row], reason=why)

    def history(self, id_or_fact: str, user_id: str | None = None) -> list[tuple[str, bool]]:
        """``(text, live?)`` oldest first: what memory ``id`` said and what replaced it, or
        every fact under a key."""
        require_labels({"user_id": user_id})
        rows = self.keys.get((user_id, fact_key(require_text("id_or_fact", id_or_fact))), [])
        if re.fullmatch(MEMORY_ID, id_or_fact):
            rows = [self.row(id_or_fact)]
            while rows[-1] in self.replaced:         # a newer row replaced it or took it in
                rows.append(self.replaced[rows[-1]])
        entries = []
        for row in rows:
            entries += [(old, False) for old in self.edits.get(row, [])]
            entries.append((self.texts[row], row not in self.retired))
        return entries

    # ---- Going further (05b: neighbour words; merging and pruning are in semantic_upkeep) ----
    def _neighbours(self, row: int) -> list[int]:
        """With ``neighbour_words`` (the default), of a chat message: the live turns up to two
        steps back and forward in its thread (else none). The newest memory lends its words to
        no one: it may be the question being asked."""
        if row < 0 or not self.neighbour_words or self.types[row] != "message":
            return []
        before = [int(self.table["previous"][row])]
        before.append(int(self.table["previous"][before[0]]) if before[0] >= 0 else -1)
        after = [self.replies.get(row, -1)]
        after.append(self.replies.get(after[0], -1))
        newest = self.table.size - 1
        return [r for r in before + after if r >= 0 and r not in self.retired and r != newest]


    # ---- Going further (09: edits and saving; deletion and erasure are in semantic_upkeep) ----
    def update(self, id: str, text: str) -> list[Change]:
        """Rewrite a live memory: re-embedded, re-indexed, what it said kept in ``history``."""
        row = self.row(id)
        if row in self.retired:
            raise ValueError(f"memory {id!r} is retired ({self.retired[row]}); update a live one")
        self.table.set_vector(row, self.embedder.embed([require_text("text", text)])[0])
        previous = self.texts[row]
        self.texts[row] = text
        self._index(row, *self._neighbours(row))
        self.edits.setdefault(row, []).append(previous)
        if self.types[row] == "fact" and fact_key(text) != fact_key(previous):   # a new subject
            self.keys = {key: [r for r in rows if r != row] for key, rows in self.keys.items()}
        return [Change("UPDATE", id, text, previous=previous, reason="updated"), *self._keyed(row)]

    def to_state(self) -> dict:
        """Everything as JSON-ready data, vectors included (as lists), and the clock's time."""
        rows = []
        memories = zip(self.texts, self.types, self.metadata, strict=True)
        for row, (text, kind, labels) in enumerate(memories):
            rows.append({"text": text, "memory_type": kind, "metadata": labels,
                         **self.table.row_state(row)})
        state = {name: getattr(self, name) for name in SETTINGS}
        state["embedder"] = self.embedder.config()
        state["now"] = self.now().isoformat()
        state["last_turn"] = self.last_turn
        state["memories"] = rows
        state["retired"] = [[row, why] for row, why in sorted(self.retired.items())]
        state["keys"] = [[user, key, rows] for (user, key), rows in self.keys.items()]
        state["edits"] = sorted(map(list, self.edits.items()))
        state["replaced"] = sorted(map(list, self.replaced.items()))
        return state

    @classmethod
    def from_state(cls, state: dict, *, embedder=None, clock=None) -> "SemanticMemoryStore":
        """Rebuild a store saved by ``to_state`` (every id stays); its clock resumes at the
        saved time."""
        if clock is None:
            clock = ManualClock(datetime.fromisoformat(state["now"]))
        if embedder is None:
            embedder = embedder_from_config(state["embedder"])
        settings = {name: state[name] for name in SETTINGS}
        store = cls(**settings, clock=clock, embedder=embedder)
        for memory in state["memories"]:
            vector = np.asarray(memory["vector"], np.float32)
            store._append(memory["text"], memory["memory_type"], vector,
                          dict(memory["metadata"]), **memory["numbers"])
        for row, why in state["retired"]:
            store._retire(row, why)
        store.last_turn = state["last_turn"]
        store.keys = {(user, key): list(rows) for user, key, rows in state["keys"]}
        store.edits = dict(state.get("edits", []))
        store.replaced = dict(state.get("replaced", []))
        return store
