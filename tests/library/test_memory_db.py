"""MemoryDB: exact round trips, vectors as BLOBs, a versioned schema, transactions,
concurrent writers, and a writer killed with SIGKILL in the middle of a batch."""
import json
import multiprocessing
import random
import signal
import sqlite3
import struct
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from teachmem import ConversationBuffer, SlidingWindowMemory, TokenBudgetWindow
from teachmem.memory.semantic import SemanticMemoryStore
from teachmem.memory.summary import SummaryMemory
from teachmem.lab.replay import feed
from teachmem.lab.storage.memory_db import SCHEMA_VERSION, MemoryDB, MemoryNotFound, SchemaVersionError, register_strategy
from conftest import dump, stored_rows

ROOT = Path(__file__).resolve().parents[2]
QUERIES = [None, "which database do we use?", "pytest fixtures", "Maya", "nothing related at all"]


@pytest.fixture
def db(memorydb_path):
    """The same contract on both back-ends: a SQLite file and a PostgreSQL database."""
    with MemoryDB(memorydb_path) as database:
        yield database


def strategies(scenario):
    summary = feed(SummaryMemory(summarize_every=6, keep_recent=2), scenario)
    summary.pin("We use PostgreSQL for its JSONB support")
    semantic = feed(SemanticMemoryStore(), scenario)
    semantic.store("prefers window seats", "fact", 0.9, user_id="maya", confidence=0.8)
    return [feed(ConversationBuffer(), scenario), feed(SlidingWindowMemory(6, 3), scenario),
            feed(TokenBudgetWindow(400, 100), scenario), summary, semantic]


# ------------------------------------------------------------ round trips
def test_every_strategy_round_trips_exactly(db, scenario):
    for memory in strategies(scenario):
        name = type(memory).__name__
        assert db.save(memory, user_id="maya", name=name) == 1
        loaded = db.load(user_id="maya", name=name)
        assert type(loaded) is type(memory)
        assert loaded.to_state() == memory.to_state(), name
        for q in QUERIES:
            assert loaded.context(q) == memory.context(q), (name, q)


def test_a_reloaded_memory_keeps_working_like_the_original(db, scenario):
    memory = feed(SummaryMemory(summarize_every=4), scenario, 20)
    db.save(memory, user_id="maya")
    loaded = db.load(user_id="maya")
    for t in scenario.turns[20:]:
        for m in (memory, loaded):
            m.add(t.role, t.content, turn=t.turn)
    assert loaded.context() == memory.context()


def test_vectors_are_float32_blobs_not_json(db, scenario):
    store = feed(SemanticMemoryStore(embed_dim=128), scenario)
    db.save(store, user_id="maya")
    state_text = stored_rows(db, "SELECT state FROM memories")[0][0]
    rows = stored_rows(db, "SELECT dtype, length(data) FROM vectors")
    assert len(rows) == len(store.texts) == 30
    assert set(rows) == {("<f4", 128 * 4)}
    assert '"vector":{"$vector":' in state_text and '"vector":[' not in state_text
    # as JSON the same vectors would take several times the bytes
    as_json = sum(len(json.dumps(m["vector"])) for m in store.to_state()["memories"])
    assert as_json > 3 * 128 * 4 * 30


@register_strategy
class _Vectorish:
    """A test strategy whose vectors float32 cannot hold exactly."""

    kind = "vectorish"

    def __init__(self, vectors):
        self.vectors = vectors

    def to_state(self):
        return {"items": [{"vector": v, "label": f"v{i}"} for i, v in enumerate(self.vectors)],
                "embedding": [0.5, 0.25]}

    @classmethod
    def from_state(cls, state):
        assert state["embedding"] == [0.5, 0.25]
        return cls([item["vector"] for item in state["items"]])


def test_vectors_float32_cannot_hold_are_kept_as_float64(db):
    exact, precise = [0.5, -2.0, 1.0], [0.1, 1 / 3, 1e-300]
    db.save(_Vectorish([exact, precise]), user_id="u")
    assert [r[0] for r in stored_rows(db, "SELECT dtype FROM vectors ORDER BY position")] == ["<f4", "<f8", "<f4"]
    assert db.load(user_id="u").vectors == [exact, precise]


