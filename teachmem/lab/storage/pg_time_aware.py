"""``PgMemoryStore``'s default ranking: the in-memory store's time-aware score over the index's nearest memories.

score = relevance × (½ + ½ importance) × recency, as ``teachmem.memory.semantic_scores.time_aware_score``
computes it (this module calls it): of the ``POOL`` best memories by relevance × (½ + ½ importance), one with a
newer near-copy loses up to half its score; every other memory keeps recency 1, however old. Relevance here is
the cosine alone (0 if negative): what ``SemanticMemoryStore()`` adds to it by default is left out (its BM25
blend, ``lexical_weight``; the words neighbouring turns lend, ``neighbour_words``; the relevance a turn shares
with its reply, ``reply_weight``; the latest word, ``latest_word``). The answer is
``SemanticMemoryStore(lexical_weight=0, reply_weight=0, neighbour_words=False, latest_word=False)``'s.

Under that score no memory scores above its relevance (the other two factors are at most 1) and age alone
lowers no score, so a bound prunes well:

1. ``walk``: the HNSW index hands the memories over nearest first (pgvector's iterative scan, relaxed order:
   the store's setting), ``candidates`` of them, each with its distance, importance and age (no vector, no
   text), and as many of the memories ``store_many`` staged outside the index, nearest first (an exact sort
   of those few); the pool's vectors are read and the score computed; twice as many are fetched until the
   last relevance of each stream is below both the pool's last relevance × weight (no memory further on can
   enter the pool) and the k-th best score (none can enter the answer). Exact as far as the index hands memories over truly nearest first; an
   HNSW index misses some (``benchmarks/bench_pg.py`` prints the recall against the exact answer).
2. ``exact=True`` then checks that answer: one scan of the user's memories (every distance computed, no index)
   brings in every memory whose relevance reaches the walk's bound, the score is computed again over them, and,
   if the k-th best score fell below that bound, once more down to it. The answer is then the in-memory store's,
   whatever the index missed, at the price of the scan.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass, field

import numpy as np

from teachmem.lab.storage.pg_rank import SLACK, filter_clause
from teachmem.memory.semantic_scores import time_aware_score

try:
    from psycopg import sql
except ImportError:
    sql = None        # type: ignore[assignment]

POOL = inspect.signature(time_aware_score).parameters["pool"].default   # the in-memory store's, whatever it is
GROWTH = 2                  # each walk fetches this many times the memories of the one before
NEAREST = """SELECT seq, coalesce(nullif(@V@ <=> %(query)b, 'NaN'), 1) AS distance, importance,
       greatest(floor(extract(epoch FROM %(now)s::timestamp - created) / 86400), 0)::int AS days, @STAGED@
FROM memories
WHERE retired IS NULL {filters}"""
ANY_VECTOR = "coalesce(embedding, staged)"       # a memory's vector, indexed or staged


def nearest(vector: str, staged: str = "false") -> str:
    """``NEAREST`` reading ``vector`` (SQL), each row marked ``staged`` (SQL) or not."""
    return NEAREST.replace("@V@", vector).replace("@STAGED@", staged)


# The index's nearest indexed memories, and the nearest staged ones (an exact sort of the few store_many left
# outside the index: ``teachmem.lab.storage.pg_batch``), each stream at most %(most)s long.
WALK = f"""({nearest("embedding")} AND embedding IS NOT NULL
ORDER BY embedding <=> %(query)b
LIMIT %(most)s)
UNION ALL
({nearest("staged", "true")} AND staged IS NOT NULL
ORDER BY staged <=> %(query)b
LIMIT %(most)s)"""
REACHING = nearest(ANY_VECTOR) + f" AND 1 - coalesce(nullif({ANY_VECTOR} <=> %(query)b, 'NaN'), 1) >= %(least)s"
FIRST = nearest(ANY_VECTOR) + "\nORDER BY seq LIMIT %(most)s"        # a query of no known word: every score is 0
VECTORS = f"SELECT seq, {ANY_VECTOR} FROM memories WHERE seq = ANY(%s)"
PARTS = ("cosine", "relevance", "importance", "recency", "score")
TEXTS = "SELECT seq, text, memory_type FROM memories WHERE seq = ANY(%s)"


@dataclass
class Seen:
    """The memories fetched so far (seq -> distance, importance, days) and the vectors of those that were in the
    pool; ``rank`` scores them as the in-memory store would if they were all it held."""
    k: int
    same: float                        # the cosine from which two memories are near-copies: the embedder's
    rows: dict[int, tuple[float, float, int]] = field(default_factory=dict)
    vectors: dict[int, np.ndarray] = field(default_factory=dict)

    def add(self, rows) -> float:
        """Note ``rows`` (seq, distance, importance, days, staged); the last one's relevance (1 if none)."""
        last = 1.0
        for seq, distance, importance, days, _ in rows:
            self.rows[seq] = (float(distance), float(importance), int(days))
            last = max(1.0 - float(distance), 0.0)
        return last

    def rank(self, conn) -> dict:
        """Every part of every fetched memory's score (arrays in seq order), and ``bound``: the least of the
        pool's last relevance × weight and the k-th best score (-1 while either is short of memories)."""
        seqs = np.array(sorted(self.rows), dtype=np.int64)
        if not len(seqs):
            return {name: np.zeros(0) for name in (*PARTS, "seq")} | {"bound": -1.0}
        distance, importance, days = (np.array(c) for c in zip(*(self.rows[s] for s in seqs), strict=True))
        relevance = np.clip(1.0 - distance, 0.0, 1.0)
        matched = relevance * (0.5 + 0.5 * importance)
        order = np.lexsort((seqs, -matched))[:POOL]           # the pool: best first, older first on ties
        wanted = [int(s) for s in seqs[order] if s not in self.vectors]
        if wanted:
            self.vectors.update((s, v.to_numpy()) for s, v in conn.execute(VECTORS, [wanted], binary=True))
        pool = np.sort(order)
        parts = time_aware_score(relevance=relevance[pool], importance=importance[pool],
                                 age_days=days[pool].astype(np.int64), mask=np.ones(len(pool), bool),
                                 vectors=np.stack([self.vectors[int(s)] for s in seqs[pool]]), same=self.same)
        recency = np.ones(len(seqs))
        recency[pool] = parts["recency"]
        score = matched.copy()
        score[pool] = parts["score"]
        enough = len(seqs) >= POOL and len(seqs) >= self.k
        kth = np.sort(score)[::-1][self.k - 1] if len(seqs) >= self.k else -1.0
        bound = min(float(matched[order[-1]]), float(kth)) if enough else -1.0
        return {"seq": seqs, "cosine": 1.0 - distance, "relevance": relevance, "importance": importance,
                "recency": recency, "score": score, "bound": bound}


