"""What a neighbour boost would buy: a turn's score raised by part of its best same-session neighbour's.

Measured before building it into ``SemanticMemoryStore`` (issue 14, conversation-aware keys): the
store is fed turn by turn with real session dates (``teachmem.lab.evaluation.recall_over_time.fed_recall``), ranks every
memory as it does by default, and the boost is applied on top: score + beta x max(score of the turn
before, score of the turn after), neighbours being turns said at the same session time. Prints strict
recall@10 for each beta on both halves of the bundled long conversations and on the bundled sample.
Run: ``.venv/bin/python benchmarks/neighbour_boost.py`` (about a minute).
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from teachmem.lab.evaluation.locomo import LOCOMO_SAMPLE, LONG_CONVERSATIONS, load_locomo  # noqa: E402
from teachmem.lab.evaluation.recall_over_time import fed_recall, halves  # noqa: E402
from teachmem.memory.semantic import SemanticMemoryStore  # noqa: E402

BETAS = (0.0, 0.25, 0.5, 1.0)


class NeighbourBoosted:
    """The default store, its ranking raised by each turn's best same-session neighbour."""

    def __init__(self, clock, beta: float):
        self.store, self.beta, self.when = SemanticMemoryStore(clock=clock), beta, []

    def add(self, role, content, *, turn, timestamp):
        self.when.append(timestamp)
        return self.store.add(role, content, turn=turn, timestamp=timestamp)

    def explain(self, query, top_k):
        hits = {h["row"]: h for h in self.store.explain(query, len(self.store))}
        score = np.zeros(len(self.when))
        score[list(hits)] = [h["score"] for h in hits.values()]
        same = np.array([i > 0 and self.when[i - 1] == self.when[i] for i in range(len(self.when))])
        before = np.where(same, np.r_[0.0, score[:-1]], 0.0)
        after = np.where(np.r_[same[1:], False], np.r_[score[1:], 0.0], 0.0)
        boosted = score + self.beta * np.maximum(before, after)
        return [hits[r] for r in np.argsort(-boosted, kind="stable") if r in hits][:top_k]


def main() -> None:
    first, second = halves(load_locomo(LONG_CONVERSATIONS))
    sample = load_locomo(LOCOMO_SAMPLE)
    print(f"{'beta':>5} {'long, half 1':>13} {'long, half 2':>13} {'sample':>8}   (strict recall@10)")
    for beta in BETAS:
        def make(clock, beta=beta):
            return NeighbourBoosted(clock, beta)
        row = [fed_recall(part, make).recall("strict@10") for part in (first, second, sample)]
        print(f"{beta:>5} {row[0]:>13.3f} {row[1]:>13.3f} {row[2]:>8.3f}")


if __name__ == "__main__":
    main()
