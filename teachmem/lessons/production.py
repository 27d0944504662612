"""Notebook 10's checkers: what row-level security lets a connection see, and a nearest-neighbour query the HNSW
index can serve; and the stored benchmark run it prints.

Taught in notebooks/10_from_laptop_to_production.ipynb.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np

from teachmem.lab.storage.pg_file import table_leftovers as table_leftovers
from teachmem.lab.storage.pg_plan import clustered_vectors, run_on_indexed_vectors
from teachmem.lab.storage.pg_plan import plan_shape as plan_shape
from teachmem.lab.storage.pg_store import remove_user as remove_user
from teachmem.lab.storage.postgres import INSTALL_HINT, server_answers
from teachmem.lab.storage.postgres import quiet_if_server_stopped as quiet_if_server_stopped
from teachmem.lessons.common import (CheckResult, after_prediction as after_prediction,
                                     answer_checker, prediction_problem, wrapped)

try:
    import psycopg
except ImportError:
    psycopg = None    # type: ignore[assignment]

#: ``benchmarks/bench_pg.py --scale 100000`` and ``--scale 1000000 --synthetic``, each run once, its output kept:
#: figures a class reads, not times.
RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"
STORED_RUN = RESULTS / "bench_pg_real_100000.json"
STORED_LARGE = RESULTS / "bench_pg_synthetic_1000000.json"
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
    """Exercise 10.1: how many of maya's rows does a connection serving noor count? 0, whatever
    state the server is in; given its ``dsn``, a stopped server is said on a line of its own."""
    if isinstance(prediction, float) and prediction.is_integer():
        prediction = int(prediction)          # 0.0 is the whole number 0, written as a float
    result = answer_checker("prediction")(lambda value: prediction_problem(value, 0, RLS_WHY))(prediction)
    stopped = server_problem(dsn) if dsn is not None else None
    if stopped:
        print(wrapped(f"the cell printed nothing: {stopped}"))
    return result


SORTS_EVERY_ROW = ("the plan still sorts every row: the index only hands rows over by the distance operator "
                   "it was built for, nearest first. What does your ORDER BY sort by?")
EVERY_ROW = "your query returns every row; the index stops early only when told how many"
OTHER_DISTANCE = ("the plan sorts every row by {op}, {name}: this index was built for <=>, the "
                  "cosine distance (vector_cosine_ops), and hands rows over by that operator only.")
DISTANCES = {"<->": "the Euclidean distance", "<#>": "the negative inner product", "<+>": "the L1 distance"}
FARTHEST_FIRST = ("the plan sorts every row by <=> with DESC, farthest first: the index hands rows over "
                  "nearest first only.")


def _run_on_items(query: str, dsn: str) -> tuple[list[str], list[list]] | str:
    """The plan of ``query`` on the checker's own indexed table, and the ids it finds for each
    question; or a sentence when PostgreSQL cannot run it."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        try:
            return run_on_indexed_vectors(conn, query, *clustered_vectors(ITEMS, QUERIES, DIM))
        except psycopg.Error as err:
            said = err.diag.message_primary or str(err).strip().splitlines()[0]      # one line, no caret
            return f"PostgreSQL could not run the query: {said}"


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
    items, questions = clustered_vectors(ITEMS, QUERIES, DIM)
    exact = [[int(i) for i in np.argsort(-(items @ q), kind="stable")[:5]] for q in questions]    # cosine, numpy
    if len(found[0]) > len(exact[0]) and not nodes[0].startswith("Limit"):
        return EVERY_ROW
    if not any(node.startswith("Index Scan using items_embedding_idx") for node in nodes):
        other = next((op for op in DISTANCES if op in query), None)
        if other:
            hint = OTHER_DISTANCE.format(op=other, name=DISTANCES[other])
        elif re.search(r"order\s+by\s+[\w.]*embedding\s*<=>\s*%\(query\)s\s+desc", query, re.IGNORECASE):
            hint = FARTHEST_FIRST
        else:
            hint = SORTS_EVERY_ROW
        return f"the plan is {' → '.join(nodes)}: the HNSW index is not used, and {hint}"
    if not all(isinstance(value, int) for value in found[0]):
        return "the query returns something other than the ids: select id (the five nearest, nearest first)"
    if found != exact:
        return (f"the index is used, but the first question's five nearest are {exact[0]} and the query "
                f"returned {found[0][:10]}: return the id, nearest first, five rows")
    return None


