"""Semantic memory in PostgreSQL + pgvector: one row per memory, ranked inside the database, one user per connection.

``PgMemoryStore`` speaks the ``SemanticMemoryStore`` API (``store``, ``remember``, ``add``, ``retrieve``,
``explain``, ``context``, ``get``, ``update``, ``delete``, ``history``) and returns the same ``Change`` records; what it holds lives in the table
described in ``teachmem.lab.pg_schema``, so many processes can share it. A retrieval runs the SQL in
``teachmem.lab.pg_rank``. Every write is one transaction under a per-user advisory lock: a fact that replaces
another retires it in the same transaction, and two writers never take the same id. Deleting a memory empties
its row (text, vector, labels); PostgreSQL keeps the old row version until VACUUM, and WAL and backups keep it
longer: forgetting in a database is a process, not one statement.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any, cast

from teachmem.core.change import Change
from teachmem.core.clock import ManualClock
from teachmem.core.subword import embedder_from
from teachmem.core.text import fenced, quote
from teachmem.core.validate import (require_bool, require_callable, require_choice, require_datetime,
                                    require_decay_rate, require_fraction, require_positive_int, require_text)
from teachmem.core.vectors import require_items, require_labels
from teachmem.lab.storage.memory_db import require_no_nul
from teachmem.lab.storage.pg_batch import NEWEST_FILED, file_batch, insert_batch, retire_held
from teachmem.lab.storage.pg_rank import RANKED, explain_plan, ranked, record_recall, search_list
from teachmem.lab.storage.pg_schema import ensure_schema, enter_as_user
from teachmem.lab.storage.pg_time_aware import WALK, time_aware_ranked
from teachmem.lab.storage.postgres import INSTALL_HINT
from teachmem.memory.semantic import SemanticMemoryStore, fact_key
from teachmem.memory.semantic_scores import near_copy

try:
    import psycopg
    from pgvector.psycopg import register_vector
    from psycopg.types.json import Jsonb
except ImportError:
    psycopg = None    # type: ignore[assignment]

SCORINGS = ("time_aware", "product")     # the in-memory store's scorings the SQL path ranks by
ID = re.compile(r"s(0|[1-9]\d*)")
ROW = "SELECT text, memory_type, importance, retired, metadata, fact_key FROM memories WHERE seq = %s"
MOST_ROWS = 2**63 - 1     # LIMIT takes a bigint; no table holds more rows
# Deleting empties a row and keeps it as a tombstone (its id is never given again).
TOMBSTONE = ("UPDATE memories SET text = '', embedding = NULL, staged = NULL, edits = '{}', fact_key = NULL, "
             "retired = 'deleted', metadata = jsonb_build_object('timestamp', metadata -> 'timestamp', "
             "'deleted', true) WHERE seq = %s")
HELD = "SELECT seq, text, edits, metadata FROM memories WHERE text <> ''"
FOLD = "UPDATE memories SET embedding = staged, staged = NULL WHERE staged IS NOT NULL"
FILED = ("SELECT seq, text, retired FROM memories WHERE fact_key = %s AND seq <> %s "
         "ORDER BY filed DESC LIMIT 1")


def require_storable(name: str, value):
    """PostgreSQL's text and jsonb hold no NUL character and psycopg sends UTF-8: refuse both before any query.
    A list is checked item by item; what is not a str is left to the other checks."""
    for item in value if isinstance(value, list) else [value]:
        if isinstance(item, str):
            require_no_nul(name, require_text(name, item, allow_empty=True))
    return value


def remove_user(dsn: str, user_id: str) -> int:
    """Delete every row of ``user_id`` from ``PgMemoryStore``'s table, as the server's owner (the
    application's role may not delete), so that a cell that feeds that user can run again; how
    many rows went."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        table = conn.execute("SELECT to_regclass('memories')").fetchone()[0]     # type: ignore[index]
        if table is None:
            return 0
        return conn.execute("DELETE FROM memories WHERE user_id = %s", [user_id]).rowcount


class PgMemoryStore:
    """``SemanticMemoryStore``'s API on PostgreSQL: the memories of ``user_id``, ranked in the database's
    nearest memories.

    ``scoring="time_aware"`` (the default) ranks as ``SemanticMemoryStore()`` does by default, relevance ×
    (½ + ½ importance) × recency (a memory with a newer near-copy loses up to half its score), with relevance the
    cosine alone. The SQL path omits the in-memory default's BM25 blend, its neighbour words, the relevance turns
    share with their replies and the latest word for a question about now, so its answer is
    ``SemanticMemoryStore(lexical_weight=0, reply_weight=0, neighbour_words=False, latest_word=False)``'s
    (``teachmem.lab.storage.pg_time_aware``). The HNSW index hands memories over nearest first (``candidates``
    of them, then more: 600 are enough for most questions at 1M) until none further on can beat the answer.
    Exactness is a setting. With ``exact=False`` (the default) the answer is that walk's: exact as far as the
    index finds the nearest memories, which an HNSW index does not always do (``benchmarks/bench_pg.py`` prints
    the recall against the exact answer: 0.97 of the exact top 10 at 100k real sentences, 0.998 at 1M, ~20-30 ms).
    With ``exact=True`` one scan of the user's memories then checks that the index missed none that could
    count: the in-memory answer, whatever the index misses, at the price of reading every memory.

    ``scoring="product"`` ranks by relevance × importance × decay, as the in-memory ``scoring="product"`` with
    ``lexical_weight=0``, ``reply_weight=0`` (``teachmem.lab.storage.pg_rank``). Pass ``exact=True`` with it: its
    walk alone found under half of the exact top 10 at 100k (importance and decay lift farther memories)."""

    kind = "pg_semantic"

    def __init__(self, dsn: str, *, user_id: str, embedder=None, clock=None, decay_rate: float = 0.95,
                 embed_dim: int = 256, context_top_k: int = 3, candidates: int = 600,
                 exact: bool = False, scoring: str = "time_aware"):
        if psycopg is None:
            raise RuntimeError(f"PgMemoryStore needs psycopg and pgvector: {INSTALL_HINT}")
        require_text("dsn", dsn)
        require_storable("user_id", require_text("user_id", user_id))
        self.user_id = user_id
        self.decay_rate = require_decay_rate("decay_rate", decay_rate)
        self.context_top_k = require_positive_int("context_top_k", context_top_k)
        self.candidates = require_positive_int("candidates", candidates)
        self.exact = require_bool("exact", exact)
        self.scoring = require_choice("scoring", scoring, SCORINGS)
        self.embedder = embedder_from(embedder, embed_dim)
        self.clock = require_callable("clock", clock) or ManualClock()
        self.conn = psycopg.connect(dsn, autocommit=True)
        try:
            ensure_schema(self.conn, self.embedder.dim)
            register_vector(self.conn)
            enter_as_user(self.conn, user_id)
        except Exception:
            self.conn.close()          # a refused store leaves no connection open
            raise
        self.old_versions = 0          # rows erase() emptied since compact(): their old versions remain
        self.last_turn: int | None = self._value(
            "SELECT max((metadata ->> 'turn')::int) FROM memories WHERE memory_type = 'message'")

    def _value(self, statement: str, params: Sequence = ()) -> Any:
        """The first column of the first row a query returns (queries here always return one)."""
        row = self.conn.execute(statement, params).fetchone()
        return None if row is None else row[0]

    def close(self) -> None:
        """Close the connection (the memories stay in the database)."""
        self.conn.close()

    def __enter__(self) -> "PgMemoryStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __len__(self) -> int:
        return self._value("SELECT count(*) FROM memories WHERE retired IS NULL")

    def __repr__(self) -> str:
        return f"PgMemoryStore(user_id={self.user_id!r}, {len(self)} live memories)"

    def now(self, now: datetime | None = None) -> datetime:
        """``now`` if given, else the clock's time; naive UTC either way."""
        return require_datetime("now", now) if now is not None else require_datetime("clock()", self.clock(), False)

    def _lock(self) -> None:
        """Inside a transaction: one writer per user at a time (others wait), released at COMMIT or ROLLBACK."""
        self.conn.execute("SELECT pg_advisory_xact_lock(hashtext(current_setting('app.user_id')))")

    def _newest_filed(self, key: str, other_than: int = -1):
        return self.conn.execute(FILED, [key, other_than]).fetchone()

    def _retire_replaced(self, old, seq: int) -> list[Change]:
        """Retire ``old`` (seq, text, retired) if it is live: memory ``seq`` now holds its key."""
        if old is None or old[2] is not None:
            return []
        why = f"replaced by s{seq}"
        self.conn.execute("UPDATE memories SET retired = %s, replaced_by = %s WHERE seq = %s", [why, seq, old[0]])
        return [Change("DELETE", f"s{old[0]}", old[1], reason=why)]

    def _checked(self, text: str, memory_type: str = "general", importance: float = 0.5,
                 timestamp: datetime | None = None, **metadata) -> dict:
        """``store``'s arguments checked: a row to insert (no seq yet), or the first refusal raised."""
        require_text("text", text)
        require_text("memory_type", memory_type)
        importance = require_fraction("importance", importance)
        when = require_datetime("timestamp", timestamp) if timestamp is not None else self.now()
        require_labels(metadata)
        require_storable("text", text)
        require_storable("memory_type", memory_type)
        for label, value in metadata.items():
            require_storable(f"metadata key {label!r}", label)
            require_storable(f"metadata {label!r}", value)
        if metadata.get("user_id", self.user_id) != self.user_id:
            raise ValueError(f"user_id must be this store's user {self.user_id!r}, got {metadata['user_id']!r}")
        return {"text": text, "memory_type": memory_type, "importance": importance, "created": when,
                "fact_key": fact_key(text) if memory_type == "fact" else None,
                "metadata": {**metadata, "user_id": self.user_id, "timestamp": when.isoformat()}}

    def store(self, text: str, memory_type: str = "general", importance: float = 0.5,
              timestamp: datetime | None = None, **metadata) -> list[Change]:
        """Remember ``text``: an ADD (+ the DELETE of a fact it replaces), or a NOOP for a fact already held."""
        row = self._checked(text, memory_type, importance, timestamp, **metadata)
        key, when = row["fact_key"], row["created"]
        vector = self.embedder.embed([text])[0]
        with self.conn.transaction():
            self._lock()
            old = self._newest_filed(key) if key is not None else None
            if old is not None and old[2] is None and old[1].lower().split() == text.lower().split():
                return [Change("NOOP", f"s{old[0]}", text, reason="already stored")]
            seq = self._value("SELECT coalesce(max(seq) + 1, 0) FROM memories")
            self.conn.execute(
                "INSERT INTO memories (user_id, seq, text, memory_type, embedding, importance, created, accessed, "
                "fact_key, metadata) VALUES (current_setting('app.user_id'), %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                [seq, text, memory_type, vector, row["importance"], when, when, key, Jsonb(row["metadata"])])
            return [Change("ADD", f"s{seq}", text, reason=f"new {memory_type}"), *self._retire_replaced(old, seq)]

    def store_many(self, items: Sequence[dict]) -> list[Change]:
        """``store(**item)`` for each of ``items`` in order, in one transaction: the same Changes and the same
        rows as one call at a time (a fact replaced later in the batch is written already retired). Every item
        is checked, and every text embedded, before the transaction opens: a refused batch writes nothing.

        The rows go in by one binary COPY into a temporary table, then one INSERT … SELECT into ``memories``:
        COPY cannot write a table under forced row-level security, and the INSERT obeys the policy's WITH CHECK
        (``teachmem.lab.storage.pg_batch``). Under the time-aware ranking their vectors are staged, outside the
        HNSW index: retrievals read them exactly, and ``fold()`` hands them to the index."""
        rows = require_items(items, self._checked)
        vectors = self.embedder.embed([row["text"] for row in rows]) if rows else []
        with self.conn.transaction():
            self._lock()
            first = self._value("SELECT coalesce(max(seq) + 1, 0) FROM memories")
            keys = sorted({row["fact_key"] for row in rows if row["fact_key"] is not None})
            held = self.conn.execute(NEWEST_FILED, [keys]).fetchall() if keys else []
            changes, kept, replaced = file_batch(rows, vectors, first, {k: tuple(rest) for k, *rest in held})
            insert_batch(self.conn, kept, self.embedder.dim, staged=self.scoring == "time_aware")
            retire_held(self.conn, replaced)
        return changes

    def fold(self) -> int:
        """Move this user's staged vectors (``store_many``'s) into the indexed column, the HNSW index taking each
        (the cost the batch deferred; until then each retrieval reads them exactly). How many were moved."""
        with self.conn.transaction():
            self._lock()
            return self.conn.execute(FOLD).rowcount

    def add(self, role: str, content: str, *, turn: int | None = None, timestamp=None) -> list[Change]:
        """Store a chat message as a ``message`` memory: the in-memory store's own ``add``, through ``store``."""
        require_storable("content", content)
        return cast(Any, SemanticMemoryStore.add)(self, role, content, turn=turn, timestamp=timestamp)

    def remember(self, turn: str, *, importance: float = 0.5, timestamp=None, **metadata) -> list[Change]:
        """Store each fact extracted from a user turn (the in-memory store's own ``remember``), spans included."""
        require_storable("turn", turn)
        return cast(Any, SemanticMemoryStore.remember)(self, turn, importance=importance, timestamp=timestamp,
                                                       **metadata)

    def row(self, id: str) -> int:
        """The seq of memory ``id`` ("s3" -> 3); an id this user does not have is a KeyError naming it."""
        if not ID.fullmatch(require_text("id", id)) or self._fetch(int(id[1:])) is None:
            raise KeyError(f"no memory with id {id!r}")
        return int(id[1:])

    def _fetch(self, seq: int) -> Any:
        return self.conn.execute(ROW, [seq]).fetchone()

    def get(self, id: str) -> dict:
        """Memory ``id``: its text, type, importance, metadata, and whether it is live (else why not)."""
        text, memory_type, importance, retired, metadata, _ = self._fetch(self.row(id))
        return {"id": id, "text": text, "memory_type": memory_type, "metadata": metadata,
                "importance": float(importance), "retired": retired}

    def update(self, id: str, text: str) -> list[Change]:
        """Rewrite a live memory: re-embedded, what it said kept in ``history(id)``; a fact now about another key
        is filed under it and retires that key's live value."""
        seq = self.row(id)
        require_storable("text", require_text("text", text))
        vector = self.embedder.embed([text])[0]
        with self.conn.transaction():
            self._lock()
            previous, memory_type, _, retired, _, old_key = self._fetch(seq)
            if retired is not None:
                raise ValueError(f"memory {id!r} is retired ({retired}); update a live one")
            key = fact_key(text) if memory_type == "fact" else None
            refiled = key != old_key
            self.conn.execute(
                "UPDATE memories SET text = %s, embedding = %s, staged = NULL, edits = edits || %s::text, fact_key = %s"
                + (", filed = DEFAULT" if refiled else "") + " WHERE seq = %s", [text, vector, previous, key, seq])
            replaced = self._retire_replaced(self._newest_filed(key, seq), seq) if refiled and key else []
        return [Change("UPDATE", id, text, previous=previous, reason="updated"), *replaced]

    def delete(self, id: str) -> list[Change]:
        """Remove memory ``id`` for good (text, vector, labels, old texts; its row stays a tombstone); a NOOP if
        it is gone."""
        seq = self.row(id)
        with self.conn.transaction():
            self._lock()
            text = self._value("SELECT text FROM memories WHERE seq = %s", [seq])
            if not text:
                return [Change("NOOP", id, "", reason="already deleted")]
            self.conn.execute(TOMBSTONE, [seq])
        return [Change("DELETE", id, text, reason="deleted")]

    # ---- forgetting: teachmem.forget erases, counts what is left, and compact() clears old versions ----
    def erase(self, pattern: re.Pattern) -> list[Change]:
        """Empty, as ``delete`` does, every memory of this user whose text, earlier texts or labels
        ``pattern`` matches, in one transaction. The pattern is Python's, not the server's regex
        dialect, so every live row of the user is read and matched here: a scan of the user's rows."""
        _require_pattern(pattern)
        with self.conn.transaction():
            self._lock()
            hits = [(seq, text) for seq, text, edits, labels in self.conn.execute(HELD).fetchall()
                    if _matching(pattern, [text, *edits, labels])]
            for seq, _ in hits:
                self.conn.execute(TOMBSTONE, [seq])
        self.old_versions += len(hits)
        return [Change("DELETE", f"s{seq}", text, reason="forgotten") for seq, text in hits]

    def copies_held(self, pattern: re.Pattern) -> int:
        """Strings of this user's rows that ``pattern`` matches (texts, earlier texts, labels), plus
        one for each row ``erase`` emptied since ``compact()`` (whatever pattern it erased):
        PostgreSQL keeps a row's old version in the table's and the index's pages until ``VACUUM
        FULL`` rewrites them. Rows emptied by another process are not counted here."""
        _require_pattern(pattern)
        held = self.conn.execute(HELD).fetchall()
        return sum(_matching(pattern, [text, *edits, labels]) for _, text, edits, labels in held) + (
            self.old_versions)

    def compact(self) -> None:
        """Rewrite the table and its indexes with live row versions only (``VACUUM FULL``, then
        ``REINDEX``), as the table's owner. It locks the table for every user while it runs: seconds
        at 100k rows, minutes at a million (SECURITY.md). Staged memories are folded into the index first."""
        self.fold()
        self.conn.execute("RESET ROLE")
        try:
            self.conn.execute("VACUUM (FULL, ANALYZE) memories")
            self.conn.execute("REINDEX TABLE memories")
        finally:
            enter_as_user(self.conn, self.user_id)
        self.old_versions = 0

    def history(self, id_or_fact: str, user_id: str | None = None) -> list[tuple[str, bool]]:
        """``(text, live?)`` oldest first: what memory ``id`` said and what replaced it, or every fact under a key."""
        require_storable("id_or_fact", require_text("id_or_fact", id_or_fact))
        if user_id is not None and user_id != self.user_id:
            raise ValueError(f"user_id must be None or this store's user {self.user_id!r}, got {user_id!r}")
        if ID.fullmatch(id_or_fact):
            seqs = [self.row(id_or_fact)]
            while (after := self._value("SELECT replaced_by FROM memories WHERE seq = %s", [seqs[-1]])) is not None:
                seqs.append(after)
            rows: list[Any] = [self.conn.execute("SELECT edits, text, retired FROM memories WHERE seq = %s",
                                                 [s]).fetchone() for s in seqs]
        else:
            rows = self.conn.execute("SELECT edits, text, retired FROM memories WHERE fact_key = %s ORDER BY filed",
                                     [fact_key(id_or_fact)]).fetchall()
        return [entry for edits, text, retired in rows for entry in [(t, False) for t in edits]
                + [(text, retired is None)]]

    def explain(self, query: str, top_k: int = 3, now: datetime | None = None, **filters) -> list[dict]:
        """The best ``top_k`` live memories with every part of their scores (``id`` included). Records no recall.

        A ``top_k`` (or ``candidates``) above PostgreSQL's largest bigint (2**63 - 1, more rows than a table can
        hold) is clamped to it, not refused: as in the in-memory store, a ``top_k`` beyond the number of memories
        means all of them."""
        require_storable("query", require_text("query", query))
        require_positive_int("top_k", top_k)
        listed = {k: list(v) if isinstance(v, (tuple, set, frozenset)) else v for k, v in filters.items()}
        for key, value in require_labels(listed, True).items():
            require_storable(f"filter key {key!r}", key)
            require_storable(f"filter {key!r}", value)
        k = min(top_k, MOST_ROWS)          # a larger top_k, as in memory, means every memory
        vector, first = self.embedder.embed([query])[0], min(max(self.candidates, k), MOST_ROWS)
        if self.scoring == "time_aware":
            search_list(self.conn, first)
            hits = time_aware_ranked(self.conn, vector, k=k, now=self.now(now), filters=filters, exact=self.exact,
                                     first=first, same=near_copy(self.embedder))
            return [{"id": f"s{h['seq']}", **h} for h in hits]
        hits = ranked(self.conn, vector, k=k, now=self.now(now), decay_rate=self.decay_rate, candidates=first,
                      filters=filters, exact=self.exact)
        return [{"id": f"s{h['seq']}", **h} for h in hits]

    def retrieve(self, query: str, top_k: int = 3, now: datetime | None = None, **filters) -> list[tuple]:
        """``(score, text, memory_type)`` best first. Each returned memory counts as recalled."""
        hits = self.explain(query, top_k, now, **filters)
        record_recall(self.conn, [h["seq"] for h in hits], self.now(now))
        return [(h["score"], h["text"], h["memory_type"]) for h in hits]

    def context(self, query: str | None = None) -> list[dict]:
        """The memories most relevant to ``query`` as one system message of quoted data."""
        if query is None or not require_storable("query", require_text("query", query, allow_empty=True)).strip() \
                or not len(self):
            return []
        # The query is the message just added: skip its echo ("user: <query>"), the prompt already holds it.
        echoes = self._value("SELECT count(*) FROM memories WHERE position(': ' IN text) > 0 "
                             "AND substr(text, position(': ' IN text) + 2) = %s", [query])
        hits = [h for h in self.explain(query, self.context_top_k + echoes)
                if h["text"].partition(": ")[2] != query][:self.context_top_k]
        record_recall(self.conn, [h["seq"] for h in hits], self.now())
        return [{"role": "system", "content": fenced("Relevant memories", [quote(h["text"]) for h in hits])}] \
            if hits else []

    def plan(self, query: str = "what does the user like?") -> list[str]:
        """The plan (``EXPLAIN``, no costs) of a retrieval's first statement, under the store's scoring."""
        return explain_plan(self.conn, self.embedder.embed([require_text("query", query)])[0],
                            candidates=self.candidates, statement=WALK if self.scoring == "time_aware" else RANKED)


def _require_pattern(pattern: object) -> None:
    if not isinstance(pattern, re.Pattern):
        raise TypeError(f"pattern must be a compiled re.Pattern, got {type(pattern).__name__}")


def _matching(pattern: re.Pattern, values: list) -> int:
    """How many of ``values`` (texts, or JSON labels: their strings) ``pattern`` matches."""
    strings = [v for v in values if isinstance(v, str)]
    strings += [str(v) for labels in values if isinstance(labels, dict) for v in labels.values()]
    return sum(1 for text in strings if pattern.search(text) or pattern.search(" ".join(text.split())))
