"""How much a message matters later, by rules: facts and decisions high, small talk low.

The offline stand-in answers the importance prompt with this score, and the
offline summariser uses it to decide what to give up first.
"""
from __future__ import annotations

import re
from typing import Sequence

from teachmem.core.validate import require_text
from teachmem.llm.facts import rule_triples
from teachmem.llm.protocol import Triple

__all__ = ["CHITCHAT", "DECISION_WORD", "NUMBER", "PLAN_WORD", "REASON", "importance_rules", "importance_score"]

# A message made only of these is small talk.
CHITCHAT = re.compile(
    r"^(?:\W*(?:ok|okay|k|sure|yes|yeah|yep|yup|no|nope|thanks|thank you|thx|ty|cool|nice|great|awesome|"
    r"perfect|sounds good|sounds great|got it|makes sense|hi|hello|hey|bye|good morning|good night|lol|"
    r"haha|right|alright|noted|understood|fine|agreed|will do|wow|oh|hmm|indeed|exactly|of course)\b)+\W*$",
    re.I)
DECISION_WORD = re.compile(r"\b(?:decid\w*|decision|chose|choose|choosing|pick(?:ed)?|switch\w*|prefer\w*|"
                           r"let's|go(?:ing)? with|will be|instead|settled?|use|using|must|never|always)\b",
                           re.I)
NUMBER = re.compile(r"\d")
PLAN_WORD = re.compile(r"\b(?:need|needs|want|wants|plan|plans|planning|build|building|should|must|"
                       r"will|'ll|going to|goal|deadline|budget)\b", re.I)
REASON = re.compile(r"\b(?:because|since|due to|so that|as it|given that|for (?:its|their) \w+|"
                    r"the reason)\b", re.I)


def importance_rules(text: str) -> float:
    """How much a message matters later, from 0.0 (nothing) to 1.0, by rules.

    Facts and decisions score high, numbers and reasons add a little, small
    talk ("ok sounds good") scores almost nothing. Rounded to 2 decimals.

    >>> importance_rules("ok sounds good"), importance_rules("Let's switch to MySQL 8 instead of PostgreSQL.")
    (0.05, 0.85)
    """
    return importance_score(require_text("text", text, allow_empty=True))


def importance_score(text: str, facts: Sequence[Triple] | None = None) -> float:
    """:func:`importance_rules` without the argument check, given the facts of ``text`` when known."""
    if not any(c.isalnum() for c in text):
        return 0.0
    if CHITCHAT.match(text[:200]):
        return 0.05
    score = 0.1
    facts = rule_triples(text) if facts is None else facts
    if facts:
        score += 0.4 + 0.05 * min(len(facts) - 1, 2)
    if DECISION_WORD.search(text):
        score += 0.2
    elif PLAN_WORD.search(text):
        score += 0.1
    if NUMBER.search(text):
        score += 0.15
    if REASON.search(text):
        score += 0.1
    if "?" in text:
        score += 0.1
    if len(text.split()) > 30:
        score += 0.05
    return round(min(score, 1.0), 2)
