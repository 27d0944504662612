"""MemoryDB on PostgreSQL: what only the server back-end does (the shared contract runs on both back-ends in
test_memory_db.py and test_governance.py): its own schema, clear errors for a bad DSN, and what forget means in a
database that keeps old row versions until VACUUM."""
import os
import tempfile
from pathlib import Path

import psycopg
import pytest

from conftest import drop_database, fresh_database
from teachmem import ConversationBuffer, MemoryDB, PgMemoryStore, SchemaVersionError
from teachmem.lab.governance import forget
from teachmem.lab.storage.postgres import ENV_DSN, LocalPostgres, read_replica, wait_for_replay


@pytest.fixture
def dsn(pg_dsn):
    """A new, empty database of its own on the run's server."""
    database = fresh_database(pg_dsn)
    yield database
    drop_database(database)


def said(text: str) -> ConversationBuffer:
    buf = ConversationBuffer()
    buf.add("user", text)
    return buf


def run(dsn: str, sql: str):
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(sql)


@pytest.mark.parametrize("path, words", [
    ("postgresql://maya:s3cret@[not-a-host/memories", "cannot be parsed"),
    ("postgresql://maya:s3cret@/memories?host=/no/such/folder", "the PostgreSQL database 'memories' on "
                                                                 "'/no/such/folder', which cannot be reached"),
])
def test_a_bad_dsn_is_a_clear_error_naming_the_argument_and_never_the_password(path, words):
    with pytest.raises(ValueError, match="^path ") as caught:
        MemoryDB(path, timeout=2)
    assert words in str(caught.value) and "s3cret" not in str(caught.value)


def test_the_tables_live_in_their_own_schema_beside_the_semantic_store(dsn):
    store = PgMemoryStore(dsn, user_id="maya", embed_dim=32)
    store.store("prefers window seats", "fact", 0.9)
    with MemoryDB(dsn) as db:
        db.save(store_in_memory := said("hello"), user_id="maya")
        assert db.engine == "postgresql" and db.load(user_id="maya").context() == store_in_memory.context()
        assert "s3cret" not in repr(db) and repr(db).startswith("MemoryDB(<the PostgreSQL database")
    with psycopg.connect(dsn) as conn:
        tables = conn.execute("SELECT schemaname, tablename FROM pg_tables WHERE tablename IN "
                              "('memories', 'vectors') ORDER BY 1, 2").fetchall()
    assert tables == [("memorydb", "memories"), ("memorydb", "vectors"), ("public", "memories")]
    store.conn.close()


def test_a_schema_that_is_not_ours_or_is_newer_is_refused_and_left_alone(dsn):
    run(dsn, "CREATE SCHEMA memorydb; CREATE TABLE memorydb.other (x int)")
    with pytest.raises(ValueError, match="not a teachmem memory database; nothing was changed"):
        MemoryDB(dsn)
    run(dsn, "DROP SCHEMA memorydb CASCADE")
    MemoryDB(dsn).close()
    run(dsn, "COMMENT ON SCHEMA memorydb IS 'teachmem memory database, schema version 99'")
    with pytest.raises(SchemaVersionError, match="schema version 99, newer than the version 1"):
        MemoryDB(dsn)


def test_read_only_never_creates_the_schema_and_refuses_every_write(dsn):
    with pytest.raises(ValueError, match="holds no teachmem memory database"):
        MemoryDB(dsn, read_only=True)
    with MemoryDB(dsn) as db:
        db.save(said("kept"), user_id="maya")
    with MemoryDB(dsn, read_only=True) as db:
        assert db.load(user_id="maya").context()[0]["content"] == "kept"
        with pytest.raises(PermissionError, match="read_only=True"):
            db.delete_user("maya")


