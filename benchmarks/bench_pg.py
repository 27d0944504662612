"""The same semantic memory in numpy and in PostgreSQL + pgvector: writes and retrievals per second.

Starts a throwaway server with ``teachmem.local_postgres`` (or uses ``TEACHMEM_PG_DSN``), then for 1,000 and
10,000 memories of one user (sentences from the scenarios and the LoCoMo sample, two to a memory, spread over
90 days with varied importance) prints, side by side:
  - the server's start time;
  - store() per second: numpy in memory vs one PostgreSQL transaction per memory (HNSW index kept up to date);
  - retrieve() per second (top 5, the time-aware score, cosine relevance) and the plan PostgreSQL chose;
  - how often the two agree on the top 5 (same ids, same order).

``--scale N`` (100,000 by default) measures what a production store is judged on, for N memories of three real
sentences each, embedded by the default embedder (``SubwordEmbedder(256)``), three stores side by side: the
numpy store, the numpy store saved to and loaded from a SQLite file (``MemoryDB``), and PostgreSQL HNSW
(``PgMemoryStore``):
  - insert rate: ``store()`` one memory at a time (PostgreSQL: one transaction each, the index kept up to date,
    over the first ``API_ROWS``; the rest are bulk-loaded with COPY and the HNSW index built afterwards);
  - index build time (PostgreSQL), save and load time (SQLite);
  - p50 / p95 retrieve latency (top 5, the time-aware score with cosine relevance: ``SQL_PATH``);
  - recall@5 of the HNSW index's nearest neighbours against exact search (numpy), at pgvector's default
    search list (ef_search 40) and at the store's (``CANDIDATES``); and how often the stores' top 5 agree;
  - memory and disk per memory.

``--scale N --synthetic`` (1,000,000 by default) measures the same columns on synthetic vectors of low intrinsic
dimension (``synthetic_vectors``: clustered points of a 16-dimensional space, mapped to 256 dimensions by one fixed
random linear map, plus a little noise; unit length), as real embeddings are: on i.i.d. Gaussian vectors every
HNSW index looks broken. The texts are placeholders ("m12" is memory 12), embedded by looking their vector up
(``RowEmbedder``), so store() costs what the store does, not an embedder. It has no SQLite column: saving runs
``to_state()``, which makes every vector a Python list (about 8 GB at 1M × 256).
PostgreSQL's retrieve walks the index until the bound stops it (``teachmem.lab.storage.pg_time_aware``), then with
``exact=True`` checks it by a scan; the recall rows also give the latency of the index search alone, so the cost of
exactness shows.

    .venv/bin/python benchmarks/bench_pg.py [sizes…]
    .venv/bin/python benchmarks/bench_pg.py --scale [N] [--synthetic]

``--scale`` also prints the floor (one float32 matrix-vector product over every memory's vector, one BLAS thread),
``store_many()`` per second (numpy beside store(); PostgreSQL into the store already holding the rest, its HNSW
index live, as the application's role: the batch's vectors staged outside it), ``fold()`` per second (the index
then taking them) and top-10 latency while they are staged, top-10 latency and recall@10 against the exact top 10 of
``PgMemoryStore`` with ``exact=True`` and ``exact=False``, and the server's settings; and writes it all, with the
machine and the date, to ``benchmarks/results/bench_pg_<vectors>_<N>[...].json``.
"""
from __future__ import annotations

import inspect
import json
import os
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

# One BLAS thread, as benchmarks/bench_semantic.py: the floor and the numpy store share it, so the ratio holds.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import psutil  # noqa: E402
import psycopg  # noqa: E402
from pgvector.psycopg import register_vector  # noqa: E402
from psycopg.conninfo import make_conninfo  # noqa: E402

from teachmem import (EPOCH,  # noqa: E402
                      MemoryDB, PgMemoryStore, SemanticMemoryStore, list_scenarios, load_locomo,
                      load_scenario, local_postgres)
from teachmem.core.subword import SubwordEmbedder  # noqa: E402
from teachmem.core.vectors import top_k_rows  # noqa: E402
from teachmem.lab.storage.pg_schema import HNSW_INDEX  # noqa: E402

