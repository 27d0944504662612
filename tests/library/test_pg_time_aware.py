"""PgMemoryStore ranks by the in-memory default, the time-aware score, with relevance the cosine alone: the same
top k as SemanticMemoryStore(lexical_weight=0, reply_weight=0, neighbour_words=False, latest_word=False),
near-copies included."""
from datetime import timedelta

import pytest

from conftest import RUN
from teachmem import EPOCH, ManualClock, PgMemoryStore, SemanticMemoryStore, list_scenarios, load_scenario
from teachmem.lab.storage import pg_time_aware

NOW = EPOCH + timedelta(days=100)
# (text, importance, day stored): a near-copy pair (cosine 0.80), the older one more important, so that only
# recency puts the newer first; then every scenario turn, importances and days varied.
OLDER = ("The team meeting is on Tuesday at ten in room four", 0.9, 30)
NEWER = ("The team meeting moved to Thursday at ten in room four", 0.5, 85)
TURNS = [t.content for name in list_scenarios() for t in load_scenario(name).turns]
MEMORIES = [OLDER, NEWER] + [(text, 0.2 + 0.8 * ((i * 37) % 11) / 10, (i * 13) % 90) for i, text in enumerate(TURNS)]
QUESTIONS = ["When is the team meeting?"] + [q.text for name in list_scenarios() for q in load_scenario(name).questions]


def in_memory(**settings) -> SemanticMemoryStore:
    """The in-memory store configured as the SQL path ranks: no BM25 blend, no replies, no neighbour
    words, no latest word."""
    return SemanticMemoryStore(lexical_weight=0.0, reply_weight=0.0, neighbour_words=False,
                               latest_word=False, clock=ManualClock(NOW), **settings)


@pytest.fixture(scope="module")
def stores(pg_dsn):
    numpy_store = in_memory()
    pg_store = PgMemoryStore(pg_dsn, user_id=f"time-aware-{RUN}", clock=ManualClock(NOW))
    for store in (numpy_store, pg_store):
        for text, importance, day in MEMORIES:
            store.store(text, "general", importance, EPOCH + timedelta(days=day))
    pg_store.conn.execute("ANALYZE memories")
    yield numpy_store, pg_store
    pg_store.close()


def ids(hits) -> list[str]:
    return [h.get("id", f"s{h.get('row')}") for h in hits]


def test_the_older_near_copy_loses_its_place_in_both_stores(stores):
    numpy_store, pg_store = stores
    for store in stores:
        first, second = store.explain(QUESTIONS[0], 2)
        assert (first["text"], second["text"]) == (NEWER[0], OLDER[0])
        assert first["recency"] == 1.0 and second["recency"] < 0.75     # 55 days older than its near-copy
    product = in_memory(scoring="product", decay_rate=1.0)             # without recency the older one wins
    for text, importance, day in MEMORIES[:2]:
        product.store(text, "general", importance, EPOCH + timedelta(days=day))
    assert product.explain(QUESTIONS[0], 1)[0]["text"] == OLDER[0]


@pytest.mark.parametrize("k", [1, 5, 12])
def test_the_same_top_k_as_the_in_memory_store(stores, k):
    numpy_store, pg_store = stores
    for question in QUESTIONS:
        expected = numpy_store.explain(question, k)
        got = pg_store.explain(question, k)
        assert ids(got) == ids(expected), question
        for part in ("score", "relevance", "recency"):
            assert [h[part] for h in got] == pytest.approx([h[part] for h in expected], rel=1e-5, abs=1e-6)


def test_a_query_of_no_known_word_scores_every_memory_0_oldest_first(stores):
    numpy_store, pg_store = stores
    assert ids(pg_store.explain("?!", 3)) == ids(numpy_store.explain("?!", 3)) == ["s0", "s1", "s2"]


