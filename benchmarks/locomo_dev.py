"""Recall of the semantic store on the LoCoMo development conversations, fed as an application feeds it.

Reads ``../shared/data/locomo-dev.json`` beside the repository (five LoCoMo conversations, CC BY-NC 4.0:
measured here, never copied into the project) and says so and stops when it is absent. Each
conversation is fed turn by turn through ``add(role, "speaker: text", turn=, timestamp=session date)``
with the clock at that date, and the questions come after the last session. Printed side by side,
for each half of the five (choose settings on half 1; half 2 is the held-out proxy):

* BM25 over the raw turns, lower-cased words, no dates (the baseline);
* the default store read with ``explain()`` (no side effect) and with ``retrieve(q, top_k=10)`` (as an
  application reads it: each answer counts as a recall, which the default score does not read), dated
  and undated;
* the store with each setting given on the command line, e.g. ``neighbour_words=True``.

    .venv/bin/python benchmarks/locomo_dev.py                      # the rows above
    .venv/bin/python benchmarks/locomo_dev.py neighbour_words=True embedder=minilm
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path


from teachmem.lab.evaluation.locomo import load_locomo
from teachmem.lab.evaluation.recall_over_time import fed_recall, halves
from teachmem.lessons.semantic import BM25Baseline as Baseline
from teachmem.memory.semantic import SemanticMemoryStore

DEV = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo-dev.json"
MEASURES = ("strict@10", "tolerant@10", "budget 1000")


class ReadByRetrieve:
    """A store read as an application reads it: ``retrieve(q, top_k=10)`` after each question, so the
    memories it returns count as recalled; the ranking below 10 is read without side effect."""

    def __init__(self, store):
        self.store = store

    def add(self, *args, **kwargs):
        return self.store.add(*args, **kwargs)

    def explain(self, query: str, top_k: int) -> list[dict]:
        hits = self.store.explain(query, top_k)
        self.store.retrieve(query, 10)
        return hits


def row(name: str, half: list, make, dated: bool = True) -> str:
    report = fed_recall(half, make, (10,), (1000,), dated=dated)
    return f"  {name:<44}" + "".join(f"{report.recall(m):>12.3f}" for m in MEASURES)


def setting(value: str):
    """A value from the command line: a Python literal (``True``, ``0.4``), else the text (``minilm``)."""
    try:
        return ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return value


def main(argv: list[str]) -> int:
    if not DEV.exists():
        print(f"{DEV} is not here: this benchmark measures the development data only (see its docstring)")
        return 0
    options = {k: setting(v) for k, v in (a.split("=", 1) for a in argv)}
    for number, half in enumerate(halves(load_locomo(DEV)), 1):
        n = sum(len(c.questions) for c in half)
        print(f"\nhalf {number}: {len(half)} conversations, {n} questions" + " " * 6
              + "".join(f"{m:>12}" for m in MEASURES))
        print(row("BM25 over the raw turns, undated", half, Baseline, dated=False))
        for dated in (True, False):
            when = "dated" if dated else "undated"
            print(row(f"default store, explain(), {when}", half,
                      lambda clock: SemanticMemoryStore(clock=clock), dated))
            print(row(f"default store, retrieve(), {when}", half,
                      lambda clock: ReadByRetrieve(SemanticMemoryStore(clock=clock)), dated))
        if options:
            shown = ", ".join(f"{k}={v!r}" for k, v in options.items())
            print(row(f"{shown}, retrieve(), dated", half,
                      lambda clock: ReadByRetrieve(SemanticMemoryStore(clock=clock, **options))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