QUERIES = 200
API_ROWS = 2_000        # PostgreSQL rows written through store(), one transaction each, before the bulk load
DIM = 256
# The in-memory store ranked as PgMemoryStore's SQL path ranks (its default, the time-aware score, with relevance
# the cosine alone): its answer is the exact one PostgreSQL's recall is measured against.
SQL_PATH = {"lexical_weight": 0.0, "reply_weight": 0.0, "neighbour_words": False}
RESULTS = Path(__file__).resolve().parent / "results"
CANDIDATES = inspect.signature(PgMemoryStore).parameters["candidates"].default    # the store's walk, first fetch
WALKS = (400, CANDIDATES)       # exact=False timed at these first fetches (400: the default before it)
GRAPH_MEMORY = "3GB"    # maintenance_work_mem for the HNSW build: the graph of 1M × 256 dims fits (~1.8 GB)
LATENT, CLUSTERS, SPREAD, NOISE = 16, 1_000, 0.35, 0.1    # the synthetic vectors (see synthetic_vectors)


def sentences() -> list[str]:
    """Real sentences: every scenario turn and every LoCoMo sample turn."""
    texts = [t.content for name in list_scenarios() for t in load_scenario(name).turns]
    return texts + [t.text for c in load_locomo() for t in c.turns]


def importance_and_day(i: int) -> tuple[float, int]:
    """Memory ``i``'s importance (0.2 to 1) and the day it was stored (0 to 89), varied and deterministic."""
    return 0.2 + 0.8 * ((i * 37) % 11) / 10, (i * 13) % 90


def memories(n: int) -> list[tuple[str, float, int]]:
    """``n`` (text, importance, day) made of two real sentences each, deterministic."""
    base = sentences()
    return [(f"{base[i % len(base)]} {base[(7 * i + 3) % len(base)]}", *importance_and_day(i)) for i in range(n)]


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


def fresh_dsn(dsn: str) -> str:
    """A database of its own on the server, made afresh."""
    with psycopg.connect(dsn, autocommit=True) as admin:
        admin.execute("DROP DATABASE IF EXISTS teachmem_bench")
        admin.execute("CREATE DATABASE teachmem_bench")
    return make_conninfo(dsn, dbname="teachmem_bench")


def run(dsn: str, n: int) -> None:
    embedder = SubwordEmbedder(256)
    rows, asked, now = memories(n), questions(), EPOCH + timedelta(days=100)
    numpy_store = SemanticMemoryStore(embedder=embedder, **SQL_PATH)
    with PgMemoryStore(fresh_dsn(dsn), user_id="bench", embedder=embedder) as pg_store:
        times = {"numpy": fill(numpy_store, rows), "postgres": fill(pg_store, rows)}
        pg_store.conn.execute("ANALYZE memories")
        numpy_time, numpy_tops = ask(numpy_store, asked, now)
        pg_time, pg_tops = ask(pg_store, asked, now)
        plan = pg_store.plan(asked[0])
        scan = next((line.strip() for line in plan if "Scan" in line and "Subquery" not in line), "?")
    agree = sum(a == b for a, b in zip(numpy_tops, pg_tops, strict=True))
    print(f"{n:>7,} memories | store    numpy {per_second(n, times['numpy']):>10}   "
          f"postgres {per_second(n, times['postgres']):>10}")
    print(f"{'':>16} | retrieve numpy {per_second(len(asked), numpy_time):>10}   "
          f"postgres {per_second(len(asked), pg_time):>10}   same top 5: {agree}/{len(asked)}")
    print(f"{'':>16} | plan: {scan}")


# ------------------------------------------------------------------ --scale: 100,000 memories and more
def varied_memories(n: int) -> list[tuple[str, float, int]]:
    """``n`` distinct (text, importance, day): three real sentences each, the digits of ``i`` in base L (L real
    sentences) choosing them, so no two memories say the same (exact duplicates would make ties, not recall)."""
    base = sentences()
    size = len(base)
    return [(f"{base[i % size]} {base[(i // size) % size]} {base[(i // size ** 2 + 7 * i) % size]}",
             *importance_and_day(i)) for i in range(n)]


