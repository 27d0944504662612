"""Facts out of chat text, by rules: the reading order, and the two public extractors.

This is the engine inside :class:`teachmem.llm.OfflineLLM` and the default
extractor of the entity memory. How a message is read:

1. Split into lines (a line may start with ``user:`` or ``assistant:``), then
   sentences, then clauses (:mod:`teachmem.llm.clauses`), so that each fact
   stays atomic, one short statement each, as in Mem0's fact extraction.
2. Each clause goes through the personal rules (:data:`teachmem.llm.rules.PERSONAL_RULES`,
   for the user only), then the rules for budgets, deadlines and technologies
   (:mod:`teachmem.llm.project_rules`).
3. Every fact gets a confidence, capped by how the clause is said
   (:mod:`teachmem.llm.certainty`): a question or a hedge caps it at 0.5.
   Callers keep the facts at or above a threshold (0.7).

A real model does the same job far more flexibly; these rules are there so
every notebook runs offline, deterministically, with no key. Every regular
expression matches a bounded number of words, so even a 100,000-character
message is read in linear time.

Taught in notebooks/04_entity_memory.ipynb.
"""
from __future__ import annotations

from typing import Iterator

from teachmem.core.validate import require_fraction, require_text
from teachmem.llm.certainty import certainty, is_question
from teachmem.llm.clauses import SENTENCE, normalise, role_lines, split_clauses
from teachmem.llm.lexicon import tech_lexicon
from teachmem.llm.patterns import I_PREFER
from teachmem.llm.project_rules import budget_facts, deadline_facts, technology_facts
from teachmem.llm.protocol import Triple
from teachmem.llm.rules import Clause, Found, personal_facts

__all__ = ["rule_triples", "extract_facts", "found_facts"]

TECHNOLOGIES = frozenset(tech_lexicon())


def rule_triples(text: str, *, min_confidence: float = 0.7) -> list[Triple]:
    """Extract ``(entity, attribute, value, confidence)`` triples with rules, no model.

    >>> rule_triples("We're building with React and PostgreSQL")
    [Triple(entity='Project', attribute='framework', value='React', confidence=0.9), \
Triple(entity='Project', attribute='database', value='PostgreSQL', confidence=0.9)]

    Only triples with ``confidence >= min_confidence`` are returned; pass
    ``min_confidence=0`` to see the mentions, questions and hedges too.

    Taught in notebooks/04_entity_memory.ipynb.
    """
    min_confidence = require_fraction("min_confidence", min_confidence)
    return [f.triple for f in found_facts(text) if f.triple.confidence >= min_confidence]


def extract_facts(text: str) -> list[str]:
    """Atomic facts in the style of Mem0: ``["name is dana", "lives in lisbon", "prefers window seats", ...]``.

    Lower-case strings, one fact each, only the confident ones.

    >>> extract_facts("Hi! My name is Dana and I live in Lisbon.")
    ['name is dana', 'lives in lisbon']
    """
    facts: list[str] = []
    for f in found_facts(text):
        if f.triple.confidence >= 0.7 and f.phrase not in facts:
            facts.append(f.phrase)
    return facts


def found_facts(text: str) -> list[Found]:
    """Every fact candidate in ``text``, listed by kind, then by position.

    The same fact said twice keeps its first place and its highest confidence.
    """
    best: dict[tuple[str, str, str], Found] = {}
    for f in sorted(_candidates(text), key=lambda f: (f.rank, f.pos)):
        key = (f.triple.entity, f.triple.attribute, f.triple.value.lower())
        if key not in best:
            best[key] = f
        elif f.triple.confidence > best[key].triple.confidence:
            best[key] = best[key]._replace(triple=best[key].triple._replace(confidence=f.triple.confidence))
    return _about_the_choice(list(best.values()))


def _about_the_choice(facts: list[Found]) -> list[Found]:
    """In a message that settles a technology ("let's use pytest"), what the user likes or wants is
    said about that choice: "I like fixtures" is its reason, not a hobby (dropped: entity memory
    keeps values, not reasons), "I want a coverage report" is the project's requirement. An activity
    ("I love hiking") stays the user's. The same value under a generic key and a specific one
    (``language`` beside ``backend_language``) is kept once, under the specific key."""
    specific = {(f.triple.entity, f.triple.value) for f in facts if f.triple.attribute.endswith("_language")}
    facts = [f for f in facts if (f.triple.entity, f.triple.value) not in specific or f.triple.attribute != "language"]
    if not any(f.triple.value in TECHNOLOGIES and f.triple.confidence >= 0.9 for f in facts):
        return facts
    out = []
    for f in facts:
        kind, _, item = f.triple.attribute.partition(":")
        if kind == "likes" and f.triple.entity == "User" and not f.triple.value.split()[0].endswith("ing"):
            continue
        if kind == "wants" and f.triple.entity == "User":
            f = f._replace(triple=f.triple._replace(entity="Project", attribute=f"requirement:{item}"),
                           phrase=f"project needs {f.triple.value}")
        out.append(f)
    return out


def _candidates(text: str) -> Iterator[Found]:
    """Line by line, sentence by sentence, clause by clause: every fact the rules find."""
    text = normalise(require_text("text", text, allow_empty=True))
    if not text.strip():
        return
    lower = not any(c.isupper() for c in text)
    for role, line, line_pos in role_lines(text):
        speaker_is_user = role in (None, "user")
        for sentence_match in SENTENCE.finditer(line):
            sentence = sentence_match.group(1)
            if not any(c.isalpha() for c in sentence):
                continue
            question = is_question(sentence)
            for clause, clause_pos in split_clauses(sentence):
                c = Clause(clause, line_pos + sentence_match.start(1) + clause_pos, lower)
                yield from _clause_facts(c, sentence, speaker_is_user, certainty(clause, question))


def _clause_facts(c: Clause, sentence: str, speaker_is_user: bool, cap: float) -> list[Found]:
    """The facts of one clause, none more confident than ``cap``."""
    facts = personal_facts(c) if speaker_is_user else []
    taken = [f.span for f in facts if f.span is not None]
    i_prefer = speaker_is_user and I_PREFER.search(c.text) is not None
    facts += budget_facts(c, speaker_is_user)
    facts += deadline_facts(c)
    facts += technology_facts(c, sentence, taken, i_prefer)
    return [f._replace(triple=f.triple._replace(confidence=cap)) if f.triple.confidence > cap else f for f in facts]
