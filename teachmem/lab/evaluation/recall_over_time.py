"""Recall over months: a store fed the way an application feeds it, measured three ways.

``evidence_recall`` (in ``teachmem.lab.evaluation.locomo``) stores every turn at the same moment, so it
measures relevance alone. An application does not: each turn arrives through
``add(role, content, turn=, timestamp=)`` on the day it was said, and the question comes after the
last session, so whatever the store does with time plays its part. ``fed_recall`` does that and
reports, per question:

* **strict recall@k**: the share of the evidence turns among the top ``k`` retrieved;
* **tolerant recall@k**: an evidence turn also counts when a retrieved turn is its neighbour
  (one turn before or after, same session): published audits of LoCoMo found dozens of
  evidence labels one turn off, and the neighbour is usually what a prompt would show anyway;
* **recall within a budget**: the retrieved turns are taken best first while their text fits
  ``budget`` tokens; the share of the evidence among them. That is what a prompt can hold;
* LongMemEval's (Wu et al., 2024) **nDCG@k** (evidence ranked higher counts more) and **all@k**
  (every evidence turn in the top k: what a question needing two facts needs), strict and tolerant.

``halves`` splits the conversations in two: choose settings on one half, report the other too,
so that tuning to the data shows; ``by_evidence_session`` keeps the questions whose evidence lies in
given sessions (early or late in a conversation). From the command line: ``python -m teachmem.evaluate --locomo FILE --fed``.
"""
from __future__ import annotations

import math
import re
from collections import defaultdict
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Callable, Sequence

from teachmem.core.clock import ManualClock
from teachmem.core.tokens import TokenCounter, estimate_tokens
from teachmem.lab.evaluation.locomo import LocomoConversation, LocomoError, category_label, recall_at_k, require_ks
from teachmem.lab.evaluation.scoreboard import text_table
from teachmem.memory.semantic import SemanticMemoryStore

DEFAULT_BUDGETS = (500, 1000, 2000)
#: How many turns are retrieved to fill the largest budget (a turn costs ten tokens or more).
POOL = 200
_DIA = re.compile(r"D(\d+):(\d+)")


def session_time(date_time: str) -> datetime:
    """A LoCoMo session date, such as ``"2:10 pm on 3 March, 2024"``, as a datetime.

    >>> session_time("2:10 pm on 3 March, 2024")
    datetime.datetime(2024, 3, 3, 14, 10)
    """
    try:
        return datetime.strptime(date_time.strip(), "%I:%M %p on %d %B, %Y")
    except (AttributeError, ValueError):
        raise LocomoError(f"a session date must read like '2:10 pm on 3 March, 2024', got {date_time!r}") from None


def halves(conversations: Sequence[LocomoConversation]) -> tuple[list, list]:
    """The first half of the conversations (rounded up) and the rest.

    >>> [len(h) for h in halves(["a", "b", "c"])]
    [2, 1]
    """
    middle = (len(conversations) + 1) // 2
    return list(conversations[:middle]), list(conversations[middle:])


def by_evidence_session(conversations: Sequence[LocomoConversation], first: int, last: int) -> list:
    """Each conversation with only the questions whose latest valid evidence turn lies in sessions ``first``
    to ``last`` (questions with no valid evidence are dropped).

    >>> from teachmem.lab.evaluation.locomo import LONG_CONVERSATIONS, load_locomo
    >>> [len(c.questions) for c in by_evidence_session(load_locomo(LONG_CONVERSATIONS)[:2], 5, 8)]
    [4, 4]
    """
    if isinstance(first, bool) or isinstance(last, bool) or not isinstance(first, int) \
            or not isinstance(last, int) or not 1 <= first <= last:
        raise ValueError(f"first and last must be session numbers with 1 <= first <= last, got {first!r}, {last!r}")
    kept = []
    for conv in conversations:
        sessions = {t.dia_id: t.session for t in conv.turns}
        latest = [max((sessions[e] for e in q.evidence if e in sessions), default=0) for q in conv.questions]
        kept.append(replace(conv, questions=tuple(q for q, s in zip(conv.questions, latest, strict=True)
                                                  if first <= s <= last)))
    return kept