def synthetic_vectors(n: int, seed: int) -> np.ndarray:
    """``n`` unit vectors in ``DIM`` dimensions of intrinsic dimension ``LATENT``: points of ``CLUSTERS`` Gaussian
    clusters (centres N(0, 1), spread ``SPREAD``) in ``LATENT`` dimensions, mapped by one fixed random linear map
    (the same for every ``seed``), plus noise of ``NOISE`` in every dimension."""
    fixed = np.random.default_rng(0)
    centres, lift = fixed.standard_normal((CLUSTERS, LATENT)), fixed.standard_normal((LATENT, DIM))
    rng, out = np.random.default_rng(seed), np.empty((n, DIM), dtype=np.float32)
    for start in range(0, n, 100_000):
        size = min(100_000, n - start)
        latent = centres[rng.integers(CLUSTERS, size=size)] + SPREAD * rng.standard_normal((size, LATENT))
        vectors = latent @ lift / np.sqrt(LATENT) + NOISE * rng.standard_normal((size, DIM))
        out[start:start + size] = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    return out


class RowEmbedder:
    """An embedder over vectors made beforehand: "m12" is row 12 of ``memories``, "q3" row 3 of ``questions``."""

    def __init__(self, memories: np.ndarray, questions: np.ndarray):
        self.matrices, self.dim = {"m": memories, "q": questions}, memories.shape[1]

    def embed(self, texts) -> np.ndarray:
        return np.stack([self.matrices[text[0]][int(text[1:])] for text in texts])


def real_workload(n: int) -> tuple[SubwordEmbedder, list[tuple[str, float, int]], list[str]]:
    """The embedder, ``n`` memories of three real sentences each, and the questions."""
    return SubwordEmbedder(DIM), varied_memories(n), questions()


def synthetic_workload(n: int) -> tuple[RowEmbedder, list[tuple[str, float, int]], list[str]]:
    """The embedder of ``n`` synthetic memory vectors and ``QUERIES`` question vectors (drawn alike), placeholder
    texts naming them, the same importances and days as the real memories."""
    embedder = RowEmbedder(synthetic_vectors(n, seed=1), synthetic_vectors(QUERIES, seed=2))
    return embedder, [(f"m{i}", *importance_and_day(i)) for i in range(n)], [f"q{j}" for j in range(QUERIES)]


def latencies(store, asked, now, k: int = 5) -> tuple[list[float], list[list[str]]]:
    """Per-question seconds, and each question's top ``k`` ids."""
    seconds, tops = [], []
    for q in asked:
        start = time.perf_counter()
        hits = store.explain(q, k, now)
        seconds.append(time.perf_counter() - start)
        tops.append([h.get("id", f"s{h.get('row')}") for h in hits])
    return seconds, tops


def floor_latencies(matrix: np.ndarray, questions: np.ndarray) -> list[float]:
    """Per-question seconds of the floor: one float32 matrix-vector product over every memory's vector."""
    seconds = []
    for q in questions:
        start = time.perf_counter()
        matrix @ q
        seconds.append(time.perf_counter() - start)
    return seconds


def fill_numpy(rows, embedder) -> tuple[SemanticMemoryStore, float, int]:
    """The numpy store filled through store(): it, the seconds, and the bytes the process grew by."""
    before = psutil.Process().memory_info().rss
    store = SemanticMemoryStore(embedder=embedder, **SQL_PATH)
    return store, fill(store, rows), psutil.Process().memory_info().rss - before


def batch_items(rows) -> list[dict]:
    return [{"text": text, "importance": importance, "timestamp": EPOCH + timedelta(days=day), "user_id": "bench"}
            for text, importance, day in rows]


