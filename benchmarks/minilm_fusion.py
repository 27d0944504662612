"""How much BM25 to blend with MiniLM's cosine: strict recall@10 for each ``lexical_weight``.

A ``SemanticMemoryStore`` with ``embedder="minilm"`` is fed turn by turn with real session dates
(``teachmem.lab.evaluation.recall_over_time.fed_recall``) and ranks by its default score; only ``lexical_weight``
changes (0 = the cosine alone, 1 = BM25 alone), without and with neighbour words (each turn indexed
with the words of the turns beside it). Printed for both halves (``halves``) of the bundled
long conversations and of the bundled sample, with the subword embedder at its default 0.5 beside.
MiniLM encodes each text once (the vectors are remembered between weights; the same vectors a store
computes, one text at a time). Run: ``.venv/bin/python benchmarks/minilm_fusion.py`` (about two minutes).
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from teachmem.core.minilm import MiniLMEmbedder  # noqa: E402
from teachmem.lab.evaluation.locomo import LOCOMO_SAMPLE, LONG_CONVERSATIONS, load_locomo  # noqa: E402
from teachmem.lab.evaluation.recall_over_time import fed_recall, halves  # noqa: E402
from teachmem.memory.semantic import SemanticMemoryStore  # noqa: E402

WEIGHTS = (0.0, 0.3, 0.4, 0.5, 0.6, 0.7, 1.0)
DATA = {"long": LONG_CONVERSATIONS, "sample": LOCOMO_SAMPLE}


class Remembered(MiniLMEmbedder):
    """MiniLM that encodes a text once (each alone, as a store does) and hands back the same vector after."""

    def __init__(self):
        super().__init__()
        self.seen: dict[str, np.ndarray] = {}

    def embed(self, texts):
        for text in texts:
            if text not in self.seen:
                self.seen[text] = super().embed([text])[0]
        return np.array([self.seen[text] for text in texts], dtype=np.float32).reshape(len(texts), self.dim)


def recall(conversations, embedder, weight: float, neighbour_words: bool) -> tuple[float, int]:
    """Strict recall@10 of the store on ``conversations`` and the number of questions."""
    report = fed_recall(conversations, lambda clock: SemanticMemoryStore(
        clock=clock, embedder=embedder, lexical_weight=weight, neighbour_words=neighbour_words), ks=(10,))
    return report.recall("strict@10") or 0.0, len(report.per_question)


def main() -> None:
    minilm = Remembered()
    columns = [(name, i, half) for name, path in DATA.items() for i, half in enumerate(halves(load_locomo(path)), 1)]
    print("strict recall@10, fed turn by turn with real dates (default scoring); questions per column in brackets")
    print(f"{'embedder':9} {'weight':>6} {'neighbours':>10} "
          + " ".join(f"{f'{name} half {i}':>14}" for name, i, _ in columns))
    rows = [("minilm", w, minilm) for w in WEIGHTS] + [("subword", 0.5, "subword")]
    for neighbour_words in (False, True):
        for label, weight, embedder in rows:
            cells = [recall(half, embedder, weight, neighbour_words) for *_, half in columns]
            print(f"{label:9} {weight:>6.1f} {'on' if neighbour_words else 'off':>10} "
                  + " ".join(f"{value:>9.3f} ({n:>2})" for value, n in cells))


if __name__ == "__main__":
    main()
