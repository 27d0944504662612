"""Notebook 08b's checkers and plot: evidence recall@k on the LoCoMo format.

Taught in notebooks/08b_evaluate_on_locomo.ipynb.
"""
from __future__ import annotations

import math
import re
from collections.abc import Callable

from matplotlib.figure import Figure

from teachmem.lab.locomo import LOCOMO_SAMPLE, RecallReport, evidence_recall, load_locomo
from teachmem.lessons.common import (OKABE_ITO, after_prediction as after_prediction, answer_checker, figure,
                                     prediction_problem)


def plot_recall_at_k(report: RecallReport) -> Figure:
    """Evidence recall@k against k: overall (thick, black) and per category (thin, one colour each).

    Taught in notebooks/08b_evaluate_on_locomo.ipynb.
    """
    fig, ax = figure(7, 4.2)
    markers = "osD^v<>p"
    colours = OKABE_ITO[:6]                    # not yellow (pale on white), not black (the overall line)
    for i, category in enumerate(report.categories):
        values = report.recall(category)
        ax.plot(list(values), [math.nan if v is None else v for v in values.values()], lw=1.5,
                marker=markers[i % len(markers)], color=colours[i % len(colours)], label=f"category {category}")
    overall = report.recall()
    ax.plot(list(overall), [math.nan if v is None else v for v in overall.values()], marker="o", lw=3.5,
            color=OKABE_ITO[-1], label="all questions")
    ax.set_xlabel("k (turns retrieved)", fontsize=11)
    ax.set_ylabel("evidence recall@k", fontsize=11)
    ax.set(ylim=(0, 1.05), xticks=list(report.ks))
    ax.set_title("Is the evidence among the top k turns?", fontsize=12)
    ax.tick_params(labelsize=10)
    ax.legend(fontsize=10, loc="lower right")
    return fig


# ---------------------------------------------------------------- notebook 08b's exercises
@answer_checker("prediction")
def check_prediction(prediction: object, k: int = 5) -> str | None:
    """Exercise 8.4: does plain word overlap find more evidence in its top ``k`` than the semantic store?

    ``prediction`` is one of ``"higher"``, ``"lower"``, ``"same"`` (within 0.02),
    for word overlap compared with ``SemanticMemoryStore`` on the bundled sample.
    """
    conversations = load_locomo(LOCOMO_SAMPLE)
    mine = evidence_recall(conversations, ks=[k], retriever=overlap_retriever(set())).recall()[k] or 0.0
    theirs = evidence_recall(conversations, ks=[k]).recall()[k] or 0.0
    actual = "same" if abs(mine - theirs) <= 0.02 else ("higher" if mine > theirs else "lower")
    if isinstance(prediction, str) and prediction not in ("higher", "lower", "same"):
        raise ValueError(f'write one of "higher", "lower" or "same", got {prediction!r}')
    return prediction_problem(prediction, actual,
                              f"Word overlap reaches {mine:.3f}, the semantic store {theirs:.3f}: counting shared "
                              "words rewards turns that share the question's small words (what, did, is) as "
                              "much as its rare ones.")


MAX_STOPWORDS = 8


@answer_checker("stopwords")
def check_stopwords(stopwords: object) -> str | None:
    """Exercise 8.5: at most ``MAX_STOPWORDS`` words that, left out, make word overlap beat the semantic store at k=1.

    The checker builds the notebook's word-overlap retriever with ``stopwords``
    left out of every bag of words, and measures evidence recall@1 on the
    bundled LoCoMo-format sample, against ``SemanticMemoryStore``'s.
    """
    if not isinstance(stopwords, (set, frozenset, list, tuple)):
        raise TypeError(f"stopwords must be a set of lower-case words, got {type(stopwords).__name__}")
    not_words = [w for w in stopwords if not isinstance(w, str)]
    if not_words:
        raise TypeError(f"stopwords must hold words (strings), got {not_words[0]!r} among them")
    if len(set(stopwords)) > MAX_STOPWORDS:
        return (f"{len(set(stopwords))} words is a long list, not a choice you can explain: leave out at most "
                f"{MAX_STOPWORDS}, the ones that questions share with turns that do not answer them")
    conversations = load_locomo(LOCOMO_SAMPLE)
    mine = evidence_recall(conversations, ks=[1], retriever=overlap_retriever(set(stopwords))).recall()[1] or 0.0
    theirs = evidence_recall(conversations, ks=[1]).recall()[1] or 0.0
    if mine <= theirs:
        return (f"leaving out {sorted(stopwords)} gives recall@1 {mine:.3f}, the semantic store {theirs:.3f}: "
                "find the words nearly every question and every turn share")
    print(f"leaving out {sorted(stopwords)}: recall@1 {mine:.3f}, the semantic store {theirs:.3f}")
    return None


def overlap_retriever(stopwords: set[str]) -> Callable[[list[str]], Callable[[str, int], list[int]]]:
    """The word-overlap retriever notebook 08b builds inline, leaving ``stopwords`` out: most shared words
    first, ties by position. The checker of exercise 8.5 measures it."""
    def words(text: str) -> set[str]:
        return set(re.findall(r"[a-z0-9']+", text.lower())) - stopwords

    def build(texts: list[str]) -> Callable[[str, int], list[int]]:
        bags = [words(t) for t in texts]

        def search(query: str, k: int) -> list[int]:
            q = words(query)
            return sorted(range(len(texts)), key=lambda i: (-len(q & bags[i]), i))[:k]
        return search
    return build
