"""Recall of the store on the bundled long conversations: the first three (the bank's first version) and all of them.

Each conversation is fed turn by turn with its real session dates (``teachmem.lab.longterm.fed_recall``);
strict and tolerant recall@10 and recall within 500 / 1,000 / 2,000 tokens are printed for each half
of the conversations and for all of them, under each of the store's scorings (and, for the product and
the half-life, with no dates at all), then per conversation and per kind of question (the kinds are
kept in ``benchmarks/long_conversations.py``; the file keeps LoCoMo's categories only).
Run: ``.venv/bin/python benchmarks/bank_recall.py`` (about ten seconds).
"""
from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from long_conversations import kinds  # noqa: E402

from teachmem.lab.locomo import LONG_CONVERSATIONS, load_locomo  # noqa: E402
from teachmem.lab.longterm import fed_recall, halves  # noqa: E402
from teachmem.memory.semantic import SCORINGS, SemanticMemoryStore  # noqa: E402

MEASURES = ("strict@10", "tolerant@10", "budget 500", "budget 1000", "budget 2000")


def store(scoring: str | None = None):
    options = {} if scoring is None else {"scoring": scoring}
    return lambda clock: SemanticMemoryStore(clock=clock, **options)


def row(label: str, report) -> str:
    return f"{label:44} {len(report.per_question):>3} " + " ".join(f"{report.recall(m):>11.3f}" for m in MEASURES)


def main() -> None:
    everything = load_locomo(LONG_CONVERSATIONS)
    banks = {"first three": everything[:3], f"all {len(everything)}": everything}
    print(f"{'bank, part, store':44} {'n':>3} " + " ".join(f"{m:>11}" for m in MEASURES))
    for name, conversations in banks.items():
        parts = dict(zip(("half 1", "half 2"), halves(conversations), strict=True), all=conversations)
        for scoring in (None, *SCORINGS):
            for part, convs in parts.items():
                print(row(f"{name}, {part}, {scoring or 'default'}", fed_recall(convs, store(scoring))))
        for scoring in ("product", "half_life"):
            for part, convs in parts.items():
                print(row(f"{name}, {part}, {scoring}, no dates", fed_recall(convs, store(scoring), dated=False)))
    print("\nthe default store, per conversation and per kind of question")
    kind_of, per_kind = kinds(), defaultdict(list)
    for conv in everything:
        report = fed_recall([conv], store())
        print(row(conv.sample_id, report))
        for question, (_, _, values) in zip(conv.questions, report.per_question, strict=True):
            per_kind[kind_of[conv.sample_id, question.question]].append(values)
    for kind, rows in per_kind.items():
        print(f"{kind:44} {len(rows):>3} " + " ".join(f"{sum(r[m] for r in rows) / len(rows):>11.3f}" for m in MEASURES))


if __name__ == "__main__":
    main()
