"""Many writers at once, and a client killed mid-transaction: no acknowledged write is ever lost."""
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import psycopg

from teachmem import PgMemoryStore

ROOT = Path(__file__).resolve().parents[2]
WRITERS, EACH = 8, 25

WRITER = textwrap.dedent("""
    import sys
    from teachmem import PgMemoryStore
    dsn, user, writer, each = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    with PgMemoryStore(dsn, user_id=user) as store:
        for i in range(each):
            [change] = store.store(f"writer {writer} note {i}")
            print(change.id, flush=True)
""")

KILLED = textwrap.dedent("""
    import sys, time
    from teachmem import PgMemoryStore
    dsn, user = sys.argv[1], sys.argv[2]
    store = PgMemoryStore(dsn, user_id=user)
    for i in range(5):
        [change] = store.store(f"acknowledged note {i}")
        print(change.id, flush=True)          # acknowledged: store() returned after COMMIT
    with store.conn.transaction():
        store.conn.execute("SELECT pg_advisory_xact_lock(hashtext(current_setting('app.user_id')))")
        store.conn.execute("UPDATE memories SET text = 'half-written' WHERE seq = 0")
        print("in transaction", flush=True)
        time.sleep(600)                       # killed here, holding the user's write lock
""")


def spawn(script: str, *args) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-c", script, *map(str, args)], stdout=subprocess.PIPE, text=True,
                            env=env)


def test_eight_processes_writing_at_once_lose_nothing_and_never_share_an_id(pg_dsn, user):
    writers = [spawn(WRITER, pg_dsn, user, w, EACH) for w in range(WRITERS)]
    outputs = [w.communicate(timeout=300)[0].split() for w in writers]
    assert [w.returncode for w in writers] == [0] * WRITERS
    acknowledged = [i for out in outputs for i in out]
    assert len(acknowledged) == WRITERS * EACH == len(set(acknowledged))        # every id handed out once
    with PgMemoryStore(pg_dsn, user_id=user) as store:
        rows = store.conn.execute("SELECT 's' || seq, text FROM memories").fetchall()
        assert len(store) == WRITERS * EACH
    assert {i for i, _ in rows} == set(acknowledged) == {f"s{n}" for n in range(WRITERS * EACH)}
    assert {t for _, t in rows} == {f"writer {w} note {i}" for w in range(WRITERS) for i in range(EACH)}


def test_a_client_killed_mid_transaction_loses_no_acknowledged_write_and_leaves_no_lock(pg_dsn, user):
    client = spawn(KILLED, pg_dsn, user)
    lines = [client.stdout.readline().strip() for _ in range(6)]
    assert lines[-1] == "in transaction"
    client.send_signal(signal.SIGKILL)
    client.wait(timeout=30)
    assert client.returncode == -signal.SIGKILL
    with PgMemoryStore(pg_dsn, user_id=user) as store:
        # The server notices the dead connection, rolls its transaction back and frees the lock.
        assert [c.id for c in store.store("written after the crash")] == ["s5"]
        texts = dict(store.conn.execute("SELECT 's' || seq, text FROM memories").fetchall())
    assert [texts[i] for i in lines[:5]] == [f"acknowledged note {i}" for i in range(5)]
    assert "half-written" not in texts.values()
    with psycopg.connect(pg_dsn) as admin:
        assert admin.execute("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")\
            .fetchone() == (0,)
