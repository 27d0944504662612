"""``PgMemoryStore.store_many``'s parts: the batch checked, filed as one-at-a-time writes would file it, and
written in two statements under row-level security.

``COPY … FROM`` cannot write a table whose row-level security is forced, as ``memories``'s is: the rows are
copied (binary) into a temporary table of the session's own, then moved by one ``INSERT … SELECT``, which the
policy's WITH CHECK clause holds to the connection's user like any other insert.

Under the time-aware ranking the vectors go into the ``staged`` column, outside the HNSW index (which skips a
NULL ``embedding``): inserting into the graph costs milliseconds a row, most of a batch's time with the index
live. A retrieval reads the staged memories exactly, beside the index's walk (``teachmem.lab.storage.
pg_time_aware``), and ``PgMemoryStore.fold()`` moves them into ``embedding``, the index taking them then. Under
``scoring="product"``, whose SQL reads ``embedding`` only, they go straight into it (``MOVE_INDEXED``).
"""
from __future__ import annotations

import struct

import numpy as np

from teachmem.core.change import Change

try:
    from psycopg.types.json import Jsonb
except ImportError:
    Jsonb = None      # type: ignore[assignment,misc]

# Each key's newest filed memory (live or not): what one store() at a time would compare a new fact with.
NEWEST_FILED = ("SELECT DISTINCT ON (fact_key) fact_key, seq, text, retired FROM memories "
                "WHERE fact_key = ANY(%s) ORDER BY fact_key, filed DESC")
BATCH_TABLE = """CREATE TEMP TABLE batch_memories (seq integer, text text, memory_type text,
    embedding vector({dim}), importance float8, created timestamp, fact_key text, retired text,
    replaced_by integer, metadata jsonb) ON COMMIT DROP"""
BATCH_COLUMNS = ("seq", "text", "memory_type", "embedding", "importance", "created", "fact_key", "retired",
                 "replaced_by", "metadata")
# The vector goes as the bytes of pgvector's binary form (``packed``): binary COPY carries no type, the server reads
# the field as the temporary table's column, and no Vector object is made per row.
BATCH_TYPES = ("integer", "text", "text", "bytea", "float8", "timestamp", "text", "text", "integer", "jsonb")
MOVE = """INSERT INTO memories (user_id, seq, text, memory_type, staged, importance, created, accessed,
    fact_key, retired, replaced_by, metadata)
SELECT current_setting('app.user_id'), seq, text, memory_type, embedding, importance, created, created,
    fact_key, retired, replaced_by, metadata
FROM batch_memories ORDER BY seq"""       # in seq order: each row's ``filed`` follows it, as one at a time
MOVE_INDEXED = MOVE.replace(" staged,", " embedding,", 1)
RETIRE_HELD = """UPDATE memories SET retired = 'replaced by s' || r.new, replaced_by = r.new
FROM unnest(%s::integer[], %s::integer[]) AS r(old, new) WHERE seq = r.old"""


def file_batch(rows: list[dict], vectors, first: int,
               newest: dict[str, tuple]) -> tuple[list[Change], list[dict], dict[int, int]]:
    """File ``rows`` (with their ``vectors``) as ``store`` would, one after the other, from seq ``first``:
    ``newest`` maps each fact key to its newest filed memory held (seq, text, retired) and is kept up to date.
    Returns the Changes, the rows to insert (seq, embedding, retired and replaced_by set) and, for each memory
    held before the batch that a fact of it replaces, the seq that replaces it."""
    changes: list[Change] = []
    kept: dict[int, dict] = {}
    replaced: dict[int, int] = {}
    seq = first
    for row, vector in zip(rows, vectors, strict=True):
        key, text = row["fact_key"], row["text"]
        old = newest.get(key) if key is not None else None
        if old is not None and old[2] is not None:      # its key's newest memory is retired: none live
            old = None
        if old is not None and old[1].lower().split() == text.lower().split():
            changes.append(Change("NOOP", f"s{old[0]}", text, reason="already stored"))
            continue
        kept[seq] = {**row, "seq": seq, "embedding": vector, "retired": None, "replaced_by": None}
        changes.append(Change("ADD", f"s{seq}", text, reason=f"new {row['memory_type']}"))
        if old is not None:
            why = f"replaced by s{seq}"
            changes.append(Change("DELETE", f"s{old[0]}", old[1], reason=why))
            if old[0] >= first:
                kept[old[0]].update(retired=why, replaced_by=seq)
            else:
                replaced[old[0]] = seq
        if key is not None:
            newest[key] = (seq, text, None)
        seq += 1
    return changes, list(kept.values()), replaced


def insert_batch(conn, rows: list[dict], dim: int, staged: bool = True) -> None:
    """``rows`` into ``memories``: binary COPY into a temporary table, then one INSERT … SELECT (under the
    policy), each vector ``staged`` (outside the index) or not."""
    if not rows:
        return
    conn.execute(BATCH_TABLE.format(dim=int(dim)))
    with conn.cursor() as cursor, cursor.copy("COPY batch_memories FROM STDIN (FORMAT BINARY)") as copy:
        copy.set_types(BATCH_TYPES)
        for row, vector in zip(rows, packed([row["embedding"] for row in rows], dim), strict=True):
            copy.write_row([Jsonb(row[c]) if c == "metadata" else vector if c == "embedding" else row[c]
                            for c in BATCH_COLUMNS])
    conn.execute(MOVE if staged else MOVE_INDEXED)


def packed(vectors, dim: int) -> list[bytes]:
    """Each vector in pgvector's binary form: its dimension and a 0 (two big-endian int16), then its numbers as
    big-endian float32."""
    header = struct.pack(">HH", dim, 0)
    return [header + row.tobytes() for row in np.asarray(vectors, dtype=">f4").reshape(-1, dim)]


def retire_held(conn, replaced: dict[int, int]) -> None:
    """Retire each memory held before the batch that a fact of it replaced (``replaced``: old seq -> new)."""
    if replaced:
        conn.execute(RETIRE_HELD, [list(replaced), list(replaced.values())])
