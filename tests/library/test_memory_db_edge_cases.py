"""Defects a user can hit in persistence and validation, each as the user would hit it.

Two processes opening a new database file at once; a foreign SQLite file;
a file saved by the first schema; a missing folder; a damaged save;
read-only access; timezone-aware datetimes; lone surrogates; user ids that
are not strings; a clock pushed past the end of time; the strategy registry.
"""
import hashlib
import json
import multiprocessing
import os
import random
import sqlite3
import struct
import subprocess
import sys
import textwrap
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

import teachmem
import teachmem.core.validate as validate
from teachmem import ConversationBuffer, SemanticMemoryStore, SlidingWindowMemory
from teachmem.core.clock import ManualClock
from teachmem.lab.storage import memory_db as store
from teachmem.lab.storage.memory_db import MemoryDB, register_strategy, strategy_class
from conftest import dump

ROOT = Path(__file__).resolve().parents[2]
CTX = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
AWARE = datetime(2026, 3, 1, 12, 0, tzinfo=timezone(timedelta(hours=2)))


def fingerprint(path: Path):
    """The file's bytes and modification time, and the files beside it."""
    return (hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns,
            sorted(p.name for p in path.parent.iterdir()))


def saved(text: str) -> ConversationBuffer:
    buf = ConversationBuffer()
    buf.add("user", text)
    return buf


# ------------------------------------------------------------ (1) processes opening a new file at once
class Jittery(sqlite3.Connection):
    """A connection that sometimes pauses after a statement (as a busy machine would), so that
    processes interleave differently in every round."""

    def execute(self, *args):
        cursor = super().execute(*args)
        if random.random() < 0.3:
            time.sleep(random.uniform(0, 0.03))
        return cursor


def _open_and_write(path: str, worker: int, seed: int, barrier, errors) -> None:
    random.seed(seed)
    connect = sqlite3.connect
    sqlite3.connect = lambda *args, **kwargs: connect(*args, factory=Jittery, **kwargs)   # in this child only
    try:
        barrier.wait(timeout=60)               # everyone opens the fresh file at the same moment
        with MemoryDB(path, timeout=60) as db:
            with db.batch():
                for part in range(3):
                    db.save(saved(f"worker {worker} part {part}"), user_id=f"w{worker}", name=f"part{part}")
    except BaseException as err:               # report, so the test shows what went wrong
        errors.put(f"worker {worker}: {type(err).__name__}: {err}")
        raise


def test_processes_opening_a_new_file_at_once_all_succeed_and_keep_every_batch(tmp_path):
    errors = CTX.Queue()
    for round_ in range(20):
        path, workers = str(tmp_path / f"fresh{round_}.db"), 2 + round_ % 3
        barrier = CTX.Barrier(workers)
        procs = [CTX.Process(target=_open_and_write, args=(path, w, 10 * round_ + w, barrier, errors))
                 for w in range(workers)]
        for p in procs:
            p.start()
        for p in procs:
            p.join(timeout=120)
        stuck = [p for p in procs if p.is_alive()]
        for p in stuck:
            p.kill()
        failures = []
        while not errors.empty():
            failures.append(errors.get())
        assert not stuck and not failures and [p.exitcode for p in procs] == [0] * workers, (round_, failures)
        with MemoryDB(path) as db:
            assert db.users() == [f"w{w}" for w in range(workers)], f"round {round_}: a batch was lost"
            for w in range(workers):
                assert db.names(user_id=f"w{w}") == ["part0", "part1", "part2"]
            assert db.integrity_check() == "ok" and db.journal_mode == "wal"


# ------------------------------------------------------------ (2) a foreign SQLite file is left alone
# The schema the first release wrote (no application_id yet).
FIRST_SCHEMA = """
CREATE TABLE memories (
    id       INTEGER PRIMARY KEY,
    user_id  TEXT NOT NULL,
    name     TEXT NOT NULL,
    strategy TEXT NOT NULL,          -- a registered class name, never an import path
    state    TEXT NOT NULL,          -- to_state() as JSON, vectors replaced by {"$vector": n}
    revision INTEGER NOT NULL,       -- 1 on the first save, +1 on every save after
    UNIQUE (user_id, name)
);
CREATE TABLE vectors (
    memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    position  INTEGER NOT NULL,
    dtype     TEXT NOT NULL CHECK (dtype IN ('<f4', '<f8')),
    data      BLOB NOT NULL,
    PRIMARY KEY (memory_id, position)
);
"""


