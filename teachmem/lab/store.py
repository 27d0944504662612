"""MemoryDB: every strategy's memory, per user, in one SQLite file.

Seed 001 names the most common memory bug: the memory lives in a Python
variable, the server restarts, and the user is silently forgotten. The fix is
to treat memory like session data: a stateless process, a stateful store.
``MemoryDB`` is that store, on the ``sqlite3`` module of the standard library
(an embedded database: one file, no server).

What it guarantees, and how:

* **Exact round trips.** ``save`` writes ``memory.to_state()``; ``load`` calls
  ``from_state`` on it, so after a reload ``context(q)`` is identical. States
  must be JSON-ready (checked, with the path of the offending value).
* **Vectors as BLOBs.** A list of 256 floats is ~5 kB of JSON text but 1 kB as
  float32 bytes. Every ``"vector"`` / ``"embedding"`` list in a state is cut
  out into the ``vectors`` table as a little-endian float32 BLOB (float64 when
  float32 would not give back exactly the same numbers).
* **Transactions.** Each ``save``/``delete``/``update`` is one transaction;
  ``with db.batch():`` makes several one. A crash (even ``kill -9``) leaves
  either all of a transaction or none of it.
* **Concurrent writers.** WAL mode lets readers run beside a writer; writes
  start with ``BEGIN IMMEDIATE`` so two processes queue for the write lock
  (up to ``timeout`` seconds) instead of failing half way. ``update`` does a
  read-modify-write inside one such transaction, so two processes adding to
  the same user's memory lose nothing.
* **A versioned schema.** ``PRAGMA user_version`` records the schema; a file
  written by a newer teachmem is refused with a clear error, never guessed at.
* **Deleting means deleting.** ``secure_delete`` zeroes freed space, and
  ``compact()`` folds the write-ahead log back and truncates it, so a deleted
  memory does not linger in the file's bytes.

Taught in notebooks/09_persistence_and_governance.ipynb.
"""
from __future__ import annotations

import importlib
import json
import math
import os
import re
import sqlite3
from contextlib import contextmanager
from pathlib import Path
from typing import Callable

import numpy as np

from teachmem.core.validate import require_text

__all__ = ["MemoryDB", "MemoryNotFound", "SchemaVersionError", "SCHEMA_VERSION", "register_strategy",
           "strategy_class"]

#: The schema this version of teachmem writes and understands.
SCHEMA_VERSION = 1

