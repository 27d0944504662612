"""What ``forget`` costs on the production path: ``PgMemoryStore.erase`` and ``compact()`` at growing sizes.

Starts a throwaway server with ``teachmem.local_postgres`` (or uses ``TEACHMEM_PG_DSN``), bulk-loads N memories
(one user holding a tenth of them, the rest spread over other users; placeholder texts, one in a hundred
holding the text to forget; random unit vectors), then prints, side by side for each N:
  - erase: the user's rows read and matched in Python, the matching ones emptied (one transaction);
  - compact: ``VACUUM FULL`` + ``REINDEX`` of the whole table (every user's rows), which locks it;
  - the ratio of the two, and the time per row of each.

    .venv/bin/python benchmarks/bench_pg_forget.py [sizes…]     # default: 10000 100000
"""
from __future__ import annotations

import os
import re
import sys
import tempfile
import time

import numpy as np
import psycopg
from pgvector.psycopg import register_vector

from teachmem import PgMemoryStore, local_postgres

DIM = 256


def load(dsn: str, n: int, user: str) -> None:
    """``n`` rows: a tenth ``user``'s, one in a hundred saying the card number."""
    rng = np.random.default_rng(n)
    vectors = rng.normal(size=(n, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    with psycopg.connect(dsn) as conn:
        register_vector(conn)
        conn.execute("TRUNCATE memories")
        with conn.cursor().copy("COPY memories (user_id, seq, text, memory_type, embedding, importance, "
                                "created, accessed) FROM STDIN") as copy:
            for i in range(n):
                owner = user if i % 10 == 0 else f"other-{i % 97}"
                text = f"memory {i}" + (" card 4111 1111 1111 1111" if i % 100 == 0 else "")
                copy.write_row([owner, i, text, "fact", vectors[i], 0.5, "2026-01-01", "2026-01-01"])
        conn.execute("ANALYZE memories")


def measure(dsn: str, n: int) -> tuple[float, float, int]:
    user = "forgetful"
    PgMemoryStore(dsn, user_id=user).close()          # the table, made for 256 numbers
    load(dsn, n, user)
    with PgMemoryStore(dsn, user_id=user) as store:
        start = time.perf_counter()
        erased = len(store.erase(re.compile(r"4111 1111 1111 1111")))
        erase = time.perf_counter() - start
        start = time.perf_counter()
        store.compact()
        compact = time.perf_counter() - start
    return erase, compact, erased


def main(sizes: list[int]) -> None:
    dsn = os.environ.get("TEACHMEM_PG_DSN")
    with tempfile.TemporaryDirectory(prefix="teachmem-bench-") as folder:
        server = None if dsn else local_postgres(folder)
        try:
            dsn = dsn or server.dsn
            print(f"{'rows':>9} {'user rows':>9} {'erased':>6} {'erase s':>8} {'compact s':>9} "
                  f"{'compact/erase':>13} {'erase µs/user row':>17} {'compact µs/row':>14}")
            for n in sizes:
                erase, compact, erased = measure(dsn, n)
                print(f"{n:>9,} {n // 10:>9,} {erased:>6} {erase:>8.3f} {compact:>9.3f} "
                      f"{compact / erase:>13.1f} {erase / (n // 10) * 1e6:>17.1f} {compact / n * 1e6:>14.1f}")
        finally:
            if server is not None:
                server.stop()


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [10_000, 100_000])
