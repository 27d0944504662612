"""MemoryDB: every strategy's memory, per user, in one SQLite file or a PostgreSQL database.

The most common memory bug: the memory lives in a Python variable, the server
restarts, and the user is silently forgotten. The fix is to treat memory like
session data: a stateless process, a stateful store. ``MemoryDB`` is that
store, on the ``sqlite3`` module of the standard library (one file, no server).

* **Exact round trips.** ``save`` writes ``memory.to_state()``, with each part
  of a composite (checked to be JSON-ready and valid Unicode, naming the path
  of a bad value); ``load`` calls ``from_state`` (and each part's), so after a
  reload ``context(q)`` is identical.
* **Vectors as BLOBs.** Every ``"vector"`` / ``"embedding"`` list is cut out
  into the ``vectors`` table as float32 bytes (float64 when float32 would not
  give back exactly the same numbers): 1 kB instead of ~5 kB of JSON.
* **Transactions.** Each ``save``/``delete``/``update`` is one transaction;
  ``with db.batch():`` makes several one. A crash (even ``kill -9``) leaves
  all of a transaction or none of it.
* **Concurrent processes.** WAL mode lets readers run beside a writer; writes
  start with ``BEGIN IMMEDIATE`` so processes queue for the write lock (up to
  ``timeout`` seconds). Opening checks and creates the schema in one such
  transaction, retried while another process holds the file.
* **Its own files only.** The header's ``application_id`` marks a teachmem
  file and ``user_version`` its schema; a foreign or newer file is refused
  before anything in it is changed.
* **Read-only mode.** ``MemoryDB(path, read_only=True)`` opens the file with
  SQLite's ``mode=ro`` and refuses every write.
* **Deleting means deleting.** ``secure_delete`` zeroes freed space, and
  ``compact()`` folds the write-ahead log back, so a deleted memory does not
  linger in the file's bytes.
* **Or a server.** Given a ``postgresql://`` DSN instead of a path, the same
  SQL runs on PostgreSQL (``teachmem.lab.storage.pg_file``): one contract, two
  back-ends, each opening, locking, compacting and auditing its own way.

Taught in notebooks/09_persistence_and_governance.ipynb and
notebooks/10_from_laptop_to_production.ipynb.
"""
from __future__ import annotations

import inspect
import json
import math
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Callable

from teachmem.core.text import forget_pattern
from teachmem.core.validate import require_text
from teachmem.lab.storage.pg_file import PgDatabase, is_dsn
from teachmem.lab.storage.sqlite_file import APPLICATION_ID, SCHEMA_VERSION, SchemaVersionError, SqliteFile
from teachmem.lab.storage.state_codec import (canonical_name, decode_state, encode_state, register_strategy, restore,
                                              state_of, strategy_class, strategy_name)

__all__ = ["APPLICATION_ID", "MemoryDB", "MemoryNotFound", "SchemaVersionError", "SCHEMA_VERSION",
           "register_strategy", "strategy_class"]


class MemoryNotFound(KeyError):
    """``load`` asked for a memory that was never saved (or was deleted): a ``KeyError``."""

    def __str__(self) -> str:   # KeyError would print the message with quotes around it
        return str(self.args[0])


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


def _damaged(user_id: str, name: str, what: str) -> ValueError:
    return ValueError(f"the memory {name!r} saved for user {user_id!r} is damaged: {what}")


def require_no_nul(name: str, value: str) -> str:
    """``value`` without a NUL character (``"\\x00"``), else a ``ValueError`` naming ``name``.

    PostgreSQL's text cannot hold one. Both back-ends refuse it in a user id or a name (SQLite could store it):
    a call must not succeed on one back-end and fail on the other, and a user saved in a file must be able to
    move to a server. ``PgMemoryStore`` refuses it in every text it stores the same way.
    """
    if "\x00" in value:
        raise ValueError(f"{name} must not contain a NUL character (\\x00): PostgreSQL text cannot hold one")
    return value