# ------------------------------------------------------------ schema
def test_schema_is_versioned_and_wal(db):
    assert db.engine in ("sqlite", "postgresql")
    assert db.schema_version == SCHEMA_VERSION == 1
    assert db.journal_mode == "wal"
    assert db.integrity_check() == "ok"


def test_a_newer_schema_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "future.db"
    MemoryDB(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version=99")
    before = path.read_bytes()
    with pytest.raises(SchemaVersionError, match="schema version 99, newer than the version 1"):
        MemoryDB(path)
    assert path.read_bytes() == before


@pytest.mark.parametrize("make", [
    lambda p: p.write_text("these are my notes, not a database\n" * 200),
    lambda p: sqlite3.connect(p).execute("CREATE TABLE other (x)").connection.commit(),
])
def test_a_file_that_is_not_a_memory_database_is_refused(tmp_path, make):
    path = tmp_path / "other.db"
    make(path)
    before = path.read_bytes()
    with pytest.raises(ValueError, match="teachmem"):
        MemoryDB(path)
    assert path.read_bytes() == before


def test_bad_constructor_arguments(tmp_path):
    with pytest.raises(TypeError, match="path must be"):
        MemoryDB(42)
    with pytest.raises(ValueError, match="path must be a file"):
        MemoryDB(tmp_path)
    with pytest.raises(ValueError, match="timeout"):
        MemoryDB(tmp_path / "x.db", timeout=-1)


def test_in_memory_database_works_for_quick_experiments():
    with MemoryDB(":memory:") as db:
        buf = ConversationBuffer()
        buf.add("user", "hello")
        db.save(buf, user_id="u")
        assert db.load(user_id="u").context() == buf.context()
        assert db.files() == []


# ------------------------------------------------------------ users and listing
def test_users_names_listing_revisions_and_deletes(db):
    buf = ConversationBuffer()
    buf.add("user", "hi")
    db.save(buf, user_id="maya", name="chat")
    db.save(buf, user_id="maya", name="chat")
    db.save(SlidingWindowMemory(), user_id="maya", name="window")
    db.save(buf, user_id="ola")
    assert db.users() == ["maya", "ola"]
    assert db.names(user_id="maya") == ["chat", "window"]
    assert db.listing() == [("maya", "chat", "buffer", 2), ("maya", "window", "window", 1),
                            ("ola", "default", "buffer", 1)]
    assert db.revision(user_id="maya", name="chat") == 2 and db.revision(user_id="nobody") == 0
    assert db.delete(user_id="maya", name="chat") and not db.delete(user_id="maya", name="chat")
    assert db.delete_user("maya") == 1 and db.delete_user("maya") == 0
    assert db.users() == ["ola"]
    assert stored_rows(db, "SELECT count(*) FROM vectors v LEFT JOIN memories m ON m.id = v.memory_id "
                           "WHERE m.id IS NULL") == [(0,)]      # the vectors went with their memories


def test_loading_what_was_never_saved_is_an_error_not_an_empty_memory(db):
    with pytest.raises(MemoryNotFound, match="no memory named 'default' is saved for user 'maya'"):
        db.load(user_id="maya")
    assert isinstance(MemoryNotFound("x"), KeyError)


def test_find_is_scoped_to_a_user(db):
    for user, text in [("maya", "my email is maya@example.com"), ("ola", "Maya's email is maya@example.com"),
                       ("kim", "nothing here")]:
        buf = ConversationBuffer()
        buf.add("user", text)
        db.save(buf, user_id=user)
    assert db.find("MAYA@example.com") == [("maya", "default"), ("ola", "default")]
    assert db.find("maya@example.com", user_id="maya") == [("maya", "default")]
    assert db.find("maya@example.com", user_id="kim") == []


# ------------------------------------------------------------ bad input changes nothing
class ConversationBuffer2(ConversationBuffer):
    pass


class _BadState(ConversationBuffer):
    def to_state(self):
        return {"when": object()}


@pytest.mark.parametrize("call, error, words", [
    (lambda db, m: db.save(m, user_id=""), ValueError, "user_id must be a non-empty string"),
    (lambda db, m: db.save(m, user_id=7), TypeError, "user_id must be a str"),
    (lambda db, m: db.save(m, user_id="u", name="  "), ValueError, "name must be a non-empty string"),
    (lambda db, m: db.save("not a memory", user_id="u"), TypeError, "to_state"),
    (lambda db, m: db.save(ConversationBuffer2(), user_id="u"), TypeError, "not a registered strategy"),
    (lambda db, m: db.update(None, user_id="u"), TypeError, "change must be callable"),
    (lambda db, m: db.find("", user_id="u"), ValueError, "text_or_pattern"),
    (lambda db, m: db.delete_user(None), TypeError, "user_id must be a str"),
    (lambda db, m: db.load(user_id="u", name=3), TypeError, "name must be a str"),
])
def test_bad_calls_raise_clear_errors_and_change_nothing(db, call, error, words):
    buf = ConversationBuffer()
    buf.add("user", "kept")
    db.save(buf, user_id="u")
    before = dump(db)
    with pytest.raises(error, match=words):
        call(db, buf)
    assert dump(db) == before


def test_a_state_that_is_not_json_is_refused_with_its_path(db):
    register_strategy(_BadState, name="bad_state")
    with pytest.raises(TypeError, match=r"state\['when'\] is a object"):
        db.save(_BadState(), user_id="u")
    assert db.users() == []


# ------------------------------------------------------------ transactions
def test_a_batch_commits_all_or_nothing(db):
    buf = ConversationBuffer()
    buf.add("user", "hi")
    with pytest.raises(RuntimeError, match="boom"):
        with db.batch():
            db.save(buf, user_id="a")
            db.save(buf, user_id="b")
            raise RuntimeError("boom")
    assert db.users() == []
    with db.batch():
        db.save(buf, user_id="a")
        with pytest.raises(ValueError):
            db.save(buf, user_id="")      # a failed step inside a batch is undone alone
        db.save(buf, user_id="b")
    assert db.users() == ["a", "b"]


def test_update_is_read_modify_write_and_rolls_back_on_error(db):
    make = ConversationBuffer
    db.update(lambda m: m.add("user", "one"), user_id="u", create=make)
    db.update(lambda m: m.add("user", "two"), user_id="u", create=make)
    assert [m["content"] for m in db.load(user_id="u").context()] == ["one", "two"]

    def fail(memory):
        memory.add("user", "three")
        raise RuntimeError("changed my mind")

    with pytest.raises(RuntimeError):
        db.update(fail, user_id="u")
    assert db.revision(user_id="u") == 2
    with pytest.raises(MemoryNotFound):
        db.update(lambda m: None, user_id="new")


def test_deleted_memories_leave_no_bytes_behind_after_compact(db):
    buf = ConversationBuffer()
    buf.add("user", "my card is 4111 1111 1111 1111")
    db.save(buf, user_id="u")
    db.save(buf, user_id="other", name="copy")
    db.delete_user("u")
    db.delete_user("other")
    assert db.raw_matches("4111 1111") > 0      # old page images still sit in the write-ahead log
    db.compact()
    assert db.raw_matches("4111 1111") == 0
    assert db.integrity_check() == "ok"


# ------------------------------------------------------------ users never see each other
texts = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=40)


