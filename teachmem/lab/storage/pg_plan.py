"""Query plans on PostgreSQL + pgvector, read for their shape (notebook 10).

``plan_shape`` keeps a plan's operations and the conditions an index or a filter applies;
``plan_nodes`` names the operations of a query's plan; ``run_on_indexed_vectors`` builds a
temporary table of vectors with an HNSW cosine index and runs a query on it, plan and rows.
"""
from __future__ import annotations

import numpy as np

try:
    from pgvector.psycopg import register_vector
except ImportError:
    register_vector = None      # type: ignore[assignment]


def plan_shape(lines: list[str], width: int | None = 100) -> str:
    """A plan's operations and the conditions an index or a filter applies, without the details
    (sort keys, window clauses) whose long expressions hide its shape. A condition longer than
    ``width`` goes on to a second line at its last `` AND `` that fits (None: never)."""
    kept = [line for line in lines
            if ":" not in line or line.strip().startswith(("Index Cond", "Filter"))]
    return "\n".join(_fitted(line, width) for line in kept)


def _fitted(line: str, width: int | None) -> str:
    cut = line.rfind(" AND ", 0, width) if width is not None and len(line) > width else -1
    if cut < 0:
        return line
    indent = line.index(":") + 3             # under the condition, after "Filter: ("
    return line[:cut + 4] + "\n" + " " * indent + line[cut + 5:]


def plan_nodes(conn, query: str, params: dict) -> list[str]:
    """The operations of ``query``'s plan (``Index Scan using …``, ``Sort``…), no costs."""
    plan = conn.execute("EXPLAIN (COSTS OFF) " + query, params)
    shape = plan_shape([line[0] for line in plan], None)
    nodes = [line for line in shape.splitlines() if ":" not in line]
    return [line.strip().removeprefix("->").strip() for line in nodes]


def clustered_vectors(count: int, questions: int, dim: int) -> tuple[np.ndarray, np.ndarray]:
    """``count`` unit vectors near six directions, and ``questions`` unit vectors near the first
    of them (always the same: the random generator starts from 10)."""
    rng = np.random.default_rng(10)
    centres = rng.normal(size=(6, dim))
    items = centres[rng.integers(0, 6, count)] + 0.4 * rng.normal(size=(count, dim))
    asked = centres[:questions] + 0.4 * rng.normal(size=(questions, dim))
    unit = [v / np.linalg.norm(v, axis=1, keepdims=True) for v in (items, asked)]
    return unit[0], unit[1]


def run_on_indexed_vectors(conn, query: str, items: np.ndarray,
                           questions: np.ndarray) -> tuple[list[str], list[list]]:
    """On ``conn``, a temporary table ``items(id, embedding)`` of ``items`` with an HNSW cosine
    index, and sequential scans made to look costly; then ``query``'s plan (``plan_nodes``, with
    ``%(query)s`` the first question) and its rows' first column for each question."""
    conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    register_vector(conn)
    dim = items.shape[1]
    conn.execute(f"CREATE TEMP TABLE items (id integer PRIMARY KEY, embedding vector({dim}))")
    with conn.cursor() as cursor:
        rows = list(enumerate(items.astype(np.float32)))
        cursor.executemany("INSERT INTO items VALUES (%s, %s)", rows)
    conn.execute("CREATE INDEX ON items USING hnsw (embedding vector_cosine_ops)")
    conn.execute("ANALYZE items")
    conn.execute("SET enable_seqscan = off")     # the index wins wherever it fits
    nodes = plan_nodes(conn, query, {"query": questions[0].astype(np.float32)})
    found = [[row[0] for row in conn.execute(query, {"query": q.astype(np.float32)}).fetchall()]
             for q in questions]
    return nodes, found
