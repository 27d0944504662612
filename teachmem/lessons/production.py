"""Notebook 10's checkers: what row-level security lets a connection see, and a nearest-neighbour query the HNSW
index can serve.

Taught in notebooks/10_from_laptop_to_production.ipynb.
"""
from __future__ import annotations

import re

import numpy as np

from teachmem.lab.storage.pg_file import table_leftovers as table_leftovers
from teachmem.lab.storage.pg_store import remove_user as remove_user
from teachmem.lab.storage.postgres import INSTALL_HINT, server_answers
from teachmem.lab.storage.postgres import quiet_if_server_stopped as quiet_if_server_stopped
from teachmem.lessons.common import (OUTPUT_WIDTH, CheckResult, after_prediction as after_prediction, answer_checker,
                                     prediction_problem, wrapped)

try:
    import psycopg
    from pgvector.psycopg import register_vector
except ImportError:
    psycopg = None    # type: ignore[assignment]

ITEMS = 600          # rows of the checker's own table: enough for an index, small enough to build in a second
DIM = 8
QUERIES = 5


def server_problem(dsn: str) -> str | None:
    """None when a server answers at ``dsn``; else a plain sentence saying what to run again."""
    if psycopg is None:
        raise RuntimeError(f"this exercise needs psycopg and pgvector: {INSTALL_HINT}")
    if server_answers(dsn):
        return None
    return ("the server is stopped (by the last cell, or a kernel restart): "
            "run the cells from section 1 down to this one again")


RLS_WHY = ("\n  Row-level security adds the policy's condition (user_id = the connection's user, noor) to the\n"
           "  query: a row must be maya's and noor's at once, and none is.")


def check_rls_prediction(prediction: object, dsn: str | None = None) -> CheckResult:
    """Exercise 10.1: how many rows does ``SELECT count(*) FROM memories WHERE user_id = 'maya'`` count on a
    connection of the application's role that serves noor?

    The policy ``USING (user_id = current_setting('app.user_id'))`` is added to every query of that role, so
    the known answer is 0, whatever the query's own WHERE clause asks for: the prediction is judged whatever
    state the server is in. Given the server's ``dsn``, a stopped server (the cell above printed nothing) is
    said on a line of its own.
    """
    if isinstance(prediction, float) and prediction.is_integer():
        prediction = int(prediction)          # 0.0 is the whole number 0, written as a float
    result = answer_checker("prediction")(lambda value: prediction_problem(value, 0, RLS_WHY))(prediction)
    stopped = server_problem(dsn) if dsn is not None else None
    if stopped:
        print(wrapped(f"the cell printed nothing: {stopped}"))
    return result


def exercise_vectors() -> tuple[np.ndarray, np.ndarray]:
    """The checker's table and questions: ``ITEMS`` unit vectors near a few directions, and ``QUERIES`` questions."""
    rng = np.random.default_rng(10)
    centres = rng.normal(size=(6, DIM))
    items = centres[rng.integers(0, 6, ITEMS)] + 0.4 * rng.normal(size=(ITEMS, DIM))
    questions = centres[:QUERIES] + 0.4 * rng.normal(size=(QUERIES, DIM))
    return [v / np.linalg.norm(v, axis=1, keepdims=True) for v in (items, questions)]  # type: ignore[return-value]


def plan_shape(lines: list[str], width: int | None = OUTPUT_WIDTH) -> str:
    """A plan's shape: its operations (and the conditions an index or a filter applies), not the details
    (sort keys, window clauses) whose long expressions hide the shape. A condition longer than ``width``
    characters goes on to a second line at its last `` AND `` that fits (None: never)."""
    kept = [line for line in lines if ":" not in line or line.strip().startswith(("Index Cond", "Filter"))]
    return "\n".join(_fitted(line, width) for line in kept)


def _fitted(line: str, width: int | None) -> str:
    cut = line.rfind(" AND ", 0, width) if width is not None and len(line) > width else -1
    if cut < 0:
        return line
    indent = line.index(":") + 3             # under the condition, after "Filter: ("
    return line[:cut + 4] + "\n" + " " * indent + line[cut + 5:]