FOREIGN = {
    "user_version 1, other tables": ["CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)",
                                     "INSERT INTO notes (text) VALUES ('my own notes')", "PRAGMA user_version=1"],
    "tables called memories and vectors": ["CREATE TABLE memories (id, body)", "CREATE TABLE vectors (x)",
                                           "INSERT INTO memories VALUES (1, 'mine')", "PRAGMA user_version=1"],
    "our tables, another program's application_id": [*filter(str.strip, FIRST_SCHEMA.split(";")),
                                                       "PRAGMA application_id=1179993676", "PRAGMA user_version=1"],
}


@pytest.mark.parametrize("statements", FOREIGN.values(), ids=FOREIGN.keys())
def test_a_foreign_sqlite_file_is_refused_before_anything_changes(tmp_path, statements):
    path = tmp_path / "theirs.db"
    with sqlite3.connect(path) as conn:
        for statement in statements:
            conn.execute(statement)
    conn.close()
    before = fingerprint(path)
    time.sleep(0.01)                       # a write now would show in the modification time
    for read_only in (False, True):
        with pytest.raises(ValueError, match="not a teachmem one.*nothing was changed"):
            MemoryDB(path, read_only=read_only)
    assert fingerprint(path) == before     # same bytes, same mtime, no -wal or -journal beside it
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    conn.close()


