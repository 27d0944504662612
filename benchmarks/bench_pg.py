"""The same semantic memory in numpy and in PostgreSQL + pgvector: writes and retrievals per second.

Starts a throwaway server with ``teachmem.local_postgres`` (or uses ``TEACHMEM_PG_DSN``), then for 1,000 and
10,000 memories of one user (sentences from the scenarios and the LoCoMo sample, two to a memory, spread over
90 days with varied importance) prints, side by side:
  - the server's start time;
  - store() per second: numpy in memory vs one PostgreSQL transaction per memory (HNSW index kept up to date);
  - retrieve() per second (top 5, relevance × importance × decay) and the plan PostgreSQL chose;
  - how often the two agree on the top 5 (same ids, same order).

    .venv/bin/python benchmarks/bench_pg.py [sizes…]
"""
from __future__ import annotations

import sys
import tempfile
import time
from datetime import timedelta

import psycopg
from psycopg.conninfo import make_conninfo

from teachmem import (EPOCH, PgMemoryStore, SemanticMemoryStore, list_scenarios, load_locomo, load_scenario,
                      local_postgres)
from teachmem.core.subword import SubwordEmbedder

QUERIES = 200


def sentences() -> list[str]:
    """Real sentences: every scenario turn and every LoCoMo sample turn."""
    texts = [t.content for name in list_scenarios() for t in load_scenario(name).turns]
    return texts + [t.text for c in load_locomo() for t in c.turns]


def memories(n: int) -> list[tuple[str, float, int]]:
    """``n`` (text, importance, day) made of two real sentences each, deterministic."""
    base = sentences()
    return [(f"{base[i % len(base)]} {base[(7 * i + 3) % len(base)]}", 0.2 + 0.8 * ((i * 37) % 11) / 10,
             (i * 13) % 90) for i in range(n)]


def questions() -> list[str]:
    asked = [q.question for c in load_locomo() for q in c.questions]
    asked += [q.text for name in list_scenarios() for q in load_scenario(name).questions]
    return [asked[i % len(asked)] for i in range(QUERIES)]


def per_second(count: int, seconds: float) -> str:
    return f"{count / seconds:,.0f}/s"


def fill(store, rows) -> float:
    start = time.perf_counter()
    for text, importance, day in rows:
        store.store(text, "general", importance, EPOCH + timedelta(days=day), user_id="bench")
    return time.perf_counter() - start


def ask(store, asked, now) -> tuple[float, list]:
    start = time.perf_counter()
    tops = [[h.get("id", f"s{h.get('row')}") for h in store.explain(q, 5, now)] for q in asked]
    return time.perf_counter() - start, tops


def run(dsn: str, n: int) -> None:
    embedder = SubwordEmbedder(256)
    rows, asked, now = memories(n), questions(), EPOCH + timedelta(days=100)
    numpy_store = SemanticMemoryStore(embedder=embedder, lexical_weight=0.0, reply_weight=0.0)
    with psycopg.connect(dsn, autocommit=True) as admin:      # a database of its own, made afresh for each size
        admin.execute("DROP DATABASE IF EXISTS teachmem_bench")
        admin.execute("CREATE DATABASE teachmem_bench")
    with PgMemoryStore(make_conninfo(dsn, dbname="teachmem_bench"), user_id="bench", embedder=embedder) as pg_store:
        times = {"numpy": fill(numpy_store, rows), "postgres": fill(pg_store, rows)}
        pg_store.conn.execute("ANALYZE memories")
        numpy_time, numpy_tops = ask(numpy_store, asked, now)
        pg_time, pg_tops = ask(pg_store, asked, now)
        scan = next((line.strip() for line in pg_store.plan(asked[0]) if "Scan" in line), "?")
    agree = sum(a == b for a, b in zip(numpy_tops, pg_tops, strict=True))
    print(f"{n:>7,} memories | store    numpy {per_second(n, times['numpy']):>10}   "
          f"postgres {per_second(n, times['postgres']):>10}")
    print(f"{'':>16} | retrieve numpy {per_second(len(asked), numpy_time):>10}   "
          f"postgres {per_second(len(asked), pg_time):>10}   same top 5: {agree}/{len(asked)}")
    print(f"{'':>16} | plan: {scan}")


def main(sizes: list[int]) -> None:
    with tempfile.TemporaryDirectory() as folder, local_postgres(folder) as server:
        print(f"server started in {server.started_in:.2f} s")
        for n in sizes:
            run(server.dsn, n)


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [1_000, 10_000])
