"""Lab equipment: the upkeep of a :class:`~teachmem.memory.semantic.SemanticMemoryStore`.

Over months the same preference gets stored several times in slightly
different words, and moments nobody ever asks about pile up. Both are
retired, never deleted: a retired row stays as history, out of every query.

* :func:`merge_near_duplicates` — ``store.consolidate``: live memories of one
  user and one type whose vectors are near-identical become the newest copy.
* :func:`prune_stale` — ``store.prune``: old memories never recalled go.

Taught in notebooks/05_semantic_memory.ipynb.
"""
from __future__ import annotations

from datetime import datetime

import numpy as np

from teachmem.core.scoring import DAY_US, epoch_us
from teachmem.core.validate import require_datetime, require_fraction, require_positive_int
from teachmem.core.vectors import near_duplicate_groups

__all__ = ["merge_near_duplicates", "prune_stale"]


def merge_near_duplicates(store, threshold: float) -> list[tuple[int, list[int]]]:
    """Merge ``store``'s live near-duplicates (cosine >= ``threshold``) into the newest copy.

    Facts are skipped: their keys already keep one value per attribute. The
    kept copy takes the highest importance (the copies agree it matters), the
    sum of the recalls and a ``merged_from`` list. Returns ``(kept row, merged rows)`` pairs.

    Taught in notebooks/05_semantic_memory.ipynb.
    """
    require_fraction("threshold", threshold)
    t, codes = store.table, {}
    group = np.array([codes.setdefault((m.get("user_id"), k), len(codes))
                      for m, k in zip(store.metadata, store.types)], dtype=np.int64)
    rows = np.flatnonzero(t["live"] & (np.array(store.types, dtype=object) != "fact"))
    merges = []
    for cluster in near_duplicate_groups(t.matrix, rows, group, threshold):
        keep, merged = cluster[-1], cluster[:-1]
        for r in merged:
            store._retire(r, f"merged into #{keep}")
        t["importance"][keep] = t["importance"][cluster].max()
        t["recalls"][keep] = t["recalls"][cluster].sum()
        store.metadata[keep]["merged_from"] = sorted(set(store.metadata[keep].get("merged_from", []) + merged))
        merges.append((keep, merged))
    return merges


def prune_stale(store, max_age_days: int, now: datetime | None) -> list[int]:
    """Retire ``store``'s live memories older than ``max_age_days`` at ``now`` that were never recalled.

    Taught in notebooks/05_semantic_memory.ipynb.
    """
    require_positive_int("max_age_days", max_age_days)
    now_us, t = epoch_us(require_datetime("now", now) or store.clock()), store.table
    stale = np.flatnonzero(t["live"] & (t["recalls"] == 0) & (now_us - t["created"] > max_age_days * DAY_US))
    for r in stale.tolist():
        store._retire(r, "pruned: stale and never recalled")
    return stale.tolist()