def neighbours(dia_id: str) -> set[str]:
    """``dia_id`` and the turns just before and after it in its session.

    >>> sorted(neighbours("D3:7"))
    ['D3:6', 'D3:7', 'D3:8']
    """
    found = _DIA.fullmatch(dia_id)
    if found is None:
        return {dia_id}
    session, turn = int(found.group(1)), int(found.group(2))
    return {f"D{session}:{t}" for t in (turn - 1, turn, turn + 1)}


def tolerant_recall(ranked: Sequence[str], evidence: set[str], k: int) -> float:
    """Share of ``evidence`` that the top ``k`` of ``ranked`` hit or neighbour.

    >>> tolerant_recall(["D1:4", "D2:9"], {"D1:5", "D3:1"}, 2)
    0.5
    """
    near = set().union(*map(neighbours, ranked[:k])) if ranked[:k] else set()
    return len(evidence & near) / len(evidence)


def budget_recall(ranked: Sequence[str], costs: dict[str, int], evidence: set[str], budget: int) -> float:
    """Share of ``evidence`` among the best ranked turns whose costs add up to at most ``budget``.

    >>> budget_recall(["D1:1", "D1:2"], {"D1:1": 300, "D1:2": 300}, {"D1:2"}, 500)
    0.0
    """
    taken, spent = set(), 0
    for dia_id in ranked:
        spent += costs[dia_id]
        if spent > budget:
            break
        taken.add(dia_id)
    return len(evidence & taken) / len(evidence)


def found_at(ranked: Sequence[str], evidence: set[str], k: int, tolerant: bool = False) -> list[int]:
    """The ranks (0-based) in the top ``k`` of ``ranked`` that find an evidence turn: the turn itself,
    or, ``tolerant``, a neighbour of it. Each retrieved turn finds one evidence turn at most.

    >>> found_at(["D1:4", "D2:9", "D1:5"], {"D1:5", "D3:1"}, 3), found_at(["D1:4"], {"D1:3", "D1:5"}, 3, True)
    ([2], [0])
    """
    ranks, left = [], set(evidence)
    for rank, dia_id in enumerate(ranked[:k]):
        near = sorted(left & (neighbours(dia_id) if tolerant else {dia_id}))
        if near:
            left.discard(dia_id if dia_id in near else near[0])
            ranks.append(rank)
    return ranks


def ndcg(ranks: list[int], evidence: set[str], k: int) -> float:
    """nDCG@k with one unit of gain per evidence turn at the rank it was ``found_at``.

    >>> ndcg([0], {"D1:1"}, 10), round(ndcg([1], {"D1:1", "D1:2"}, 10), 3)
    (1.0, 0.387)
    """
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(evidence), k)))
    return sum(1 / math.log2(i + 2) for i in ranks) / ideal


def ranking_measures(ranked: Sequence[str], evidence: set[str], k: int) -> dict[str, float]:
    """LongMemEval's measures at ``k``, strict and tolerant: nDCG and whether *all* the evidence
    is in the top ``k`` (1 or 0)."""
    row = {}
    for prefix, tolerant in (("", False), ("tolerant ", True)):
        ranks = found_at(ranked, evidence, k, tolerant)
        row[f"{prefix}ndcg@{k}"] = ndcg(ranks, evidence, k)
        row[f"{prefix}all@{k}"] = float(len(ranks) == len(evidence))
    return row


