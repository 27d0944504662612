"""How fast is SemanticMemoryStore, measured side by side in one run.

For 1k, 10k and 100k memories this prints:

* ``retrieve(top_k=5)`` median time of the store;
* the same query through the naive implementation (a Python loop over a
  list of dicts, one ``np.dot`` per memory, then a full sort), given the
  very same vectors so only the ranking machinery differs;
* the numpy floor: ``argpartition(M @ q)`` on the store's own matrix with
  the query vector already computed — nothing can rank a dense matrix faster
  in numpy, so "× floor" is the price of everything else (BM25, decay,
  filters, reply inheritance, sorting the top k, embedding the query);
* the query's encoding alone (``embedder.embed([query])``), and "× floor" without it: the
  target is 1.3× the floor at 100k with the encoding left out, since a real embedding model
  would encode the query anyway;
* ``store()`` throughput and bytes per memory;
* ``add()`` throughput of the same texts as one long chat (turns a minute apart, so each answers the
  one before), with neighbour words off and on (the default): on, each turn also re-indexes the
  turns up to two steps before it, whose neighbours changed.

Timings are medians of repeated calls (``time.perf_counter``) on queries
drawn from the same generator as the memories, with one BLAS thread. The store, the floor and the
encoding are timed in turn on each query, so a busy moment on a shared machine hits all three alike
and the ratios hold. The list loop at 100k is slow, so it is timed over fewer repetitions (printed in the table).
Run: ``.venv/bin/python benchmarks/bench_semantic.py`` (about two minutes).
"""
from __future__ import annotations

import os
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

# One BLAS thread: on a small shared machine a multi-threaded matrix-vector
# product swings from 0.1 ms to 10 ms when a thread gets descheduled. The
# floor and the store share this setting, so the ratios stay fair.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from teachmem.core.clock import EPOCH  # noqa: E402
from teachmem.memory.semantic import SemanticMemoryStore  # noqa: E402

SIZES = (1_000, 10_000, 100_000)
QUERIES = 15
REPEAT = 6 * QUERIES

_SUBJECTS = "I we my sister the team our client my manager the landlord my doctor".split()
_VERBS = ("prefer", "moved", "booked", "fixed", "visited", "bought", "deployed", "painted", "cooked", "planned",
          "cancelled", "reviewed", "adopted", "ordered", "finished", "started", "tested", "migrated")
_TOPICS = ("pytest coverage reports", "window seats on long flights", "a beagle puppy named Biscuit",
           "PostgreSQL with pgvector", "the pottery class on Tuesdays", "a trip to Lisbon in June",
           "rate limiting with Redis", "the kitchen renovation", "marathon training plan", "Japanese lessons",
           "the quarterly budget", "vegetarian lasagna", "the dentist appointment", "guitar lessons with Felix",
           "the new office in Berlin", "FastAPI endpoints", "the science fair project", "a used bicycle")
_TAILS = ("last week", "yesterday", "for the third time", "because it was cheaper", "with my parents",
          "before the deadline", "after a long discussion", "and it went well", "but it was stressful", "")


def sentences(n: int, seed: int) -> list[str]:
    """Deterministic chat-like memories: 'speaker: subject verb topic tail'."""
    rng = np.random.default_rng(seed)
    picks = [rng.integers(0, len(p), n) for p in (_SUBJECTS, _VERBS, _TOPICS, _TAILS)]
    numbers = rng.integers(1, 10_000, n)
    return [f"{'user' if i % 2 else 'assistant'}: {_SUBJECTS[a]} {_VERBS[b]} {_TOPICS[c]} {_TAILS[d]} #{x}"
            for i, (a, b, c, d, x) in enumerate(zip(*picks, numbers, strict=True))]


class ListLoopStore:
    """The naive storage and retrieval: a list of dicts and a loop, one np.dot per memory, then a full sort."""

    def __init__(self, decay_rate=0.95):
        self.memories, self.decay_rate = [], decay_rate

    def store(self, embedding, text, memory_type="general", importance=0.5, timestamp=None):
        self.memories.append({"text": text, "embedding": embedding, "type": memory_type,
                              "importance": importance, "timestamp": timestamp})

    def retrieve(self, q_embed, top_k=3, now=None):
        scored = []
        for mem in self.memories:
            similarity = float(np.dot(q_embed, mem["embedding"]))
            days_old = (now - mem["timestamp"]).days
            scored.append((similarity * mem["importance"] * self.decay_rate ** days_old, mem))
        scored.sort(key=lambda x: -x[0])
        return [(s, m["text"], m["type"]) for s, m in scored[:top_k]]


def median_seconds(fn, calls: list, repeat: int) -> float:
    return interleaved_medians([fn], calls, repeat)[0]