def numpy_batch_rates(rows, embedder, rounds: int = 3) -> dict:
    """The in-memory store's store() and store_many() per second on the same rows into fresh stores, in turn
    (a busy moment on a shared machine hits both alike): the median of ``rounds``."""
    items, one, many = batch_items(rows), [], []
    for _ in range(rounds):
        store, start = SemanticMemoryStore(embedder=embedder), time.perf_counter()
        for item in items:
            store.store(**item)
        one.append(len(items) / (time.perf_counter() - start))
        store, start = SemanticMemoryStore(embedder=embedder), time.perf_counter()
        store.store_many(items)
        many.append(len(items) / (time.perf_counter() - start))
    return {"store": float(np.median(one)), "store_many": float(np.median(many)), "rows": len(items)}


def through_sqlite(store, folder: str, embedder) -> tuple[SemanticMemoryStore, dict]:
    """Save to a SQLite file and load back: the loaded store and the save / load seconds and file bytes."""
    path = Path(folder) / "bench.db"
    with MemoryDB(path) as db:
        start = time.perf_counter()
        db.save(store, user_id="bench")
        saved = time.perf_counter() - start
        db.compact()
        start = time.perf_counter()
        loaded = db.load(user_id="bench", embedder=embedder)
        return loaded, {"save": saved, "load": time.perf_counter() - start, "bytes": path.stat().st_size}


def bulk_load(dsn: str, rows, vectors: np.ndarray, stop: int) -> dict:
    """Rows API_ROWS..``stop`` by binary COPY (as the server's owner: COPY FROM obeys no policy), then the HNSW
    index built with ``GRAPH_MEMORY`` (a warning if the graph did not fit: the build then runs on disk, slower):
    the drop-and-rebuild path, which the application's role may not take."""
    with psycopg.connect(dsn, autocommit=True) as admin:
        register_vector(admin)
        admin.add_notice_handler(lambda notice: print(f"  postgres: {notice.message_primary}", flush=True))
        admin.execute("DROP INDEX memories_embedding")
        start = time.perf_counter()
        with admin.cursor() as cursor, cursor.copy(
                "COPY memories (user_id, seq, text, memory_type, embedding, importance, created, accessed) "
                "FROM STDIN (FORMAT BINARY)") as copy:
            copy.set_types(["text", "integer", "text", "text", "vector", "double precision", "timestamp",
                            "timestamp"])
            for seq in range(API_ROWS, stop):
                text, importance, day = rows[seq]
                when = EPOCH + timedelta(days=day)
                copy.write_row(("bench", seq, text, "general", vectors[seq], importance, when, when))
        loaded = time.perf_counter() - start
        admin.execute(f"SET maintenance_work_mem = '{GRAPH_MEMORY}'")
        workers = admin.execute("SHOW max_parallel_maintenance_workers").fetchone()[0]
        print(f"  building the HNSW index over {stop:,} rows ({workers} parallel workers)…", flush=True)
        start = time.perf_counter()
        admin.execute(HNSW_INDEX)
        built = time.perf_counter() - start
        admin.execute("ANALYZE memories")     # as after any bulk load (autovacuum waits for the index build)
    return {"copy": loaded, "copied": stop - API_ROWS, "index": built, "workers": int(workers)}


def warm(dsn: str) -> None:
    """Read the table and its HNSW index into the server's buffer cache (pg_prewarm), as a server that has been
    answering for a while holds them; every PostgreSQL figure after it is a warm server's (``WARMED``)."""
    with psycopg.connect(dsn, autocommit=True) as admin:
        admin.execute("CREATE EXTENSION IF NOT EXISTS pg_prewarm")
        for relation in ("memories_embedding", "memories"):
            admin.execute("SELECT pg_prewarm(%s)", [relation])


WARMED = "table and HNSW index read into shared_buffers (pg_prewarm) after the bulk load"


def sizes(dsn: str, n: int) -> dict:
    with psycopg.connect(dsn, autocommit=True) as admin:
        admin.execute("VACUUM ANALYZE memories")
        table, hnsw, total = admin.execute("SELECT pg_table_size('memories'), pg_relation_size('memories_embedding'), "
                                           "pg_total_relation_size('memories')").fetchone()
        assert admin.execute("SELECT count(embedding) FROM memories").fetchone()[0] == n
    return {"table": table, "hnsw": hnsw, "total": total}