_SCHEMA = """
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

_VECTOR_KEYS = ("vector", "embedding")
_PLACEHOLDER = "$vector"

# Strategies the database may rebuild, by class name. The module is imported
# only when needed; a name read from the file is looked up here, so a
# database can never make teachmem import arbitrary code.
_STRATEGIES: dict[str, str | type] = {
    "ConversationBuffer": "teachmem.memory.buffer",
    "SlidingWindowMemory": "teachmem.memory.window",
    "TokenBudgetWindow": "teachmem.memory.token_window",
    "SummaryMemory": "teachmem.memory.summary",
    "EntityMemory": "teachmem.memory.entity",
    "SemanticMemoryStore": "teachmem.memory.semantic",
    "HybridMemoryManager": "teachmem.memory.hybrid",
}


class MemoryNotFound(KeyError):
    """``load`` asked for a memory that was never saved (or was deleted).

    Taught in notebooks/09_persistence_and_governance.ipynb.
    """

    def __str__(self) -> str:   # KeyError would print the message with quotes around it
        return str(self.args[0])


class SchemaVersionError(RuntimeError):
    """The file was written with a schema this teachmem does not know.

    Taught in notebooks/09_persistence_and_governance.ipynb.
    """


def register_strategy(cls: type) -> type:
    """Let ``MemoryDB`` save and load your own strategy class (usable as a decorator).

    The class needs ``to_state()`` and a ``from_state`` classmethod.
    Taught in notebooks/09_persistence_and_governance.ipynb.
    """
    if not isinstance(cls, type) or not callable(getattr(cls, "to_state", None)) \
            or not callable(getattr(cls, "from_state", None)):
        raise TypeError(f"cls must be a class with to_state() and from_state(), got {cls!r}")
    known = _STRATEGIES.get(cls.__name__)
    if known is not None and known is not cls and not isinstance(known, str):
        raise ValueError(f"another class named {cls.__name__!r} is already registered")
    _STRATEGIES[cls.__name__] = cls
    return cls


def strategy_class(name: str) -> type:
    """The registered class called ``name`` (imported on first use).

    Taught in notebooks/09_persistence_and_governance.ipynb.
    """
    target = _STRATEGIES.get(name)
    if target is None:
        raise ValueError(f"unknown strategy {name!r}; known: {sorted(_STRATEGIES)} "
                         "(register your own with teachmem.lab.store.register_strategy)")
    if isinstance(target, str):
        target = _STRATEGIES[name] = getattr(importlib.import_module(target), name)
    return target


def _strategy_name(memory) -> str:
    """The registry name of ``memory``'s class, refusing look-alikes.

    A notebook's own ``ConversationBuffer`` is not the library's: saving it
    under that name would load back as a different class.
    """
    name = type(memory).__name__
    if not callable(getattr(memory, "to_state", None)):
        raise TypeError(f"memory must have a to_state() method, got {name}")
    try:
        registered = strategy_class(name)
    except (ValueError, ImportError, AttributeError):
        registered = None
    if registered is not type(memory):
        raise TypeError(f"memory's class {type(memory).__module__}.{name} is not a registered strategy; "
                        "register it with teachmem.lab.store.register_strategy")
    return name


def _split_vectors(state) -> tuple[str, list[np.ndarray]]:
    """JSON text of ``state`` with every vector cut out, and the vectors.

    Also checks that the state is JSON-ready, naming the path of a bad value.
    """
    vectors: list[np.ndarray] = []

    def walk(value, path: str):
        if isinstance(value, dict):
            if _PLACEHOLDER in value:
                raise ValueError(f"state{path} uses the reserved key {_PLACEHOLDER!r}")
            out = {}
            for key, item in value.items():
                if not isinstance(key, str):
                    raise TypeError(f"state{path} has a {type(key).__name__} key {key!r}; JSON keys are str")
                if key in _VECTOR_KEYS and _is_vector(item):
                    out[key] = {_PLACEHOLDER: len(vectors)}
                    vectors.append(_pack(item))
                else:
                    out[key] = walk(item, f"{path}[{key!r}]")
            return out
        if isinstance(value, list):
            return [walk(item, f"{path}[{i}]") for i, item in enumerate(value)]
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"state{path} is {value!r}; JSON has no NaN or infinity")
        if value is None or isinstance(value, (str, int, float, bool)):
            return value
        raise TypeError(f"state{path} is a {type(value).__name__}; to_state() must return "
                        "only dict, list, str, int, float, bool and None")

    skeleton = walk(state, "")
    if not isinstance(skeleton, dict):
        raise TypeError(f"to_state() must return a dict, got {type(state).__name__}")
    return json.dumps(skeleton, ensure_ascii=False, separators=(",", ":"), sort_keys=True), vectors


def _is_vector(value) -> bool:
    return (isinstance(value, list) and len(value) > 0
            and all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in value))


def _pack(numbers: list) -> np.ndarray:
    """float32 when that gives back exactly the same numbers, else float64."""
    exact = np.asarray(numbers, dtype="<f8")
    small = exact.astype("<f4")
    return small if np.array_equal(small.astype("<f8"), exact) else exact


def _restore_vectors(value, vectors: list[list[float]]):
    if isinstance(value, dict):
        if set(value) == {_PLACEHOLDER}:
            return vectors[value[_PLACEHOLDER]]
        return {k: _restore_vectors(v, vectors) for k, v in value.items()}
    if isinstance(value, list):
        return [_restore_vectors(v, vectors) for v in value]
    return value


def _compile(text_or_pattern) -> re.Pattern:
    """A literal string matches case-insensitively; a compiled pattern as it is."""
    if isinstance(text_or_pattern, re.Pattern):
        if not isinstance(text_or_pattern.pattern, str):
            raise TypeError("text_or_pattern must be a str pattern, not a bytes pattern")
        return text_or_pattern
    require_text("text_or_pattern", text_or_pattern)
    return re.compile(re.escape(text_or_pattern), re.IGNORECASE)


def _strings(value):
    """Every string value in a JSON document (not the keys: they are the state's own field names)."""
    if isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, str):
        yield value


