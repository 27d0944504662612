"""Worked solutions for notebooks/05_semantic_memory.ipynb."""
import math


def forgetting_curve(t, S):
    """Exercise 5.1: retention after ``t`` days for a memory of strength ``S``.

    MemoryBank's public code writes ``math.exp(-t / 5*S)``. Division and
    multiplication share one precedence level and run left to right, so that
    is ``exp(-(t / 5) * S)``: the stronger the memory, the faster it fades.
    The docstring above it says the opposite. Parentheses fix it: 5·S days is
    the time for retention to fall to 1/e.
    """
    return math.exp(-t / (5 * S))


def recency_scores(last_accessed, now, decay=0.995):
    """Exercise 5.2: Generative Agents recency for memories last accessed at ``last_accessed`` (hours).

    The Generative Agents public code sorts memories oldest-first and gives the i-th one
    ``decay ** i``: the *oldest* gets the highest recency, and the gap
    between two memories is one step whatever the hours between them. The
    paper's recency decays with the hours since each memory was last used.
    """
    return [decay ** (now - t) for t in last_accessed]


def fold_plural(word):
    """Exercise 5.3: "seats" -> "seat", "parties" -> "party", "glasses" -> "glass"; "glass", "status" stay."""
    if len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("sses"):
        return word[:-2]
    if word.endswith(("ss", "us", "is")) or not word.endswith("s"):
        return word
    return word[:-1]