# ------------------------------------------------------------ a file saved by the first schema still loads
def write_first_schema_file(path: Path, memories: dict) -> None:
    """A file exactly as the first release wrote it: class names, no application_id, WAL."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.executescript(FIRST_SCHEMA)
    conn.execute("PRAGMA user_version=1")
    for i, (name, memory) in enumerate(memories.items(), start=1):
        state = memory.to_state()
        vectors = []
        for row in state.get("memories", []):
            if isinstance(row, dict) and isinstance(row.get("vector"), list):
                vectors.append(row["vector"])
                row["vector"] = {"$vector": len(vectors) - 1}
        conn.execute("INSERT INTO memories VALUES (?, 'maya', ?, ?, ?, 1)",
                     (i, name, type(memory).__name__, json.dumps(state, ensure_ascii=False)))
        for position, vector in enumerate(vectors):
            conn.execute("INSERT INTO vectors VALUES (?, ?, '<f8', ?)",
                         (i, position, struct.pack(f"<{len(vector)}d", *vector)))
    conn.close()


def test_a_file_saved_by_the_first_schema_loads_and_is_marked_as_ours(tmp_path):
    semantic = SemanticMemoryStore(embed_dim=16)
    semantic.store("prefers window seats", "fact", 0.9, user_id="maya")
    memories = {"chat": saved("hello from the first release"), "window": SlidingWindowMemory(4, 2),
                "semantic": semantic}
    path = tmp_path / "old.db"
    write_first_schema_file(path, memories)
    before = fingerprint(path)
    with MemoryDB(path, read_only=True) as db:      # read-only: read, never marked
        assert db.listing() == [("maya", "chat", "buffer", 1), ("maya", "semantic", "semantic", 1),
                                ("maya", "window", "window", 1)]
        for name, memory in memories.items():
            assert db.load(user_id="maya", name=name).to_state() == memory.to_state()
    assert fingerprint(path)[:2] == before[:2]
    with MemoryDB(path) as db:
        assert db.load(user_id="maya", name="semantic").retrieve("window seats")[0][1] == "prefers window seats"
        db.save(saved("a new save"), user_id="maya", name="chat")
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA application_id").fetchone()[0] == store.APPLICATION_ID
        assert conn.execute("SELECT strategy FROM memories WHERE name='chat'").fetchone()[0] == "buffer"
    conn.close()
    assert strategy_class("ConversationBuffer") is strategy_class("buffer") is ConversationBuffer


# ------------------------------------------------------------ (14) a missing folder, a damaged save
def test_a_path_in_a_missing_folder_is_a_clear_error_naming_the_path(tmp_path):
    path = tmp_path / "no such folder" / "memory.db"
    with pytest.raises(FileNotFoundError, match="no such folder"):
        MemoryDB(path)
    assert not path.parent.exists()


DAMAGE = {
    "bad JSON": ("UPDATE memories SET state = '{\"messages\": ['", "its state is not valid JSON"),
    "a missing key": ("UPDATE memories SET state = json_remove(state, '$.messages')",
                      "its state has no key 'messages'"),
    "not an object": ("UPDATE memories SET state = '[1, 2]'", "its state is a list, not an object"),
    "a vector gone": ("DELETE FROM vectors", "its vectors do not fit its state"),
}


@pytest.mark.parametrize("sql, words", DAMAGE.values(), ids=DAMAGE.keys())
def test_a_damaged_save_is_a_clear_error_naming_user_and_memory(tmp_path, sql, words):
    path = tmp_path / "damaged.db"
    with MemoryDB(path) as db:
        memory = SemanticMemoryStore(embed_dim=8)
        memory.store("has a vector", user_id="maya")
        db.save(memory if "vectors" in sql else saved("kept"), user_id="maya", name="chat")
    with sqlite3.connect(path) as conn:
        conn.execute(sql)
    conn.close()
    with MemoryDB(path) as db:
        with pytest.raises(ValueError, match=f"'chat' saved for user 'maya' is damaged: {words}"):
            db.load(user_id="maya", name="chat")


# ------------------------------------------------------------ read-only mode
def test_read_only_never_creates_or_changes_the_file_and_refuses_every_write(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        MemoryDB(tmp_path / "nothing.db", read_only=True)
    assert list(tmp_path.iterdir()) == []
    path = tmp_path / "memory.db"
    with MemoryDB(path) as db:
        db.save(saved("kept"), user_id="maya")
    before = fingerprint(path)
    time.sleep(0.01)
    with MemoryDB(path, read_only=True) as db:
        assert db.load(user_id="maya").context() == [{"role": "user", "content": "kept"}]
        assert db.find("kept") == [("maya", "default")] and db.users() == ["maya"]
        writes = [lambda: db.save(saved("x"), user_id="maya"), lambda: db.delete(user_id="maya"),
                  lambda: db.delete_user("maya"), lambda: db.update(lambda m: m.add("user", "x"), user_id="maya"),
                  db.compact, lambda: db.batch().__enter__()]
        for write in writes:
            with pytest.raises(PermissionError, match="read_only=True"):
                write()
    assert fingerprint(path)[:2] == before[:2]
    with MemoryDB(path, read_only=True) as db:
        assert dump(db)[0][0][3] == json.dumps(saved("kept").to_state(), separators=(",", ":"), sort_keys=True)


WRITER = textwrap.dedent("""
    import sys
    from teachmem import ConversationBuffer, MemoryDB
    db = MemoryDB(sys.argv[1])
    buf = ConversationBuffer()
    print("ready", flush=True)
    for i in range(300):
        buf.add("user", f"message {i}")
        db.save(buf, user_id="maya")
    print("done", flush=True)
