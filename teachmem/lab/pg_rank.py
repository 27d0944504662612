"""The SQL a ``PgMemoryStore`` retrieval runs: the index's nearest candidates, then relevance × importance × decay.

The HNSW index (cosine) hands over the ``candidates`` memories nearest the query; the database scores each one
(relevance = the cosine, 0 if negative; importance; ``decay_rate`` ** whole days old) and returns the best ``k``,
ties broken by id (older first), as the in-memory ``SemanticMemoryStore`` does with ``lexical_weight=0`` and
``reply_weight=0``. A memory far from the query can still win on importance and recency, so ``ranked`` checks a
bound and widens the candidates when one might. Row-level security adds the user's condition to every query.
"""
from __future__ import annotations

import re
from datetime import datetime, timedelta

try:
    from psycopg import sql
    from psycopg.types.json import Jsonb
except ImportError:
    sql = None        # type: ignore[assignment]
    Jsonb = None      # type: ignore[assignment,misc]

RANKED = """
WITH candidates AS MATERIALIZED (
    SELECT seq, text, memory_type, importance, created, embedding <=> %(query)s AS distance
    FROM memories
    WHERE retired IS NULL {filters}
    ORDER BY embedding <=> %(query)s
    LIMIT %(candidates)s
), scored AS (
    SELECT *, greatest(1 - distance, 0) AS relevance,
           power(%(decay_rate)s::float8,
                 greatest(floor(extract(epoch FROM %(now)s::timestamp - created) / 86400), 0)::float8) AS decay
    FROM candidates
)
SELECT seq, text, memory_type, 1 - distance AS cosine, relevance, importance, decay,
       relevance * importance * decay AS score,
       min(relevance) OVER () AS floor, count(*) OVER () AS found     -- over every candidate
FROM scored
ORDER BY score DESC, seq
LIMIT %(k)s
"""

# What importance × decay a live memory can reach at most: the highest importance times the newest one's decay.
# A memory outside the candidates scores at most their lowest relevance times that.
WEIGHT = """
SELECT max(importance), max(created) FROM memories WHERE retired IS NULL {filters}
"""

VECTOR_LITERAL = re.compile(r"'\[[^\]]*\]'::vector")    # the query's 256 numbers, shown as $query
COLUMNS = ("seq", "text", "memory_type", "cosine", "relevance", "importance", "decay", "score")


def filter_clause(filters: dict):
    """``AND …`` for each ``key=value`` (a list, tuple or set means any of): ``memory_type`` is a column,
    every other key a label in ``metadata``. Returns the SQL fragment and its parameters."""
    parts, params = [], list[list]()
    for key, wanted in filters.items():
        options = list(wanted) if isinstance(wanted, (list, tuple, set, frozenset)) else [wanted]
        if key == "memory_type":
            parts.append(sql.SQL(" AND memory_type = ANY({})").format(sql.Placeholder(f"f{len(params)}")))
            params.append([str(v) for v in options])
        else:
            parts.append(sql.SQL(" AND metadata -> {} = ANY({}::jsonb[])").format(
                sql.Literal(key), sql.Placeholder(f"f{len(params)}")))
            params.append([Jsonb(v) for v in options])
    return sql.Composed(parts), {f"f{i}": p for i, p in enumerate(params)}


def ranked(conn, query_vector, *, k: int, now: datetime, decay_rate: float, candidates: int,
           filters: dict) -> list[dict]:
    """The best ``k`` live memories for ``query_vector`` with every part of their score, best first.

    Exact whenever the index is: if the k-th score is below what a memory outside the candidates could still
    score (their lowest relevance × the highest importance × the newest memory's decay), it asks again with four
    times as many candidates, until that cannot happen or every live memory was a candidate.
    """
    where, params = filter_clause(filters)
    params.update(query=query_vector, k=k, now=now, decay_rate=decay_rate)
    statement, weight = sql.SQL(RANKED).format(filters=where), None
    while True:       # the index's search list as long as the candidates asked for (pgvector's limit: 1000)
        conn.execute("SELECT set_config('hnsw.ef_search', %s, false)", [str(min(max(candidates, 40), 1000))])
        rows = conn.execute(statement, {**params, "candidates": candidates}).fetchall()
        hits = [dict(zip(COLUMNS, row[:len(COLUMNS)], strict=True)) for row in rows]
        if not rows or rows[0][-1] < candidates:          # fewer than asked: every live memory was a candidate
            return hits
        if weight is None:
            weight = most_weight(conn.execute(sql.SQL(WEIGHT).format(filters=where), params).fetchone(), now,
                                 decay_rate)
        if len(hits) == k and hits[-1]["score"] >= rows[0][-2] * weight:
            return hits
        candidates *= 4


def most_weight(row, now: datetime, decay_rate: float) -> float:
    """importance × decay_rate ** whole days, at most, from (highest importance, newest creation time)."""
    importance, newest = row
    return float(importance) * decay_rate ** max((now - newest) // timedelta(days=1), 0)


def record_recall(conn, seqs: list[int], now: datetime) -> None:
    """Each returned memory counts as recalled: its last access is ``now`` and its recall count grows by one."""
    if seqs:
        conn.execute("UPDATE memories SET accessed = %s, recalls = recalls + 1 WHERE seq = ANY(%s)", [now, seqs])


def explain_plan(conn, query_vector, *, k: int = 3, candidates: int = 100) -> list[str]:
    """The plan's node names (``Index Scan using memories_embedding``, ``Seq Scan``…), without costs."""
    statement = sql.SQL("EXPLAIN (COSTS OFF) " + RANKED).format(filters=sql.SQL(""))
    lines = conn.execute(statement, {"query": query_vector, "candidates": candidates, "k": k,
                                     "now": datetime(2000, 1, 1), "decay_rate": 1.0}).fetchall()
    return [VECTOR_LITERAL.sub("$query", line[0]) for line in lines]