class MemoryDB:
    """Save and load any strategy's memory, per user, in one SQLite file.

    ``path`` is a file (created if missing) or ``":memory:"`` for a throwaway
    database. One ``MemoryDB`` per process (or thread); many processes may
    open the same file at once. ``timeout`` is how long a writer waits for
    another writer's transaction before ``sqlite3.OperationalError``.

    Taught in notebooks/09_persistence_and_governance.ipynb.
    """

    def __init__(self, path: str | os.PathLike, *, timeout: float = 30.0):
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"path must be a str or a path, got {type(path).__name__}")
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 <= timeout < math.inf:
            raise ValueError(f"timeout must be a number of seconds >= 0, got {timeout!r}")
        self.path = os.fspath(path)
        if self.path != ":memory:" and Path(self.path).is_dir():
            raise ValueError(f"path must be a file, got the directory {self.path!r}")
        self._conn = sqlite3.connect(self.path, timeout=timeout, isolation_level=None)
        self._depth = 0     # how many transactions/savepoints are open
        try:
            self._check_schema()       # before changing anything in a file that may not be ours
            # WAL: readers never block the writer; one commit is one append.
            self.journal_mode = self._conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            self._conn.execute("PRAGMA synchronous=FULL")      # committed means on disk
            self._conn.execute("PRAGMA secure_delete=ON")      # freed bytes are zeroed
            self._conn.execute("PRAGMA foreign_keys=ON")
            if self.schema_version == 0:
                self._create_schema()
        except sqlite3.DatabaseError as err:
            self._conn.close()
            if isinstance(err, sqlite3.OperationalError) and "locked" in str(err):
                raise
            raise ValueError(f"cannot open {self.path!r} as a teachmem memory database: {err}") from None
        except BaseException:
            self._conn.close()
            raise

    # ------------------------------------------------------------ schema
    def _check_schema(self) -> None:
        version = self.schema_version
        if version > SCHEMA_VERSION:
            raise SchemaVersionError(
                f"{self.path!r} has memory schema version {version}, newer than the version {SCHEMA_VERSION} "
                "this teachmem understands; upgrade teachmem to read it (nothing was changed)")
        tables = [r[0] for r in self._conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        if version == 0 and tables:
            raise ValueError(f"{self.path!r} is an SQLite database but not a teachmem one "
                             f"(it has tables {sorted(tables)}); nothing was changed")

    def _create_schema(self) -> None:
        with self._write():     # two processes may create at once: hold the lock, then look again
            if self.schema_version == 0:
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        self._conn.execute(statement)
                self._conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    @property
    def schema_version(self) -> int:
        return self._conn.execute("PRAGMA user_version").fetchone()[0]

    # ------------------------------------------------------------ transactions
    @contextmanager
    def _write(self):
        """One transaction (the outermost) or a savepoint inside one (nested).

        ``BEGIN IMMEDIATE`` takes the write lock at the start: a transaction
        that reads first and asks for the lock later can find that another
        process wrote in between, and SQLite then fails it at once.
        """
        outer = self._depth == 0
        self._conn.execute("BEGIN IMMEDIATE" if outer else f"SAVEPOINT sp{self._depth}")
        self._depth += 1
        try:
            yield
        except BaseException:
            self._depth -= 1
            self._conn.execute("ROLLBACK" if outer else f"ROLLBACK TO sp{self._depth}")
            if not outer:
                self._conn.execute(f"RELEASE sp{self._depth}")
            raise
        self._depth -= 1
        try:
            self._conn.execute("COMMIT" if outer else f"RELEASE sp{self._depth}")
        except BaseException:
            if outer and self._conn.in_transaction:   # e.g. a full disk: undo, do not leave it half open
                self._conn.execute("ROLLBACK")
            raise

    @contextmanager
    def batch(self):
        """``with db.batch(): ...``: every save and delete inside commits together, or not at all."""
        with self._write():
            yield self

    # ------------------------------------------------------------ checks
    @staticmethod
    def _ids(user_id, name="default") -> tuple[str, str]:
        return require_text("user_id", user_id), require_text("name", name)

    # ------------------------------------------------------------ save / load
    def save(self, memory, *, user_id: str, name: str = "default") -> int:
        """Store ``memory`` for ``user_id`` under ``name``, replacing any previous save.

        Returns the new revision (1, 2, …). Everything is checked and
        serialised before the transaction starts, so a bad call writes nothing.
        """
        user_id, name = self._ids(user_id, name)
        strategy = _strategy_name(memory)
        text, vectors = _split_vectors(memory.to_state())
        with self._write():
            row = self._conn.execute("SELECT id, revision FROM memories WHERE user_id=? AND name=?",
                                     (user_id, name)).fetchone()
            if row is None:
                revision = 1
                memory_id = self._conn.execute(
                    "INSERT INTO memories (user_id, name, strategy, state, revision) VALUES (?, ?, ?, ?, 1)",
                    (user_id, name, strategy, text)).lastrowid
            else:
                memory_id, revision = row[0], row[1] + 1
                self._conn.execute("UPDATE memories SET strategy=?, state=?, revision=? WHERE id=?",
                                   (strategy, text, revision, memory_id))
                self._conn.execute("DELETE FROM vectors WHERE memory_id=?", (memory_id,))
            self._conn.executemany(
                "INSERT INTO vectors (memory_id, position, dtype, data) VALUES (?, ?, ?, ?)",
                [(memory_id, i, v.dtype.str, v.tobytes()) for i, v in enumerate(vectors)])
        return revision

    def load_state(self, *, user_id: str, name: str = "default") -> tuple[str, dict]:
        """``(strategy name, state)`` as saved, vectors back as lists of floats."""
        user_id, name = self._ids(user_id, name)
        row = self._conn.execute("SELECT id, strategy, state FROM memories WHERE user_id=? AND name=?",
                                 (user_id, name)).fetchone()
        if row is None:
            raise MemoryNotFound(f"no memory named {name!r} is saved for user {user_id!r}")
        vectors = [np.frombuffer(data, dtype=dtype).tolist() for dtype, data in self._conn.execute(
            "SELECT dtype, data FROM vectors WHERE memory_id=? ORDER BY position", (row[0],))]
        return row[1], _restore_vectors(json.loads(row[2]), vectors)

    def load(self, *, user_id: str, name: str = "default", **from_state_options):
        """Rebuild the memory saved for ``user_id`` under ``name``.

        ``from_state_options`` go to the class's ``from_state`` (for example
        a ``clock`` or an ``embedder`` to share). Raises ``MemoryNotFound``
        (a ``KeyError``) when nothing was saved: a missing memory is an error
        to handle, not an empty memory to hand out silently.
        """
        strategy, state = self.load_state(user_id=user_id, name=name)
        return strategy_class(strategy).from_state(state, **from_state_options)

    def update(self, change: Callable, *, user_id: str, name: str = "default", create: Callable | None = None,
               **from_state_options):
        """Load, ``change(memory)``, save: all in one transaction; returns the memory.

        Two processes updating the same memory at once take turns, so neither
        overwrites the other's addition (the "lost update"). ``create()``
        makes the memory when none is saved yet.
        """
        if not callable(change):
            raise TypeError(f"change must be callable, got {type(change).__name__}")
        if create is not None and not callable(create):
            raise TypeError(f"create must be callable or None, got {type(create).__name__}")
        user_id, name = self._ids(user_id, name)
        with self._write():
            if create is not None and not self.exists(user_id=user_id, name=name):
                memory = create()
            else:
                memory = self.load(user_id=user_id, name=name, **from_state_options)
            change(memory)
            self.save(memory, user_id=user_id, name=name)
        return memory

    # ------------------------------------------------------------ listing
    def exists(self, *, user_id: str, name: str = "default") -> bool:
        user_id, name = self._ids(user_id, name)
        return self._conn.execute("SELECT 1 FROM memories WHERE user_id=? AND name=?",
                                  (user_id, name)).fetchone() is not None

    def revision(self, *, user_id: str, name: str = "default") -> int:
        """How many times this memory was saved (0 if never)."""
        user_id, name = self._ids(user_id, name)
        row = self._conn.execute("SELECT revision FROM memories WHERE user_id=? AND name=?",
                                 (user_id, name)).fetchone()
        return row[0] if row else 0

    def users(self) -> list[str]:
        """Every user with at least one saved memory, sorted."""
        return [r[0] for r in self._conn.execute("SELECT DISTINCT user_id FROM memories ORDER BY user_id")]

    def names(self, *, user_id: str) -> list[str]:
        """The names of ``user_id``'s saved memories, sorted."""
        require_text("user_id", user_id)
        return [r[0] for r in self._conn.execute("SELECT name FROM memories WHERE user_id=? ORDER BY name",
                                                 (user_id,))]

    def listing(self) -> list[tuple[str, str, str, int]]:
        """``(user_id, name, strategy, revision)`` for every saved memory, sorted."""
        return [tuple(r) for r in self._conn.execute(
            "SELECT user_id, name, strategy, revision FROM memories ORDER BY user_id, name")]

    def find(self, text_or_pattern, *, user_id: str | None = None) -> list[tuple[str, str]]:
        """``(user_id, name)`` of every saved memory whose state mentions ``text_or_pattern``.

        A plain string matches case-insensitively; pass ``re.compile(...)``
        for a pattern. With ``user_id``, only that user's memories are searched.
        """
        pattern = _compile(text_or_pattern)
        query, args = "SELECT user_id, name, state FROM memories", ()
        if user_id is not None:
            query, args = query + " WHERE user_id=?", (require_text("user_id", user_id),)
        return sorted((u, n) for u, n, state in self._conn.execute(query, args)
                      if any(pattern.search(s) for s in _strings(json.loads(state))))

    # ------------------------------------------------------------ delete
    def delete(self, *, user_id: str, name: str = "default") -> bool:
        """Delete one memory; True if there was one."""
        user_id, name = self._ids(user_id, name)
        with self._write():
            return self._conn.execute("DELETE FROM memories WHERE user_id=? AND name=?",
                                      (user_id, name)).rowcount > 0

    def delete_user(self, user_id: str) -> int:
        """Delete every memory of ``user_id``; returns how many there were."""
        require_text("user_id", user_id)
        with self._write():
            return self._conn.execute("DELETE FROM memories WHERE user_id=?", (user_id,)).rowcount

    # ------------------------------------------------------------ the file itself
    def compact(self) -> None:
        """Fold the write-ahead log into the file, truncate it, and rebuild the file.

        After deleting, old page images can still sit in the ``-wal`` file and
        in free pages. This leaves only live data on disk.
        """
        if self._depth:
            raise RuntimeError("compact() cannot run inside a batch")
        self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self._conn.execute("VACUUM")
        self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def files(self) -> list[Path]:
        """The files on disk that hold this database's bytes (the file, its WAL)."""
        if self.path == ":memory:":
            return []
        return [p for p in (Path(self.path), Path(self.path + "-wal")) if p.exists()]

    def raw_matches(self, text_or_pattern) -> int:
        """How often ``text_or_pattern`` occurs in the raw bytes of the files.

        A check below the SQL level: deleted rows that were not overwritten
        would still be found here. (A copy split across two pages would not:
        that is why deletion also zeroes freed space rather than relying on
        this scan alone.)
        """
        pattern = _compile(text_or_pattern)
        return sum(len(pattern.findall(p.read_bytes().decode("utf-8", errors="replace"))) for p in self.files())

    def integrity_check(self) -> str:
        """SQLite's own check of the file: ``"ok"`` when every page and index is sound."""
        return "\n".join(r[0] for r in self._conn.execute("PRAGMA integrity_check"))

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> "MemoryDB":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"MemoryDB({self.path!r})"
