"""The rules for facts anyone may state: technologies chosen, budgets, deadlines.

Unlike the personal rules these listen to the assistant too ("I'd suggest
Redis for the cache" can be recorded, at a lower confidence when it is a bare
mention). A technology's confidence comes from the words around it: a clear
decision ("let's use MySQL") 0.9, a weaker cue or the category named ("for
the database") 0.8, a bare mention ("MySQL is popular") 0.6.
"""
from __future__ import annotations

import re

from teachmem.llm.certainty import ELSEWHERE, NEG_VERB, STRONG_CUE, WEAK_CUE, negated
from teachmem.llm.lexicon import BUDGET_FUNCTION_WORDS, CATEGORY_RE, tech_attribute, tech_matches
from teachmem.llm.patterns import BUDGET, DATE, LAUNCH, MONEY, SPEND
from teachmem.llm.phrases import after, is_vague, phrase, slug
from teachmem.llm.rules import Clause, Found, found

__all__ = ["technology_facts", "budget_facts", "deadline_facts"]


def technology_facts(c: Clause, sentence: str, taken: list[tuple[int, int]], i_prefer: bool) -> list[Found]:
    """Technologies named in the clause, with a confidence from the words around them.

    Skipped: a name inside a personal fact (``taken``: "I work at Oracle"), a
    negated one ("not MongoDB", "instead of PostgreSQL"), and all of them when
    the user says "I prefer ...", which is the user's preference, not the project's, or
    speaks of another place ("I use Go at work").
    """
    hits = tech_matches(c.text)
    if not hits or i_prefer or ELSEWHERE.search(c.text):
        return []
    strong, weak = STRONG_CUE.search(c.text), WEAK_CUE.search(c.text)
    named: dict[str, bool] = {}   # does the sentence name the category ("for the database")?
    attributes: dict[str, tuple[str, str]] = {}
    out, previous_end = [], 0
    for start, end, canonical, category in hits:
        before = c.text[previous_end:start]
        previous_end = end
        if any(s <= start < e for s, e in taken) or negated(before) or NEG_VERB.match(c.text[end:end + 40]):
            continue
        if category not in attributes:
            attributes[category] = tech_attribute(category, sentence)
        entity, attribute = attributes[category]
        if strong:
            confidence = 0.9
        elif weak or _names_category(named, category, sentence):
            confidence = 0.8
        else:
            confidence = 0.6    # a bare mention: "MySQL is popular"
        out.append(found(entity, attribute, canonical, confidence, f"{attribute.replace('_', ' ')} is {canonical}",
                         6, c.pos + start))
    return out


def _names_category(cache: dict[str, bool], category: str, sentence: str) -> bool:
    if category not in cache:   # searched once per sentence, not once per mention
        cache[category] = CATEGORY_RE[category].search(sentence) is not None
    return cache[category]


def _money(text: str) -> str:
    m = MONEY.search(text)
    return m.group(0).strip() if m else ""


def budget_facts(c: Clause, speaker_is_user: bool) -> list[Found]:
    """"My budget is 2000 dollars", "our hosting budget is about $20 a month", "I can spend $500"."""
    m = BUDGET.search(c.text) if "budget" in c.text.lower() else None
    if m:
        return _budget_stated(c, m, speaker_is_user)
    spend = SPEND.search(c.text) if speaker_is_user else None
    value = _money(after(c.text, spend)) if spend else ""
    return [found("User", "budget", value, 0.85, f"budget is {value}", 0, c.pos)] if value else []


def _budget_stated(c: Clause, m: re.Match, speaker_is_user: bool) -> list[Found]:
    owner, thing = _whose_budget(m)
    value = _budget_value(c.text, m)
    if not value or is_vague(value):
        return []
    # "my budget" is the user's; "our/the budget", or one the assistant states, is the project's.
    project = owner not in ("my", "user's") and (
        owner in ("our", "the", "team's", "project's") or not speaker_is_user
        or re.search(r"\b(?:we|our|project|team|company|app)\b", c.text.lower()) is not None)
    return [found("Project" if project else "User", slug(thing, False), value, 0.9, f"{thing} is {value}", 0,
                  c.pos + m.start())]


def _whose_budget(m: re.Match) -> tuple[str, str]:
    """Whose budget and which: "our total hosting budget" -> ("our", "hosting budget")."""
    owner = (m.group(1) or "").lower()
    modifier_words = m.group(2).lower().split()
    while modifier_words and modifier_words[0] in BUDGET_FUNCTION_WORDS:
        word = modifier_words.pop(0)
        owner = word if word in ("my", "our", "the", "a", "an") else owner
    modifier = " ".join(w for w in modifier_words if w not in ("total", "overall", "whole", "entire"))
    return owner, (modifier + " budget").strip()


_PLAIN_AMOUNT = re.compile(r"\s*(?:is|of|'s|was set to|will be)\s+(?:about |around |roughly )?(\d[\d,.]{0,15})\b",
                           re.I)


def _budget_value(clause: str, m: re.Match) -> str:
    """An amount after "budget" or just before it; else a plain number; else words ("my budget is tight")."""
    tail = after(clause, m)
    value = _money(tail) or _money(clause[max(m.start() - 120, 0):m.start()])
    if value:
        return value
    plain = _PLAIN_AMOUNT.match(tail)
    if plain:
        return plain.group(1)
    is_phrase = re.match(r"\s*(?:is|'s) ", tail, re.I)
    return phrase(tail[is_phrase.end():], 3) if is_phrase else ""


def deadline_facts(c: Clause) -> list[Found]:
    """"We launch at the end of March": a date in a clause about launching, shipping or a deadline."""
    if not LAUNCH.search(c.text):
        return []
    m = DATE.search(c.text)
    if not m:
        return []
    value = re.sub(r"^[Tt]he ", "", m.group(0))
    return [found("Project", "deadline", value, 0.85, f"deadline is {value}", 6, c.pos + m.start())]
