"""The SQL a ``PgMemoryStore`` retrieval runs: the index's nearest candidates, then an exact check.

The score is relevance × importance × decay: relevance = the cosine (0 if negative), importance in [0, 1], decay =
``decay_rate`` ** whole days old, at most 1 (an importance or a decay below ``TINY`` counts as 0). Ties are broken
by id (older first), as the in-memory ``SemanticMemoryStore`` does with ``lexical_weight=0`` and
``reply_weight=0``. Row-level security adds the user's condition to every query.

1. ``RANKED``: the HNSW index (cosine) hands over the ``candidates`` memories it finds nearest the query and the
   database scores them. Their k-th best score ``s`` is a lower bound on the true k-th best, but the index is
   approximate (pgvector's HNSW misses true nearest neighbours: recall@5 0.93 at 100k real sentences with its
   default search list of 40), so these are not yet the answer.
2. ``BOUNDED``: every memory that can still reach ``s`` is scored exactly. As relevance, importance and decay
   are each at most 1, such a memory has importance >= ``s`` and decay >= ``s`` (so it is at most
   log(s) / log(decay_rate) days old) and relevance >= ``s``. The first two conditions are a range on the
   ``memories_recent`` index (user_id, created, importance); of what they leave, the database computes the
   distance only where importance × decay reaches ``s``, and keeps the best ``k``. The true top k all score at least ``s``, so they are all among those rows: the answer is the
   in-memory store's, whatever the index missed. How much is scanned depends on ``s``: a query that matches
   recent, important memories well reads a few rows; one that matches nothing reads every memory (an exact scan).
"""
from __future__ import annotations

import heapq
import math
import re
from datetime import datetime, timedelta

try:
    from psycopg import sql
    from psycopg.types.json import Jsonb
except ImportError:
    sql = None        # type: ignore[assignment]
    Jsonb = None      # type: ignore[assignment,misc]

SCORED = """
WITH candidates AS @HOW@ (
    SELECT seq, text, memory_type, importance, created,
           -- a query of no known word is a zero vector: NaN distance, read as no match
           coalesce(nullif(embedding <=> %(query)s, 'NaN'), 1) AS distance,
           greatest(floor(
               extract(epoch FROM %(now)s::timestamp - created) / 86400), 0)::float8 AS days
    FROM memories
    WHERE retired IS NULL {filters}@CHOICE@
), scored AS (
    -- an importance or a decay below 1e-100 counts as 0 (PostgreSQL refuses an underflow)
    SELECT *, greatest(1 - distance, 0) AS relevance,
           CASE WHEN days * ln(%(decay_rate)s::float8) < ln(%(tiny)s::float8) THEN 0
                ELSE power(%(decay_rate)s::float8, days) END AS decay,
           CASE WHEN importance < %(tiny)s THEN 0 ELSE importance END AS weight
    FROM candidates
)
SELECT seq, text, memory_type, 1 - distance AS cosine, relevance, importance, decay,
       relevance * weight * decay AS score
FROM scored@KEEP@
ORDER BY score DESC, seq
LIMIT %(k)s
"""


def scored(how: str, choice: str, keep: str) -> str:
    """``SCORED`` with the candidates' CTE ``how`` (materialized or not), ``choice`` ending their WHERE clause and
    ``keep`` filtering the scored rows."""
    return SCORED.replace("@HOW@", how).replace("@CHOICE@", choice).replace("@KEEP@", keep)


# The candidates: the nearest the index finds.
RANKED = scored("MATERIALIZED", """
    ORDER BY embedding <=> %(query)s
    LIMIT %(candidates)s""", "")
# Every live memory that could score at least the candidates' k-th best (see the module's docstring); not
# materialized, so that PostgreSQL computes a distance only for the rows whose importance × decay reach it.
BOUNDED = scored("NOT MATERIALIZED", """
      AND importance >= %(least)s AND created > %(since)s""", """
WHERE weight * decay >= %(least)s""")

# exact=False: at most ``candidates`` memories in the index's order (strict: nearest first), walked until no
# further one can reach the k-th best score found so far (relevance bounds the score); then scored as in RANKED.
WALK = """SELECT seq, embedding <=> %(query)s AS distance, importance,
       greatest(floor(extract(epoch FROM %(now)s::timestamp - created) / 86400), 0)::float8 AS days
FROM memories
WHERE retired IS NULL {filters}
ORDER BY embedding <=> %(query)s
LIMIT %(most)s"""
WALKED = scored("MATERIALIZED", """
      AND seq = ANY(%(seqs)s)""", "")
WALK_CHUNK = 100            # rows fetched at a time while walking