def knn_recall(pg_store, exact: list[set], questions: np.ndarray, ef_search: int) -> tuple[float, np.ndarray]:
    """recall@5 of the index's nearest neighbours (cosine) against ``exact`` (each question's true 5 nearest), and
    the p50 and p95 milliseconds of one such index search (the index alone: no scoring, no exact check)."""
    pg_store.conn.execute("SELECT set_config('hnsw.ef_search', %s, false)", [str(ef_search)])
    found, seconds = 0, []
    for q, nearest in zip(questions, exact, strict=True):
        start = time.perf_counter()
        got = {r[0] for r in pg_store.conn.execute("SELECT seq FROM memories ORDER BY embedding <=> %s LIMIT 5",
                                                   [q.astype(np.float32)])}
        seconds.append(time.perf_counter() - start)
        found += len(nearest & got)
    return found / (5 * len(questions)), np.percentile(seconds, [50, 95]) * 1000


def nearest(matrix: np.ndarray, questions: np.ndarray) -> list[set]:
    """Each question's 5 nearest rows of ``matrix`` (unit vectors: the largest dot products), exactly."""
    everyone = np.ones(len(matrix), dtype=bool)
    return [set(top_k_rows(matrix @ q, everyone, 5).tolist()) for q in questions]


def recall_at(tops: list[list[str]], exact: list[list[str]]) -> float:
    """The share of each exact top k found in ``tops`` (the same questions), over all questions."""
    return sum(len(set(a) & set(b)) for a, b in zip(tops, exact, strict=True)) / sum(map(len, exact))


def server_settings(conn) -> dict:
    names = ("server_version", "shared_buffers", "work_mem", "effective_cache_size", "max_parallel_workers",
             "hnsw.iterative_scan", "hnsw.max_scan_tuples")
    shown = {name: conn.execute(f"SHOW {name}").fetchone()[0] for name in names}
    shown["pgvector"] = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()[0]
    shown["hnsw index"] = HNSW_INDEX.partition(" WITH ")[2]
    shown["candidates"] = CANDIDATES
    shown["cache"] = WARMED
    return shown


def machine() -> dict:
    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), "?") if Path("/proc/cpuinfo").exists() else "?"
    return {"cpu": model, "cores": os.cpu_count(), "ram_gb": round(psutil.virtual_memory().total / 2**30, 1),
            "load_average_at_start": [round(x, 2) for x in os.getloadavg()], "blas_threads": 1,
            "numpy": np.__version__, "python": sys.version.split()[0]}


def pg_retrievals(pg_store, asked, now, modes) -> dict:
    """For each mode (exact, candidates): top-10 latencies and ids, the store set to it."""
    out = {}
    for exact, candidates in modes:
        pg_store.exact, pg_store.candidates = exact, candidates
        out[f"exact={exact}, candidates {candidates}"] = latencies(pg_store, asked, now, 10)
    pg_store.exact, pg_store.candidates = False, CANDIDATES
    return out


