"""Worked solutions for notebooks/09b_sqlite_internals_and_audits.ipynb."""
import sqlite3

# Exercise 9.4: written before the cell ran. Both servers loaded the same empty memory and each saved its own
# copy with one message: the second save replaced the first.
prediction = 1


class NotesStore:
    """Exercise 9.5: overwrite freed space with zeros, and after a delete fold the write-ahead log back into
    the file and empty it, so the old page is gone from both files."""

    PRAGMAS = ["PRAGMA journal_mode = WAL", "PRAGMA secure_delete = ON"]
    AFTER_DELETE = ["PRAGMA wal_checkpoint(TRUNCATE)"]

    def __init__(self, path):
        self.conn = sqlite3.connect(path)
        for pragma in self.PRAGMAS:
            self.conn.execute(pragma)
        self.conn.execute("CREATE TABLE IF NOT EXISTS notes (user_id TEXT, text TEXT)")

    def delete_user(self, user_id):
        with self.conn:
            self.conn.execute("DELETE FROM notes WHERE user_id = ?", (user_id,))
        for statement in self.AFTER_DELETE:
            self.conn.execute(statement)


notes_store = NotesStore      # the same class under the name its checker, check_notes_store, goes by