def require_user_id(name: str, value) -> str:
    """A non-empty ``str`` without a NUL character (``require_no_nul``): ``1``, ``True`` and ``1.0`` (one dict
    key to Python) are refused, not coerced.

    >>> require_user_id("user_id", "maya")
    'maya'
    """
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__} {value!r}")
    return require_no_nul(name, require_text(name, value))


class MemoryDB:
    """Save and load any strategy's memory, per user, in one SQLite file or a PostgreSQL database.

    ``path`` is a file (created if missing, in a folder that exists),
    ``":memory:"`` for a throwaway database, or a ``postgresql://`` DSN (the
    tables are created in its schema ``memorydb``). One ``MemoryDB`` per process (or
    thread); many processes may open the same file at once. ``timeout`` is
    how long to wait for another process's write before giving up with
    ``sqlite3.OperationalError`` (on PostgreSQL, ``psycopg.errors.LockNotAvailable``).
    ``read_only=True`` never creates or
    changes the file and refuses every write with a ``PermissionError``.

    Taught in notebooks/09_persistence_and_governance.ipynb.
    """

    def __init__(self, path: str | os.PathLike, *, timeout: float = 30.0, read_only: bool = False):
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"path must be a str or a path, got {type(path).__name__}")
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
            raise TypeError(f"timeout must be a number of seconds, got {type(timeout).__name__}")
        if not 0 <= timeout < math.inf:
            raise ValueError(f"timeout must be a number of seconds >= 0, got {timeout!r}")
        if not isinstance(read_only, bool):
            raise TypeError(f"read_only must be a bool, got {type(read_only).__name__}")
        self.path, self.read_only = os.fspath(path), read_only
        engine = PgDatabase if is_dsn(path) else SqliteFile
        self._db: SqliteFile | PgDatabase = engine(self.path, float(timeout), read_only)
        self.journal_mode = self._db.journal_mode
        self._depth = 0     # how many transactions/savepoints are open

    @property
    def engine(self) -> str:
        """``"sqlite"`` or ``"postgresql"``: which back-end holds the memories."""
        return "postgresql" if isinstance(self._db, PgDatabase) else "sqlite"

    @property
    def schema_version(self) -> int:
        return self._db.schema_version()

    # ------------------------------------------------------------ transactions
    @contextmanager
    def _write(self, what: str):
        """One transaction (the outermost, holding the back-end's write lock) or a savepoint inside one."""
        if self.read_only:
            raise PermissionError(f"{what} writes, and {self._db.where} was opened with read_only=True")
        outer = self._depth == 0
        if outer:
            self._db.begin()
        else:
            self._db.execute(f"SAVEPOINT sp{self._depth}")
        self._depth += 1
        try:
            yield
        except BaseException:
            self._depth -= 1
            self._db.execute("ROLLBACK" if outer else f"ROLLBACK TO sp{self._depth}")
            if not outer:
                self._db.execute(f"RELEASE sp{self._depth}")
            raise
        self._depth -= 1
        try:
            self._db.execute("COMMIT" if outer else f"RELEASE sp{self._depth}")
        except BaseException:
            if outer and self._db.in_transaction():   # e.g. a full disk: undo, do not leave it half open
                self._db.execute("ROLLBACK")
            raise

    @contextmanager
    def batch(self):
        """``with db.batch(): ...``: every save and delete inside commits together, or not at all."""
        with self._write("batch()"):
            yield self

    # ------------------------------------------------------------ checks
    @staticmethod
    def _ids(user_id, name="default") -> tuple[str, str]:
        return require_user_id("user_id", user_id), require_no_nul("name", require_text("name", name))

    # ------------------------------------------------------------ save / load
    def save(self, memory, *, user_id: str, name: str = "default") -> int:
        """Store ``memory`` for ``user_id`` under ``name``, replacing any previous save.

        Returns the new revision (1, 2, …). Everything is checked and
        serialised before the transaction starts, so a bad call writes nothing.
        """
        user_id, name = self._ids(user_id, name)
        strategy = strategy_name(memory)
        try:
            text, vectors = encode_state(state_of(memory))
        except (TypeError, ValueError) as err:
            raise type(err)(f"memory cannot be saved: {err}") from None
        with self._write("save()"):
            row = self._db.execute("SELECT id, revision FROM memories WHERE user_id=? AND name=?",
                                   (user_id, name)).fetchone()
            if row is None:
                revision = 1
                memory_id = self._db.execute(
                    "INSERT INTO memories (user_id, name, strategy, state, revision) VALUES (?, ?, ?, ?, 1) "
                    "RETURNING id", (user_id, name, strategy, text)).fetchone()[0]
            else:
                memory_id, revision = row[0], row[1] + 1
                self._db.execute("UPDATE memories SET strategy=?, state=?, revision=? WHERE id=?",
                                 (strategy, text, revision, memory_id))
                self._db.execute("DELETE FROM vectors WHERE memory_id=?", (memory_id,))
            self._db.executemany(
                "INSERT INTO vectors (memory_id, position, dtype, data) VALUES (?, ?, ?, ?)",
                [(memory_id, i, v.dtype.str, v.tobytes()) for i, v in enumerate(vectors)])
        return revision

    def load_state(self, *, user_id: str, name: str = "default") -> tuple[str, dict]:
        """``(strategy name, state)`` as saved, vectors back as lists of floats."""
        user_id, name = self._ids(user_id, name)
        row = self._db.execute("SELECT id, strategy, state FROM memories WHERE user_id=? AND name=?",
                                 (user_id, name)).fetchone()
        if row is None:
            raise MemoryNotFound(f"no memory named {name!r} is saved for user {user_id!r}")
        try:
            state = decode_state(row[2], self._db.execute(
                "SELECT dtype, data FROM vectors WHERE memory_id=? ORDER BY position", (row[0],)).fetchall())
        except ValueError as err:     # the file was edited by hand or by another program
            raise _damaged(user_id, name, str(err)) from None
        return canonical_name(row[1]), state

    def load(self, *, user_id: str, name: str = "default", **from_state_options):
        """Rebuild the memory saved for ``user_id`` under ``name``.

        ``from_state_options`` go to the class's ``from_state`` (for example
        a ``clock`` or an ``embedder`` to share). Raises ``MemoryNotFound``
        (a ``KeyError``) when nothing was saved: a missing memory is an error
        to handle, not an empty memory to hand out silently.
        """
        strategy, state = self.load_state(user_id=user_id, name=name)
        cls = strategy_class(strategy)
        try:     # a wrong option is the caller's mistake, not damage in the file
            inspect.signature(cls.from_state).bind(state, **from_state_options)
        except TypeError as err:
            raise TypeError(f"from_state_options do not fit {cls.__qualname__}.from_state: {err}") from None
        try:
            return restore(cls, state, **from_state_options)
        except KeyError as err:
            raise _damaged(user_id, name, f"its state has no key {err.args[0]!r}") from err
        except (TypeError, ValueError, AttributeError, IndexError) as err:
            raise _damaged(user_id, name, f"{type(err).__name__}: {err}") from err

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
        with self._write("update()"):
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
        return self._db.execute("SELECT 1 FROM memories WHERE user_id=? AND name=?",
                                  (user_id, name)).fetchone() is not None

    def revision(self, *, user_id: str, name: str = "default") -> int:
        """How many times this memory was saved (0 if never)."""
        user_id, name = self._ids(user_id, name)
        row = self._db.execute("SELECT revision FROM memories WHERE user_id=? AND name=?",
                                 (user_id, name)).fetchone()
        return row[0] if row else 0

    def users(self) -> list[str]:
        """Every user with at least one saved memory, sorted."""
        return [r[0] for r in self._db.execute("SELECT DISTINCT user_id FROM memories ORDER BY user_id")]

    def names(self, *, user_id: str) -> list[str]:
        """The names of ``user_id``'s saved memories, sorted."""
        require_user_id("user_id", user_id)
        return [r[0] for r in self._db.execute("SELECT name FROM memories WHERE user_id=? ORDER BY name",
                                                 (user_id,))]

    def listing(self) -> list[tuple[str, str, str, int]]:
        """``(user_id, name, strategy, revision)`` for every saved memory, sorted."""
        return [(u, n, canonical_name(s), r) for u, n, s, r in self._db.execute(
            "SELECT user_id, name, strategy, revision FROM memories ORDER BY user_id, name")]

    def find(self, text_or_pattern, *, user_id: str | None = None) -> list[tuple[str, str]]:
        """``(user_id, name)`` of every saved memory whose state mentions ``text_or_pattern``.

        A plain string matches in any case and with any whitespace between its
        words (``"4111 1111"`` finds ``"4111  1111"``); pass ``re.compile(...)``
        for a pattern. With ``user_id``, only that user's memories are searched.
        """
        pattern = forget_pattern(text_or_pattern)   # any case, any whitespace between words
        query, args = "SELECT user_id, name, state FROM memories", ()   # type: tuple[str, tuple]
        if user_id is not None:
            query, args = query + " WHERE user_id=?", (require_user_id("user_id", user_id),)
        return sorted((u, n) for u, n, state in self._db.execute(query, args)
                      if any(pattern.search(s) for s in _strings(json.loads(state))))

    # ------------------------------------------------------------ delete
    def delete(self, *, user_id: str, name: str = "default") -> bool:
        """Delete one memory; True if there was one."""
        user_id, name = self._ids(user_id, name)
        with self._write("delete()"):
            return self._db.execute("DELETE FROM memories WHERE user_id=? AND name=?",
                                      (user_id, name)).rowcount > 0

    def delete_user(self, user_id: str) -> int:
        """Delete every memory of ``user_id``; returns how many there were."""
        require_user_id("user_id", user_id)
        with self._write("delete_user()"):
            return self._db.execute("DELETE FROM memories WHERE user_id=?", (user_id,)).rowcount

    # ------------------------------------------------------------ the file itself
    def compact(self) -> None:
        """Leave only live data on disk.

        After deleting, old page images can still sit in SQLite's ``-wal`` file
        and in free pages: this folds the log into the file, truncates it, and
        rebuilds the file. On PostgreSQL, old row versions stay in their pages
        until VACUUM: this runs ``VACUUM FULL`` (which locks the tables while
        it rewrites them).
        """
        if self.read_only:
            raise PermissionError(f"compact() writes, and {self._db.where} was opened with read_only=True")
        if self._depth:
            raise RuntimeError("compact() cannot run inside a batch")
        self._db.compact()

    def files(self) -> list[Path]:
        """The files on disk that hold this database's bytes (the file, its WAL; none for a server)."""
        return self._db.files()

    def raw_matches(self, text_or_pattern) -> int:
        """How often ``text_or_pattern`` occurs in the raw bytes: the files, or the server's table pages.

        A check below the SQL level: deleted rows that were not overwritten
        would still be found here. (A copy split across two pages would not:
        that is why deletion also zeroes freed space rather than relying on
        this scan alone.) States are stored as JSON, where a newline or tab
        is written ``\\n`` / ``\\t``: those count as whitespace here too.
        Reading a server's pages needs a superuser.
        """
        return self._db.raw_matches(forget_pattern(text_or_pattern))   # any case, any whitespace between words

    def leftovers(self, text_or_pattern, elsewhere: int = 0) -> list[tuple[str, int]]:
        """``(check, copies)`` below SQL, for ``forget``'s audit: the file's bytes (SQLite); dead row versions
        and page bytes (PostgreSQL). ``elsewhere``: copies other users' live memories hold, not counted."""
        return self._db.leftovers(forget_pattern(text_or_pattern), elsewhere)

    @property
    def caveat(self) -> str:
        """What ``forget``'s audit cannot check on this back-end ("" when nothing it knows of)."""
        return self._db.caveat

    def integrity_check(self) -> str:
        """The engine's own check (SQLite's ``integrity_check``, PostgreSQL's ``amcheck``): ``"ok"`` when sound."""
        return self._db.integrity_check()

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> "MemoryDB":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:     # a DSN may hold a password: name the database instead
        where = f"<{self._db.where}>" if self.engine == "postgresql" else repr(self.path)
        return f"MemoryDB({where}{', read_only=True' if self.read_only else ''})"