def interleaved_medians(fns: list, calls: list, repeat: int) -> list[float]:
    """The median time of each of ``fns``, called one after the other on the same arguments, ``repeat`` rounds."""
    times: list[list[float]] = [[] for _ in fns]
    for r in range(repeat):
        args = calls[r % len(calls)]
        for fn, spent in zip(fns, times, strict=True):
            start = time.perf_counter()
            fn(*args)
            spent.append(time.perf_counter() - start)
    return [statistics.median(spent) for spent in times]


def bytes_per_memory(store: SemanticMemoryStore) -> tuple[float, float]:
    """(matrix + numeric columns, everything incl. BM25 index, texts and metadata) per memory."""
    n = len(store.texts)
    arrays = store.table.nbytes()
    index = store.lexical
    postings = sum(a.itemsize * len(a) for d in (index.docs, index.tfs) for a in d.values())
    python = sum(sys.getsizeof(t) for t in store.texts) + sum(sys.getsizeof(m) for m in store.metadata)
    return arrays / n, (arrays + postings + index.length.itemsize * n + python) / n


def add_rate(texts: list[str], neighbour_words: bool) -> float:
    """Chat turns per second through ``add()``, a minute apart, alternating user and assistant."""
    store = SemanticMemoryStore(neighbour_words=neighbour_words)
    start = time.perf_counter()
    for turn, text in enumerate(texts, 1):
        store.add("user" if turn % 2 else "assistant", text, turn=turn, timestamp=EPOCH + timedelta(minutes=turn))
    return len(texts) / (time.perf_counter() - start)


def run(n: int) -> dict:
    texts = sentences(n, seed=n)
    queries = [q.split(": ", 1)[1].rsplit(" #", 1)[0] for q in sentences(QUERIES, seed=7)]
    stamps = [EPOCH - timedelta(days=int(d)) for d in np.random.default_rng(1).integers(0, 60, n)]
    now = EPOCH + timedelta(days=1)

    store = SemanticMemoryStore()
    start = time.perf_counter()
    for text, when in zip(texts, stamps, strict=True):
        store.store(text, timestamp=when)
    store_per_s = n / (time.perf_counter() - start)

    naive = ListLoopStore()
    for row, (text, when) in enumerate(zip(texts, stamps, strict=True)):
        naive.store(store.table.matrix[row], text, timestamp=when)

    matrix = store.table.matrix
    calls = [(q, store.embedder.embed([q])[0]) for q in queries]
    store.explain(queries[0], 5, now)     # warm caches before timing
    ours, floor, encode = interleaved_medians([lambda q, v: store.explain(q, 5, now),
                                               lambda q, v: np.argpartition(-(matrix @ v), 5)[:5],
                                               lambda q, v: store.embedder.embed([q])], calls, REPEAT)
    loop_repeat = QUERIES if n <= 10_000 else 3
    loop = median_seconds(lambda q: naive.retrieve(store.embedder.embed([q])[0], 5, now),
                          [(q,) for q in queries], loop_repeat)
    arrays, total = bytes_per_memory(store)
    return {"n": n, "ours": ours, "loop": loop, "loop_repeat": loop_repeat, "floor": floor, "encode": encode,
            "store_per_s": store_per_s, "bytes_arrays": arrays, "bytes_total": total,
            "add_per_s": add_rate(texts, False), "add_neighbours_per_s": add_rate(texts, True)}


def main() -> None:
    print(f"SemanticMemoryStore, default embedder (subword, dim 256), retrieve(top_k=5), "
          f"median of {REPEAT} queries")
    print(f"{'memories':>9} {'retrieve':>10} {'list loop':>10} {'(reps)':>6} {'speed-up':>9} "
          f"{'floor':>9} {'x floor':>8} {'encode':>9} {'x floor w/o':>11} {'store()/s':>10} {'B/mem arrays':>13} "
          f"{'B/mem all':>10} {'add()/s':>9} {'neighbours':>10} {'ratio':>6}")
    for n in SIZES:
        r = run(n)
        print(f"{r['n']:>9,} {r['ours'] * 1e3:>8.2f}ms {r['loop'] * 1e3:>8.1f}ms {r['loop_repeat']:>6} "
              f"{r['loop'] / r['ours']:>8.0f}x {r['floor'] * 1e3:>7.2f}ms {r['ours'] / r['floor']:>7.2f}x "
              f"{r['encode'] * 1e3:>7.2f}ms {(r['ours'] - r['encode']) / r['floor']:>10.2f}x "
              f"{r['store_per_s']:>10,.0f} {r['bytes_arrays']:>13,.0f} {r['bytes_total']:>10,.0f} "
              f"{r['add_per_s']:>9,.0f} {r['add_neighbours_per_s']:>10,.0f} "
              f"{r['add_neighbours_per_s'] / r['add_per_s']:>5.2f}x")


if __name__ == "__main__":
    main()