def scale(dsn: str, n: int, folder: str, synthetic: bool = False, batch: int = 10_000) -> dict:
    start = time.perf_counter()
    embedder, rows, asked = (synthetic_workload if synthetic else real_workload)(n)
    print(f"{n:,} {'synthetic' if synthetic else 'real'} memories made in {time.perf_counter() - start:.1f} s",
          flush=True)
    now = EPOCH + timedelta(days=100)
    batch_rates = numpy_batch_rates(rows[:min(n, 10_000)], embedder)
    numpy_store, numpy_fill, numpy_rss = fill_numpy(rows, embedder)
    print(f"numpy: {n:,} store() in {numpy_fill:.1f} s", flush=True)
    loaded, sqlite = (None, {}) if synthetic else through_sqlite(numpy_store, folder, embedder)
    if sqlite:
        print(f"sqlite: saved in {sqlite['save']:.1f} s, loaded in {sqlite['load']:.1f} s", flush=True)
    pg_dsn = fresh_dsn(dsn)
    batch = min(batch, n - API_ROWS)
    with PgMemoryStore(pg_dsn, user_id="bench", embedder=embedder) as pg_store:
        pg_fill = fill(pg_store, rows[:API_ROWS])
        start = time.perf_counter()
        embedder.embed([text for text, _, _ in rows[:10_000]])
        embed_rate = min(n, 10_000) / (time.perf_counter() - start)
        matrix = numpy_store.table.matrix        # every memory's vector, as both stores hold it
        bulk = bulk_load(pg_dsn, rows, matrix, n - batch)
        warm(pg_dsn)
        print(f"postgres: {API_ROWS:,} store() in {pg_fill:.1f} s, COPY {bulk['copied']:,} in {bulk['copy']:.1f} s, "
              f"HNSW built in {bulk['index']:.1f} s", flush=True)
        start = time.perf_counter()
        embedder.embed([text for text, _, _ in rows[n - batch:]])
        batch_embed = time.perf_counter() - start           # store_many embeds the batch first: its share
        start = time.perf_counter()
        pg_store.store_many(batch_items(rows[n - batch:]))
        pg_many = time.perf_counter() - start
        print(f"postgres: store_many() of {batch:,} into {n - batch:,} (staged, the index live) in {pg_many:.1f} s",
              flush=True)
        staged = latencies(pg_store, asked[:50], now, 10)[0]      # retrievals that read the staged rows
        start = time.perf_counter()
        folded = pg_store.fold()
        pg_fold = time.perf_counter() - start
        print(f"postgres: fold() of {folded:,} staged into the HNSW index in {pg_fold:.1f} s", flush=True)
        disk = sizes(pg_dsn, n)
        settings = server_settings(pg_store.conn)
        times = {name: latencies(store, asked, now) for name, store in
                 {"numpy": numpy_store, "sqlite": loaded}.items() if store is not None}
        times["postgres"] = latencies(pg_store, asked, now)
        numpy10 = latencies(numpy_store, asked, now, 10)
        modes = pg_retrievals(pg_store, asked, now, [(True, CANDIDATES), *((False, c) for c in WALKS)])
        recalled = recording(pg_store, asked[:50], now)
        floor = floor_latencies(matrix, embedder.embed(asked))
        qs = embedder.embed(asked[:100])
        exact = nearest(matrix, qs)
        recall = {ef: knn_recall(pg_store, exact, qs, ef) for ef in (40, CANDIDATES)}
        pg_store.conn.execute("RESET hnsw.ef_search")
    result = report(n, synthetic, embed_rate, numpy_fill, numpy_rss, pg_fill, sqlite, bulk, disk, times, recall,
                    floor, batch_rates, {"rows": batch, "into": n - batch, "seconds": pg_many,
                                                  "fold_seconds": pg_fold, "staged_ms": ms(staged),
                                                  "embed_seconds": batch_embed,
                                                  "retrieve_ms": ms(recalled)}, numpy10, modes)
    result["settings"] = settings
    return result


def recording(store, asked, now) -> list[float]:
    """Per-question seconds of ``retrieve`` (top 10), which also records each hit's recall (an UPDATE)."""
    seconds = []
    for q in asked:
        start = time.perf_counter()
        store.retrieve(q, 10, now)
        seconds.append(time.perf_counter() - start)
    return seconds


def ms(seconds) -> list[float]:
    return [round(float(x), 2) for x in np.percentile(seconds, [50, 95]) * 1000]