""")


def test_read_only_reads_while_another_process_writes(tmp_path):
    path = tmp_path / "busy.db"
    with MemoryDB(path) as db:
        db.save(saved("message -1"), user_id="maya")
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE, text=True,
                              cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert writer.stdout.readline().strip() == "ready"
    seen = []
    with MemoryDB(path, read_only=True) as reader:
        while writer.poll() is None or not seen:
            seen.append(len(reader.load(user_id="maya").context()))
        seen.append(len(reader.load(user_id="maya").context()))
    assert writer.wait(timeout=60) == 0 and writer.stdout.read().strip() == "done"
    writer.stdout.close()
    assert seen == sorted(seen) and seen[-1] == 300     # every read saw a whole save, never a half one


# ------------------------------------------------------------ (7, 13) time
def test_require_datetime_returns_aware_times_as_naive_utc():
    assert validate.require_datetime("when", AWARE) == datetime(2026, 3, 1, 10, 0)
    assert validate.require_datetime("when", AWARE).tzinfo is None
    naive = datetime(2026, 3, 1, 12, 0)
    assert validate.require_datetime("when", naive) is naive
    with pytest.raises(ValueError, match="when is out of range"):
        validate.require_datetime("when", datetime.max.replace(tzinfo=timezone(timedelta(hours=-1))))


def test_a_manual_clock_accepts_an_aware_start_and_refuses_a_huge_step_clearly():
    clock = ManualClock(AWARE)
    assert clock() == datetime(2026, 3, 1, 10, 0)
    assert clock.set(AWARE + timedelta(days=1)) == datetime(2026, 3, 2, 10, 0)
    for step, words in [({"days": 1e20}, "days=1e"), ({"hours": 10 ** 30}, "hours="), ({"minutes": 1e300}, "minutes="),
                        ({"days": 3_000_000}, "days=3000000"), ({"days": float("nan")}, "days must be a finite")]:
        with pytest.raises(ValueError, match=words):
            clock.advance(**step)
        assert clock() == datetime(2026, 3, 2, 10, 0)
    with pytest.raises(TypeError, match="hours must be a number"):
        clock.advance(hours="2")


def test_a_memory_on_a_clock_started_from_an_aware_time_compares_times_without_error():
    clock = ManualClock(AWARE)                    # e.g. the time a PostgreSQL driver returned
    memory = SemanticMemoryStore(embed_dim=16, clock=clock)
    memory.store("prefers window seats", "fact", 0.9, user_id="maya")
    memory.store("lives in Porto", "fact", 0.9, AWARE - timedelta(days=2), user_id="maya")
    clock.advance(days=1)
    assert memory.retrieve("window seats")[0][1] == "prefers window seats"
    assert isinstance(memory.prune(max_age_days=1), list)      # compares stored times with the clock


# ------------------------------------------------------------ (8) lone surrogates
def test_text_with_a_lone_surrogate_is_refused_at_the_door():
    with pytest.raises(ValueError, match="content must be valid Unicode text; it has a lone surrogate"):
        ConversationBuffer().add("user", "caf\udce9")
    with pytest.raises(ValueError, match="note must be valid Unicode"):
        validate.require_text("note", "caf\udce9")


@register_strategy
class _Smuggler:
    """A strategy whose state carries text that slipped past validation."""

    kind = "smuggler"

    def __init__(self, text="fine"):
        self.text = text

    def to_state(self):
        return {"notes": [self.text]}

    @classmethod
    def from_state(cls, state):
        return cls(state["notes"][0])


def test_saving_a_lone_surrogate_is_a_clear_error_and_writes_nothing(memorydb_path):
    with MemoryDB(memorydb_path) as db:
        db.save(_Smuggler(), user_id="maya")
        before = dump(db)
        with pytest.raises(ValueError, match=r"state\['notes'\]\[0\] must be valid Unicode"):
            db.save(_Smuggler("caf\udce9"), user_id="maya")
        assert dump(db) == before
        assert db.load(user_id="maya").text == "fine"


# ------------------------------------------------------------ (9) user ids are str
@pytest.mark.parametrize("user_id", [1, True, 1.0, None, b"maya"])
def test_a_user_id_that_is_not_a_str_is_a_type_error(memorydb_path, user_id):
    with pytest.raises(TypeError, match="user_id must be a str"):
        store.require_user_id("user_id", user_id)
    with MemoryDB(memorydb_path) as db:
        db.save(saved("kept"), user_id="1")
        before = dump(db)
        calls = [lambda: db.save(saved("x"), user_id=user_id), lambda: db.load(user_id=user_id),
                 lambda: db.exists(user_id=user_id), lambda: db.revision(user_id=user_id),
                 lambda: db.names(user_id=user_id), lambda: db.delete(user_id=user_id),
                 lambda: db.delete_user(user_id), lambda: db.update(lambda m: None, user_id=user_id),
                 lambda: db.load_state(user_id=user_id)]
        if user_id is not None:
            calls.append(lambda: db.find("kept", user_id=user_id))
        for call in calls:
            with pytest.raises(TypeError, match="user_id must be a str"):
                call()
        assert dump(db) == before
    assert store.require_user_id("user_id", "maya") == "maya"


# ------------------------------------------------------------ the strategy registry
def test_strategies_are_registered_by_a_stable_name_never_a_class_name():
    class NoKind:
        def to_state(self):
            return {}

        @classmethod
        def from_state(cls, state):
            return cls()

    with pytest.raises(TypeError, match="kind"):
        register_strategy(NoKind)
    assert register_strategy(NoKind, name="no_kind_test") is NoKind
    assert register_strategy(NoKind, name="no_kind_test") is NoKind        # the same again is fine
    assert strategy_class("no_kind_test") is NoKind
    with pytest.raises(ValueError, match="unknown strategy 'NoKind'"):
        strategy_class("NoKind")
    with pytest.raises(ValueError, match="already registered as 'no_kind_test'"):
        register_strategy(NoKind, name="another_name")
    with pytest.raises(ValueError, match="'buffer' is already taken"):
        register_strategy(NoKind, name="buffer")
    with pytest.raises(ValueError, match="'SummaryMemory' is already taken"):
        register_strategy(type("Legacy", (NoKind,), {}), name="SummaryMemory")

    class MyBuffer(ConversationBuffer):
        kind = "my_buffer_test"

    register_strategy(MyBuffer)
    with pytest.raises(ValueError, match="unknown strategy 'MyBuffer'"):
        strategy_class("MyBuffer")
    assert strategy_class("my_buffer_test") is MyBuffer


# ------------------------------------------------------------ errors name the argument
def test_bad_arguments_to_memorydb_are_named(tmp_path):
    for kwargs, error, words in [({"timeout": "1"}, TypeError, "timeout must be a number"),
                                 ({"timeout": -1}, ValueError, "timeout must be a number of seconds >= 0"),
                                 ({"read_only": "yes"}, TypeError, "read_only must be a bool")]:
        with pytest.raises(error, match=words):
            MemoryDB(tmp_path / "x.db", **kwargs)
    with MemoryDB(tmp_path / "x.db") as db:
        with pytest.raises(TypeError, match=r"memory cannot be saved: state\['notes'\]\[0\] is a set"):
            db.save(_Smuggler({"not", "json"}), user_id="maya")
        db.save(_Smuggler(), user_id="maya")
        with pytest.raises(TypeError, match="from_state_options do not fit .*unexpected keyword argument 'colck'"):
            db.load(user_id="maya", colck=None)
    with pytest.raises(ValueError, match="path .* is empty, not a teachmem memory database"):
        (tmp_path / "empty.db").touch()
        MemoryDB(tmp_path / "empty.db", read_only=True)


def test_find_and_raw_matches_see_a_text_however_its_whitespace_was_typed(memorydb_path):
    with MemoryDB(memorydb_path) as db:
        db.save(saved("my card is 4111  1111\n1111 1111"), user_id="maya")
        assert db.find("4111 1111 1111 1111") == [("maya", "default")]
        assert db.raw_matches("4111 1111 1111 1111") > 0
        db.delete_user("maya")
        db.compact()
        assert db.raw_matches("4111 1111 1111 1111") == 0


def test_every_exported_strategy_is_registered_under_its_kind():
    exported = [obj for obj in vars(teachmem).values() if isinstance(obj, type)
                    and not getattr(obj, "_is_protocol", False) and callable(getattr(obj, "to_state", None))
                    and callable(getattr(obj, "add", None)) and callable(getattr(obj, "context", None))]
    assert len(exported) >= 7
    for cls in exported:
        assert strategy_class(cls.kind) is cls, cls
