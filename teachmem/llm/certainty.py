"""How sure is a fact? Decision cues, hedges, questions and negation.

A clear decision ("let's use MySQL") is stated with high confidence, a bare
mention ("MySQL is popular") lower, a question or a hedge ("maybe MongoDB?")
low; "not MongoDB" and "instead of PostgreSQL" state nothing at all. Callers
keep the facts above a threshold (0.7).
"""
from __future__ import annotations

import re

__all__ = ["STRONG_CUE", "WEAK_CUE", "NEG_VERB", "ELSEWHERE", "negated", "is_question", "certainty"]


STRONG_CUE = re.compile(
    r"\b(?:use|uses|using|go with|going with|went with|choose|chose|chosen|choosing|pick|picked|picking|"
    r"opt for|opted for|switch|switched|switching|(?:move|moving|moved)(?: \w+){0,2} to|migrate|migrated|migrating|"
    r"adopt|adopted|stick with|sticking with|settle on|settled on|decide|decided|decision|"
    r"(?:will|'ll) be|(?:is|are) going to be|build with|building with|built with|built on|build on|"
    r"written in|write(?: \w+){0,2} in|instead|replace|replacing|replaced|standardi[sz]e|standardi[sz]ed|"
    r"commit to|committed to|rely on|relying on|runs? on|running on|let's|lets us)\b", re.I)
WEAK_CUE = re.compile(
    r"\b(?:build|building|built|want|wants|need|needs|stack|deploy|deploying|deployed|host|hosting|hosted|"
    r"integrate|integrating|add|adding|set up|setting up|install|installing|configure|configuring|"
    r"start with|go through|goes through|via|powered by|based on|handled by|as (?:our|the))\b", re.I)
_HEDGE = re.compile(
    r"\b(?:maybe|perhaps|possibly|probably|might|not sure|unsure|considering|consider|thinking about|"
    r"thinking of|wondering|what about|how about|what if|should we|could we|shall we|would it|if we|"
    r"if i|whether|any thoughts|thoughts on|pros and cons|compare|comparing|versus|vs)\b", re.I)
_MILD_HEDGE = re.compile(r"\b(?:i'm|i am|we're|we are) (?:thinking|leaning towards?)\b", re.I)
_QUESTION_START = re.compile(
    r"^\s*(?:do|does|did|can|could|would|should|is|are|am|will|shall|may|what|which|who|where|when|why|"
    r"how|any)\b", re.I)
_NEG_NEAR = frozenset("not no never without avoid avoiding against nor neither".split())
_NEG_LAST = frozenset("over from than off replace replacing replaced drop dropping dropped ditch "
                      "ditching ditched remove removing removed".split())
# Right after a name: "MongoDB isn't an option", "Redis is not needed".
NEG_VERB = re.compile(r"^\W*(?:\w+\W+)?(?:isn't|aren't|wasn't|won't|doesn't|don't|can't|cannot|never|"
                      r"(?:is|are|was|will|does|do) not)\b", re.I)

# "I use Go at work": a technology of the user's job, not of the project being discussed.
ELSEWHERE = re.compile(r"\b(?:at work|at (?:my|the) (?:day )?(?:job|office|company)|(?:my|a) day job|"
                       r"in my (?:last|previous|old) job|used to)\b", re.I)


def negated(before: str) -> bool:
    """Is the word just before a match negating it? ("not MongoDB", "instead of X", "from X to Y")."""
    tokens = re.findall(r"[a-z']+", before[-60:].lower())
    if not tokens:
        return False
    if tokens[-1] in _NEG_LAST or tokens[-2:] in (["instead", "of"], ["rather", "than"], ["rid", "of"],
                                                  ["away", "from"], ["no", "longer"]):
        return True
    return any(t in _NEG_NEAR or t.endswith("n't") for t in tokens[-5:])


def is_question(sentence: str) -> bool:
    """Ends with "?" or opens like one ("do we", "which", "how")."""
    return sentence.rstrip().endswith("?") or bool(_QUESTION_START.match(sentence))


def certainty(clause: str, question: bool) -> float:
    """An upper bound on confidence for anything found in this clause."""
    if question or _HEDGE.search(clause):
        return 0.5
    if _MILD_HEDGE.search(clause):
        return 0.75
    return 1.0
