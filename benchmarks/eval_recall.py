"""Recall@k of semantic-memory retrievers on long multi-session conversations.

Every dialogue turn is stored as one memory ``"speaker: text"``; for each
question we retrieve the k best memories and count which of its evidence
turns came back. Printed side by side, in one run:

* BM25 over plain lower-cased whitespace tokens (the usual baseline);
* BM25 with teachmem's tokenizer (stopwords, accent folding, crude stemming);
* the store with each embedder alone (``lexical_weight=0, reply_weight=0``);
* the hybrid (BM25 + subword vectors) without and with reply inheritance
  (the default store);
* the store when turns carry their real session dates and the question is
  asked a day after the last session: the product score's decay of 0.95 a
  day buries old evidence under recent chatter (``decay_rate=1.0`` switches
  it off); the default time-aware score keeps it (time decides only between
  near-copies, so relevance decides).

Two settings: one store per conversation, and one store holding all three
conversations (a bigger haystack, closer to real benchmark sizes).

Run: ``.venv/bin/python benchmarks/eval_recall.py``
"""
from __future__ import annotations

import sys
from datetime import timedelta
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from recall_conversations import CONVERSATIONS  # noqa: E402

from teachmem.core.embed import BagOfWordsEmbedder, RandomEmbedder  # noqa: E402
from teachmem.core.words import content_words  # noqa: E402
from teachmem.memory.semantic import SemanticMemoryStore  # noqa: E402
from teachmem.core.bm25 import BM25Index  # noqa: E402


def _bm25_ranker(tokenize):
    def build(turns):
        index = BM25Index()
        for speaker, text, _ in turns:
            index.add(tokenize(f"{speaker}: {text}"))

        def rank(question, k):
            scores = index.scores(tokenize(question))
            return list(np.lexsort((np.arange(len(scores)), -scores))[:k])
        return rank
    return build


def _store_ranker(dated: bool = False, **options):
    def build(turns):
        store = SemanticMemoryStore(**options)
        for speaker, text, date in turns:
            store.store(f"{speaker}: {text}", timestamp=date if dated else None)
        now = max(d for *_, d in turns) + timedelta(days=1) if dated else None

        def rank(question, k):
            return [hit["row"] for hit in store.explain(question, top_k=k, now=now)]
        return rank
    return build


RANKERS = {
    "BM25, whitespace tokens": _bm25_ranker(lambda text: text.lower().split()),
    "BM25, teachmem tokens": _bm25_ranker(content_words),
    "random vectors": _store_ranker(embedder=RandomEmbedder(256), lexical_weight=0, reply_weight=0),
    "bag-of-words vectors": _store_ranker(embedder=BagOfWordsEmbedder(256), lexical_weight=0, reply_weight=0),
    "subword vectors": _store_ranker(lexical_weight=0, reply_weight=0),
    "hybrid BM25 + subword": _store_ranker(reply_weight=0),
    "default store (hybrid + neighbours)": _store_ranker(),
    "product score, dated turns, decay": _store_ranker(dated=True, scoring="product"),
    "  same, decay_rate=1.0": _store_ranker(dated=True, scoring="product", decay_rate=1.0),
    "default store, dated turns": _store_ranker(dated=True),
}


def recall_at_k(build, conversations, k: int, pooled: bool) -> dict:
    """Mean recall@k over questions, overall and per question kind."""
    groups = [conversations] if pooled else [[c] for c in conversations]
    per_kind: dict[str, list[float]] = {}
    for group in groups:
        turns, offset, questions = [], 0, []
        for conv in group:
            questions += [(q, [offset + e for e in evidence], kind) for q, evidence, kind in conv.questions]
            turns += conv.turns
            offset += len(conv.turns)
        rank = build(turns)
        for question, evidence, kind in questions:
            found = set(rank(question, k))
            value = len(found & set(evidence)) / len(evidence)
            per_kind.setdefault(kind, []).append(value)
            per_kind.setdefault("all", []).append(value)
    return {kind: float(np.mean(values)) for kind, values in per_kind.items()}


def table(k: int = 10, conversations=CONVERSATIONS) -> list[tuple[str, dict, dict]]:
    return [(name, recall_at_k(build, conversations, k, pooled=False),
             recall_at_k(build, conversations, k, pooled=True)) for name, build in RANKERS.items()]


def main() -> None:
    turns = sum(len(c.turns) for c in CONVERSATIONS)
    questions = sum(len(c.questions) for c in CONVERSATIONS)
    print(f"{len(CONVERSATIONS)} conversations, {turns} turns, {questions} questions")
    for k in (5, 10):
        print(f"\nrecall@{k}          per conversation            | all three in one store")
        print(f"{'retriever':36s} {'all':>5s} {'single':>6s} {'para':>5s} {'multi':>5s} {'time':>5s} | {'all':>5s}")
        for name, sep, pooled in table(k):
            print(f"{name:36s} {sep['all']:5.2f} {sep['single']:6.2f} {sep['paraphrase']:5.2f} "
                  f"{sep['multi']:5.2f} {sep['temporal']:5.2f} | {pooled['all']:5.2f}")


if __name__ == "__main__":
    main()
