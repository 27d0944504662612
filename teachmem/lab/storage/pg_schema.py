"""The PostgreSQL schema behind ``PgMemoryStore``: one row per memory, an HNSW index, row-level security.

Every memory is a row keyed by (user_id, seq): its text, its pgvector embedding, importance, times, validity
(``retired``: why it is no longer returned, NULL while live) and provenance (``metadata``: turn, role, session,
confidence). Isolation lives in the database, not in WHERE clauses: the table has ROW LEVEL SECURITY, FORCEd so
that its owner obeys it too, and one policy lets the application's role (``APP_ROLE``, which owns nothing) see
and write only the rows whose user_id is the connection's ``app.user_id`` setting. A connection that never set
it sees nothing. Superusers bypass every policy, so the store switches to ``APP_ROLE`` before its first query.
"""
from __future__ import annotations

TABLE = "memories"
APP_ROLE = "teachmem_app"
# The HNSW index: pgvector's m (16 links a node), a longer search list while building than its default 64 (200):
# the graph finds more true neighbours (at 100k real sentences a walk of 400 finds 0.95 to 0.97 of the exact top
# 10 over five builds, a walk of 600 0.968, benchmarks/bench_pg.py; 0.79 with the default 64), at 2 to 4 times
# the build time.
HNSW_INDEX = ("CREATE INDEX memories_embedding ON memories USING hnsw (embedding vector_cosine_ops) "
              "WITH (m = 16, ef_construction = 200)")
# Each retrieval rewrites its rows' recall count and last access. With room on the row's page PostgreSQL writes the
# new version beside the old (a heap-only update) and leaves every index alone; on a full page the new version goes
# elsewhere and each index takes it as a new entry: for the HNSW index a fresh graph insertion per recalled row
# (10 rows: ~25 ms at 20k memories). A row is ~1.4 KB (256 dims): a fifth of each page stays free for one.
FILLFACTOR = 80
SETUP_LOCK = 7_316_000         # pg_advisory_xact_lock key: two processes never build the schema at once

# {dim} is the embedder's dimension (an int, checked before formatting).
SCHEMA = """
CREATE EXTENSION IF NOT EXISTS vector;
DO $$ BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'teachmem_app') THEN
        CREATE ROLE teachmem_app NOLOGIN NOSUPERUSER NOBYPASSRLS;
    END IF;
END $$;
CREATE TABLE memories (
    user_id     text NOT NULL CHECK (user_id <> ''),
    seq         integer NOT NULL CHECK (seq >= 0),        -- the id is 's' || seq, counted per user
    text        text NOT NULL,                           -- '' once deleted: the row stays a tombstone
    memory_type text NOT NULL,
    embedding   vector({dim}),                           -- NULL once deleted, or while staged
    staged      vector({dim}),                           -- store_many's vector, outside the index until fold()
    importance  double precision NOT NULL CHECK (importance BETWEEN 0 AND 1),
    created     timestamp NOT NULL,
    accessed    timestamp NOT NULL,
    recalls     integer NOT NULL DEFAULT 0,
    fact_key    text,                                    -- facts only: one key, one live value
    filed       bigint GENERATED ALWAYS AS IDENTITY,     -- when it was filed under its key (newest wins)
    retired     text,                                    -- why it is no longer returned; NULL = live
    replaced_by integer,                                 -- the seq of the memory that replaced it
    edits       text[] NOT NULL DEFAULT '{{}}',          -- what it said before each update, oldest first
    metadata    jsonb NOT NULL DEFAULT '{{}}',           -- provenance: turn, role, session, confidence
    PRIMARY KEY (user_id, seq)
) WITH (fillfactor = {fillfactor});
{hnsw};
CREATE INDEX memories_staged ON memories (user_id) WHERE staged IS NOT NULL;
CREATE INDEX memories_recent ON memories (user_id, created, importance) WHERE retired IS NULL;
CREATE INDEX memories_fact_key ON memories (user_id, fact_key, filed) WHERE fact_key IS NOT NULL;
ALTER TABLE memories ENABLE ROW LEVEL SECURITY;
ALTER TABLE memories FORCE ROW LEVEL SECURITY;
CREATE POLICY own_rows ON memories TO teachmem_app
    USING (user_id = current_setting('app.user_id', true))
    WITH CHECK (user_id = current_setting('app.user_id', true));
GRANT SELECT, INSERT, UPDATE ON memories TO teachmem_app;
GRANT USAGE ON SEQUENCE memories_filed_seq TO teachmem_app;
"""

ROLE_GRANT = """
DO $$ BEGIN
    IF NOT pg_has_role(current_user, 'teachmem_app', 'MEMBER') THEN
        EXECUTE format('GRANT teachmem_app TO %I', current_user);
    END IF;
END $$;
"""

# A table made before memories could be staged gets the column and its index (and statistics that say the column
# is empty: without them the planner reads the whole table for the staged memories).
STAGED = """ALTER TABLE memories ADD COLUMN staged vector({dim});
CREATE INDEX memories_staged ON memories (user_id) WHERE staged IS NOT NULL;
ANALYZE memories"""
HAS_STAGED = "SELECT count(*) FROM pg_attribute WHERE attrelid = 'memories'::regclass AND attname = 'staged'"
# A table made before then gets the setting (for the pages it fills from now on).
HAS_FILLFACTOR = "SELECT coalesce(reloptions, '{}') FROM pg_class WHERE oid = 'memories'::regclass"
DIMENSION = """SELECT atttypmod FROM pg_attribute WHERE attrelid = 'memories'::regclass AND attname = 'embedding'"""


def ensure_schema(conn, dim: int) -> None:
    """Create the extension, role, table, indexes and policy unless they exist; check the vector dimension.

    ``conn`` is a psycopg connection of a role that may create them (the server's owner, or any role once an
    administrator has run this). Runs in one transaction under an advisory lock, so concurrent stores agree.
    """
    if not isinstance(dim, int) or isinstance(dim, bool) or dim < 1:
        raise ValueError(f"dim must be a positive int, got {dim!r}")
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", [SETUP_LOCK])
        if conn.execute("SELECT to_regclass(%s)", [TABLE]).fetchone()[0] is None:
            conn.execute(SCHEMA.format(dim=dim, hnsw=HNSW_INDEX, fillfactor=FILLFACTOR))
        conn.execute(ROLE_GRANT)
        held = conn.execute(DIMENSION).fetchone()[0]
        if held == dim and not conn.execute(HAS_STAGED).fetchone()[0]:
            conn.execute(STAGED.format(dim=dim))
        if f"fillfactor={FILLFACTOR}" not in conn.execute(HAS_FILLFACTOR).fetchone()[0]:
            conn.execute(f"ALTER TABLE memories SET (fillfactor = {FILLFACTOR})")
    if held != dim:
        raise ValueError(f"table {TABLE!r} holds vectors of dimension {held}, but the embedder makes {dim}: "
                         "use an embedder of that dimension, or another database")


def enter_as_user(conn, user_id: str) -> None:
    """Switch ``conn`` to the application's role and its user: from here on, row-level security applies."""
    conn.execute(f"SET ROLE {APP_ROLE}")
    conn.execute("SELECT set_config('app.user_id', %s, false)", [user_id])
    conn.execute("SET hnsw.iterative_scan = relaxed_order")     # filtered searches still find k rows
