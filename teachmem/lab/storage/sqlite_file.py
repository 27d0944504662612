"""Opening a memory database file: is it ours, is it new, is someone else in it?

* **In one transaction.** The schema version, the header mark and the table
  list are read, and a new file's schema created, inside one ``BEGIN
  IMMEDIATE`` transaction. Read in two, another process could create the
  schema in between, and one of two processes opening a new file at once
  would fail or lose its first writes.
* **Retried while busy.** When another process holds the file, opening waits
  (SQLite's busy timeout), then retries with short random pauses, up to
  ``timeout`` seconds in all.
* **Its own files only.** ``PRAGMA application_id`` (the bytes "TMEM") marks a
  teachmem file and ``PRAGMA user_version`` its schema. A foreign SQLite file,
  even one whose ``user_version`` happens to be 1, is refused before anything
  in it changes: no write, no switch to WAL. Files written before the mark
  existed are recognised by their exact tables and marked on first open.
* **Read-only.** ``read_only=True`` opens with SQLite's ``mode=ro``: the file
  is never created or changed.

``SqliteFile`` is ``MemoryDB``'s back-end for a file path (``PgDatabase`` in
``teachmem.lab.storage.pg_file`` is the one for a ``postgresql://`` DSN): the same SQL
runs on both; each back-end opens, locks, compacts and audits its own way.

Taught in notebooks/09b_sqlite_internals_and_audits.ipynb.
"""
from __future__ import annotations

import random
import re
import sqlite3
import time
from pathlib import Path
from typing import Callable

from teachmem.lab.storage.state_codec import raw_count

__all__ = ["APPLICATION_ID", "SCHEMA_VERSION", "SchemaVersionError", "SqliteFile", "open_database"]

#: The schema this version of teachmem writes and understands.
SCHEMA_VERSION = 1
#: Written into the file header (``PRAGMA application_id``): the bytes "TMEM" say "a teachmem file".
APPLICATION_ID = 0x544D454D

SCHEMA = """
CREATE TABLE memories (
    id       INTEGER PRIMARY KEY,
    user_id  TEXT NOT NULL,
    name     TEXT NOT NULL,
    strategy TEXT NOT NULL,          -- a registered strategy name (its kind), never an import path
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
TABLES = {"memories": ["id", "user_id", "name", "strategy", "state", "revision"],
          "vectors": ["memory_id", "position", "dtype", "data"]}


class SchemaVersionError(RuntimeError):
    """The file was written with a schema this teachmem does not know.

    Taught in notebooks/09b_sqlite_internals_and_audits.ipynb.
    """


def open_database(path: str, timeout: float, read_only: bool) -> tuple[sqlite3.Connection, str]:
    """A connection to the teachmem file at ``path`` (created if new, unless read-only), and its journal mode."""
    conn = _connect(path, timeout, read_only)
    try:
        _retry(lambda: _check_and_create(conn, path, read_only), timeout)   # look, then create if new
        mode = _retry(lambda: _configure(conn, read_only), timeout)
    except sqlite3.DatabaseError as err:
        conn.close()
        if isinstance(err, sqlite3.OperationalError) and _busy(err):
            raise sqlite3.OperationalError(f"path {path!r} stayed locked by another process for {timeout:g} s: "
                                           f"{err}") from None
        raise ValueError(f"cannot open path {path!r} as a teachmem memory database: {err}") from None
    except BaseException:
        conn.close()
        raise
    return conn, mode


def _busy(err: sqlite3.OperationalError) -> bool:
    """Did SQLite refuse because another connection holds the file?"""
    return (getattr(err, "sqlite_errorcode", 0) & 0xFF) in (5, 6) or "locked" in str(err)   # SQLITE_BUSY, _LOCKED


def _retry(step: Callable, timeout: float):
    """Run ``step``, again after a short random pause while another process holds the file."""
    give_up, pause = time.monotonic() + timeout, 0.005
    while True:
        try:
            return step()
        except sqlite3.OperationalError as err:
            if not _busy(err) or time.monotonic() >= give_up:
                raise
        time.sleep(random.uniform(0.5, 1.0) * min(pause, max(0.0, give_up - time.monotonic())))
        pause = min(pause * 2, 0.2)


def _connect(path: str, timeout: float, read_only: bool) -> sqlite3.Connection:
    if path == ":memory:":
        if read_only:
            raise ValueError("read_only=True needs a file path, not ':memory:'")
        return sqlite3.connect(":memory:", isolation_level=None)
    file = Path(path)
    if file.is_dir():
        raise ValueError(f"path must be a file, got the directory {path!r}")
    if not file.parent.is_dir():
        raise FileNotFoundError(f"path {path!r} is in a folder that does not exist: {str(file.parent)!r}")
    if read_only and not file.is_file():
        raise FileNotFoundError(f"path {path!r} does not exist (read_only=True never creates a file)")
    target, uri = (file.resolve().as_uri() + "?mode=ro", True) if read_only else (path, False)
    try:
        return sqlite3.connect(target, timeout=timeout, isolation_level=None, uri=uri)
    except sqlite3.Error as err:
        raise ValueError(f"cannot open path {path!r}: {err}") from None


def _check_and_create(conn: sqlite3.Connection, path: str, read_only: bool) -> None:
    """Check that the file is ours and create the schema if it is new, in one transaction.

    Nothing is written to a file that is not ours: the check comes first and
    a refusal rolls back a transaction that has only read.
    """
    conn.execute("BEGIN" if read_only else "BEGIN IMMEDIATE")
    try:
        found = _ownership(conn, path)
        if found == "new" and read_only:
            raise ValueError(f"path {path!r} is empty, not a teachmem memory database (read_only=True)")
        if found == "new":
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        if found in ("new", "unmarked") and not read_only:      # unmarked: written before the header mark
            conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def _ownership(conn: sqlite3.Connection, path: str) -> str:
    """"new" (empty), "ours", or "unmarked" (ours, from before the header mark); else raise."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    marker = conn.execute("PRAGMA application_id").fetchone()[0]
    objects = conn.execute("SELECT type, name FROM sqlite_master").fetchall()
    tables = {name: [r[0] for r in conn.execute("SELECT name FROM pragma_table_info(?)", (name,))]
              for kind, name in objects if kind == "table"}
    if marker == APPLICATION_ID and version > SCHEMA_VERSION:
        raise SchemaVersionError(
            f"path {path!r} has memory schema version {version}, newer than the version {SCHEMA_VERSION} "
            "this teachmem understands; upgrade teachmem to read it (nothing was changed)")
    if (version, marker, objects) == (0, 0, []):
        return "new"
    if marker in (0, APPLICATION_ID) and version == SCHEMA_VERSION and tables == TABLES:
        return "ours" if marker else "unmarked"
    raise ValueError(f"path {path!r} is an SQLite database but not a teachmem one (tables {sorted(tables)}, "
                     f"user_version {version}, application_id {marker}); nothing was changed")