@dataclass
class FedReport:
    """Strict, tolerant and budgeted recall per question of a store fed turn by turn."""

    ks: tuple[int, ...]
    budgets: tuple[int, ...]
    per_question: list = field(default_factory=list)   # (sample_id, category, {measure: value})

    def recall(self, measure: str, category=None) -> float | None:
        """The mean of ``measure`` ("strict@10", "tolerant@10", "budget 1000") over the questions scored."""
        rows = [r[measure] for _, c, r in self.per_question if category is None or c == category]
        return sum(rows) / len(rows) if rows else None

    @property
    def measures(self) -> list[str]:
        ranking = [f"{t}{m}@{k}" for k in self.ks for t in ("", "tolerant ") for m in ("ndcg", "all")]
        return ([f"strict@{k}" for k in self.ks] + [f"tolerant@{k}" for k in self.ks]
                + [f"budget {b}" for b in self.budgets] + ranking)

    def table(self) -> str:
        categories = sorted({c for _, c, _ in self.per_question}, key=lambda c: (type(c).__name__, c))
        rows = [[category_label(c), sum(1 for q in self.per_question if q[1] == c)]
                + [self.recall(m, c) for m in self.measures] for c in categories]
        rows.append(["all", len(self.per_question)] + [self.recall(m) for m in self.measures])
        return text_table(["questions", "n", *self.measures], rows, digits=3)

    def as_dict(self) -> dict:
        return {"questions": len(self.per_question), **{m: self.recall(m) for m in self.measures}}

    def __str__(self) -> str:
        return self.table()


def fed_store(conv: LocomoConversation, make_store: Callable[[Any], Any], dated: bool) -> tuple[Any, dict]:
    """A store holding every turn of ``conv``, fed through ``add`` with its session's date; text -> dia_ids."""
    times = [session_time(t.date_time or "") for t in conv.turns]
    times = times if dated else [times[0]] * len(times)
    clock = ManualClock(times[0])
    store, found = make_store(clock), defaultdict(list)
    for turn, (t, when) in enumerate(zip(conv.turns, times, strict=True), 1):
        role = "user" if t.speaker == conv.turns[0].speaker else "assistant"
        clock.set(max(clock(), when))
        store.add(role, t.memory, turn=turn, timestamp=when)
        found[f"{role}: {t.memory}"].append(t.dia_id)
    return store, found


def ranked_ids(store, found: dict, question: str, depth: int) -> list[str]:
    """The dia_ids of the retrieved turns, best first (a text said twice maps to its turns in order)."""
    taken: defaultdict[str, int] = defaultdict(int)
    ranked = []
    for hit in store.explain(question, depth):
        ids = found.get(hit["text"], [])
        if taken[hit["text"]] < len(ids):
            ranked.append(ids[taken[hit["text"]]])
            taken[hit["text"]] += 1
    return ranked


def fed_recall(conversations: Sequence[LocomoConversation], make_store: Callable[[Any], Any] | None = None,
               ks=(10,), budgets=DEFAULT_BUDGETS, *, dated: bool = True,
               token_counter: TokenCounter = estimate_tokens) -> FedReport:
    """Recall of a store fed turn by turn through ``add`` (see the module docstring for the three measures).

    ``make_store(clock)`` builds an empty store on ``clock`` (default: ``SemanticMemoryStore(clock=clock)``);
    the clock stands at each session's date while its turns are added and at the last session's when the
    questions come. With ``dated=False`` every turn carries the first session's date, so time plays no part.
    A store needs ``add`` and ``explain(query, top_k)`` returning dicts with ``"text"``, best first.
    Questions without a valid evidence id are skipped (``evidence_recall`` counts why).
    """
    ks, budgets = require_ks(ks), require_ks(budgets)
    factory = make_store or (lambda clock: SemanticMemoryStore(clock=clock))
    report = FedReport(ks, budgets)
    for conv in conversations:
        store, found = fed_store(conv, factory, dated)
        costs = {t.dia_id: token_counter(t.memory) for t in conv.turns}
        for q in conv.questions:
            evidence = {e for e in q.evidence if e in costs}
            if not evidence:
                continue
            ranked = ranked_ids(store, found, q.question, max(POOL, *ks))
            row = {f"strict@{k}": recall_at_k(ranked, evidence, k) for k in ks}
            row.update({f"tolerant@{k}": tolerant_recall(ranked, evidence, k) for k in ks})
            row.update({f"budget {b}": budget_recall(ranked, costs, evidence, b) for b in budgets})
            for k in ks:
                row.update(ranking_measures(ranked, evidence, k))
            report.per_question.append((conv.sample_id, q.category, row))
    return report


__all__ = ["DEFAULT_BUDGETS", "FedReport", "budget_recall", "fed_recall", "found_at", "halves", "ndcg",
           "neighbours", "ranking_measures", "session_time", "tolerant_recall"]