# PostgreSQL refuses a float8 result that underflows to 0 ("value out of range: underflow"), where numpy gives
# 0: a memory ~38 years old (0.95 ** 13870 days) or of importance 1e-320 failed every retrieval. An importance or a
# decay below TINY counts as 0, so no power or product underflows (relevance is 0 or above 1e-16): such a
# memory scores 0, below every memory whose score is above 1e-100 (as in memory, where its score is below that).
TINY = 1e-100
SLACK = 1e-6          # the bound is loosened by this much: rounding never drops a memory that ties
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
           filters: dict, exact: bool = True) -> list[dict]:
    """The best ``k`` live memories for ``query_vector`` with every part of their score, best first: exactly the
    in-memory store's, whatever the index misses (the index's candidates give a bound, ``BOUNDED`` checks it).
    With ``exact`` False, the best ``k`` of the index's candidates alone (``RANKED``; no check)."""
    where, params = filter_clause(filters)
    params.update(query=query_vector, k=k, now=now, decay_rate=decay_rate, tiny=TINY)
    search_list(conn, candidates)
    if not exact and any(query_vector):
        params.update(seqs=walked(conn, where, {**params, "most": candidates}))
        return [dict(zip(COLUMNS, row, strict=True)) for row in
                conn.execute(sql.SQL(WALKED).format(filters=where), params).fetchall()]
    found = conn.execute(sql.SQL(RANKED).format(filters=where), {**params, "candidates": candidates}).fetchall()
    least = found[-1][-1] * (1 - SLACK) if len(found) == k else 0.0
    params.update(least=least, since=oldest_reaching(least, now, decay_rate))
    rows = conn.execute(sql.SQL(BOUNDED).format(filters=where), params).fetchall()
    return [dict(zip(COLUMNS, row, strict=True)) for row in rows]


def search_list(conn, candidates: int) -> None:
    """The index's search list (``hnsw.ef_search``) as long as the candidates asked for, from pgvector's default
    40 to its limit 1000."""
    conn.execute("SELECT set_config('hnsw.ef_search', %s, false)", [str(min(max(candidates, 40), 1000))])


def walked(conn, where, params: dict) -> list[int]:
    """The seqs the index hands over nearest first (pgvector's iterative scan, strict order) until the next one's
    relevance is below the k-th best score among those before it (no memory further on can beat them, whatever its
    importance or age: each at most 1), or ``params["most"]`` have come. Exact as far as the index finds the
    nearest memories, when the bound stops the walk before that limit."""
    k, rate, tiny = params["k"], params["decay_rate"], params["tiny"]
    seqs: list[int] = []
    best: list[float] = []             # the k best scores so far, a min-heap
    with conn.transaction():
        conn.execute("SET LOCAL hnsw.iterative_scan = strict_order")
        with conn.cursor(name="walk") as cursor:
            cursor.execute(sql.SQL(WALK).format(filters=where), params)
            while rows := cursor.fetchmany(WALK_CHUNK):
                for seq, distance, importance, days in rows:
                    relevance = max(1.0 - distance, 0.0)
                    if len(best) == k and relevance < best[0] * (1 - SLACK):
                        return seqs
                    decay = 0.0 if days * math.log(rate) < math.log(tiny) else rate ** days
                    score = relevance * (importance if importance >= tiny else 0.0) * decay
                    if len(best) < k:
                        heapq.heappush(best, score)
                    else:
                        heapq.heappushpop(best, score)
                    seqs.append(seq)
    return seqs


def oldest_reaching(least: float, now: datetime, decay_rate: float) -> datetime:
    """A creation time before which a memory's decay (``decay_rate`` ** whole days old) is below ``least``,
    with a day to spare; ``datetime.min`` when every age can reach it (``least`` 0, or no decay)."""
    if least <= 0 or decay_rate >= 1:
        return datetime.min
    days = math.floor(math.log(least) / math.log(decay_rate)) + 2
    return now - timedelta(days=days) if days < (now - datetime.min).days else datetime.min


def record_recall(conn, seqs: list[int], now: datetime) -> None:
    """Each returned memory counts as recalled: its last access is ``now`` and its recall count grows by one."""
    if seqs:
        conn.execute("UPDATE memories SET accessed = %s, recalls = recalls + 1 WHERE seq = ANY(%s)", [now, seqs])


def explain_plan(conn, query_vector, *, candidates: int = 100, statement: str = RANKED) -> list[str]:
    """The plan's node names (``Index Scan using memories_embedding``, ``Seq Scan``…) of ``statement`` (the
    product ranking's, or the time-aware walk's first), without costs, for no filter, ``candidates`` long."""
    explain = sql.SQL("EXPLAIN (COSTS OFF) " + statement).format(filters=sql.SQL(""))
    lines = conn.execute(explain, {"query": query_vector, "candidates": candidates, "most": candidates, "k": 3,
                                   "now": datetime(2000, 1, 1), "decay_rate": 1.0, "tiny": TINY}).fetchall()
    return [VECTOR_LITERAL.sub("$query", line[0]) for line in lines]