@settings(max_examples=25, deadline=None)
@given(st.dictionaries(st.from_regex(r"[a-z]{1,8}", fullmatch=True), st.lists(texts, min_size=1, max_size=5),
                       min_size=1, max_size=4))
def test_a_users_queries_never_return_another_users_memories(memories):
    users = sorted(memories)
    tag = {u: f"zq{i}tag" for i, u in enumerate(users)}      # a marker only u's memories carry
    with tempfile.TemporaryDirectory() as tmp:
        with MemoryDB(Path(tmp) / "users.db") as db:
            shared = SemanticMemoryStore(embed_dim=32)      # one store, many users, told apart by metadata
            for u in users:
                buf, sem = ConversationBuffer(), SemanticMemoryStore(embed_dim=32)
                for text in memories[u]:
                    buf.add("user", f"{tag[u]} {text}")
                    sem.store(f"{tag[u]} {text}", user_id=u)
                    shared.store(f"{tag[u]} {text}", user_id=u)
                db.save(buf, user_id=u, name="chat")
                db.save(sem, user_id=u, name="semantic")
            db.save(shared, user_id="service", name="shared")
            shared = db.load(user_id="service", name="shared")
            for u in users:
                others = [tag[v] for v in users if v != u]
                seen = [m["content"] for m in db.load(user_id=u, name="chat").context()]
                seen += [hit[1] for hit in db.load(user_id=u, name="semantic").retrieve(tag[u], top_k=50)]
                seen += [hit[1] for q in others + [tag[u]] for hit in shared.retrieve(q, top_k=50, user_id=u)]
                assert seen and all(tag[u] in s and not any(o in s for o in others) for s in seen)
                assert all(db.find(o, user_id=u) == [] for o in others)
                assert db.names(user_id=u) == ["chat", "semantic"]


