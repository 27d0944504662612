"""Notebook 05's checkers, score views and plots: relevance, importance and forgetting.

Taught in notebooks/05_semantic_memory.ipynb.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime

import numpy as np
from matplotlib.figure import Figure

from teachmem.core.bm25 import BM25Index
from teachmem.lab.lesson_examples import WIFI_MEMORIES, WIFI_NOW, WIFI_QUESTION
from teachmem.lab.lesson_examples import answer_by_age as answer_by_age, burial_day
from teachmem.lab.lesson_examples import store_with_ages as store_with_ages
from teachmem.lab.unseen_conversations import SEMANTIC_FACTS, SEMANTIC_QUESTIONS, semantic_conversation
from teachmem.lessons.building import class_checker, own_code, show_source as show_source
from teachmem.lessons.common import (OKABE_ITO, after_prediction as after_prediction, answer_checker,
                                     checker, OUTPUT_WIDTH, figure, hanging, short)
from teachmem.memory.semantic import SemanticMemoryStore

# word -> its folded form under the rule taught: plurals only (short words stay; -ies -> -y; -sses -> -ss;
# -ss, -us, -is stay; the case is kept). A stemmer does more ("hiking" -> "hik", "notes" -> "not"): those words catch it.
FOLDED = {"seat": "seat", "seats": "seat", "Seats": "Seat", "Parties": "Party", "tests": "test", "parties": "party", "cities": "city", "glass": "glass",
          "glasses": "glass", "classes": "class", "bus": "bus", "gas": "gas", "status": "status",
          "analysis": "analysis", "is": "is", "was": "was", "yes": "yes", "pytest": "pytest",
          "news": "new",     # the rule's known slip: it cannot tell "news" from a plural
          "boss": "boss", "bosses": "boss", "cats": "cat", "ties": "tie", "notes": "note", "rules": "rule",
          "hiking": "hiking", "hike": "hike", "planned": "planned", "weekly": "weekly"}

# (old fact, new fact, does the new one replace the old?) -- facts as a model might write them.
KEY_PAIRS = [("favorite color is blue", "favorite color is green", True),
             ("prefers window seats", "prefers aisle seats", True),
             ("prefers a window seat", "prefers aisle seats", True),
             ("prefers window seats", "prefers tea", False),
             ("lives in lisbon", "lives in porto", True),
             ("lives in lisbon", "moved to porto", True),
             ("works at helios", "works for acme", True),
             ("likes hiking", "likes jazz", False),
             ("budget is 2000 dollars", "budget is 2500 dollars", True),
             ("moved to porto", "moved to berlin", True)]


@checker("fold_plural")
def check_fold_plural(fn: Callable) -> str | None:
    """Exercise 5.1: fold English plurals so "seats" meets "seat", "glass" stays whole, "hiking" is left alone."""
    for word, want in FOLDED.items():
        got = fn(word)
        if not isinstance(got, str):
            return f"for word={word!r} expected a str, got {type(got).__name__}"
        if got != want:
            hint = " (fold plurals only: -ing, -ed and a final e stay as they are)" if not word.endswith("s") else ""
            return f"for word={word!r} expected {want!r}, got {got!r}{hint}"
    return None


@checker("fact_key")
def check_fact_key(fn: Callable) -> str | None:
    """Exercise 5.2: two facts share a key exactly when the newer one replaces the older."""
    for old, new, same in KEY_PAIRS:
        a, b = fn(old), fn(new)
        if not isinstance(a, str) or not isinstance(b, str):
            return f"for {old!r} expected a str key, got {type(a if not isinstance(a, str) else b).__name__}"
        if same and a != b:
            return (f"{new!r} should replace {old!r}, so both need one key; got {a!r} and {b!r}")
        if not same and a == b:
            return (f"{new!r} should not replace {old!r} (a user can hold both), but both got the key {a!r}")
    return None


def plot_similarity_heatmaps(matrices: dict, labels: list[str]) -> Figure:
    """One cosine-similarity heatmap per embedder, side by side (``matrices``: name -> n×n array), readable
    on a projector: the value written in each cell, a colour-blind-safe map, a colour bar that says what it means
    (a negative cosine, as unrelated as 0, is coloured as 0 and written as it is)."""
    fig, axes = figure(min(10.4, 3.1 * len(matrices) + 1.4), 4.6, ncols=len(matrices), sharey=True)
    axes = np.atleast_1d(axes)
    n = len(labels)
    for ax, (name, sims) in zip(axes, matrices.items(), strict=True):
        image = ax.imshow(np.clip(sims, 0, 1), vmin=0, vmax=1, cmap="cividis")
        ax.set_title(name, fontsize=11)
        ax.set_xticks(range(n), labels, rotation=45, ha="right", fontsize=9)
        ax.set_yticks(range(n), labels, fontsize=9)
        ax.set_xlabel("compared with")
        for i, j in np.ndindex(n, n):
            ax.text(j, i, f"{round(float(sims[i, j]), 1) + 0.0:.1f}", ha="center", va="center", fontsize=8,
                    color="black" if sims[i, j] > 0.55 else "white")
    axes[0].set_ylabel("fact or question")
    fig.colorbar(image, ax=axes, shrink=0.85, label="cosine similarity\n(1 = alike, 0 = nothing in common)")
    return fig


# ---------------------------------------------------------------- your store
def _library_answers(events: list[tuple], now: datetime) -> dict[str, list[dict]]:
    """The library's whole ranking for each question (no recall recorded), each memory found by its
    own words only (no shared relevance, no neighbour words, no latest word: notebook 05b's): each
    hit with its score and parts."""
    store = SemanticMemoryStore(reply_weight=0, neighbour_words=False, latest_word=False)
    for role, said, importance, when, is_fact in events:
        if is_fact:
            store.store(said, "fact", importance, when)
        else:
            store.store(f"{role}: {said}", "message", importance, when)
    return {q: store.explain(q, len(store), now) for q in SEMANTIC_QUESTIONS}


def _parts(hit: dict | None) -> str:
    """How the library scores a memory: ``0.12 = relevance 0.3 × recency 0.6 × (½ + ½·0.4)``."""
    if hit is None:
        return "not a live memory in the library"
    return (f"{hit['score']:.2g} = relevance {hit['relevance']:.2g} × recency {hit['recency']:.2g} × "
            f"(½ + ½·{hit['importance']:.2g})")


def _retrieval_difference(case: str, question: str, got, ranking: list[dict],
                          replaced: dict) -> str | None:
    """One line naming how ``got`` (the learner's top texts) differs from the library's top three
    of ``ranking``, with the library's score parts for the two memories that differ, or None."""
    want = [hit["text"] for hit in ranking[:3]]
    if not isinstance(got, list) or not all(isinstance(text, str) for text in got):
        return f"retrieve() should return a list of texts, best first; got {short(repr(got), 50)}"
    if got == want:
        return None
    stale = next((text for text in got if text in replaced), None)
    if stale is not None:
        return (f"{case}: {short(stale, 24)!r} is returned, but {short(replaced[stale], 24)!r} "
                "replaced it (retire it in add, and keep only live memories in retrieve)")
    if len(got) != len(want):
        return f"{case}, {question!r}: yours returns {len(got)} memories, {len(want)} wanted"
    index = next(i for i, (mine, theirs) in enumerate(zip(got, want, strict=True)) if mine != theirs)
    by_text = {hit["text"]: hit for hit in ranking}
    return (f"{case}, {question!r}: memory {index + 1} should be {short(want[index], 28)!r}, "
            f"scored {_parts(by_text[want[index]])}; yours is {short(got[index], 28)!r}, which the "
            f"library scores {_parts(by_text.get(got[index]))}")


@class_checker("semantic store")
def check_semantic_class(cls: type) -> str | None:
    """Section 3: the learner's store, on three unseen conversations, returns the same top three
    memories as ``SemanticMemoryStore`` (its default score, no neighbour's help) for every
    question, in the same order; a fact's new value replaces the old one."""
    for seed in (1, 2, 3):
        events, now = semantic_conversation(seed)
        rankings = _library_answers(events, now)
        replaced = {old: new for old, new in SEMANTIC_FACTS if any(said == new for _, said, *_ in events)}
        case = f"unseen conversation {seed} ({len(events)} memories)"
        with own_code():
            mine = cls()
            for role, said, importance, when, is_fact in events:
                mine.add(role, said, importance=importance, timestamp=when, fact=is_fact)
            for question, ranking in rankings.items():
                got = mine.retrieve(question, 3, now)
                problem = _retrieval_difference(case, question, got, ranking, replaced)
                if problem:
                    return problem
            sent = mine.context(SEMANTIC_QUESTIONS[0])
        if not isinstance(sent, list) or not sent or not all(isinstance(m, dict) for m in sent):
            return f"{case}: context(question) should return a list of messages (dicts), got {short(repr(sent), 40)}"
    return None


# ---------------------------------------------------------------- the baseline
WORD = re.compile(r"\w+")


class BM25Baseline:
    """The baseline a store must beat: BM25 over the lower-cased words (runs of letters and digits)
    of each turn as said; no dates, no embedding, no neighbours. ``fed_recall`` feeds it as a store."""

    def __init__(self, clock=None):
        self.index, self.texts = BM25Index(), []

    def add(self, role: str, content: str, **_) -> None:
        self.texts.append(f"{role}: {content}")
        self.index.add(WORD.findall(content.lower()))

    def explain(self, query: str, top_k: int) -> list[dict]:
        scores = self.index.scores(WORD.findall(query.lower()))
        order = np.lexsort((np.arange(len(scores)), -scores))[:top_k]
        return [{"text": self.texts[i]} for i in order]


# ---------------------------------------------------------------- score views
_NOT_COLUMNS = ("row", "rank", "text", "memory_type", "match", "score")


def score_table(hits: list[dict], parts: tuple[str, ...] | None = None) -> str:
    """``SemanticMemoryStore.explain`` hits as a table, one column per part of the score
    (``parts``: those to show, all by default), each memory's text wrapped; a hit's ``rank``
    replaces its place."""
    if not hits:
        return "(no memories)"
    shown = [c for c in hits[0] if c not in _NOT_COLUMNS and (parts is None or c in parts)]
    # a column is as wide as its name or its widest number (-0.00512), at least 7, and one space apart
    columns = {c: max(len(c), 7, *(len(f"{h[c]:.3g}") for h in hits if not isinstance(h[c], int))) + 1
               for c in shown}
    lines = [f" # {'score':>8}" + "".join(f"{c:>{w}}" for c, w in columns.items()) + "  memory"]
    for i, h in enumerate(hits, start=1):
        row = (f"{h.get('rank', i):>2} {h['score']:>8.3g}"
               + "".join(f"{h[c]:>{w}}" if isinstance(h[c], int) else f"{h[c]:>{w}.3g}"
                         for c, w in columns.items()) + "  ")
        lines += hanging(row, h["text"], OUTPUT_WIDTH + 4)
    return "\n".join(lines)


# ---------------------------------------------------------------- decay, on its own
@answer_checker("burial_prediction")
def check_burial_prediction(burial_prediction: int) -> str | None:
    """Section 4: from which age, in whole days, is the wifi answer no longer first? (within 3 days)"""
    if isinstance(burial_prediction, bool) or not isinstance(burial_prediction, int):
        raise TypeError(f"write your prediction by hand as a whole number of days, like 20, "
                        f"got {type(burial_prediction).__name__}")
    day = burial_day(WIFI_MEMORIES, WIFI_QUESTION, WIFI_NOW)
    if day is not None and abs(burial_prediction - day) <= 3:
        print(f"Right (within 3 days counts): the answer is buried from day {day}.")
        return None
    return (f"you predicted {burial_prediction} days; the answer is buried from day {day}. Each day multiplies "
            "its score by 0.95, so it takes log(rival / answer) / log(0.95) days to fall below the rival.")


def plot_burial(memories, question: str, now: datetime, days: int = 90, decay_rate: float = 0.95) -> Figure:
    """The answer's score against its age, beside the best other memory's score: decay alone sinks it."""
    ages, scores, rival = answer_by_age(memories, question, now, days, decay_rate)
    fig, ax = figure(8, 3.6)
    ax.plot(ages, scores, color=OKABE_ITO[0], lw=2, label=f"the answer: {short(memories[0][0], 50)}")
    ax.axhline(rival, color=OKABE_ITO[1], lw=2, ls="--", label="the best other memory (its age fixed)")
    buried = np.flatnonzero(scores < rival)
    if buried.size:
        day = int(ages[buried[0]])
        ax.axvline(day, color="grey", lw=1, ls=":")
        ax.annotate(f"buried from day {day}", (day, rival), xytext=(6, 12), textcoords="offset points", fontsize=9)
    ax.set(title=f"{question!r}: the answer's score as it ages (decay {decay_rate} a day)",
           xlabel="age of the answer (days since stored)", ylabel="score = relevance × importance × decay")
    ax.legend(fontsize=9)
    return fig
