"""Worked solutions for notebooks/05_semantic_memory.ipynb."""


def fold_plural(word):
    """Exercise 5.1: "seats" -> "seat", "parties" -> "party", "glasses" -> "glass"; "glass", "status" stay.

    Only plurals fold: "hiking" and "planned" keep their endings, and "notes" becomes "note",
    not "not" as a stemmer that also drops a final e would make it.
    """
    if len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("sses"):
        return word[:-2]
    if word.endswith(("ss", "us", "is")) or not word.endswith("s"):
        return word
    return word[:-1]


SAME_VERB = {"moved": "lives"}      # verbs that say the same thing as another


def fact_key(fact):
    """Exercise 5.2: what a fact is about, so that a new value replaces the old one and nothing else.

    "favorite color is blue" -> "favorite color"; "lives in lisbon" and "moved to porto" -> "lives";
    "works at helios" and "works for acme" -> "works"; "prefers window seats" -> "prefers seat",
    kept apart from "prefers tea".
    """
    words = fact.lower().split()
    if " is " in fact:
        return fact[:fact.index(" is ")]
    verb = SAME_VERB.get(words[0], words[0])
    if verb in ("prefers", "likes"):
        return f"{verb} {fold_plural(words[-1])}"
    return verb


# Section 4, predict then run: the answer keeps 0.95 of its score a day and starts 0.753 against the rival's
# 0.118, so it is buried once 0.95 ** age < 0.118 / 0.753: log(0.118 / 0.753) / log(0.95) = 36.2, day 37.
burial_prediction = 37


# Section 3, your store: the four decision lines are marked "decision".
from datetime import datetime  # noqa: E402

import numpy as np  # noqa: E402

from teachmem import BM25Index, SubwordEmbedder  # noqa: E402
from teachmem.core.words import content_words  # noqa: E402
from teachmem.memory.semantic import fact_key as library_fact_key  # noqa: E402


class MyStore:
    """Memories ranked by relevance × importance × a recency that only tells near-copies apart; a fact's
    new value replaces the old."""

    def __init__(self):
        self.embedder = SubwordEmbedder(256)
        self.index = BM25Index()          # memory i is document i
        self.memories = []                # dicts: text, vector, importance, time, key, live

    def add(self, role, content, importance=0.5, timestamp=None, fact=False):
        text = content if fact else f"{role}: {content}"
        key = library_fact_key(content) if fact else None
        when = timestamp or datetime(2026, 1, 1)
        self.memories.append({"text": text, "vector": self.embedder.embed([text])[0],
                              "importance": importance, "time": when, "key": key, "live": True})
        self.index.add(content_words(f"{text} {when:%B %Y}"))    # its words, its month and year
        if key is not None:
            for i, memory in enumerate(self.memories[:-1]):
                if memory["live"] and memory["key"] == key:        # decision: what a key replaces
                    self.retire(i)

    def retire(self, i):
        """Memory i is no longer returned, and leaves the BM25 index."""
        self.memories[i]["live"] = False
        self.index.remove(i)

    def relevance(self, query):
        """Section 3's blend: half BM25 (over the best live match), half the cosine (0 if negative)."""
        live = np.array([m["live"] for m in self.memories])
        vectors = np.array([m["vector"] for m in self.memories])
        cosine = np.clip(vectors @ self.embedder.embed([query])[0], 0.0, 1.0)
        lexical = self.index.scores(content_words(query), len(self.memories))
        best = float(lexical[live].max(initial=0.0))
        if best <= 0:
            return cosine
        return 0.5 * (lexical / best) + 0.5 * cosine

    def retrieve(self, query, k=3, now=None):
        now = now or max(m["time"] for m in self.memories)
        live = [m for m in self.memories if m["live"]]
        scores = []
        for memory, match in zip(self.memories, self.relevance(query), strict=True):
            days = (now - memory["time"]).days
            copies = [(now - m["time"]).days for m in live if memory["vector"] @ m["vector"] >= 0.6]
            gap = max([0] + [days - d for d in copies])          # decision: days to its newest copy
            recency = 0.5 + 0.5 * 0.5 ** (gap / 30)
            scores.append(match * (0.5 + 0.5 * memory["importance"]) * recency)   # decision: score
        ranked = sorted(range(len(self.memories)), key=lambda i: -scores[i])
        kept = [i for i in ranked if self.memories[i]["live"]]           # decision: what to cut
        return [self.memories[i]["text"] for i in kept[:k]]

    def context(self, query=None):
        if query is None or not self.memories:
            return []
        memories = "\n".join(self.retrieve(query))
        return [{"role": "system", "content": f"Relevant memories:\n{memories}"}]


semantic_class = MyStore      # what lesson.check_semantic_class checks
