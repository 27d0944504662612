"""Questions about a value that changed: does the new value rank above the old one?

Eleven questions of the series' long conversations (``LONG_CONVERSATIONS``) ask about a value said
twice, sessions apart: Priya's manager, how late the cardamom buns last, Walter's latest HbA1c...
Each question's evidence is the turn with the new value; ``CHANGED`` keeps, for each, words of the
turn that said the old one. ``ranks`` feeds every conversation through ``add`` on its sessions'
dates (as ``fed_recall`` does) and places both turns in the store's ranking for the question.
Notebook 05b and ``benchmarks/bank_recall.py`` count how often the new value wins.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

from teachmem.lab.evaluation.locomo import LocomoConversation
from teachmem.lab.evaluation.recall_over_time import fed_store, ranked_ids

#: Each question about a value that changed, and words of the turn that stated the old value.
CHANGED = {
    "Who is Priya's manager at the hospital now?": "My manager, Samira, gave me",
    "Where and when does Priya do pottery these days?": "I signed up for a pottery class at the community centre",
    "Which herbs does Ama grow on her balcony now?": "I planted tomatoes on the balcony",
    "When is the cannery library expected to open?": "Next spring, if the roof arrives on time",
    "How late in the morning can you still get a cardamom bun at Crumb and Kettle?": "by ten most days",
    "What is Malik's job title now?": "I hired one baker, Malik",
    "What is Walter's latest HbA1c?": "It was 52 in October and now it's 58",
    "What is the meal planning feature called in the app?": "We're calling the meal planning feature Juniper",
    "Who runs the consumer app these days?": "And meet Sinead, our new marketing lead",
    "How long is Hana staying in Oaxaca now?": "In October I'm going to Oaxaca for six months",
    "How much has Suds on Wheels turned over this year?": "Last year I turned over about forty-one thousand",
}


def ranks(conversations: Sequence[LocomoConversation],
          make_store: Callable[[Any], Any]) -> list[tuple[str, int, int]]:
    """``(question, rank of the new value's turn, rank of the old one's)`` for each question of
    ``CHANGED`` in ``conversations`` (1 = first); ``make_store(clock)`` builds each empty store."""
    out = []
    for conv in conversations:
        questions = [q for q in conv.questions if q.question in CHANGED]
        if not questions:
            continue
        store, found = fed_store(conv, make_store, dated=True)
        said = {t.dia_id: t.text for t in conv.turns}
        for question in questions:
            ranked = ranked_ids(store, found, question.question, len(conv.turns))
            new = next(i for i, d in enumerate(ranked, 1) if d in question.evidence)
            old = next(i for i, d in enumerate(ranked, 1) if CHANGED[question.question] in said[d])
            out.append((question.question, new, old))
    return out
