"""Notebook 09b's checkers: a lost update predicted, and a store that erases the bytes it deletes.

Taught in notebooks/09b_sqlite_internals_and_audits.ipynb.
"""
from __future__ import annotations

import sqlite3
import tempfile
from collections.abc import Callable
from pathlib import Path

from teachmem.lab.store import MemoryDB
from teachmem.lessons.common import (after_prediction as after_prediction, answer_checker, checker,
                                     prediction_problem)
from teachmem.memory.buffer import ConversationBuffer


@answer_checker("prediction")
def check_prediction(prediction: object) -> str | None:
    """Exercise 9.4: how many messages does Noor's memory hold after two servers load, add and save at once?

    ``prediction`` is a whole number written before the cell ran; the checker
    plays the same interleaving on a scratch database.
    """
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


def _erasing_problem(store_class: Callable, folder: Path) -> str | None:
    path = folder / "notes.db"
    store = store_class(path)
    conn = getattr(store, "conn", None)
    if not isinstance(conn, sqlite3.Connection):
        return (f"expected the notebook's NotesStore class, whose .conn is a sqlite3 connection; "
                f"{type(store).__name__} has none")
    try:
        with conn:
            conn.executemany("INSERT INTO notes VALUES (?, ?)", [("noor", f"Deliver it to {ADDRESS}."),
                                                                ("kim", "Kim prefers window seats.")])
        store.delete_user("noor")
        mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
        kept = conn.execute("SELECT text FROM notes").fetchall()
        left = [p.name for p in (path, Path(f"{path}-wal")) if p.exists() and ADDRESS.encode() in p.read_bytes()]
    finally:
        conn.close()
    if kept != [("Kim prefers window seats.",)]:
        return f"after deleting noor the table holds {kept}; kim's note must stay, noor's must go"
    if mode != "wal":
        return f"the journal mode is {mode!r}: keep WAL (readers do not wait for the writer) and erase anyway"
    if left:
        return (f"the address is still in the bytes of {left}: the row is gone, its old page is not. Which "
                "setting overwrites freed space, and which statement folds the log back into the file?")
    return None


@checker("NotesStore")
def check_notes_store(store_class: Callable) -> str | None:
    """Exercise 9.5: after ``delete_user``, no byte of the database or its log holds the deleted address.

    ``store_class(path)`` opens the notebook's inline store (``.conn``, a
    ``sqlite3`` connection with a ``notes(user_id, text)`` table;
    ``.delete_user(user_id)``).
    """
    with tempfile.TemporaryDirectory() as folder:
        return _erasing_problem(store_class, Path(folder))