def _configure(conn: sqlite3.Connection, read_only: bool) -> str:
    """This connection's settings; a writable file switches to WAL (readers never block the writer)."""
    mode = conn.execute("PRAGMA journal_mode" if read_only else "PRAGMA journal_mode=WAL").fetchone()[0]
    conn.execute("PRAGMA synchronous=FULL")      # committed means on disk
    conn.execute("PRAGMA secure_delete=ON")      # freed bytes are zeroed
    conn.execute("PRAGMA foreign_keys=ON")
    if read_only:
        conn.execute("PRAGMA query_only=ON")
    return mode


class SqliteFile:
    """``MemoryDB``'s back-end for one SQLite file (or ``":memory:"``): its connection, lock and audits."""

    #: What ``forget``'s audit cannot check in this engine (nothing it knows of beyond the file).
    caveat = ""

    def __init__(self, path: str, timeout: float, read_only: bool):
        self.where = f"path {path!r}"
        self.path = path
        self.conn, self.journal_mode = open_database(path, timeout, read_only)
        self.execute, self.executemany = self.conn.execute, self.conn.executemany

    def begin(self) -> None:
        """The outermost write transaction: ``BEGIN IMMEDIATE`` takes the write lock at once.

        A transaction that reads first and asks for the lock later can find that
        another process wrote in between, and SQLite then fails it at once.
        """
        self.conn.execute("BEGIN IMMEDIATE")

    def in_transaction(self) -> bool:
        return self.conn.in_transaction

    def schema_version(self) -> int:
        return self.conn.execute("PRAGMA user_version").fetchone()[0]

    def compact(self) -> None:
        """Fold the write-ahead log into the file, truncate it, and rebuild the file."""
        self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self.conn.execute("VACUUM")
        self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def files(self) -> list[Path]:
        """The files on disk that hold this database's bytes (the file, its WAL)."""
        if self.path == ":memory:":
            return []
        return [p for p in (Path(self.path), Path(self.path + "-wal")) if p.exists()]

    def raw_matches(self, pattern: re.Pattern) -> int:
        """How often ``pattern`` occurs in the raw bytes of the files."""
        return sum(raw_count(pattern, p.read_bytes()) for p in self.files())

    def leftovers(self, pattern: re.Pattern, elsewhere: int) -> list[tuple[str, int]]:
        """Below SQL: copies in the file's bytes, beyond the ``elsewhere`` other users still hold."""
        return [("database file bytes", max(0, self.raw_matches(pattern) - elsewhere))]

    def integrity_check(self) -> str:
        return "\n".join(r[0] for r in self.conn.execute("PRAGMA integrity_check"))

    def close(self) -> None:
        self.conn.close()
