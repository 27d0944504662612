"""Isolation in the database: row-level security on user_id, for a role that owns nothing, FORCEd for the owner."""
import psycopg
import pytest

from conftest import index_nearest
from teachmem import PgMemoryStore
from teachmem.lab.storage.pg_schema import APP_ROLE


@pytest.fixture
def two_users(pg_dsn, user):
    alice, bob = PgMemoryStore(pg_dsn, user_id=f"{user}-alice"), PgMemoryStore(pg_dsn, user_id=f"{user}-bob")
    alice.store("lives in lisbon", "fact")
    alice.store("my bank PIN is 4921")
    bob.store("lives in porto", "fact")
    yield alice, bob
    alice.close()
    bob.close()


def test_a_hand_written_select_sees_only_the_connections_user(two_users):
    alice, bob = two_users
    assert bob.conn.execute("SELECT text FROM memories").fetchall() == [("lives in porto",)]
    assert bob.retrieve("bank PIN", 5) and all("PIN" not in text for _, text, _ in bob.retrieve("bank PIN", 5))
    bob.conn.execute("SELECT set_config('app.user_id', 'nobody', false)")     # as another user: nothing
    assert bob.conn.execute("SELECT count(*) FROM memories").fetchone() == (0,)
    bob.conn.execute("RESET app.user_id")                                      # without a user: nothing
    assert bob.conn.execute("SELECT count(*) FROM memories").fetchone() == (0,)
    assert bob.conn.execute("SELECT count(*) FROM memories WHERE text LIKE '%%PIN%%'").fetchone() == (0,)
    assert alice.conn.execute("SELECT count(*) FROM memories").fetchone() == (2,)


def test_writes_for_another_user_are_refused_by_the_policy(two_users):
    alice, bob = two_users
    with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
        bob.conn.execute("INSERT INTO memories (user_id, seq, text, memory_type, importance, created, accessed) "
                         "VALUES (%s, 99, 'x', 'general', 0.5, now(), now())", [alice.user_id])
    assert bob.conn.execute("UPDATE memories SET text = 'hacked' WHERE user_id = %s",
                            [alice.user_id]).rowcount == 0
    assert alice.get("s1")["text"] == "my bank PIN is 4921"
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        bob.conn.execute("DELETE FROM memories")                 # the application's role may not DELETE at all


def test_the_application_role_owns_nothing_and_cannot_bypass_the_policy(pg_dsn, two_users):
    alice, _ = two_users
    role = alice.conn.execute("SELECT current_user, rolsuper, rolbypassrls FROM pg_roles "
                              "WHERE rolname = current_user").fetchone()
    assert role == (APP_ROLE, False, False)
    with psycopg.connect(pg_dsn) as admin:
        owner, enabled, forced = admin.execute(
            "SELECT pg_get_userbyid(relowner), relrowsecurity, relforcerowsecurity FROM pg_class "
            "WHERE relname = 'memories'").fetchone()
        assert owner != APP_ROLE and enabled and forced
        # A fresh connection as the application's role, no user set: the table looks empty.
        admin.execute(f"SET ROLE {APP_ROLE}")
        assert admin.execute("SELECT count(*) FROM memories").fetchone() == (0,)


def test_a_filtered_search_finds_k_hits_for_a_user_with_one_percent_of_the_rows(pg_dsn, user):
    """pgvector 0.8's iterative index scan: the HNSW index keeps walking until k rows pass the policy."""
    with PgMemoryStore(pg_dsn, user_id=f"{user}-crowd") as crowd, \
            PgMemoryStore(pg_dsn, user_id=f"{user}-small", candidates=5) as small:
        with psycopg.connect(pg_dsn, autocommit=True) as admin:       # the crowd's 2,000 rows, in bulk
            admin.execute("SELECT setseed(0.16)")
            admin.execute("INSERT INTO memories (user_id, seq, text, memory_type, embedding, importance, created, "
                          "accessed) SELECT %s, i, 'note ' || i, 'general', "
                          "ARRAY(SELECT random() - 0.5 + 0 * i FROM generate_series(1, 256))::vector, 0.5, now(), "
                          "now() FROM generate_series(0, 1999) AS i", [crowd.user_id])
        for i in range(20):
            small.store(f"trip number {i} to the mountains")
        small.conn.execute("SET enable_sort = off")                   # use the index, as at a million rows
        assert "Index Scan using memories_embedding" in "\n".join(small.plan("x y"))
        assert len(small.retrieve("x y", 5)) == 5 and len(index_nearest(small, "x y")) == 5
        small.conn.execute("SET hnsw.iterative_scan = off")           # without it: the index finds fewer
        assert len(index_nearest(small, "x y")) < 5
        assert len(small.retrieve("x y", 5)) == 5                     # and the exact check still finds 5