def report(n, synthetic, embed_rate, numpy_fill, numpy_rss, pg_fill, sqlite, bulk, disk, times, recall, floor,
           batch_rates, pg_batch, numpy10, modes) -> dict:
    p = {name: np.percentile(seconds, [50, 95]) * 1000 for name, (seconds, _) in times.items()}
    p_floor = np.percentile(floor, [50, 95]) * 1000
    agree = {name: sum(a == b for a, b in zip(times["numpy"][1], tops, strict=True))
             for name, (_, tops) in times.items()}
    numpy_rate, pg_rate = n / numpy_fill, API_ROWS / pg_fill
    many_rate = pg_batch["rows"] / pg_batch["seconds"]
    column = {"save": f"{sqlite['save']:.1f} / {sqlite['load']:.1f}", "p50": f"{p['sqlite'][0]:.1f}",
              "p95": f"{p['sqlite'][1]:.1f}", "agree": agree["sqlite"], "disk": f"{sqlite['bytes'] / n:,.0f}"} \
        if sqlite else dict.fromkeys(("save", "p50", "p95", "agree", "disk"), "-")
    print(f"\n{n:,} memories, {len(times['numpy'][0])} questions; embedding alone: {embed_rate:,.0f}/s"
          + ("" if sqlite else "; no SQLite column (synthetic: see the docstring)"))
    print(f"{'':<34}{'numpy':>12}{'SQLite-loaded':>15}{'PostgreSQL':>13}   PostgreSQL / numpy")
    print(f"{'insert, store() per s':<34}{numpy_rate:>12,.0f}{'':>15}{pg_rate:>13,.0f}   {pg_rate / numpy_rate:.2f}×")
    print(f"{'insert, store_many() per s':<34}{batch_rates['store_many']:>12,.0f}{'':>15}{many_rate:>13,.0f}"
          f"   (numpy: {batch_rates['rows']:,} rows, store() {batch_rates['store']:,.0f}/s in the same run; "
          f"PostgreSQL: {pg_batch['rows']:,} rows into {pg_batch['into']:,}, HNSW index live, vectors staged; "
          f"embedding included: {embed_rate:,.0f}/s alone)")
    db_rate = pg_batch["rows"] / (pg_batch["seconds"] - pg_batch["embed_seconds"])
    print(f"{'  of which the database, per s':<34}{'':>12}{'':>15}{db_rate:>13,.0f}"
          f"   (store_many's time less the batch's embedding, {pg_batch['embed_seconds']:.2f} s)")
    print(f"{'retrieve() top 10 (records recall)':<34}{'':>27}{pg_batch['retrieve_ms'][0]:>13.1f}"
          f"   p95 {pg_batch['retrieve_ms'][1]:.1f} ms (explain() and an UPDATE of the 10 rows)")
    print(f"{'fold() into the index, per s':<34}{'':>12}{'':>15}{pg_batch['rows'] / pg_batch['fold_seconds']:>13,.0f}"
          "   (the HNSW inserts store_many deferred)")
    print(f"{'top 10 with the batch staged, ms':<34}{'':>27}{pg_batch['staged_ms'][0]:>13.1f}"
          f"   p95 {pg_batch['staged_ms'][1]:.1f} ms ({pg_batch['rows']:,} staged rows read exactly, before fold())")
    print(f"{'drop-and-rebuild: COPY per s':<34}{'':>12}{'':>15}{bulk['copied'] / bulk['copy']:>13,.0f}"
          "   (as the owner, no index, no policy)")
    print(f"{'HNSW index build, s':<34}{'':>12}{'':>15}{bulk['index']:>13.1f}   ({bulk['workers']} parallel workers)")
    print(f"{'save / load, s':<34}{'':>12}{column['save']:>15}")
    print(f"{'floor: float32 M @ q, p50 / p95 ms':<34}{f'{p_floor[0]:.1f} / {p_floor[1]:.1f}':>12}"
          f"   numpy retrieve p50 = {p['numpy'][0] / p_floor[0]:.2f}× the floor")
    for k, label in ((0, "p50"), (1, "p95")):
        print(f"{'retrieve top 5 ' + label + ', ms':<34}{p['numpy'][k]:>12.1f}{column[label]:>15}"
              f"{p['postgres'][k]:>13.1f}   {p['postgres'][k] / p['numpy'][k]:.2f}×")
    print(f"{'same top 5 as numpy':<34}{agree['numpy']:>12}{column['agree']:>15}{agree['postgres']:>13}")
    exact10 = numpy10[1]
    rows = {}
    for mode, (seconds, tops) in modes.items():
        rows[mode] = {"p50_p95_ms": ms(seconds), "recall_at_10": recall_at(tops, exact10)}
        print(f"{mode + ', top 10 p50 ms':<34}{'':>27}{ms(seconds)[0]:>13.1f}   p95 {ms(seconds)[1]:.1f} ms, "
              f"recall@10 against exact {rows[mode]['recall_at_10']:.3f}")
    for ef, (share, (p50, p95)) in recall.items():
        print(f"{f'HNSW recall@5, ef_search {ef}':<34}{'':>12}{'':>15}{share:>13.3f}   "
              f"(the index search alone: p50 {p50:.1f} ms, p95 {p95:.1f} ms)")
    print(f"{'memory per memory, bytes':<34}{numpy_rss / n:>12,.0f}{'':>15}{disk['hnsw'] / n:>13,.0f}"
          "   (numpy: process growth; PostgreSQL: the HNSW index, what must stay in RAM)")
    print(f"{'disk per memory, bytes':<34}{'':>12}{column['disk']:>15}{disk['total'] / n:>13,.0f}"
          f"   (PostgreSQL: table {disk['table'] / n:,.0f} + indexes)")
    return {"memories": n, "vectors": "synthetic" if synthetic else "real text (SubwordEmbedder 256)",
            "questions": len(times["numpy"][0]), "embedding_per_s": round(embed_rate),
            "floor_ms_p50_p95": ms(floor),
            "retrieve_top5_ms_p50_p95": {name: ms(seconds) for name, (seconds, _) in times.items()},
            "same_top5_as_numpy": agree,
            "postgres_top10": rows,
            "hnsw_knn_recall_at_5": {str(ef): {"recall": share, "index_alone_ms_p50_p95": [round(p50, 2), round(p95, 2)]}
                                     for ef, (share, (p50, p95)) in recall.items()},
            "insert_per_s": {"numpy store()": round(numpy_rate), "numpy store_many()": round(batch_rates["store_many"]),
                             "numpy store() beside it": round(batch_rates["store"]),
                             "postgres store()": round(pg_rate), "postgres store_many(), index live": round(many_rate),
                             "postgres store_many() rows / into": [pg_batch["rows"], pg_batch["into"]],
                             "postgres drop-and-rebuild COPY": round(bulk["copied"] / bulk["copy"])},
            "postgres_top10_with_batch_staged_ms_p50_p95": pg_batch["staged_ms"],
            "postgres_retrieve_top10_recording_recall_ms_p50_p95": pg_batch["retrieve_ms"],
            "hnsw_build_s": round(bulk["index"], 1), "sqlite": sqlite,
            "bytes_per_memory": {"numpy_rss": round(numpy_rss / n), "hnsw": round(disk["hnsw"] / n),
                                 "postgres_disk": round(disk["total"] / n)}}


