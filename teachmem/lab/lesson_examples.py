"""The small made-up examples notebooks 03–06 show besides the scenarios, and the memories built
from them: messages folded into a summary, messages to predict an extraction from, memories of
different ages (and the first one's score as it ages), wordings of one preference to merge, a
hybrid manager on a tight budget. The exercises' checkers use the same data.
"""
from __future__ import annotations

import functools
from datetime import datetime, timedelta

import numpy as np

from teachmem.lab.replay import feed
from teachmem.lab.scenarios import Fact, load_scenario
from teachmem.llm import OfflineLLM, summarize
from teachmem.memory.hybrid import HybridMemoryManager, PromptTrace
from teachmem.memory.semantic import SemanticMemoryStore

# ---------------------------------------------------------------- 03: summary drift
# The first day of the project_30 conversation is summarised, then these later messages of the same
# project are folded in one at a time, as a summary memory does: the word limit stays, the material grows.
FIRST_DAY = 16
FOLLOW_UP = (
    "Let's send the booking emails with Postmark, because its delivery is reliable.",
    "Let's cache the class schedule in Redis, since the schedule page gets most of the traffic.",
    "We'll deploy on Fly.io, mainly for its simple pricing.",
    "Let's use Tailwind for styling, so my sister can change the colours herself.",
    "Reminder emails will go through Celery with one small worker.",
    "We'll use GitHub Actions for CI, because the code already lives on GitHub.",
    "Let's use SQLAlchemy as the ORM, since I know it from work.",
    "For search we'll use Meilisearch, because members look classes up by teacher.",
    "Let's run everything in Docker so the versions match production.",
    "Card payments will go through Stripe, but only after the first release.",
)


@functools.cache
def follow_up_rounds(max_words: int = 120) -> tuple[str, ...]:
    """The reference replay: the first day summarised, then each ``FOLLOW_UP`` message folded in."""
    first_day = "\n".join(f"{t.role}: {t.content}" for t in load_scenario("project_30").turns[:FIRST_DAY])
    rounds = [summarize(OfflineLLM(), first_day, max_words=max_words)]
    for message in FOLLOW_UP:
        rounds.append(summarize(OfflineLLM(), f"user: {message}", previous_summary=rounds[-1],
                                max_words=max_words))
    return tuple(rounds)


def first_day_facts() -> list[Fact]:
    """The scenario's facts still true at the end of the first day (turn 16)."""
    return [f for f in load_scenario("project_30").facts if f.is_current(FIRST_DAY)]


# ---------------------------------------------------------------- 04: what the extractor finds
# Messages the extractor has not met; which of them yield a fact that passes the 0.7 filter?
PREDICT_MESSAGES = (
    "Could we use Redis for sessions?",
    "I'm a pharmacist at a hospital in Leeds.",
    "I write Rust at my day job.",
    "For styling let's use Bootstrap. I love its grid.",
    "My guess is that nobody reads the docs.",
    "Probably Vue, but I'm not sure yet.",
)

# ---------------------------------------------------------------- 05: decay, on its own
# (text, importance, days old), the question, and when it is asked: only the first answers it.
WIFI_MEMORIES = (("The wifi password is taped to the fridge door", 0.9, 60),
                 ("The wifi in the meeting room keeps dropping", 0.4, 3),
                 ("The router was moved to the hallway", 0.5, 20),
                 ("Booked the flights to Porto", 0.5, 1))
WIFI_QUESTION, WIFI_NOW = "What is the wifi password?", datetime(2026, 3, 1)


def store_with_ages(memories, now: datetime, **options) -> SemanticMemoryStore:
    """A store holding ``memories`` (``(text, importance, days old)``), each stored that many days before
    ``now``, independent of each other, ranked by the product score (``reply_weight=0``,
    ``scoring="product"`` unless ``options`` say otherwise)."""
    store = SemanticMemoryStore(**{"reply_weight": 0.0, "scoring": "product", **options})
    for text, importance, days_old in memories:
        store.store(text, importance=importance, timestamp=now - timedelta(days=days_old))
    return store


def answer_by_age(memories, question: str, now: datetime, days: int = 90,
                  decay_rate: float = 0.95) -> tuple[np.ndarray, np.ndarray, float]:
    """The first memory's score for ``question`` if it were 0, 1, …, ``days`` days old, the others
    kept at their ages; and the best score among the others (what it must beat to come first)."""
    (text, importance, _), *others = memories
    ages, scores = np.arange(days + 1), []
    for age in ages:
        store = store_with_ages([(text, importance, int(age)), *others], now, decay_rate=decay_rate)
        scores.append(store.scores(question, now)[0]["score"])
    return ages, np.array([s[0] for s in scores]), float(scores[0][1:].max())


def burial_day(memories, question: str, now: datetime, decay_rate: float = 0.95,
               days: int = 365) -> int | None:
    """The first age (whole days) at which the first memory no longer ranks first, or None within
    ``days``."""
    ages, scores, rival = answer_by_age(memories, question, now, days, decay_rate)
    buried = np.flatnonzero(scores < rival)
    return int(ages[buried[0]]) if buried.size else None


# ---------------------------------------------------------------- 05b: merging near-duplicates
# Oldest first: three wordings of one preference, then two other memories.
MERGE_MEMORIES = ("User prefers pytest with verbose output", "user prefers pytest, verbose output!",
                  "The user likes pytest and verbose test output", "User prefers pytest with coverage reports",
                  "Lunch today was a sandwich")
MERGED_LIVE = ["The user likes pytest and verbose test output", "User prefers pytest with coverage reports",
               "Lunch today was a sandwich"]     # what should be left: one copy of the preference, the rest


def merged_store(threshold: float) -> tuple[SemanticMemoryStore, list]:
    """``MERGE_MEMORIES`` stored a day apart and consolidated at ``threshold``: the store and its Changes."""
    store = SemanticMemoryStore()
    for text in MERGE_MEMORIES:
        store.store(text, "preference" if "prefer" in text or "likes" in text else "event")
    return store, store.consolidate(threshold)


# ---------------------------------------------------------------- 06: a tight budget
#: The budget of notebook 06's caps demo and exercises: there the fact cap leaves the MySQL fact out.
TIGHT_BUDGET = 700


def turn_29_at_tight_budget(fact_share: float) -> tuple[HybridMemoryManager, PromptTrace]:
    """A manager at ``TIGHT_BUDGET`` that has heard turns 1–28 of project_30, and its trace for turn 29."""
    scenario = load_scenario("project_30")
    manager = feed(HybridMemoryManager(TIGHT_BUDGET, fact_share=fact_share), scenario, 28)
    return manager, manager.explain_prompt(scenario.turns[28].content)