def plan_nodes(conn, query: str, params: dict) -> list[str]:
    """The operations of ``query``'s plan (``Index Scan using …``, ``Seq Scan on …``, ``Sort``…), no costs."""
    shape = plan_shape([line[0] for line in conn.execute("EXPLAIN (COSTS OFF) " + query, params)], None)
    return [line.strip().removeprefix("->").strip() for line in shape.splitlines() if ":" not in line]


SORTS_EVERY_ROW = ("the plan still sorts every row: the index only hands rows over by the distance operator "
                   "it was built for, nearest first. What does your ORDER BY sort by?")
EVERY_ROW = "your query returns every row; the index stops early only when told how many"
OTHER_DISTANCE = ("the plan sorts every row by <->, the Euclidean distance: this index was built for <=>, the "
                  "cosine distance (vector_cosine_ops), and hands rows over by that operator only.")


def _run_on_items(query: str, dsn: str) -> tuple[list[str], list[list]] | str:
    """The plan of ``query`` on the checker's own indexed table, and the rows' first column for each question;
    or a sentence when PostgreSQL cannot run it."""
    items, questions = exercise_vectors()
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        register_vector(conn)
        conn.execute(f"CREATE TEMP TABLE items (id integer PRIMARY KEY, embedding vector({DIM}))")
        with conn.cursor() as cursor:
            cursor.executemany("INSERT INTO items VALUES (%s, %s)", list(enumerate(items.astype(np.float32))))
        conn.execute("CREATE INDEX ON items USING hnsw (embedding vector_cosine_ops)")
        conn.execute("ANALYZE items")
        conn.execute("SET enable_seqscan = off")     # a sequential scan looks costly: the index wins if it fits
        try:
            nodes = plan_nodes(conn, query, {"query": questions[0].astype(np.float32)})
            found = [[row[0] for row in conn.execute(query, {"query": q.astype(np.float32)}).fetchall()]
                     for q in questions]
        except psycopg.Error as err:
            said = err.diag.message_primary or str(err).strip().splitlines()[0]      # one line, no caret
            return f"PostgreSQL could not run the query: {said}"
    return nodes, found


def _index_query_problem(query: object, dsn: str) -> str | None:
    if not isinstance(query, str):
        raise TypeError(f"write the query as a string of SQL, got {type(query).__name__}")
    if "%(query)s" not in query:
        raise ValueError("the query must compare with the question vector, written %(query)s")
    others = sorted(set(re.findall(r"%\((\w*)\)s", query)) - {"query"})
    if others or re.search(r"%[sbt]", query):
        return (f"the query has a placeholder {', '.join(f'%({name})s' for name in others) or '%s'} "
                "that the check does not fill: write only %(query)s")
    ran = server_problem(dsn) or _run_on_items(query, dsn)
    if isinstance(ran, str):
        return ran
    nodes, found = ran
    items, questions = exercise_vectors()
    exact = [[int(i) for i in np.argsort(-(items @ q), kind="stable")[:5]] for q in questions]    # cosine, numpy
    if len(found[0]) > len(exact[0]) and not nodes[0].startswith("Limit"):
        return EVERY_ROW
    if not any(node.startswith("Index Scan using items_embedding_idx") for node in nodes):
        hint = OTHER_DISTANCE if "<->" in query else SORTS_EVERY_ROW
        return f"the plan is {' → '.join(nodes)}: the HNSW index is not used, and {hint}"
    if not all(isinstance(value, int) for value in found[0]):
        return "the query returns something other than the ids: select id (the five nearest, nearest first)"
    if found != exact:
        return (f"the index is used, but the first question's five nearest are {exact[0]} and the query "
                f"returned {found[0][:10]}: return the id, nearest first, five rows")
    return None


def check_index_query(query: object, dsn: str) -> CheckResult:
    """Exercise 10.2: ``query`` (SQL with ``%(query)s``) finds the 5 items nearest a question through the HNSW index.

    The checker builds its own temporary table ``items(id, embedding vector(8))`` with an HNSW cosine index on the
    server ``dsn`` names, reads the plan, and compares the ids with exact cosine search in numpy.
    """
    if psycopg is None:
        raise RuntimeError(f"this exercise needs psycopg and pgvector: {INSTALL_HINT}")
    return answer_checker("nearest five through the index")(lambda q: _index_query_problem(q, dsn))(query)
