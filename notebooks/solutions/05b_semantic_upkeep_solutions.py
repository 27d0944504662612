"""Worked solutions for notebooks/05b_semantic_upkeep.ipynb."""
import math

# Section 2, predict then run: recalled on day 2, the appointment restarted its clock and doubled its
# strength (exp(-3 / 2) = 0.223 left); the flossing advice was never recalled (exp(-5) = 0.007 left).
first_prediction = "appointment"


def forgetting_curve(t, S):
    """Exercise 5.3: retention after ``t`` days for a memory of strength ``S``.

    MemoryBank's public code writes ``math.exp(-t / 5*S)``. Division and
    multiplication share one precedence level and run left to right, so that
    is ``exp(-(t / 5) * S)``: the stronger the memory, the faster it fades.
    The docstring above it says the opposite. Parentheses fix it: 5·S days is
    the time for retention to fall to 1/e.
    """
    return math.exp(-t / (5 * S))


def recency_scores(last_accessed, now, decay=0.995):
    """Exercise 5.4: Generative Agents recency for memories last accessed at ``last_accessed`` (hours).

    The Generative Agents public code sorts memories oldest-first and gives the i-th one
    ``decay ** i``: the *oldest* gets the highest recency, and the gap
    between two memories is one step whatever the hours between them. The
    paper's recency decays with the hours since each memory was last used. A last
    access later than ``now`` (two clocks that disagree) counts as just used.
    """
    return [decay ** max(now - t, 0) for t in last_accessed]


# Exercise 5.5: the three wordings of the verbose-output preference are at cosine 0.74 and above from
# each other, the coverage preference at 0.58 and below from them: any threshold in between works.
merge_threshold = 0.7