def test_plain_vacuum_drops_dead_rows_but_leaves_their_bytes_and_compact_leaves_neither(dsn):
    with MemoryDB(dsn) as db:
        db.save(said("a note that stays"), user_id="other")     # a live row keeps the page (VACUUM truncates
        db.save(said("my card is 4111 1111 1111 1111"), user_id="u")   # empty pages at a table's end)
        db.delete_user("u")
        assert db.find("4111 1111") == []          # gone from every live row at once
        assert db.raw_matches("4111 1111") > 0     # the dead row version still sits in its page
        run(dsn, "VACUUM memorydb.memories")
        assert dict(db.leftovers("4111 1111"))["dead row versions"] == 0
        assert db.raw_matches("4111 1111") > 0     # space freed, bytes not overwritten
        db.compact()                                # VACUUM FULL: the tables rewritten with live rows only
        assert db.leftovers("4111 1111") == [("dead row versions", 0), ("database page bytes", 0)]
        assert db.integrity_check() == "ok"


def test_forget_on_postgresql_says_what_it_cannot_check(dsn):
    with MemoryDB(dsn) as db:
        db.save(said("I live at 27 Elm Grove"), user_id="noor")
        db.save(said("Noor lives at 27 Elm Grove"), user_id="sam")
        audit = forget(said("I live at 27 Elm Grove"), "27 Elm Grove", db, user_id="noor")
        assert audit.clean and [(t.tier, t.remaining) for t in audit.tiers][-3:] == [
            ("database", 0), ("dead row versions", 0), ("database page bytes", 0)]
        assert "write-ahead log (pg_wal), replicas and backups still hold earlier versions" in str(audit)
        assert db.find("27 Elm Grove") == [("sam", "default")]


def test_a_read_replica_replays_a_write_of_the_primary_and_refuses_writes(pg_server):
    if os.environ.get(ENV_DSN):      # a server given by its DSN is not ours to copy
        with pytest.raises(ValueError, match="primary must be a running server that local_postgres started"):
            read_replica(pg_server, tempfile.gettempdir())
        return
    with tempfile.TemporaryDirectory(prefix="teachmem-replica-") as folder:
        with read_replica(pg_server, folder) as replica:
            assert replica.running and (Path(folder) / "replica" / "standby.signal").exists()
            assert replica.dsn.endswith(f"port={int(psycopg.conninfo.conninfo_to_dict(pg_server.dsn).get('port') or 5432) + 1}")
            with psycopg.connect(pg_server.dsn, autocommit=True) as conn:
                conn.execute("CREATE TABLE IF NOT EXISTS replicated (note text)")
                conn.execute("INSERT INTO replicated VALUES ('written on the primary')")
            assert wait_for_replay(pg_server.dsn, replica.dsn, timeout=30)
            with psycopg.connect(replica.dsn, autocommit=True) as conn:
                assert conn.execute("SELECT pg_is_in_recovery()").fetchone()[0]
                assert ("written on the primary",) in conn.execute("SELECT note FROM replicated").fetchall()
                with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
                    conn.execute("INSERT INTO replicated VALUES ('written on the replica')")
        assert not replica.running and not (Path(folder) / "replica").exists()


def test_read_replica_refuses_what_it_cannot_copy():
    with pytest.raises(TypeError, match="primary must be a LocalPostgres, got str"):
        read_replica("postgresql://postgres@/postgres", tempfile.gettempdir())
    with pytest.raises(ValueError, match="primary must be a running server that local_postgres started"):
        read_replica(LocalPostgres("postgresql://postgres@/postgres"), tempfile.gettempdir())


def test_a_writer_waits_at_most_timeout_for_the_write_lock_even_when_timeout_is_zero(dsn):
    with MemoryDB(dsn) as holder, MemoryDB(dsn, timeout=0) as impatient:
        with holder.batch():
            holder.save(said("first"), user_id="maya")
            with pytest.raises(psycopg.errors.LockNotAvailable):      # lock_timeout 0 would wait forever
                impatient.save(said("second"), user_id="ola")
        impatient.save(said("second"), user_id="ola")                 # free again: it writes
        assert holder.users() == ["maya", "ola"]
