"""What keeps a semantic store useful and accountable over time: merging near-duplicates and
pruning what nobody recalls (notebook 05b); reading, editing, deleting and erasing a memory by
its id, and where each memory came from (notebook 09).

``SemanticMemoryStore`` (in ``teachmem.memory.semantic``, the core notebook 05 builds) inherits
these methods; they read the rows, texts and keys that store keeps.

Notebooks 05b (upkeep) and 09 (governance) call these methods on a ``SemanticMemoryStore``.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from datetime import datetime

import numpy as np

from teachmem.core.change import Change
from teachmem.core.subword import Embedded
from teachmem.core.validate import (require_datetime, require_fraction, require_positive_int,
                                    require_text)
from teachmem.core.vectors import MemoryTable, near_duplicate_groups, require_items, require_labels
from teachmem.memory.semantic_scores import DAY_US, epoch_us

MEMORY_ID = r"s(0|[1-9]\d*)"      # "s" and the row: s0, s1, …


def storable(text, memory_type="general", importance=0.5, timestamp=None, **metadata) -> dict:
    """``store``'s arguments, refused as ``store`` refuses them, else as a dict of them."""
    require_text("text", text)
    require_text("memory_type", memory_type)
    require_fraction("importance", importance)
    require_datetime("timestamp", timestamp)
    require_labels(metadata)
    return {"text": text, "memory_type": memory_type, "importance": importance,
            "timestamp": timestamp, **metadata}


