"""Shared test helpers."""
import contextlib
import importlib.util
import io
import re
import sqlite3
import tempfile
import urllib.parse
import uuid
from contextlib import closing
from pathlib import Path

import pytest
from hypothesis import settings

from teachmem import load_scenario, local_postgres

# Property tests explore the same examples on every run (seeded, no example
# database), so a test run is as repeatable as the notebooks.
settings.register_profile("teachmem", derandomize=True, database=None)
settings.load_profile("teachmem")

ROOT = Path(__file__).resolve().parent.parent
RUN = uuid.uuid4().hex[:8]          # PostgreSQL tests: this run's users, apart from any earlier run's


def load_solutions(stem: str):
    """Import notebooks/solutions/<stem>_solutions.py as a module."""
    path = ROOT / "notebooks" / "solutions" / f"{stem}_solutions.py"
    spec = importlib.util.spec_from_file_location(f"solutions_{stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def scenario():
    return load_scenario("project_30")


def _stub(*args):
    raise NotImplementedError


def run_cell(source: str, namespace: dict) -> str:
    """Run a notebook cell's ``source`` in ``namespace``, as a kernel would; what it printed."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, "<cell>", "exec"), namespace)
    return out.getvalue()


def unwrapped(out: str) -> str:
    """What a checker printed, with the lines it wrapped to the output width joined again."""
    return re.sub(r"\n +", " ", out)


def passes(result, capsys) -> str:
    """A checker's result passed and said so; what it printed (unwrapped)."""
    out = unwrapped(capsys.readouterr().out)
    assert result and "✓" in out, out
    return out


def fails(result, capsys) -> str:
    """A checker's result failed and said what differs; what it printed (unwrapped)."""
    out = unwrapped(capsys.readouterr().out)
    assert not result and "✗" in out, out
    return out


def verdicts(check, answers, capsys) -> list[tuple[bool, str]]:
    """The checker's verdict and printed line (unwrapped) for each answer."""
    out = []
    for answer in answers:
        passed = bool(check(answer))
        out.append((passed, unwrapped(capsys.readouterr().out).strip()))
    return out


def proves_checker(checker, solution, wrongs, capsys):
    """A checker is honest: it passes the worked solution, fails every wrong
    answer with a ✗ line, and reports an untouched stub as not implemented."""
    assert checker(solution), f"{checker.__name__} rejects the worked solution"
    assert "✓" in capsys.readouterr().out
    for wrong in wrongs:
        assert not checker(wrong), f"{checker.__name__} accepts a wrong answer"
        assert "✗" in capsys.readouterr().out
    assert not checker(_stub)
    assert "not implemented yet" in capsys.readouterr().out


@pytest.fixture(scope="session")
def pg_server():
    """One PostgreSQL server for the whole run: started from the wheel in a temporary folder (or the server
    TEACHMEM_PG_DSN names), stopped at the end. Not under pytest's own temporary root: every pytest run on the
    machine resets that to owner-only, and the server runs as another system user when tests run as root."""
    with tempfile.TemporaryDirectory(prefix="teachmem-pg-") as folder, local_postgres(folder) as server:
        yield server


@pytest.fixture(scope="session")
def pg_dsn(pg_server):
    """The run's one server, as a postgresql:// DSN."""
    return pg_server.dsn


@pytest.fixture
def user(request):
    """A user id of this test's own: tests share one table, row-level security keeps them apart (the run's own
    prefix keeps a server named by TEACHMEM_PG_DSN usable run after run)."""
    return f"{RUN}-{request.node.nodeid.rsplit('::', 1)[-1]}"


def fresh_database(dsn: str) -> str:
    """A new, empty database on the server ``dsn`` names, as a postgresql:// DSN."""
    import psycopg
    name = f"tm_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return urllib.parse.urlunsplit(urllib.parse.urlsplit(dsn)._replace(path="/" + name))


def drop_database(dsn: str) -> None:
    import psycopg
    name = urllib.parse.urlsplit(dsn).path.lstrip("/")
    admin = urllib.parse.urlunsplit(urllib.parse.urlsplit(dsn)._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture(params=["sqlite", "postgresql"])
def memorydb_path(request, tmp_path):
    """Where a MemoryDB keeps its memories, once per back-end: a new SQLite file, or a new PostgreSQL
    database on the run's one server (dropped afterwards)."""
    if request.param == "sqlite":
        yield str(tmp_path / "memory.db")
        return
    dsn = fresh_database(request.getfixturevalue("pg_dsn"))
    yield dsn
    drop_database(dsn)


def stored_rows(db, sql: str) -> list:
    """Rows of ``sql`` read through a connection of its own (SQLite file or PostgreSQL), beside ``db``'s."""
    if db.engine == "sqlite":
        with closing(sqlite3.connect(db.path)) as conn:
            return conn.execute(sql).fetchall()
    import psycopg
    with psycopg.connect(db.path, autocommit=True) as conn:
        conn.execute("SET search_path TO memorydb")
        return [tuple(row) for row in conn.execute(sql).fetchall()]


def dump(db) -> list:
    """Everything ``db`` stores, as plain rows (to prove that a failed call changed nothing)."""
    return [stored_rows(db, "SELECT user_id, name, strategy, state, revision FROM memories ORDER BY id"),
            stored_rows(db, "SELECT * FROM vectors ORDER BY memory_id, position")]


def index_nearest(store, query: str) -> list[int]:
    """The seqs of the 5 memories pgvector's HNSW index finds nearest ``query`` at its default search list
    (ef_search 40): the index alone, before the store's exact check."""
    store.conn.execute("SET hnsw.ef_search = 40")
    rows = store.conn.execute("SELECT seq FROM memories WHERE retired IS NULL ORDER BY embedding <=> %s LIMIT 5",
                              [store.embedder.embed([query])[0]]).fetchall()
    return [seq for seq, in rows]