def time_aware_ranked(conn, query_vector, *, k: int, now, filters: dict, exact: bool, first: int,
                      same: float) -> list[dict]:
    """The best ``k`` live memories for ``query_vector`` under the time-aware score, every part of it, best
    first: the walk (``first`` memories, then more as the bound needs), then with ``exact`` the check (see
    the module's docstring). ``same``: the cosine from which two memories are near-copies (the embedder's
    ``near_copy``)."""
    where, params = filter_clause(filters)
    params.update(query=query_vector, now=now)
    seen = Seen(k, same)
    if not any(query_vector):                     # every relevance is 0: the oldest memories, as in memory
        seen.add(conn.execute(sql.SQL(FIRST).format(filters=where), {**params, "most": max(k, POOL)}))
        return top(conn, seen.rank(conn), k)
    parts = walk(conn, sql.SQL(WALK).format(filters=where), params, seen, max(first, k))
    if exact or parts["bound"] < 0:
        parts = check(conn, sql.SQL(REACHING).format(filters=where), params, seen, parts)
    return top(conn, parts, k)


def walk(conn, statement, params: dict, seen: Seen, first: int) -> dict:
    """Fetch the ``first`` memories the index hands over nearest first (and as many staged ones, nearest first),
    then ``GROWTH`` times as many, and so on, until none further on can change the answer (see the module's
    docstring) or each stream hands over fewer than asked (it has no more; the index also stops at
    ``hnsw.max_scan_tuples``); the fetched memories' scores (``Seen.rank``). One query each time, the index's scan
    started afresh: cheaper than a cursor's round trips."""
    most = first
    while True:
        rows = conn.execute(statement, {**params, "most": most}).fetchall()
        seen.add(rows)
        parts = seen.rank(conn)
        streams = [[row for row in rows if row[4] == staged] for staged in (False, True)]
        # the most relevant a memory further on in a stream that has more can be: its last one's relevance
        further = max((1.0 - stream[-1][1] for stream in streams if len(stream) == most), default=-1.0)
        if further < parts["bound"] * (1 - SLACK):
            return parts
        most *= GROWTH


def check(conn, statement, params: dict, seen: Seen, parts: dict) -> dict:
    """Every memory whose relevance reaches the walk's bound, whatever the index handed over (a scan), then,
    if the k-th best score fell below that bound, every memory down to it: the exact answer."""
    least = reaching(parts["bound"])
    seen.add(conn.execute(statement, {**params, "least": least}))
    parts = seen.rank(conn)
    if reaching(parts["bound"]) < least:
        seen.add(conn.execute(statement, {**params, "least": reaching(parts["bound"])}))
        parts = seen.rank(conn)
    return parts


def reaching(bound: float) -> float:
    """The least relevance a memory needs to be fetched by the check: ``bound``, loosened by ``SLACK`` so that
    rounding drops no tie; every memory (-2, below any cosine) when the bound is 0 or unknown (-1)."""
    return bound * (1 - SLACK) if bound > 0 else -2.0


def top(conn, parts: dict, k: int) -> list[dict]:
    """The best ``k`` of the ranked memories, best first (older first on ties), with their texts."""
    best = np.lexsort((parts["seq"], -parts["score"]))[:k]
    seqs = [int(s) for s in parts["seq"][best]]
    texts = {seq: (text, kind) for seq, text, kind in conn.execute(TEXTS, [seqs])}
    return [{"seq": seq, "text": texts[seq][0], "memory_type": texts[seq][1],
             **{name: float(parts[name][i]) for name in PARTS}}
            for seq, i in zip(seqs, best, strict=True)]
