"""Batch writes: ``store_many`` returns the same Changes and leaves the same stored state as one
``store`` at a time (in memory and in PostgreSQL), refuses bad input with nothing written, and keeps
row-level security on its path (a temporary table, then INSERT … SELECT under the policy)."""
from datetime import timedelta

import psycopg
import pytest

from teachmem import EPOCH, ManualClock, PgMemoryStore, SemanticMemoryStore
from teachmem.core.subword import SubwordEmbedder
from teachmem.lab.storage.pg_batch import BATCH_TABLE, MOVE

ROWS = ("SELECT seq, text, memory_type, importance, created, accessed, recalls, fact_key, retired, "
        "replaced_by, edits, metadata - 'user_id', coalesce(embedding, staged)::text FROM memories ORDER BY seq")
# Which memories hold their vector in the indexed column, which in the staged one (store_many's, until fold()).
WHERE_HELD = "SELECT seq FROM memories WHERE {} IS NOT NULL ORDER BY seq"


def batch(user_id=None) -> list[dict]:
    """Messages, facts that replace one another inside the batch and one held before it, a fact
    already held in other words' case (a NOOP), labels."""
    labels = {} if user_id is None else {"user_id": user_id}
    items = [{"text": f"user: note number {i} about the garden", "memory_type": "message",
              "importance": 0.1 * (i % 10), "timestamp": EPOCH + timedelta(hours=3 * i),
              "session_id": "s1", "turn": i, **labels} for i in range(12)]
    items[3:3] = [{"text": "favorite color is blue", "memory_type": "fact", **labels},
                  {"text": "favorite color is green", "memory_type": "fact", "importance": 0.9,
                   **labels},
                  {"text": "Favorite color is GREEN", "memory_type": "fact", **labels},
                  {"text": "lives in lisbon", "memory_type": "fact", "confidence": 0.8, **labels},
                  {"text": "prefers window seats", "memory_type": "fact", **labels}]
    return items


def one_at_a_time(store, items) -> list:
    return [change for item in items for change in store.store(**item)]


# ------------------------------------------------------------------ in memory
def in_memory() -> SemanticMemoryStore:
    store = SemanticMemoryStore(clock=ManualClock(EPOCH + timedelta(days=2)), neighbour_words=True)
    store.store("lives in porto", "fact", user_id="dana")           # held before the batch
    return store


def test_in_memory_store_many_matches_one_store_at_a_time():
    one, many = in_memory(), in_memory()
    expected = one_at_a_time(one, batch("dana"))
    changes = many.store_many(batch("dana"))
    assert changes == expected
    assert [c.event for c in changes].count("DELETE") == 2 and "NOOP" in [c.event for c in changes]
    assert many.to_state() == one.to_state()
    assert many.retrieve("garden note", 3) == one.retrieve("garden note", 3)
    assert many.store_many([]) == [] and many.to_state() == one.to_state()


def test_the_state_comparison_sees_a_batch_that_differs():
    one, many = in_memory(), in_memory()
    one_at_a_time(one, batch("dana"))
    many.store_many(batch("dana")[:-1])                           # one memory short
    assert many.to_state() != one.to_state()


@pytest.mark.parametrize("bad, error, message", [
    ({"text": ""}, ValueError, r"items\[2\]: text must be a non-empty string"),
    ({"text": "x", "importance": 2}, ValueError, r"items\[2\]: importance"),
    ({"text": "x", "timestamp": "today"}, TypeError, r"items\[2\]: timestamp"),
    ({"text": "x", "tags": {"a": 1}}, TypeError, r"items\[2\]: metadata 'tags'"),
    ({"memory_type": "fact"}, TypeError, r"items\[2\]: .*text"),
    ("a text", TypeError, r"items\[2\] must be a dict"),
])
def test_in_memory_bad_item_is_refused_and_nothing_is_stored(bad, error, message):
    store = in_memory()
    before = store.to_state()
    items = batch("dana")
    items[2] = bad
    with pytest.raises(error, match=message):
        store.store_many(items)
    assert store.to_state() == before
    with pytest.raises(TypeError, match="items must be a list of dicts, got str"):
        store.store_many("lives in lisbon")


