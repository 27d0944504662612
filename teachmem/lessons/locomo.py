"""Notebook 08b's checkers and plot: evidence recall@k on the LoCoMo format.

Its tables of recall per category and per report come from ``teachmem.lab.evaluation.recall_tables``.

Taught in notebooks/08b_evaluate_on_locomo.ipynb.
"""
from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure

from teachmem.core.bm25 import BM25Index
from teachmem.core.tokens import estimate_tokens
from teachmem.lab.evaluation.locomo import (CATEGORY_NAMES as CATEGORY_NAMES, LOCOMO_SAMPLE, LONG_CONVERSATIONS,
                                            LocomoConversation, RecallReport, category_label as category_label,
                                            evidence_recall, load_locomo, overlap_retriever)
from teachmem.lab.evaluation.recall_tables import category_table as category_table
from teachmem.lab.evaluation.recall_tables import overall_table as overall_table
from teachmem.lab.evaluation.recall_over_time import FedReport
from teachmem.lessons.common import (OKABE_ITO, after_prediction as after_prediction, answer_checker, figure, hanging,
                                     prediction_problem, wrapped as wrapped)


class BM25Turns:
    """The baseline a store is measured against: BM25 over each turn's own lower-cased words (runs of letters,
    digits and apostrophes), no stemming, no dates, no neighbours. ``fed_recall(conversations, BM25Turns)`` feeds it
    like a store; ``clock`` is accepted and ignored."""

    def __init__(self, clock=None):
        self.index, self.texts = BM25Index(), []

    def add(self, role: str, content: str, **_) -> None:
        self.texts.append(f"{role}: {content}")
        self.index.add(re.findall(r"[a-z0-9']+", content.lower()))

    def explain(self, query: str, top_k: int) -> list[dict]:
        scores = self.index.scores(re.findall(r"[a-z0-9']+", query.lower()))
        order = np.lexsort((np.arange(len(scores)), -scores))[:top_k]     # ties: the earlier turn first
        return [{"text": self.texts[i]} for i in order]


def changed_questions(conversations: Sequence[LocomoConversation], reports: Mapping[str, FedReport],
                      measure: str = "strict@10", width: int = 86) -> str:
    """The questions whose ``measure`` differs between two ``fed_recall`` reports of ``conversations``, each with
    its first evidence turn: ``+`` where the second report finds more of the evidence, ``-`` where less."""
    if not isinstance(reports, Mapping) or len(reports) != 2:
        raise ValueError(f"reports must be a dict of two named fed_recall reports, got {type(reports).__name__}")
    (first, before), (second, after) = reports.items()
    scored = [(q, evidence) for c in conversations for q in c.questions
              if (evidence := [t for t in c.turns if t.dia_id in q.evidence])]
    if not len(scored) == len(before.per_question) == len(after.per_question):
        raise ValueError("reports must both be fed_recall reports of these conversations")
    lines, counts = [], {"+": 0, "-": 0}
    for (q, evidence), (_, _, b), (_, _, a) in zip(scored, before.per_question, after.per_question, strict=True):
        if a[measure] != b[measure]:
            sign = "+" if a[measure] > b[measure] else "-"
            counts[sign] += 1
            lines += [*hanging(f"{sign} ", q.question, width), *hanging("    ", evidence[0].memory, width)]
    return "\n".join([f"{measure}: {second} finds more of the evidence for {counts['+']} questions, "
                      f"{first} for {counts['-']}", *lines])


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
                marker=markers[i % len(markers)], color=colours[i % len(colours)], label=category_label(category))
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
def _recall_at(k: int, stopwords: set[str]) -> tuple[float, float]:
    """Evidence recall@``k`` on the bundled sample: word overlap leaving out ``stopwords``, the semantic store."""
    conversations = load_locomo(LOCOMO_SAMPLE)
    mine = evidence_recall(conversations, ks=[k], retriever=overlap_retriever(stopwords)).recall()[k]
    theirs = evidence_recall(conversations, ks=[k]).recall()[k]
    return mine or 0.0, theirs or 0.0


@answer_checker("prediction")
def check_prediction(prediction: object, k: int = 5) -> str | None:
    """Exercise 8.4: does plain word overlap find more evidence in its top ``k`` than the semantic store?

    ``prediction`` is one of ``"higher"``, ``"lower"``, ``"same"`` (within 0.02),
    for word overlap compared with ``SemanticMemoryStore`` on the bundled sample.
    """
    mine, theirs = _recall_at(k, set())
    actual = "same" if abs(mine - theirs) <= 0.02 else ("higher" if mine > theirs else "lower")
    if isinstance(prediction, str) and prediction not in ("higher", "lower", "same"):
        raise ValueError(f'write one of "higher", "lower" or "same", got {prediction!r}')
    return prediction_problem(prediction, actual,
                              f"Word overlap reaches {mine:.3f}, the semantic store {theirs:.3f}: counting shared "
                              "words ranks a turn that shares only the question's common words as high as one "
                              "that shares its rare ones.")


MAX_STOPWORDS = 8


@answer_checker("stopwords")
def check_stopwords(stopwords: object) -> str | None:
    """Exercise 8.6: at most ``MAX_STOPWORDS`` words that, left out, make word overlap beat the semantic store at k=1.

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
    mine, theirs = _recall_at(1, set(stopwords))
    if mine <= theirs:
        return (f"leaving out {sorted(stopwords)} gives recall@1 {mine:.3f}, the semantic store {theirs:.3f}. "
                "Leaving a word out helps only when that word ties a wrong turn with the evidence at rank 1 "
                "(or puts it ahead); a question word that turns rarely use changes nothing. For a question missed at "
                "k = 1, compare the words its top turn shares with it to those its evidence turn shares")
    print(f"leaving out {sorted(stopwords)}: recall@1 {mine:.3f}, the semantic store {theirs:.3f}")
    return None


# ---------------------------------------------------------------- exercise 8.5 · a budget in turns
BUDGET = 500
#: How far a prediction of the turns in a budget may be from the run's figure (a share of it) and still count.
TOLERANCE = 0.2


@answer_checker("turns_in_500")
def check_turns_in_500(turns_in_500: object) -> str | None:
    """Exercise 8.5: about how many turns of the long conversations fit a budget of ``BUDGET`` tokens?

    ``turns_in_500`` is a whole number written by hand; it counts within ``TOLERANCE`` of the budget
    divided by the mean tokens of a turn (``"speaker: text"``, the project's token estimator).
    """
    turns = [t for c in load_locomo(LONG_CONVERSATIONS) for t in c.turns]
    per_turn = sum(estimate_tokens(t.memory) for t in turns) / len(turns)
    actual = round(BUDGET / per_turn)
    why = (f"A turn of the long conversations is {per_turn:.1f} tokens on average, so {BUDGET} tokens hold about "
           f"{actual} turns, {actual / 10:.1f} times the top 10: a budget is a longer list, not a better ranking.")
    if type(turns_in_500) is int and abs(turns_in_500 - BUDGET / per_turn) <= TOLERANCE * BUDGET / per_turn:
        print(f"Right: you said {turns_in_500}, the run gives {actual}. {why}")
        return None
    return prediction_problem(turns_in_500, actual, why)
