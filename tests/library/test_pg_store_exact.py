"""PgMemoryStore with scoring="product": its answers are the in-memory store's even where the HNSW index misses true
nearest neighbours (the default, time-aware ranking: test_pg_time_aware.py)."""
from datetime import datetime, timedelta

import pytest

from conftest import RUN
from teachmem import EPOCH, ManualClock, PgMemoryStore, SemanticMemoryStore
from teachmem.core.embed import RandomEmbedder
from teachmem.lab.storage import pg_rank
from teachmem.lab.storage.pg_rank import oldest_reaching

ROWS, QUESTIONS = 600, 40


@pytest.fixture(scope="module")
def random_vectors(pg_dsn):
    """600 memories of unrelated random 256-d vectors, all equally important and equally old, in numpy and in
    PostgreSQL with only 5 candidates: on such data an HNSW index at ef_search 40 misses some nearest neighbours,
    and relevance alone decides, so every miss would change the answer."""
    clock = ManualClock(EPOCH + timedelta(days=1))
    embedder = RandomEmbedder(256)
    numpy_store = SemanticMemoryStore(lexical_weight=0.0, reply_weight=0.0, clock=clock, scoring="product",
                                      embedder=embedder)
    pg_store = PgMemoryStore(pg_dsn, user_id=f"random-vectors-{RUN}", clock=clock, embedder=embedder, candidates=5,
                             scoring="product", exact=True)
    for store in (numpy_store, pg_store):
        for i in range(ROWS):
            store.store(f"memory {i}", "message", 1.0, EPOCH)
    pg_store.conn.execute("ANALYZE memories")
    pg_store.conn.execute("SET enable_sort = off")          # the candidates come from the index
    yield numpy_store, pg_store
    pg_store.close()


NEAREST_FIRST = "ORDER BY embedding <=> %(query)s\n"


def farthest(pg_store, query: str) -> list[int]:
    """The seqs of the 5 memories farthest from ``query``: what a broken index would hand over."""
    return [seq for seq, in pg_store.conn.execute(
        "SELECT seq FROM memories WHERE retired IS NULL ORDER BY embedding <=> %s DESC LIMIT 5",
        [pg_store.embedder.embed([query])[0]]).fetchall()]


@pytest.mark.parametrize("index", ["pgvector's HNSW", "one handing over the farthest"])
def test_the_answer_is_exact_whatever_the_index_hands_over(random_vectors, index, monkeypatch):
    """The real index misses some true neighbours on this data, how many depends on its random graph; an
    index handing over the farthest memories misses every one of them, on every run."""
    numpy_store, pg_store = random_vectors
    asked = [f"question {i}" for i in range(QUESTIONS)]
    expected = {q: [f"s{h['row']}" for h in numpy_store.explain(q, 5)] for q in asked}
    if index != "pgvector's HNSW":
        assert NEAREST_FIRST in pg_rank.RANKED
        monkeypatch.setattr(pg_rank, "RANKED", pg_rank.RANKED.replace(NEAREST_FIRST, NEAREST_FIRST[:-1] + " DESC\n"))
        assert all(not {f"s{seq}" for seq in farthest(pg_store, q)} & set(expected[q]) for q in asked)
    for query in asked:
        got = pg_store.explain(query, 5)
        assert [h["id"] for h in got] == expected[query], query
        assert [h["score"] for h in got] == pytest.approx(
            [h["score"] for h in numpy_store.explain(query, 5)], rel=1e-5)


@pytest.mark.parametrize("least, rate, days", [(0.5, 0.5, 1), (0.25, 0.5, 2), (0.3, 0.5, 1), (0.9, 0.95, 2)])
def test_the_bound_keeps_every_memory_whose_decay_reaches_it(least, rate, days):
    now = datetime(2026, 1, 10, 12)
    since = oldest_reaching(least, now, rate)
    assert rate ** days >= least        # a memory just under days + 1 days old scores rate ** days: kept
    assert since <= now - timedelta(days=days + 1)


