"""Semantic long-term memory: store moments, find them by meaning, let them fade.

A query ranks every memory at once: relevance (BM25 blended with vector cosine; a reply within six hours inherits
from the turn it answers, and with ``neighbour_words`` a chat turn is indexed with its neighbours' words too)
meets importance and age in a score of ``SCORINGS`` (``half_life`` unless chosen). A fact's key lets "favorite
color is green" retire "favorite color is blue"; consolidation merges near-duplicates; pruning retires what nobody
recalls. Every write returns its Changes; every memory has a stable id. Taught in notebooks/05_semantic_memory.ipynb.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta
from inspect import signature

import numpy as np

from teachmem.core.bm25 import BM25Index
from teachmem.core.change import Change
from teachmem.core.clock import EPOCH, ManualClock
from teachmem.core.spans import locate
from teachmem.core.subword import SubwordEmbedder, embedder_from_config
from teachmem.core.text import fenced, quote
from teachmem.core.validate import (require_callable, require_datetime, require_fraction, require_int_at_least,
                                    require_positive_int, require_role, require_text, require_turn)
from teachmem.core.vectors import (MemoryTable, decay_factor, min_max, near_duplicate_groups, require_labels,
                                   top_k_rows)
from teachmem.core.words import content_words, stem
from teachmem.llm import extract_facts

SETTINGS = ("decay_rate", "lexical_weight", "reply_weight", "scoring", "context_top_k", "neighbour_words")
DAY_US, HOUR_US, REPLY_GAP_US = 86_400_000_000, 3_600_000_000, 21_600_000_000   # µs since EPOCH; a reply: <= 6 h


def epoch_us(when: datetime) -> int:
    """``when`` in whole microseconds since ``teachmem.core.clock.EPOCH``: whole days stay exact."""
    return (when - EPOCH) // timedelta(microseconds=1)


def hybrid_relevance(lexical: np.ndarray, cosine: np.ndarray, lexical_weight: float, mask=None) -> np.ndarray:
    """BM25 (over the best candidate's: it has no upper bound) blended with the cosine (0 if negative)."""
    vector = np.clip(cosine, 0.0, 1.0)
    best = float(np.max(lexical, initial=0.0, where=True if mask is None else mask))
    return vector if lexical_weight <= 0 or best <= 0 else lexical_weight * (lexical / best) + (
        1.0 - lexical_weight) * vector


def thread_relevance(relevance: np.ndarray, previous: np.ndarray, reply_weight: float) -> np.ndarray:
    """A reply inherits from the turn it answers (``previous``, -1 for none): (own + w × previous's) / (1 + w)."""
    inherited = np.append(relevance, np.zeros(1, relevance.dtype))[previous]     # row -1 reads the 0 appended
    return (relevance + reply_weight * inherited) / (1.0 + reply_weight) if reply_weight > 0 else relevance


def time_signals(created_us, accessed_us, recalls, now_us: int, names=None) -> dict:
    """Whole days since stored, hours and days since recalled, strength (1 + recalls); future = new; only ``names``."""
    since = np.maximum(now_us - accessed_us, 0)
    signals = {"age_days": lambda: np.maximum(now_us - created_us, 0) // DAY_US, "hours_since_access": lambda:
               since / HOUR_US, "days_since_recall": lambda: since // DAY_US, "strength": lambda: recalls + 1.0}
    return {name: signal() for name, signal in signals.items() if names is None or name in names}


def product_score(relevance, importance, age_days, decay_rate, **_) -> dict:
    """relevance × importance × decay_rate ** whole days old, with its parts (to show why a memory ranks)."""
    decay = decay_factor(age_days, decay_rate)
    return {"score": relevance * importance * decay, "relevance": relevance, "importance": importance, "decay": decay}


def generative_agents_score(relevance, importance, hours_since_access, mask, recency_decay: float = 0.995,
                            weights=(1.0, 1.0, 1.0), **_) -> dict:
    """Generative Agents (Park et al., 2023): recency (``recency_decay ** hours`` since last access),
    importance and relevance, each min-max normalised over the candidates, added with ``weights``."""
    parts = {"recency": min_max(decay_factor(hours_since_access, recency_decay), mask),
             "importance": min_max(importance, mask), "relevance": min_max(relevance, mask)}
    return {"score": sum(w * p for w, p in zip(weights, parts.values(), strict=True)), **parts}


def memorybank_score(relevance, importance, days_since_recall, strength, **_) -> dict:
    """relevance × importance × MemoryBank's retention exp(-days since recalled / (1 + recalls)) (Zhong et al., 2024)."""
    retention = np.exp(-np.maximum(np.asarray(days_since_recall, np.float64), 0.0) / np.asarray(strength, float))
    return {"score": relevance * importance * retention, "relevance": relevance, "importance": importance,
            "retention": retention, "strength": np.asarray(strength, float)}


def half_life_score(relevance, importance, days_since_recall, half_life_days=30.0, floor=0.5, **_) -> dict:
    """relevance × recency × (½ + ½ importance); recency halves every ``half_life_days`` unrecalled, down to ``floor``."""
    recency = floor + (1.0 - floor) * decay_factor(days_since_recall, 0.5, per=half_life_days)
    return {"score": relevance * recency * (0.5 + 0.5 * np.asarray(importance, np.float64)),
            "relevance": relevance, "importance": importance, "recency": recency}


SCORINGS: dict[str, Callable[..., dict]] = {"product": product_score, "generative_agents": generative_agents_score,
                                            "memorybank": memorybank_score, "half_life": half_life_score}


def fact_key(fact: str) -> str:
    """What a fact is about, minus its value (one key, one true value): "favorite color is blue" -> "favorite
    color", "lives in lisbon" -> "lives in", "prefers window seats" -> "prefers seat"; "is vegetarian" -> itself."""
    low, words = fact.lower(), fact.lower().split()
    if " is " in low and words[0] != "is":
        return low[: low.rindex(" is ")]
    if words[0] in ("prefers", "likes", "uses") and len(words) > 1:
        return f"{words[0]} {stem(words[-1])}"
    if len(words) > 2 and words[1] in ("in", "at", "for", "on", "as"):
        return " ".join(words[:2])
    return " ".join(words)


class SemanticMemoryStore:
    """Long-term memory ranked by relevance × recency (halving monthly, floor ½) × importance (see ``SCORINGS``)."""

    kind = "semantic"

    def __init__(self, decay_rate: float = 0.95, embed_dim: int = 256, *, embedder=None, clock=None,
                 lexical_weight: float = 0.5, reply_weight: float = 0.5, scoring: str = "half_life",
                 context_top_k: int = 3, neighbour_words: bool = False):
        if require_fraction("decay_rate", decay_rate) == 0:
            raise ValueError("decay_rate must be in (0, 1]: 0 would erase every memory after one day")
        if scoring not in SCORINGS:
            raise ValueError(f"scoring must be one of {sorted(SCORINGS)}, got {scoring!r}")
        if not isinstance(neighbour_words, bool):
            raise TypeError(f"neighbour_words must be True or False, got {neighbour_words!r}")
        self.neighbour_words = neighbour_words
        embedder = embedder_from_config({"name": embedder}) if isinstance(embedder, str) else embedder   # a name
        if embedder is not None and not (isinstance(getattr(embedder, "dim", 0), int) and hasattr(embedder, "embed")):
            raise TypeError(f"embedder must have an int dim and an embed(texts) method, got {type(embedder).__name__}")
        self.decay_rate, self.scoring, self.lexical_weight, self.reply_weight, self.context_top_k = (
            float(decay_rate), scoring, require_fraction("lexical_weight", lexical_weight),
            require_fraction("reply_weight", reply_weight), require_positive_int("context_top_k", context_top_k))
        self.embedder = embedder if embedder is not None else SubwordEmbedder(
            require_int_at_least("embed_dim", embed_dim, 2))
        self.clock, self.lexical = require_callable("clock", clock) or ManualClock(), BM25Index()
        self.table = MemoryTable(self.embedder.dim, {"importance": np.float64, "created": np.int64,
                                 "accessed": np.int64, "recalls": np.int32, "previous": np.int64, "live": bool})
        self.texts: list[str] = []                 # row -> text ("" once erased); a row's id is f"s{row}"
        self.types: list[str] = []                 # row -> memory type
        self.metadata: list[dict] = []             # row -> labels and the ISO timestamp
        self.edits: dict[int, list[str]] = {}      # row -> what it said before each update(), oldest first
        self.keys: dict[tuple, list[int]] = {}     # (user_id, fact key) -> its rows, newest last
        self.threads: dict[tuple, int] = {}        # (user_id, session_id, type) -> latest row
        self.replies: dict[int, int] = {}          # row -> the row that answers it (its "previous")
        self.retired: dict[int, str] = {}          # row -> why it is no longer returned
        self.replaced: dict[int, int] = {}         # row -> the row that replaced it (or took it in)
        self.last_turn: int | None = None

    def __len__(self) -> int:
        return int(np.count_nonzero(self.table["live"]))

    def now(self, now: datetime | None = None) -> datetime:
        """``now`` if given, else the clock's time; naive UTC either way."""
        return require_datetime("now", now) if now is not None else require_datetime("clock()", self.clock(), False)

    def store(self, text: str, memory_type: str = "general", importance: float = 0.5,
              timestamp: datetime | None = None, **metadata) -> list[Change]:
        """Remember ``text``: an ADD (+ the DELETE of a fact it replaces), or a NOOP for a fact already held."""
        require_text("text", text)
        require_text("memory_type", memory_type)
        importance = require_fraction("importance", importance)
        when = require_datetime("timestamp", timestamp) if timestamp is not None else self.now()
        require_labels(metadata)
        rows = self.keys.get((metadata.get("user_id"), fact_key(text)), []) if memory_type == "fact" else []
        if rows and rows[-1] not in self.retired and self.texts[rows[-1]].lower().split() == text.lower().split():
            return [Change("NOOP", f"s{rows[-1]}", text, reason="already stored")]
        row = self._append(text, memory_type, self.embedder.embed([text])[0], {**metadata, "timestamp": when.isoformat()},
                           importance=importance, created=epoch_us(when), accessed=epoch_us(when), recalls=0)
        return [Change("ADD", f"s{row}", text, reason=f"new {memory_type}"), *self._keyed(row)]

    def _append(self, text: str, memory_type: str, vector, metadata: dict, **numbers) -> int:
        thread = (metadata.get("user_id"), metadata.get("session_id"), memory_type)
        last = -1 if memory_type == "fact" else self.threads.get(thread, -1)   # facts stand alone
        previous = last if last < 0 or numbers["created"] - self.table["created"][last] <= REPLY_GAP_US else -1
        labels = {**{k: v for k, v in metadata.items() if k != "timestamp"}, "memory_type": memory_type}
        row = self.table.append(vector, labels, **{"previous": previous, "live": True, **numbers})
        self.texts.append(text)
        self.types.append(memory_type)
        self.metadata.append(metadata)
        if memory_type != "fact":
            self.threads[thread] = row
        if self.table["previous"][row] >= 0:
            self.replies[int(self.table["previous"][row])] = row
        self.lexical.add([])                          # its place in the index, filled by _index
        self._index(*self._neighbours(row), row)      # the turn it answers is found by this reply's words too
        return row

    def _neighbours(self, row: int) -> list[int]:
        """With ``neighbour_words``, of a chat message: the live turns it answers and that answer it (else none)."""
        on = self.neighbour_words and self.types[row] == "message"
        near = (int(self.table["previous"][row]), self.replies.get(row, -1)) if on else ()
        return [r for r in near if r >= 0 and r not in self.retired]

    def _index(self, *rows: int) -> None:
        """Index each of ``rows`` again by its words and its neighbours' (an answer, by its question's words)."""
        for r in rows:
            self.lexical.remove(r)
            self.lexical.add([w for n in (r, *self._neighbours(r)) for w in content_words(self.texts[n])], r)

    def _keyed(self, row: int) -> list[Change]:
        """File a fact under its key; the value it replaces is retired (returned as a DELETE)."""
        if self.types[row] != "fact":
            return []
        rows = self.keys.setdefault((self.metadata[row].get("user_id"), fact_key(self.texts[row])), [])
        if row in rows:
            return []
        rows.append(row)
        if len(rows) < 2 or rows[-2] in self.retired:
            return []
        self.replaced[rows[-2]] = row
        return [self._retire(rows[-2], f"replaced by s{row}")]

    def _retire(self, row: int, why: str) -> Change:
        self.table["live"][row], self.retired[row] = False, why
        self.lexical.remove(row)
        self._index(*self._neighbours(row))          # its words leave its neighbours' index entries
        return Change("DELETE", f"s{row}", self.texts[row], reason=why)

    def remember(self, turn: str, *, importance: float = 0.5, timestamp=None, **metadata) -> list[Change]:
        """Store each fact extracted from a user turn; its Change carries the ``span`` of the turn it came from."""
        require_text("turn", turn)
        return [replace(c, span=None if c.event == "DELETE" else locate(fact, turn))
                for fact in extract_facts(turn) for c in self.store(fact, "fact", importance, timestamp, **metadata)]

    def row(self, id: str) -> int:
        """The row of memory ``id`` ("s3" -> 3); an unknown id is a KeyError naming it."""
        if not re.fullmatch(r"s(0|[1-9]\d*)", require_text("id", id)) or int(id[1:]) >= len(self.texts):
            raise KeyError(f"no memory with id {id!r}")
        return int(id[1:])

    def get(self, id: str) -> dict:
        """Memory ``id``: its text, type, importance, metadata, and whether it is live (else why not)."""
        r = self.row(id)
        return {"id": id, "text": self.texts[r], "memory_type": self.types[r], "metadata": dict(self.metadata[r]),
                "importance": float(self.table["importance"][r]), "retired": self.retired.get(r)}

    def update(self, id: str, text: str) -> list[Change]:
        """Rewrite a live memory: re-embedded, re-indexed, what it said kept in ``history(id)``."""
        r = self.row(id)
        if r in self.retired:
            raise ValueError(f"memory {id!r} is retired ({self.retired[r]}); update a live one")
        self.table.set_vector(r, self.embedder.embed([require_text("text", text)])[0])
        previous, self.texts[r] = self.texts[r], text
        self._index(r, *self._neighbours(r))
        self.edits.setdefault(r, []).append(previous)
        if self.types[r] == "fact" and fact_key(text) != fact_key(previous):     # now about something else
            self.keys = {key: [x for x in rows if x != r] for key, rows in self.keys.items()}
        return [Change("UPDATE", id, text, previous=previous, reason="updated"), *self._keyed(r)]

    def delete(self, id: str) -> list[Change]:
        """Remove memory ``id`` for good (text, vector, labels; retention calls this); a NOOP if it is gone."""
        r = self.row(id)
        return self._remove([r], "deleted", [self.texts[r]]) if self.texts[r] else [
            Change("NOOP", id, "", reason="already deleted")]

    def history(self, id_or_fact: str, user_id: str | None = None) -> list[tuple[str, bool]]:
        """``(text, live?)`` oldest first: what memory ``id`` said and what replaced it, or every fact under a key."""
        require_labels({"user_id": user_id})
        rows = self.keys.get((user_id, fact_key(require_text("id_or_fact", id_or_fact))), [])
        if re.fullmatch(r"s(0|[1-9]\d*)", id_or_fact):
            rows = [self.row(id_or_fact)]
            while rows[-1] in self.replaced:        # a newer row replaced it or took it in
                rows.append(self.replaced[rows[-1]])
        return [entry for r in rows for entry in [(t, False) for t in self.edits.get(r, [])]
                + [(self.texts[r], r not in self.retired)]]

    def scores(self, query: str, now: datetime | None = None, **filters) -> tuple[dict, np.ndarray]:
        """Every part of every memory's score (arrays, one entry per row) and the candidate mask."""
        require_labels({k: list(v) if isinstance(v, (tuple, set, frozenset)) else v for k, v in filters.items()}, True)
        now_us, t = epoch_us(self.now(now)), self.table
        mask = t["live"] & t.mask(filters) if filters else t["live"].copy()
        cosine = t.matrix @ self.embedder.embed([require_text("query", query)])[0]
        lexical = self.lexical.scores(content_words(query), t.size)
        match = hybrid_relevance(lexical, cosine, self.lexical_weight, mask)
        relevance = thread_relevance(match * t["live"], t["previous"], self.reply_weight)   # none from the retired
        score = SCORINGS[self.scoring]        # given only the time signals its parameters name
        parts = score(relevance=relevance, importance=t["importance"], mask=mask, decay_rate=self.decay_rate,
                      **time_signals(t["created"], t["accessed"], t["recalls"], now_us, signature(score).parameters))
        return {"lexical": lexical, "cosine": cosine, "match": match, **parts}, mask

    def explain(self, query: str, top_k: int = 3, now: datetime | None = None, **filters) -> list[dict]:
        """The best ``top_k`` memories with every part of their scores. Records no recall."""
        parts, mask = self.scores(query, now, **filters)
        return [{"row": int(r), "text": self.texts[r], "memory_type": self.types[r],
                 **{name: float(values[r]) for name, values in parts.items()}}
                for r in top_k_rows(parts["score"], mask, require_positive_int("top_k", top_k))]

    def retrieve(self, query: str, top_k: int = 3, now: datetime | None = None, **filters) -> list[tuple]:
        """``(score, text, memory_type)`` best first. Each returned memory counts as recalled."""
        hits = self.explain(query, top_k, now, **filters)
        self._recall([h["row"] for h in hits], now)
        return [(h["score"], h["text"], h["memory_type"]) for h in hits]

    def _recall(self, rows: list[int], now: datetime | None = None) -> None:
        self.table["accessed"][rows] = epoch_us(self.now(now))
        self.table["recalls"][rows] += 1

    def consolidate(self, threshold: float = 0.9) -> list[Change]:
        """Merge live near-duplicates (cosine >= ``threshold``; same user and type, not facts) into the newest
        copy (highest importance, total recalls, ``merged_from``): a DELETE each, an UPDATE of the one kept."""
        require_fraction("threshold", threshold)
        t, ids = self.table, dict[tuple, int]()          # one group per (user, memory type): only those are compared
        group = np.array([ids.setdefault((m.get("user_id"), k), len(ids))
                          for m, k in zip(self.metadata, self.types, strict=True)])
        rows = np.flatnonzero(t["live"] & (np.array(self.types, dtype=object) != "fact"))
        changes = []
        for cluster in near_duplicate_groups(t.matrix, rows, group, threshold):
            keep, merged, taken = cluster[-1], cluster[:-1], [f"s{r}" for r in cluster[:-1]]
            self.replaced.update(dict.fromkeys(merged, keep))
            changes += [self._retire(r, f"merged into s{keep}") for r in merged]
            t["importance"][keep], t["recalls"][keep] = t["importance"][cluster].max(), t["recalls"][cluster].sum()
            self.metadata[keep]["merged_from"] = self.metadata[keep].get("merged_from", []) + taken
            changes.append(Change("UPDATE", f"s{keep}", self.texts[keep], reason=f"took in {', '.join(taken)}: "
                                  f"importance {t['importance'][keep]:.2f}, {t['recalls'][keep]} recalls"))
        return changes

    def prune(self, max_age_days: int = 90, now: datetime | None = None) -> list[Change]:
        """Retire live memories older than ``max_age_days`` that were never recalled (DELETEs)."""
        require_positive_int("max_age_days", max_age_days)
        now_us, t = epoch_us(self.now(now)), self.table
        stale = np.flatnonzero(t["live"] & (t["recalls"] == 0) & (now_us - t["created"] > max_age_days * DAY_US))
        return [self._retire(r, "pruned: stale and never recalled") for r in stale.tolist()]

    def erase(self, pattern: re.Pattern) -> list[Change]:
        """Remove every memory whose text, old text or metadata ``pattern`` matches; its row stays a tombstone."""
        if not isinstance(pattern, re.Pattern):
            raise TypeError(f"pattern must be a compiled re.Pattern, got {type(pattern).__name__}")
        rows = [r for r, text in enumerate(self.texts) if text and any(map(pattern.search, [
            text, *self.edits.get(r, []), *map(str, self.metadata[r].values())]))]
        return self._remove(rows, "forgotten", [pattern.sub("[forgotten]", self.texts[r]) for r in rows],
                            keep_key=lambda key: not pattern.search(key))

    def _remove(self, rows: list[int], why: str, texts: list[str], keep_key=lambda key: True) -> list[Change]:
        """Empty ``rows`` for good: text, old texts, labels and vector go; each row stays a tombstone."""
        changes = [Change("DELETE", f"s{r}", text, reason=why) for r, text in zip(rows, texts, strict=True)]
        for r in rows:
            if r not in self.retired:
                self._retire(r, why)
            self.texts[r], self.retired[r], self.metadata[r] = "", why, {
                "timestamp": self.metadata[r]["timestamp"], why: True}
            self.edits.pop(r, None)
            self.table.set_vector(r, np.zeros(self.table.dim, dtype=np.float32))
            self.table.clear_labels(r)
        kept = {uk: [r for r in old if self.texts[r]] for uk, old in self.keys.items() if keep_key(uk[1])}
        self.keys = {uk: old for uk, old in kept.items() if old}
        self.threads = {thread: r for thread, r in self.threads.items() if self.texts[r]}
        if changes and callable(getattr(self.embedder, "clear_cache", None)):
            self.embedder.clear_cache()          # a hashing embedder's cache holds the words it saw
        return changes

    def provenance(self) -> list[dict]:
        """Every memory held (retired ones as history): id, type, text, turn, timestamp, confidence."""
        return [{"id": f"s{r}", "text": x, "memory_type": k if r not in self.retired else f"{k} (history)",
                 "turn": m.get("turn", m.get("source_turn")), "timestamp": m["timestamp"],
                 "confidence": m.get("confidence", 1.0 if k == "message" else None)}
                for r, (x, k, m) in enumerate(zip(self.texts, self.types, self.metadata, strict=True)) if x]

    def add(self, role: str, content: str, *, turn: int | None = None, timestamp=None) -> list[Change]:
        """Store a chat message as a ``message`` memory; a refused one changes nothing, not even ``last_turn``."""
        require_role("role", role)
        require_text("content", content, allow_empty=True)
        turn = require_turn("turn", turn, self.last_turn)
        when = require_datetime("timestamp", timestamp)
        changes = self.store(f"{role}: {content}", "message", timestamp=when, role=role, turn=turn) \
            if content.strip() else []
        self.last_turn = turn
        return changes

    def context(self, query: str | None = None) -> list[dict]:
        """The memories most relevant to ``query`` as one system message of quoted data."""
        if query is None or not require_text("query", query, allow_empty=True).strip() or not len(self):
            return []
        # The query is the message just added: skip its echo ("user: <query>"), the prompt already holds it.
        echoes = sum(text.partition(": ")[2] == query for text in self.texts)
        hits = [h for h in self.explain(query, self.context_top_k + echoes)
                if h["text"].partition(": ")[2] != query][:self.context_top_k]
        self._recall([h["row"] for h in hits])
        return [{"role": "system", "content": fenced("Relevant memories", [quote(h["text"]) for h in hits])}] \
            if hits else []

    def to_state(self) -> dict:
        """Everything as JSON-ready data, vectors included (as lists), and the clock's time."""
        rows = [{"text": x, "memory_type": k, "metadata": m, **self.table.row_state(r)}
                for r, (x, k, m) in enumerate(zip(self.texts, self.types, self.metadata, strict=True))]
        return {**{name: getattr(self, name) for name in SETTINGS}, "embedder": self.embedder.config(),
                "now": self.now().isoformat(), "last_turn": self.last_turn, "memories": rows,
                "retired": [[r, why] for r, why in sorted(self.retired.items())],
                "keys": [[user, key, rows] for (user, key), rows in self.keys.items()],
                "edits": sorted(map(list, self.edits.items())), "replaced": sorted(map(list, self.replaced.items()))}

    @classmethod
    def from_state(cls, state: dict, *, embedder=None, clock=None) -> "SemanticMemoryStore":
        """Rebuild a store saved by ``to_state`` (every id stays); its clock resumes at the saved time."""
        store = cls(**{name: state[name] for name in SETTINGS}, clock=clock or ManualClock(datetime.fromisoformat(
            state["now"])), embedder=embedder if embedder is not None else embedder_from_config(state["embedder"]))
        for m in state["memories"]:
            store._append(m["text"], m["memory_type"], np.asarray(m["vector"], np.float32), dict(m["metadata"]),
                          **m["numbers"])
        for row, why in state["retired"]:
            store._retire(row, why)
        store.last_turn, store.keys = state["last_turn"], {(u, key): list(rows) for u, key, rows in state["keys"]}
        store.edits, store.replaced = dict(state.get("edits", [])), dict(state.get("replaced", []))
        return store
