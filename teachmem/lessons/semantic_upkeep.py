"""Notebook 05b's checkers and plots: two scores from the literature, and keeping a store lean.

Taught in notebooks/05b_semantic_upkeep.ipynb.
"""
from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from matplotlib.figure import Figure

from teachmem.lab.lesson_examples import MERGED_LIVE, merged_store
from teachmem.lessons.common import (OKABE_ITO, CheckResult, after_prediction as after_prediction, answer_checker,
                                     checker, close, figure, first_problem, prediction_problem, report,
                                     wrapped as wrapped)
from teachmem.lessons.semantic import score_table as score_table

# (t days, strength S) for exercise 5.3: MemoryBank's retention is exp(-t / (5·S)).
RETENTION = [(0, 1), (0, 10), (5, 1), (10, 1), (10, 2), (10, 10), (3, 1), (7, 2), (30, 3), (30, 10),
             (1, 10), (2.5, 1.5)]

# (last_accessed hours, now) for exercise 5.4: Generative Agents recency is 0.995 ** (hours since the
# last access, at least 0); in the last case a memory was accessed after `now` (clocks disagree): just used.
RECENCY = [([0.0, 5.0, 9.0], 10.0), ([9.0, 0.0, 5.0], 10.0), ([3.0], 3.0), ([], 1.0), ([2.0, 2.0, 1.0], 4.0),
           ([0.0, 24.0, 48.0], 72.0), ([100.5, 0.5, 150.0], 200.5), ([4.0, 12.0], 10.0)]


@answer_checker("first_prediction")
def check_first_prediction(first_prediction: str) -> str | None:
    """Section 2: which dentist memory does MemoryBank's score put first on day 5, "appointment" or "floss"?"""
    word = first_prediction.strip().lower() if isinstance(first_prediction, str) else first_prediction
    if isinstance(word, str) and word not in ("appointment", "floss"):
        raise ValueError(f'write "appointment" or "floss", got {first_prediction!r}')
    return prediction_problem(word, "appointment",
                              "Recalled on day 2, the appointment restarted its clock with strength 2: exp(-3 / 2) = "
                              "0.223 of its score is left; the flossing advice, never recalled, keeps exp(-5) = 0.007.")


@checker("forgetting_curve")
def check_forgetting_curve(fn: Callable) -> str | None:
    """Exercise 5.3: MemoryBank's retention exp(-t / (5·S)), with the parentheses it needs."""
    problem = first_problem(close(f"t={t}, S={s}", fn(t, s), math.exp(-t / (5 * s)))
                            for t, s in RETENTION)
    if problem and fn(10, 10) < fn(10, 1):
        problem += " (a stronger memory fades faster here: check the operator precedence)"
    return problem


@checker("recency_scores")
def check_recency_scores(fn: Callable) -> str | None:
    """Exercise 5.4: Generative Agents recency, decay ** hours since each memory was last accessed."""
    for accessed, now in RECENCY:
        got = list(fn(list(accessed), now))
        want = [0.995 ** max(now - t, 0) for t in accessed]
        problem = close(f"last_accessed={accessed}, now={now}", got, want)
        if problem and len(accessed) > 1 and len(got) == len(accessed) and \
                got[accessed.index(min(accessed))] > got[accessed.index(max(accessed))]:
            problem += " (the oldest access got the highest recency: the ordering is reversed)"
        if problem:
            return problem
    return None


def check_merge_threshold(threshold) -> CheckResult:
    """Exercise 5.5: a ``consolidate`` threshold that merges the three wordings and nothing else."""
    title = "merge_threshold"
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0 <= threshold <= 1:
        return report(False, f"✗ {title}: expected a number between 0 and 1, got {threshold!r}")
    store, _ = merged_store(threshold)
    live = [text for row, text in enumerate(store.texts) if row not in store.retired]
    kept = sum("pytest" in text and "verbose" in text for text in live)
    if kept > 1:
        return report(False, f"✗ {title}: at {threshold} {kept} wordings of the verbose-output preference "
                             "are still apart; lower the threshold")
    if live != MERGED_LIVE:
        return report(False, f"✗ {title}: at {threshold} a memory that says something else was merged with the "
                             f"preference (left: {live}); raise the threshold")
    return report(True, f"✓ {title}: passed (one copy of the preference is left, the others stay)")


def plot_forgetting_curves(fixed: Callable | None = None, strengths: tuple[float, ...] = (1, 2, 4),
                           days: int = 14) -> Figure:
    """The retention MemoryBank's released code computes, exp(-t / 5*S) (dashed), for a few strengths;
    with ``fixed``, the learner's own curve beside it (solid, same colour per strength)."""
    fig, ax = figure(8, 3.6)
    t = np.linspace(0, days, 200)
    for colour, s in zip(OKABE_ITO, strengths, strict=False):
        ax.plot(t, np.exp(-t / 5 * s), color=colour, ls="--", label=f"S={s}, the code as written")
        if fixed is not None:
            ax.plot(t, [fixed(x, s) for x in t], color=colour, lw=2, label=f"S={s}, your forgetting_curve")
    ax.set(title="Retention: a stronger memory (larger S) should fade more slowly",
           xlabel="days since last recall", ylabel="retention", ylim=(0, 1.05))
    ax.legend(fontsize=8, ncol=2 if fixed is not None else 1, title="strength S")
    return fig