@pytest.mark.parametrize("least, rate", [(0.0, 0.5), (0.5, 1.0), (1e-300, 0.999999)])
def test_the_bound_keeps_every_age_when_any_can_reach_it(least, rate):
    assert oldest_reaching(least, datetime(2026, 1, 10), rate) == datetime.min


# ------------------------------------------------------------------ exactness is a setting
def walk_lengths(monkeypatch) -> list[int]:
    """How many memories each retrieval with ``exact=False`` walked, recorded from here on."""
    lengths, walk = [], pg_rank.walked

    def recorded(*args):
        seqs = walk(*args)
        lengths.append(len(seqs))
        return seqs
    monkeypatch.setattr(pg_rank, "walked", recorded)
    return lengths


def test_exact_false_walking_in_true_nearest_order_is_exact_and_stops_early(random_vectors, monkeypatch):
    """Without the index the database hands the memories over truly nearest first: the walk's bound is then
    safe (the in-memory answer, every time) and prunes (it stops long before the 600 memories)."""
    numpy_store, pg_store = random_vectors
    monkeypatch.setattr(pg_store, "exact", False)
    monkeypatch.setattr(pg_store, "candidates", ROWS)         # the walk may go through every memory
    lengths = walk_lengths(monkeypatch)
    pg_store.conn.execute("SET enable_indexscan = off")
    try:
        for query in [f"question {i}" for i in range(QUESTIONS)]:
            got = pg_store.explain(query, 5)
            assert [h["id"] for h in got] == [f"s{h['row']}" for h in numpy_store.explain(query, 5)], query
    finally:
        pg_store.conn.execute("RESET enable_indexscan")
    assert len(lengths) == QUESTIONS and max(lengths) < ROWS // 2 and min(lengths) >= 5


def test_exact_false_is_only_as_exact_as_the_order_it_walks(random_vectors, monkeypatch):
    """Walked in an order that is not nearest first (as an index that misses would hand memories over), the
    bound stops the walk too soon and some answers differ from the exact one; ``exact=True`` still has them."""
    numpy_store, pg_store = random_vectors
    monkeypatch.setattr(pg_rank, "WALK", pg_rank.WALK.replace("ORDER BY embedding <=> %(query)s", "ORDER BY seq"))
    asked = [f"question {i}" for i in range(QUESTIONS)]
    expected = {q: [f"s{h['row']}" for h in numpy_store.explain(q, 5)] for q in asked}
    assert all([h["id"] for h in pg_store.explain(q, 5)] == expected[q] for q in asked)
    monkeypatch.setattr(pg_store, "exact", False)
    monkeypatch.setattr(pg_store, "candidates", ROWS)
    assert sum([h["id"] for h in pg_store.explain(q, 5)] != expected[q] for q in asked) > QUESTIONS // 2


def test_exact_false_walks_no_further_than_the_candidates(random_vectors, monkeypatch):
    """With 5 candidates (the fixture's) the walk hands over 5 memories, no more, though the bound would go on: the
    answer is the 5 nearest (here, where every memory weighs alike, the exact answer)."""
    numpy_store, pg_store = random_vectors
    monkeypatch.setattr(pg_store, "exact", False)
    lengths = walk_lengths(monkeypatch)
    pg_store.conn.execute("SET enable_indexscan = off")
    try:
        for query in [f"question {i}" for i in range(QUESTIONS)]:
            assert [h["id"] for h in pg_store.explain(query, 5)] == [
                f"s{h['row']}" for h in numpy_store.explain(query, 5)]
    finally:
        pg_store.conn.execute("RESET enable_indexscan")
    assert set(lengths) == {5}


def test_exact_must_be_a_bool(pg_dsn):
    with pytest.raises(TypeError, match="exact must be True or False, got 1"):
        PgMemoryStore(pg_dsn, user_id="someone", exact=1)
    with PgMemoryStore(pg_dsn, user_id="someone") as store:
        assert store.exact is False          # the default: the walk; exact=True checks it (test_pg_time_aware.py)