def test_exact_holds_whatever_the_index_hands_over_and_the_walk_alone_does_not(stores, monkeypatch):
    """An index handing the memories over in the order they were stored (as a broken one could): the check
    still finds the in-memory answer; the walk alone (``exact=False``) stops on a wrong bound for some
    questions (1 of the 15 here, the same on every run: the order is the seq's)."""
    numpy_store, pg_store = stores
    expected = {q: ids(numpy_store.explain(q, 5)) for q in QUESTIONS}
    nearest_first = "ORDER BY embedding <=> %(query)b"
    assert nearest_first in pg_time_aware.WALK
    monkeypatch.setattr(pg_time_aware, "WALK", pg_time_aware.WALK.replace(nearest_first, "ORDER BY seq"))
    monkeypatch.setattr(pg_store, "candidates", 5)         # walks of 5, 10, 20, 40, 80… memories (of 180)
    monkeypatch.setattr(pg_store, "exact", True)
    assert all(ids(pg_store.explain(q, 5)) == expected[q] for q in QUESTIONS)
    monkeypatch.setattr(pg_store, "exact", False)
    assert sum(ids(pg_store.explain(q, 5)) != expected[q] for q in QUESTIONS) >= 1


def test_the_walk_in_true_nearest_order_is_exact_and_stops_early(stores, monkeypatch):
    """Without the index the database hands memories over truly nearest first: the walk alone is then exact and
    its bound stops it before it has read every memory."""
    numpy_store, pg_store = stores
    walked, walk = [], pg_time_aware.walk

    def recorded(conn, statement, params, seen, first):
        parts = walk(conn, statement, params, seen, first)
        walked.append(len(seen.rows))
        return parts
    monkeypatch.setattr(pg_time_aware, "walk", recorded)
    monkeypatch.setattr(pg_store, "exact", False)
    monkeypatch.setattr(pg_store, "candidates", 10)        # a walk of 10 memories, then 20, 40…
    pg_store.conn.execute("SET enable_indexscan = off")
    try:
        for question in QUESTIONS:
            assert ids(pg_store.explain(question, 5)) == ids(numpy_store.explain(question, 5)), question
    finally:
        pg_store.conn.execute("RESET enable_indexscan")
    assert len(walked) == len(QUESTIONS) and max(walked) < len(MEMORIES)


def test_a_filter_and_a_retired_memory_rank_as_in_memory(pg_dsn):
    numpy_store = in_memory()
    with PgMemoryStore(pg_dsn, user_id=f"time-aware-filters-{RUN}", clock=ManualClock(NOW)) as pg_store:
        for store in (numpy_store, pg_store):
            for i, (text, importance, day) in enumerate(MEMORIES[:60]):
                store.store(text, "fact" if i % 3 == 0 else "general", importance, EPOCH + timedelta(days=day))
            store.delete("s1")
        for question in QUESTIONS:
            for filters in ({}, {"memory_type": "general"}):
                assert ids(pg_store.explain(question, 4, **filters)) == ids(numpy_store.explain(question, 4,
                                                                                                  **filters))


def test_scoring_must_be_one_the_sql_path_ranks_by(pg_dsn):
    with pytest.raises(ValueError, match="scoring must be one of \\('time_aware', 'product'\\), got 'memorybank'"):
        PgMemoryStore(pg_dsn, user_id="someone", scoring="memorybank")
    with PgMemoryStore(pg_dsn, user_id="someone") as store:
        assert (store.scoring, store.exact, store.candidates) == ("time_aware", False, 600)


class Raised:
    """The subword embedder saying near-copies start at cosine 0.85 (the pair above is at 0.80)."""

    def __init__(self):
        from teachmem.core.subword import SubwordEmbedder
        self.inner = SubwordEmbedder()
        self.name, self.dim, self.near_copy = "raised", self.inner.dim, 0.85

    def embed(self, texts):
        return self.inner.embed(texts)

    def config(self):
        return self.inner.config()


def test_the_sql_path_asks_the_embedder_when_two_memories_are_near_copies(pg_dsn):
    """With the embedder's line above the pair's cosine, neither store lets time reorder them."""
    pg_store = PgMemoryStore(pg_dsn, user_id=f"raised-{RUN}", clock=ManualClock(NOW), embedder=Raised())
    numpy_store = in_memory(embedder=Raised())
    for store in (numpy_store, pg_store):
        for text, importance, day in MEMORIES[:2]:
            store.store(text, "general", importance, EPOCH + timedelta(days=day))
        first, second = store.explain(QUESTIONS[0], 2)
        assert (first["text"], second["text"]) == (OLDER[0], NEWER[0])     # importance decides, as in the product
        assert first["recency"] == second["recency"] == 1.0
    pg_store.close()