# ------------------------------------------------------------ two processes at once
def _writer(path: str, worker: int, rounds: int, barrier) -> None:
    db = MemoryDB(path, timeout=60)
    barrier.wait(timeout=120)             # everyone starts writing at the same moment
    for i in range(rounds):
        # read-modify-write of one shared memory: the classic lost-update race
        db.update(lambda m, i=i: m.add("user", f"worker {worker} message {i}"), user_id="shared",
                  create=ConversationBuffer)
        own = ConversationBuffer()
        own.add("user", f"worker {worker} note {i}")
        db.save(own, user_id=f"worker{worker}", name=f"note{i}")
    db.close()


def test_concurrent_writers_lose_nothing(memorydb_path):
    path, workers, rounds = memorydb_path, 4, 15
    MemoryDB(path).close()
    ctx = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    barrier = ctx.Barrier(workers)
    procs = [ctx.Process(target=_writer, args=(path, w, rounds, barrier)) for w in range(workers)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=240)        # generous: a loaded two-core CI machine queues four writers slowly
    stuck = [p for p in procs if p.is_alive()]
    for p in stuck:
        p.kill()
    assert not stuck and [p.exitcode for p in procs] == [0] * workers
    with MemoryDB(path) as db:
        said = [m["content"] for m in db.load(user_id="shared").context()]
        assert sorted(said) == sorted(f"worker {w} message {i}" for w in range(workers) for i in range(rounds))
        for w in range(workers):   # each worker's own messages arrive in its order
            assert [s for s in said if s.startswith(f"worker {w} ")] == [f"worker {w} message {i}"
                                                                         for i in range(rounds)]
            assert db.names(user_id=f"worker{w}") == sorted(f"note{i}" for i in range(rounds))
        assert db.revision(user_id="shared") == workers * rounds
        assert db.integrity_check() == "ok"


# ------------------------------------------------------------ kill -9 in the middle of a batch
CHILD = textwrap.dedent("""
    import sys
    from teachmem.memory.semantic import SemanticMemoryStore
    from teachmem.lab.storage.memory_db import MemoryDB
    path, pause_at = sys.argv[1], int(sys.argv[2])
    store = SemanticMemoryStore()
    for i in range(400):      # ~0.5 MB a save: a batch outgrows SQLite's page cache and spills to the WAL
        store.store(f"memory number {i} about topic {i % 17}", "fact" if i % 3 else "general", user_id="u")
    db = MemoryDB(path)
    for batch in range(10_000):
        with db.batch():
            for j in range(8):
                db.save(store, user_id=f"batch{batch}", name=f"part{j}")
                if j == 6 and batch == pause_at:     # ~3.5 MB into the open transaction
                    print("inside", batch, flush=True)
                    sys.stdin.readline()          # wait here, mid-transaction, to be killed
        print("committed", batch, flush=True)
""")


def expected_store_state():
    store = SemanticMemoryStore()
    for i in range(400):
        store.store(f"memory number {i} about topic {i % 17}", "fact" if i % 3 else "general", user_id="u")
    return store.to_state()