def check_index_query(query: object, dsn: str) -> CheckResult:
    """Exercise 10.2: ``query`` (SQL with ``%(query)s``) finds the 5 items nearest a question
    through the HNSW index of the checker's own table on ``dsn``, as exact cosine search does."""
    return answer_checker("nearest five through the index")(lambda q: _index_query_problem(q, dsn))(query)


def _stored_rows(run: dict) -> list[tuple[str, list, float | None]]:
    """A stored ``bench_pg.py`` run's rows: name, (p50, p95) milliseconds, recall of the exact top 10."""
    top10, candidates = run["postgres_top10"], run["settings"]["candidates"]
    exact = next(v for k, v in top10.items() if k.startswith("exact=True"))
    walk = top10[f"exact=False, candidates {candidates}"]
    return [("one matrix product (the floor)", run["floor_ms_p50_p95"], None),
            ("numpy store, top 5", run["retrieve_top5_ms_p50_p95"]["numpy"], None),
            (f"HNSW index alone, {candidates} nearest",
             run["hnsw_knn_recall_at_5"][str(candidates)]["index_alone_ms_p50_p95"], None),
            ("PgMemoryStore, exact=False", walk["p50_p95_ms"], walk["recall_at_10"]),
            ("  retrieve(): + recall written", run["postgres_retrieve_top10_recording_recall_ms_p50_p95"], None),
            ("PgMemoryStore, exact=True", exact["p50_p95_ms"], exact["recall_at_10"])]


def _ms(value: float) -> str:
    """Milliseconds to three significant digits, thousands with a comma (1,360, not 1.36e+03)."""
    return f"{value:.3g}" if value < 1000 else f"{float(f'{value:.3g}'):,.0f}"


def stored_run(path: Path = STORED_RUN, large: Path = STORED_LARGE) -> str:
    """The stored ``bench_pg.py`` runs side by side, 100k real sentences and 1M synthetic vectors: where and
    when, then a query's time (p50, p95) and its recall of the exact top 10, from the floor of one matrix
    product to PostgreSQL checking exactly; then writes a second."""
    runs = [json.loads(Path(p).read_text(encoding="utf-8")) for p in (path, large)]
    machine = runs[0]["machine"]
    dates = ", ".join(sorted({run["date"][:10] for run in runs}))
    lines = [f"{dates}, {machine['cpu']}, {machine['cores']} cores",
             (f"{'':32}" + "".join(f"{run['memories']:>14,} {run['vectors'].split()[0]:<12}" for run in runs)).rstrip(),
             f"{'':32}" + f"{'p50 ms':>8}{'p95 ms':>8}{'recall@10':>11}" * 2]
    for rows in zip(*map(_stored_rows, runs), strict=True):
        cells = [f"{_ms(p50):>8}{_ms(p95):>8}" + (f"{recall:11.3g}" if recall is not None else " " * 11)
                 for _, (p50, p95), recall in rows]
        lines.append(f"{rows[0][0]:32}" + "".join(cells).rstrip())
    for run in runs:
        writes = run["insert_per_s"]
        embedded = "" if run["vectors"] == "synthetic" else ", embedding included"
        lines.append(f"writes a second at {run['memories']:,}: store() {writes['postgres store()']:,}, "
                     f"store_many() {writes['postgres store_many(), index live']:,} (index live{embedded})")
    return "\n".join(lines)