class SemanticUpkeep:
    """Merging, pruning, edits, deletion, erasure and provenance for ``SemanticMemoryStore``."""

    # What SemanticMemoryStore sets up and these methods use (declared for the type checker).
    table: MemoryTable
    embedder: Any
    texts: list[str]
    types: list[str]
    metadata: list[dict]
    keys: dict[tuple, list[int]]
    retired: dict[int, str]
    replaced: dict[int, int]
    threads: dict[tuple, int]
    edits: dict[int, list[str]]
    now: Callable[..., datetime]
    _retire: Callable[[int, str], Change]
    store: Callable[..., list[Change]]

    # ---- 05: many memories in one call ----
    def store_many(self, items: list[dict]) -> list[Change]:
        """``store(**item)`` for each of ``items`` in order: the same Changes and rows as one
        call at a time. Every item is checked before the first is stored: a refused batch
        stores nothing. The texts are embedded in one call."""
        items = require_items(items, storable)
        embedder = self.embedder
        self.embedder = Embedded(embedder, [item["text"] for item in items])
        try:
            return [change for item in items for change in self.store(**item)]
        finally:
            self.embedder = embedder

    # ---- 05b: merging and pruning ----
    def consolidate(self, threshold: float = 0.9) -> list[Change]:
        """Merge live near-duplicates (cosine >= ``threshold``; same user and type, not facts)
        into the newest copy, which takes the highest importance, the total recalls and
        ``merged_from``: a DELETE for each copy, an UPDATE of the one kept."""
        require_fraction("threshold", threshold)
        table = self.table
        group_of: dict[tuple, int] = {}     # only memories of one (user, memory type) are compared
        groups = []
        for labels, memory_type in zip(self.metadata, self.types, strict=True):
            user_type = (labels.get("user_id"), memory_type)
            groups.append(group_of.setdefault(user_type, len(group_of)))
        not_fact = np.array(self.types, dtype=object) != "fact"
        rows = np.flatnonzero(table["live"] & not_fact)
        changes = []
        for cluster in near_duplicate_groups(table.matrix, rows, np.array(groups), threshold):
            keep = cluster[-1]
            merged = cluster[:-1]
            taken = [f"s{row}" for row in merged]
            self.replaced.update(dict.fromkeys(merged, keep))
            changes += [self._retire(row, f"merged into s{keep}") for row in merged]
            table["importance"][keep] = table["importance"][cluster].max()
            table["recalls"][keep] = table["recalls"][cluster].sum()
            self.metadata[keep]["merged_from"] = self.metadata[keep].get("merged_from", []) + taken
            reason = (f"took in {', '.join(taken)}: importance {table['importance'][keep]:.2f}, "
                      f"{table['recalls'][keep]} recalls")
            changes.append(Change("UPDATE", f"s{keep}", self.texts[keep], reason=reason))
        return changes

    def prune(self, max_age_days: int = 90, now: datetime | None = None) -> list[Change]:
        """Retire live memories older than ``max_age_days`` that were never recalled."""
        require_positive_int("max_age_days", max_age_days)
        now_us = epoch_us(self.now(now))
        table = self.table
        old = now_us - table["created"] > max_age_days * DAY_US
        stale = np.flatnonzero(table["live"] & (table["recalls"] == 0) & old)
        return [self._retire(row, "pruned: stale and never recalled") for row in stale.tolist()]

    # ---- 09: ids, edits, erasure and provenance ----
    def row(self, id: str) -> int:
        """The row of memory ``id`` ("s3" -> 3); an unknown id is a KeyError naming it."""
        if not re.fullmatch(MEMORY_ID, require_text("id", id)) or int(id[1:]) >= len(self.texts):
            raise KeyError(f"no memory with id {id!r}")
        return int(id[1:])

    def get(self, id: str) -> dict:
        """Memory ``id``: its text, type, importance, metadata, and why it is retired if it is."""
        row = self.row(id)
        return {"id": id, "text": self.texts[row], "memory_type": self.types[row],
                "metadata": dict(self.metadata[row]),
                "importance": float(self.table["importance"][row]),
                "retired": self.retired.get(row)}

    def delete(self, id: str) -> list[Change]:
        """Remove memory ``id`` for good (text, vector, labels); a NOOP if it is gone."""
        row = self.row(id)
        if not self.texts[row]:
            return [Change("NOOP", id, "", reason="already deleted")]
        return self._remove([row], "deleted", [self.texts[row]])

    def erase(self, pattern: re.Pattern) -> list[Change]:
        """Remove every memory whose text, old text or metadata ``pattern`` matches; its row
        stays as an empty tombstone."""
        if not isinstance(pattern, re.Pattern):
            raise TypeError(f"pattern must be a compiled re.Pattern, got {type(pattern).__name__}")
        rows = []
        for row, text in enumerate(self.texts):
            if not text:
                continue                              # already removed
            said = [text, *self.edits.get(row, []), *map(str, self.metadata[row].values())]
            if any(map(pattern.search, said)):
                rows.append(row)
        texts = [pattern.sub("[forgotten]", self.texts[row]) for row in rows]
        return self._remove(rows, "forgotten", texts, keep_key=lambda key: not pattern.search(key))

    def _remove(self, rows: list[int], why: str, texts: list[str],
                keep_key=lambda key: True) -> list[Change]:
        """Empty ``rows`` for good: text, old texts, labels and vector go; each row stays."""
        changes = []
        for row, text in zip(rows, texts, strict=True):
            changes.append(Change("DELETE", f"s{row}", text, reason=why))
        for row in rows:
            if row not in self.retired:
                self._retire(row, why)
            self.texts[row] = ""
            self.retired[row] = why
            self.metadata[row] = {"timestamp": self.metadata[row]["timestamp"], why: True}
            self.edits.pop(row, None)
            self.table.set_vector(row, np.zeros(self.table.dim, dtype=np.float32))
            self.table.clear_labels(row)
        kept = {}
        for user_key, old_rows in self.keys.items():
            live_rows = [r for r in old_rows if self.texts[r]]
            if keep_key(user_key[1]) and live_rows:
                kept[user_key] = live_rows
        self.keys = kept
        self.threads = {thread: r for thread, r in self.threads.items() if self.texts[r]}
        if changes and callable(getattr(self.embedder, "clear_cache", None)):
            self.embedder.clear_cache()        # a hashing embedder's cache holds the words it saw
        return changes

    def provenance(self) -> list[dict]:
        """Every memory held (retired ones as history): id, type, text, turn, timestamp,
        confidence."""
        held = []
        memories = zip(self.texts, self.types, self.metadata, strict=True)
        for row, (text, kind, labels) in enumerate(memories):
            if not text:
                continue
            default_confidence = 1.0 if kind == "message" else None
            held.append({"id": f"s{row}", "text": text,
                         "memory_type": kind if row not in self.retired else f"{kind} (history)",
                         "turn": labels.get("turn", labels.get("source_turn")),
                         "timestamp": labels["timestamp"],
                         "confidence": labels.get("confidence", default_confidence)})
        return held
