"""Worked solutions for notebooks/02_sliding_window.ipynb."""
import re

from teachmem.llm import importance_rules

# 2.1 · Predict, then run. The three pins go to the highest-scoring older messages: turn 17 (the
# switch to MySQL), turns 3 and 5 (PostgreSQL and FastAPI, decisions with names and reasons).
# Turn 7's pytest comes fourth, so only MySQL survives.
pins_prediction = {"db_mysql"}


def window_positions(importance, recent_k, important_k):
    """2.2: the last recent_k positions plus the important_k best older ones."""
    n = len(importance)
    if n <= recent_k + important_k:
        return list(range(n))
    older = range(n - recent_k)
    # sorted() is stable, so among equal scores the older position comes first.
    best = sorted(older, key=lambda i: -importance[i])[:important_k]
    return sorted(best) + list(range(n - recent_k, n))


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
