"""Worked solutions for notebooks/09b_sqlite_internals_and_audits.ipynb."""
import sqlite3

# Exercise 9.4: written before the cell ran. Both servers loaded the same empty memory and each saved its own
# copy with one message: the second save replaced the first.
prediction = 1

# Exercise 9.5: overwrite freed space with zeros, and fold the write-ahead log back into the file (then empty it)
# after a delete, so the old page is gone from both files.
PRAGMAS = ["PRAGMA journal_mode = WAL", "PRAGMA secure_delete = ON"]
AFTER_DELETE = ["PRAGMA wal_checkpoint(TRUNCATE)"]


def open_db(path):
    conn = sqlite3.connect(path)
    for pragma in PRAGMAS:
        conn.execute(pragma)
    conn.execute("CREATE TABLE IF NOT EXISTS notes (user_id TEXT, text TEXT)")
    return conn


def delete_user(conn, user_id):
    with conn:
        conn.execute("DELETE FROM notes WHERE user_id = ?", (user_id,))
    for statement in AFTER_DELETE:
        conn.execute(statement)