def main(sizes: list[int]) -> None:
    with tempfile.TemporaryDirectory() as folder, local_postgres(folder) as server:
        print(f"server started in {server.started_in:.2f} s")
        for n in sizes:
            run(server.dsn, n)


def main_scale(n: int, synthetic: bool) -> None:
    """Run ``scale`` and store what it printed, with the machine, the date and the settings, as JSON in
    ``benchmarks/results/`` (notebook 10 reads it)."""
    when = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    about = machine()
    with tempfile.TemporaryDirectory() as folder, local_postgres(folder) as server:
        print(f"server started in {server.started_in:.2f} s; {os.cpu_count()} cores")
        result = scale(server.dsn, n, folder, synthetic)
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"bench_pg_{'synthetic' if synthetic else 'real'}_{n}.json"
    path.write_text(json.dumps({"date": when, "machine": about, **result}, indent=1, default=str) + "\n")
    print(f"written to {path.relative_to(RESULTS.parent.parent)}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--scale"]:
        synthetic = "--synthetic" in sys.argv
        counts = [int(a) for a in sys.argv[2:] if a.isdigit()]
        main_scale(counts[0] if counts else 1_000_000 if synthetic else 100_000, synthetic)
    else:
        main([int(a) for a in sys.argv[1:]] or [1_000, 10_000])