def uncommitted_wal_frames(wal: Path) -> int:
    """Frames of the current WAL generation written after its last commit frame.

    A WAL frame header is 24 bytes: page number, database size (non-zero
    only on a commit frame), and the two salts that tie it to the WAL header.
    """
    data = wal.read_bytes()
    page_size = struct.unpack(">I", data[8:12])[0]
    salts, frames, after_commit = data[16:24], 0, 0
    for offset in range(32, len(data) - 24, 24 + page_size):
        page, size_after, frame_salts = struct.unpack(">II8s", data[offset:offset + 16])
        if frame_salts != salts or page == 0:
            break
        frames += 1
        after_commit = 0 if size_after else after_commit + 1
    return after_commit


def run_and_kill(path: Path, pause_at: int, delay: float | None):
    """Start the writer; kill it mid-batch ``pause_at`` (or ``delay`` s after its first commit)."""
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(path), str(pause_at)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True, cwd=ROOT)
    committed, uncommitted = [], None
    try:
        for line in child.stdout:
            word, batch = line.split()
            if word == "committed":
                committed.append(int(batch))
                if delay is not None and len(committed) == 1:
                    time.sleep(delay)        # the writer keeps going meanwhile
                    break
            elif word == "inside":
                uncommitted = uncommitted_wal_frames(Path(str(path) + "-wal"))
                break
    finally:
        child.kill()
        child.wait(timeout=30)
        rest = child.stdout.read()
        child.stdout.close()
        child.stdin.close()
    committed += [int(line.split()[1]) for line in rest.splitlines() if line.startswith("committed")]
    assert child.returncode == -signal.SIGKILL
    return committed, uncommitted


def check_after_kill(path: Path, committed: list[int]):
    want = expected_store_state()
    with MemoryDB(path) as db:
        assert db.integrity_check() == "ok"
        batches = {}
        for user, name, _, _ in db.listing():
            batches.setdefault(int(user.removeprefix("batch")), []).append(name)
        assert set(committed) <= set(batches), "a committed batch was lost"
        for batch, names in batches.items():      # never half a batch
            assert sorted(names) == [f"part{j}" for j in range(8)], f"batch {batch} is partial"
        for batch in committed[:2] + committed[-1:]:
            assert db.load(user_id=f"batch{batch}", name="part7").to_state() == want
    return batches


def test_sigkill_mid_batch_keeps_every_committed_memory(tmp_path):
    path = tmp_path / "killed.db"
    committed, uncommitted = run_and_kill(path, pause_at=3, delay=None)
    assert committed == [0, 1, 2]
    assert uncommitted > 0, "the open transaction had written pages to the WAL when it was killed"
    batches = check_after_kill(path, committed)
    assert sorted(batches) == [0, 1, 2]        # the open batch vanished whole


@pytest.mark.parametrize("seed", [1, 2])
def test_sigkill_at_a_random_moment_keeps_every_committed_memory(memorydb_path, seed):
    path = memorydb_path
    committed, _ = run_and_kill(path, pause_at=-1, delay=random.Random(seed).uniform(0.05, 0.4))
    batches = check_after_kill(path, committed)
    assert max(batches) <= max(committed) + 1


# ------------------------------------------------------------ one contract on both back-ends: no NUL in an id
@pytest.mark.parametrize("user_id, name, which", [("a\x00b", "default", "user_id"), ("maya", "note\x00s", "name")])
def test_a_nul_in_a_user_id_or_a_name_is_refused_naming_it_on_both_back_ends(db, user_id, name, which):
    """Issue 27, row 19: PostgreSQL raised psycopg.DataError where SQLite stored it; both refuse it now."""
    buffer = ConversationBuffer()
    buffer.add("user", "hello")
    db.save(buffer, user_id="maya")
    before = dump(db)
    calls = [lambda: db.save(buffer, user_id=user_id, name=name), lambda: db.load(user_id=user_id, name=name),
             lambda: db.exists(user_id=user_id, name=name), lambda: db.delete(user_id=user_id, name=name),
             lambda: db.update(lambda m: None, user_id=user_id, name=name, create=ConversationBuffer)]
    if which == "user_id":
        calls += [lambda: db.names(user_id=user_id), lambda: db.delete_user(user_id),
                  lambda: db.find("hello", user_id=user_id)]
    for call in calls:
        with pytest.raises(ValueError, match=f"{which} must not contain a NUL character"):
            call()
    assert dump(db) == before
