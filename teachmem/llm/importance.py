"""How much a message matters later, by rules: decisions, preferences and facts high, small talk low.

Every message starts at 0.1. What it *does* adds the most, and only the strongest of these counts;
each *detail* it gives adds a little (``WEIGHTS``):

===========  ==================  ======  ==================================================
                                 weight  for example
===========  ==================  ======  ==================================================
what it      decides or prefers  0.4     "let's use", "we'll", "switch to", "I prefer",
does                                     "no emojis", "Stripe for payments"
             states a fact       0.3     "my sister", "our office", "I live in", "is called"
             plans               0.1     "need", "want", "should", "going to"
details      names something     0.15    "Tailwind", "JWT", "DuckDB", "pytest", code
             has a number        0.15    "6pm", "MySQL 8", "$20"
             gives a reason      0.1     "because", "due to", "for its JSONB support"
===========  ==================  ======  ==================================================

A message made only of questions asks rather than states, so its cues count half.
Small talk only ("ok sounds good") scores 0.05; a message with no words, 0.0.
The rules were tuned after freezing a set of unseen statements (tests/data/importance_unseen.json).

The sliding window pins the highest scores (notebooks/02_sliding_window.ipynb),
the offline stand-in answers the importance prompt with this score, and the
offline summariser gives up the lowest-scoring sentences first.
"""
from __future__ import annotations

import re
from typing import Sequence

from teachmem.core.validate import require_text
from teachmem.llm.certainty import is_question
from teachmem.llm.clauses import split_sentences
from teachmem.llm.facts import rule_triples
from teachmem.llm.lexicon import tech_matches
from teachmem.llm.protocol import Triple

__all__ = ["CHITCHAT", "DECISION_WORD", "NUMBER", "PLAN_WORD", "REASON", "WEIGHTS",
           "importance_cues", "importance_evidence", "importance_rules", "importance_score"]

# A message made only of these is small talk.
CHITCHAT = re.compile(
    r"^(?:\W*(?:ok|okay|k|sure|yes|yeah|yep|yup|no|nope|thanks|thank you|thx|ty|cool|nice|great|awesome|"
    r"perfect|sounds good|sounds great|got it|makes sense|hi|hello|hey|bye|good morning|good night|lol|"
    r"haha|right|alright|noted|understood|fine|agreed|will do|wow|oh|hmm|indeed|exactly|of course)\b)+\W*$",
    re.I)
# Whole words only: matching substrings would fire "use" on "because" and "user".
DECISION_WORD = re.compile(r"\b(?:decid\w*|decision|chose|choose|choosing|pick(?:ed)?|switch\w*|prefer\w*|"
                           r"let's|we'll|we will|go(?:ing)? with|will be|instead|settled?|final|use|using|must|never|"
                           r"always)\b",
                           re.I)
PREFERENCE = re.compile(r"\b(?:rather|like|likes|love|loves|hate|hates|please|by default|"
                        r"no (?!worries|problem|idea|way)\w+)\b", re.I)
# "Stripe for payments": a name, then the job it is chosen for. Not "Thanks for the help".
FOR_A_JOB = re.compile(r"^\W*(?!(?:Thanks|Thank|Sorry|Good|Great|Nice|Perfect|Fine|Ok|Okay|Same|Ready|Time|All)\b)"
                       r"[A-Z][\w.+#-]*(?: [A-Z][\w.+#-]*)? for \w+")
STATED_FACT = re.compile(r"\b(?:my|our|we have|we've got|i live|i work|i have|i'm an?|i am an?|allergic|"
                         r"(?:is|are) (?:at|in|on|from|called|named)|(?:ends|starts|begins|opens|closes) (?:on|at|in))\b",
                         re.I)
PLAN_WORD = re.compile(r"\b(?:need|needs|want|wants|plan|plans|planning|build|building|should|must|"
                       r"will|'ll|going to|goal|deadline|budget)\b", re.I)
