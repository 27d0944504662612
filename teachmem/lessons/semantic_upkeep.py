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

# (t days, strength S) -> MemoryBank's retention exp(-t / (5·S)), the exponent t / (5·S) worked out by hand.
RETENTION = [((0, 1), 1.0), ((0, 10), 1.0), ((5, 1), math.exp(-1)), ((10, 1), math.exp(-2)),
             ((10, 2), math.exp(-1)), ((10, 10), math.exp(-0.2)), ((3, 1), math.exp(-0.6)),
             ((7, 2), math.exp(-0.7)), ((30, 3), math.exp(-2)), ((30, 10), math.exp(-0.6)),
             ((1, 10), math.exp(-0.02)), ((2.5, 1.5), math.exp(-1 / 3))]

# (last_accessed hours, now) -> Generative Agents recency 0.995 ** (hours since the last access, at least 0), by hand.
RECENCY = [(([0.0, 5.0, 9.0], 10.0), [0.995 ** 10, 0.995 ** 5, 0.995 ** 1]),
           (([9.0, 0.0, 5.0], 10.0), [0.995 ** 1, 0.995 ** 10, 0.995 ** 5]),
           (([3.0], 3.0), [1.0]), (([], 1.0), []),
           (([2.0, 2.0, 1.0], 4.0), [0.995 ** 2, 0.995 ** 2, 0.995 ** 3]),
           (([0.0, 24.0, 48.0], 72.0), [0.995 ** 72, 0.995 ** 48, 0.995 ** 24]),
           (([100.5, 0.5, 150.0], 200.5), [0.995 ** 100, 0.995 ** 200, 0.995 ** 50.5]),
           (([4.0, 12.0], 10.0), [0.995 ** 6, 1.0])]      # accessed after `now` (clocks disagree): just used


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
    problem = first_problem(close(f"t={t}, S={s}", fn(t, s), want) for (t, s), want in RETENTION)
    if problem and fn(10, 10) < fn(10, 1):
        problem += " (a stronger memory fades faster here: check the operator precedence)"
    return problem


@checker("recency_scores")
def check_recency_scores(fn: Callable) -> str | None:
    """Exercise 5.4: Generative Agents recency, decay ** hours since each memory was last accessed."""
    for (accessed, now), want in RECENCY:
        got = list(fn(list(accessed), now))
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