def test_in_memory_store_many_leaves_the_embedder_in_place_even_when_refused():
    store = in_memory()
    embedder = store.embedder
    with pytest.raises(ValueError):
        store.store_many([{"text": "ok"}, {"text": "bad", "importance": -1}])
    store.store_many([{"text": "ok"}])
    assert store.embedder is embedder


# ------------------------------------------------------------------ PostgreSQL
@pytest.fixture
def pg_pair(pg_dsn, user):
    clock = ManualClock(EPOCH + timedelta(days=2))
    one = PgMemoryStore(pg_dsn, user_id=f"{user}-one", clock=clock)
    many = PgMemoryStore(pg_dsn, user_id=f"{user}-many", clock=clock)
    for store in (one, many):
        store.store("lives in porto", "fact")
    yield one, many
    one.close()
    many.close()


def rows(store) -> list:
    return store.conn.execute(ROWS).fetchall()


def test_pg_store_many_matches_one_store_at_a_time(pg_pair):
    one, many = pg_pair
    expected = one_at_a_time(one, batch())
    changes = many.store_many(batch())
    assert changes == expected
    assert [c.event for c in changes].count("DELETE") == 2 and "NOOP" in [c.event for c in changes]
    assert rows(many) == rows(one) and len(rows(many)) == 17
    assert many.history("s0") == one.history("s0") == [("lives in porto", False),
                                                        ("lives in lisbon", True)]
    assert many.history("favorite color") == one.history("favorite color")
    assert many.explain("garden note", 3) == one.explain("garden note", 3)
    assert many.store_many([]) == [] and rows(many) == rows(one)


def held(store, column: str) -> list[int]:
    return [seq for seq, in store.conn.execute(WHERE_HELD.format(column)).fetchall()]


def test_pg_store_many_stages_its_vectors_and_fold_indexes_them(pg_pair):
    """The batch's vectors wait outside the HNSW index, read exactly by every retrieval; fold() moves them in,
    and then the stored state is one-at-a-time store()'s to the column."""
    one, many = pg_pair
    one_at_a_time(one, batch())
    many.store_many(batch())
    assert held(many, "staged") == list(range(1, 17)) and held(many, "embedding") == [0]
    before = {q: many.explain(q, 5) for q in ("garden note", "favorite color", "lives in")}
    assert before == {q: one.explain(q, 5) for q in before}
    assert many.fold() == 16 and many.fold() == 0
    assert held(many, "staged") == [] and held(many, "embedding") == list(range(17))
    rows_of = "SELECT seq, embedding::text FROM memories ORDER BY seq"
    assert many.conn.execute(rows_of).fetchall() == one.conn.execute(rows_of).fetchall()
    assert rows(many) == rows(one)
    assert {q: many.explain(q, 5) for q in before} == before


def test_pg_store_many_under_the_product_ranking_writes_into_the_index(pg_dsn, user):
    """scoring="product" reads the indexed column only: its batch goes straight into it."""
    with PgMemoryStore(pg_dsn, user_id=user, scoring="product") as store:
        store.store_many(batch())
        assert held(store, "staged") == [] and len(held(store, "embedding")) == 16


def test_pg_store_many_agrees_with_the_in_memory_batch(pg_pair):
    _, many = pg_pair
    memory = in_memory()
    assert many.store_many(batch()) == memory.store_many(batch("dana"))


def test_pg_row_comparison_sees_a_batch_that_differs(pg_pair):
    one, many = pg_pair
    one_at_a_time(one, batch())
    items = batch()
    items[4]["importance"] = 0.8
    many.store_many(items)
    assert rows(many) != rows(one)


@pytest.mark.parametrize("bad, error, message", [
    ({"text": "a\x00b"}, ValueError, r"items\[2\]: text must not contain a NUL character"),
    ({"text": "x", "importance": 2}, ValueError, r"items\[2\]: importance"),
    ({"text": "x", "user_id": "someone else"}, ValueError, r"items\[2\]: user_id must be this store's"),
    ({"text": "x", "note": "a\x00"}, ValueError, r"items\[2\]: metadata 'note' must not contain a NUL"),
    (["x"], TypeError, r"items\[2\] must be a dict"),
])
def test_pg_bad_item_is_refused_and_nothing_is_written(pg_pair, bad, error, message):
    _, many = pg_pair
    before = rows(many)
    items = batch()
    items[2] = bad
    with pytest.raises(error, match=message):
        many.store_many(items)
    assert rows(many) == before
    with pytest.raises(TypeError, match="items must be a list of dicts"):
        many.store_many({"text": "x"})