# A name: a capitalised word inside a sentence ("with Tailwind", not "I"), a word with a capital or a
# digit inside ("DuckDB", "iOS", "Auth0"), an acronym ("JWT"); or code in backticks or a definition.
NAME_OR_CODE = re.compile(r"(?<=[\w,;] )(?!I\b|I')[A-Z][\w.+#-]*|\b[a-z]+[A-Z]\w*|\b[A-Z]\w*[A-Z0-9]\w*|`|"
                          r"\b(?:def|class) \w+\s*[(:]|^\s*(?:import|from) \w+", re.M)
NUMBER = re.compile(r"\S*\d\S*")       # the whole token: "6pm", "$20", "8"
REASON = re.compile(r"\b(?:because|since|due to|so that|as it|given that|for (?:its|their) \w+|"
                    r"the reason)\b", re.I)

# What each cue adds. Of the first three (what the message does) only the strongest counts;
# each of the last three (the details it gives) adds its weight.
WEIGHTS = {"decides or prefers": 0.4, "states a fact": 0.3, "plans": 0.1,
           "names something": 0.15, "has a number": 0.15, "gives a reason": 0.1}


def importance_rules(text: str) -> float:
    """How much a message matters later, from 0.0 (nothing) to 1.0, by rules.

    Decisions, preferences and stated facts score high, names, numbers and
    reasons add a little, small talk scores almost nothing. Rounded to 2 decimals.

    >>> importance_rules("ok sounds good"), importance_rules("Stripe for payments"), importance_rules("we'll use React")
    (0.05, 0.65, 0.65)

    Taught in notebooks/02_sliding_window.ipynb.
    """
    return importance_score(require_text("text", text, allow_empty=True))


def importance_evidence(text: str, facts: Sequence[Triple] | None = None) -> dict[str, list[str]]:
    """The cues ``text`` shows, each with the words that fired it (for a stated fact the rules of
    notebook 04 found, the fact's value). Of what a message does, only the strongest cue is listed.

    >>> importance_evidence("We'll use Redis because it is fast.")
    {'decides or prefers': ["We'll", 'use'], 'names something': ['Redis'], 'gives a reason': ['because']}
    """
    facts = rule_triples(text) if facts is None else facts
    does = {"decides or prefers": _found(text, DECISION_WORD, PREFERENCE, FOR_A_JOB),
            "states a fact": [f.value for f in facts] or _found(text, STATED_FACT),
            "plans": _found(text, PLAN_WORD)}
    gives = {"names something": _found(text, NAME_OR_CODE) + [text[m[0]:m[1]] for m in tech_matches(text)],
             "has a number": _found(text, NUMBER),
             "gives a reason": _found(text, REASON)}
    strongest = next(({cue: words} for cue, words in does.items() if words), {})
    return strongest | {cue: list(dict.fromkeys(words)) for cue, words in gives.items() if words}


def _found(text: str, *patterns: re.Pattern) -> list[str]:
    """Every match of each pattern in ``text`` (without the punctuation around it), once each, in order."""
    return list(dict.fromkeys(m.group(0).strip(" \n.,;:!?()\"'") for p in patterns for m in p.finditer(text)))


def importance_cues(text: str, facts: Sequence[Triple] | None = None) -> dict[str, float]:
    """The cues ``text`` shows, each with the weight it adds (halved when it only asks).

    >>> importance_cues("We'll use Redis because it is fast.")
    {'decides or prefers': 0.4, 'names something': 0.15, 'gives a reason': 0.1}
    >>> importance_cues("Should we use Redis?")
    {'decides or prefers': 0.2, 'names something': 0.075}
    """
    half = 0.5 if all(is_question(s) for s in split_sentences(text)) else 1.0
    return {cue: WEIGHTS[cue] * half for cue in importance_evidence(text, facts)}


def importance_score(text: str, facts: Sequence[Triple] | None = None) -> float:
    """:func:`importance_rules` without the argument check, given the facts of ``text`` when known."""
    if not any(c.isalnum() for c in text):
        return 0.0
    if CHITCHAT.match(text[:200]):
        return 0.05
    return round(min(0.1 + sum(importance_cues(text, facts).values()), 1.0), 2)
