"""Notebook 09b's checkers: a lost update predicted, and a store that erases the bytes it deletes.

Taught in notebooks/09b_sqlite_internals_and_audits.ipynb.
"""
from __future__ import annotations

import sqlite3
import tempfile
from collections.abc import Callable
from pathlib import Path

from teachmem.lab.storage.memory_db import MemoryDB
from teachmem.lessons.common import (after_prediction as after_prediction, answer_checker, checker,
                                     prediction_problem, wrapped as wrapped)
from teachmem.memory.buffer import ConversationBuffer


@answer_checker("prediction")
def check_prediction(prediction: object) -> str | None:
    """Exercise 9.4: how many messages does Noor's memory hold after two servers load, add and save at once?
    The checker plays the same interleaving on a scratch database."""
    with tempfile.TemporaryDirectory() as folder, MemoryDB(Path(folder) / "chat.db") as db:
        db.save(ConversationBuffer(), user_id="noor", name="chat")
        memory_a, memory_b = db.load(user_id="noor", name="chat"), db.load(user_id="noor", name="chat")
        memory_a.add("user", "message handled by server A")
        memory_b.add("user", "message handled by server B")
        db.save(memory_a, user_id="noor", name="chat")
        db.save(memory_b, user_id="noor", name="chat")
        held = len(db.load(user_id="noor", name="chat").context())
    return prediction_problem(prediction, held,
                              "Both servers loaded the same empty memory; each saved its own copy, so the later "
                              "save replaced the earlier one: a lost update.")


ADDRESS = "27 Elm Grove, Leeds LS6 2AB"


def _where_it_stays(left: list[str], folded: bool, zeroing: bool, statements: list[str]) -> str:
    """Which step of erasing is missing, judged from where the address stays and what the store ran."""
    start = f"the address is still in the bytes of {left}: "
    if "notes.db-wal" not in left:
        return (start + "the log was folded back into the file and emptied, but notes.db itself keeps the deleted "
                "row in its freed space. Which setting overwrites freed space with zeros?")
    if folded:
        return (start + "a checkpoint folded the log back into notes.db, but did not empty it: the log still holds the "
                "old page. A checkpoint has several modes; which one leaves the log empty as well?"
                + ("" if zeroing else " And secure_delete is off, so notes.db keeps the row in its freed space too."))
    if any("vacuum" in statement.lower() for statement in statements):
        return (start + "VACUUM rebuilt the database, but in WAL mode its new pages go into the log, after the old page "
                "that holds the address. The log itself must be folded back into the file and emptied.")
    if zeroing:
        return (start + "secure_delete overwrites the freed space, but the old page, address included, still sits in "
                "the write-ahead log. Which statement folds the log back into the file and empties it?")
    return (start + "the row is gone, its old page is not: it sits in the write-ahead log, and secure_delete is off, "
            "so the file would keep it in freed space too. Which setting overwrites freed space, and which "
            "statement folds the log back into the file and empties it?")


def _erasing_problem(store_class: Callable, folder: Path) -> str | None:
    path = folder / "notes.db"
    try:
        store = store_class(path)
    except sqlite3.Error as err:
        return f"opening the store ran one of PRAGMAS, and SQLite refused it ({type(err).__name__}: {err})"
    conn = getattr(store, "conn", None)
    if not isinstance(conn, sqlite3.Connection):
        return (f"expected the notebook's NotesStore class, whose .conn is a sqlite3 connection; "
                f"{type(store).__name__} has none")
    try:
        with conn:
            conn.executemany("INSERT INTO notes VALUES (?, ?)", [("noor", f"Deliver it to {ADDRESS}."),
                                                                ("kim", "Kim prefers window seats.")])
        try:
            store.delete_user("noor")
        except sqlite3.Error as err:
            return f"delete_user ran one of AFTER_DELETE, and SQLite refused it ({type(err).__name__}: {err})"
        mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
        zeroing = bool(conn.execute("PRAGMA secure_delete").fetchone()[0])
        kept = conn.execute("SELECT text FROM notes").fetchall()
        left = [p.name for p in (path, Path(f"{path}-wal")) if p.exists() and ADDRESS.encode() in p.read_bytes()]
        folded = b"CREATE TABLE" in path.read_bytes()       # the file holds the table: a checkpoint copied the log
    finally:
        conn.close()
    if kept != [("Kim prefers window seats.",)]:
        return f"after deleting noor the table holds {kept}; kim's note must stay, noor's must go"
    if mode != "wal":
        return f"the journal mode is {mode!r}: keep WAL (readers do not wait for the writer) and erase anyway"
    if left:
        return _where_it_stays(left, folded, zeroing, [str(s) for s in getattr(store_class, "AFTER_DELETE", [])])
    return None


@checker("NotesStore")
def check_notes_store(store_class: Callable) -> str | None:
    """Exercise 9.5: after ``delete_user``, no byte of the database or its log holds the deleted address.
    ``store_class(path)`` opens the notebook's inline store (``.conn``, a ``sqlite3`` connection with
    a ``notes(user_id, text)`` table; ``.delete_user(user_id)``)."""
    with tempfile.TemporaryDirectory() as folder:
        return _erasing_problem(store_class, Path(folder))
