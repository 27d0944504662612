"""Worked solutions for notebooks/02_sliding_window.ipynb."""
import re

from teachmem.llm import importance_rules


class MyWindow:
    """2.1 · Build it: the last recent_k messages, after the important_k best older ones, pinned."""

    def __init__(self, recent_k=6, important_k=3):
        self.recent_k = recent_k
        self.important_k = important_k
        self.all_messages = []    # every message, oldest first, as {"role": …, "content": …}
        self.importance = []      # each message's score, given once, when it arrives

    def add(self, role, content, **kwargs):
        score = importance_rules(content)
        if role == "assistant":
            score = score * 0.5               # a reply mostly restates what the user decided
        self.importance.append(score)
        self.all_messages.append({"role": role, "content": content})

    def window_indices(self):
        n = len(self.all_messages)
        if n <= self.recent_k + self.important_k:
            return list(range(n))             # everything still fits
        older = range(n - self.recent_k)
        # Best score first; sorted() is stable, so among equal scores the older message stays first.
        pinned = sorted(older, key=lambda i: -self.importance[i])[:self.important_k]
        return sorted(pinned) + list(range(n - self.recent_k, n))

    def context(self, query=None):
        return [self.all_messages[i] for i in self.window_indices()]


window_class = MyWindow       # what lesson.check_window_class checks


# 2.2 · Predict, then run. The three pins go to the highest-scoring older messages: turn 17 (the
# switch to MySQL), turns 3 and 5 (PostgreSQL and FastAPI, decisions with names and reasons).
# Turn 7's pytest comes fourth, so only MySQL survives.
pins_prediction = {"db_mysql"}


def kept_after_trim(token_counts, budget):
    """2.3: drop from the front until the rest fits."""
    start, total = 0, sum(token_counts)
    while start < len(token_counts) and total > budget:
        total -= token_counts[start]
        start += 1
    return list(range(start, len(token_counts)))


EXPLICIT = re.compile(r"\b(?:let's|we'll|decided|go with)\b", re.IGNORECASE)


def my_importance(text):
    """2.4 · Modify and observe: an explicit decision ("let's", "we'll", "decided") outranks a wish
    ("I want PostgreSQL") or a description. Turn 7 ("let's use pytest") now beats turn 5 for a pin."""
    score = importance_rules(text)
    if EXPLICIT.search(text):
        score += 0.2
    return min(score, 1.0)