class Poisoned:
    """The default embedder, except that a text saying "poison" gets a NaN, which pgvector refuses."""

    def __init__(self):
        self.inner = SubwordEmbedder(256)
        self.dim = 256

    def embed(self, texts):
        vectors = self.inner.embed(texts)
        vectors[[i for i, text in enumerate(texts) if "poison" in text]] = float("nan")
        return vectors


def test_pg_a_batch_that_fails_in_the_database_writes_nothing(pg_dsn, user):
    with PgMemoryStore(pg_dsn, user_id=user, embedder=Poisoned()) as store:
        store.store("lives in porto", "fact")
        before = rows(store)
        items = batch()
        items[9] = {"text": "poison"}
        with pytest.raises(psycopg.errors.DataException, match="NaN not allowed in vector"):
            store.store_many(items)
        assert rows(store) == before
        store.store_many(batch())                               # the connection is usable again
        assert len(rows(store)) == 17


def test_pg_store_many_keeps_to_its_user(pg_pair):
    one, many = pg_pair
    many.store_many(batch())
    one.store_many([{"text": "a garden note of one's own"}])
    assert len(one) == 2 and one.history("favorite color") == []
    assert [hit["text"] for hit in one.explain("garden note", 5)] == ["a garden note of one's own", "lives in porto"]
    assert one.fold() == 1 and held(many, "staged") == list(range(1, 17))     # its own staged rows, no others
    with psycopg.connect(one.conn.info.dsn) as owner:           # no policy binds the owner: every user's rows
        staged = "SELECT count(*) FROM memories WHERE staged IS NOT NULL AND user_id = %s"
        assert [owner.execute(staged, [s.user_id]).fetchone()[0] for s in (one, many)] == [0, 16]
    assert one.get("s0")["retired"] is None                 # its own porto fact, not replaced by many's
    owners = {row[0] for row in one.conn.execute("SELECT DISTINCT user_id FROM memories")}
    assert owners == {one.user_id}


def test_pg_the_batch_path_is_held_by_the_policy(pg_pair):
    one, many = pg_pair
    # COPY into the table itself is refused under forced row-level security: hence the temporary table
    with pytest.raises(psycopg.errors.FeatureNotSupported, match="row-level security"):
        with many.conn.cursor() as cursor, cursor.copy(
                "COPY memories (user_id, seq, text, memory_type, importance, created, accessed) FROM STDIN"):
            pass
    # the move from the temporary table, made to write another user's rows, is refused by the policy
    with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
        with many.conn.transaction():
            many.conn.execute(BATCH_TABLE.format(dim=256))
            many.conn.execute("INSERT INTO batch_memories SELECT seq + 100, text, memory_type, embedding, "
                              "importance, created, fact_key, retired, replaced_by, metadata FROM memories")
            many.conn.execute(MOVE.replace("current_setting('app.user_id')", "%s"), [one.user_id])
    assert len(one) == 1 and len(many) == 1
    # the same move as its own user goes through (the test above fails for the policy, not the SQL)
    with many.conn.transaction():
        many.conn.execute(BATCH_TABLE.format(dim=256))
        many.conn.execute("INSERT INTO batch_memories SELECT seq + 100, text, memory_type, embedding, "
                          "importance, created, fact_key, retired, replaced_by, metadata FROM memories")
        many.conn.execute(MOVE)
    assert len(many) == 2 and len(one) == 1


def test_pg_a_staged_memory_deleted_or_updated_keeps_no_staged_vector(pg_pair):
    """delete() empties a staged memory's vector too (forgetting leaves no copy in the staged column);
    update() re-embeds into the indexed column."""
    _, many = pg_pair
    many.store_many(batch())
    many.delete("s1")
    many.update("s2", "user: the shed key hangs by the blue door")
    assert held(many, "staged") == list(range(3, 17)) and held(many, "embedding") == [0, 2]
    assert many.explain("where is the shed key?", 1)[0]["id"] == "s2"
