"""Reading a message in pieces: lines (with who spoke), sentences, clauses.

"My name is Dana and I live in Lisbon" becomes two clauses, so that each
fact the rules find stays atomic, one short statement each, as in Mem0's
fact extraction. Splitting keeps character offsets, so a fact can point back
to the span of the message it came from.
"""
from __future__ import annotations

import re
from typing import Iterator

from teachmem.core.validate import ROLES

__all__ = ["DOT", "SENTENCE", "normalise", "split_sentences", "role_lines", "split_clauses"]

_ROLE_ALIAS = {"human": "user", "ai": "assistant"}
_ROLE_PREFIX = re.compile(r"^\s*(" + "|".join((*ROLES, *_ROLE_ALIAS)) + r")\s*:\s*", re.I)
_SENTENCE_END = re.compile(r"(?<=[.!?]) ")
_SUBJECT = (r"(?:i|i'm|i've|i'd|i'll|im|my|we|we're|we'll|we've|we'd|let's|lets|our|the|it|it's|"
            r"you|you're|he|she|they|this|there|user|actually|also|then|now|maybe)\b")
# Where one clause ends and the next begins: a semicolon or spaced dash always;
# reasons and contrasts always ("because MongoDB lacks joins" is not a choice);
# "and"/"so"/"or" and commas only when a new subject follows.
_CLAUSE_BREAK = re.compile(
    r"\s*;\s*|\s+[-–—]+\s+"
    r"|,?\s+(?:because|since|cause|but|though|although|whereas|unless|except that|so that|given that)\s+"
    r"|,?\s+(?:and|so|or|plus|yet|while)\s+(?=" + _SUBJECT + ")"
    r"|,\s+(?=" + _SUBJECT + ")", re.I)

# One sentence of a line: up to ".", "!" or "?" before a space, or the rest of the line.
SENTENCE = re.compile(r" ?([^\r\n]+?[.!?](?=\s|$)|[^\r\n]+)")
# "St. Mary's", "Dr. Lee", "e.g. this": a period that does not end a sentence.
# It is swapped for a look-alike character of the same length, so positions stay put.
_ABBREVIATION = re.compile(r"\b(St|Dr|Mr|Mrs|Ms|Jr|Sr|Inc|Ltd|Co|Corp|Mt|Prof|vs|etc|approx|No|e\.g|i\.e)\.(?=\s)")
DOT = "\u2024"
_SPACES = re.compile(r"[^\S\r\n]+")


def normalise(text: str) -> str:
    """Straight apostrophes, one space between words, abbreviations protected.

    Collapsing runs of spaces first is what keeps every later pattern linear:
    no pattern ever has to back off through a thousand spaces.
    """
    text = _SPACES.sub(" ", text.replace("’", "'").replace("‘", "'"))
    return _ABBREVIATION.sub(lambda m: m.group(1) + DOT, text)


def split_sentences(text: str) -> list[str]:
    """Split text into sentences at ``.``, ``!``, ``?`` (before a space) and line breaks.

    "Node.js", "dana@example.com" and "St. Mary's" stay whole.

    >>> split_sentences("I use Node.js. St. Mary's is near! Is it?")
    ['I use Node.js.', "St. Mary's is near!", 'Is it?']
    """
    parts = (part.strip() for line in normalise(text).splitlines() for part in _SENTENCE_END.split(line))
    return [part.replace(DOT, ".") for part in parts if part]


def role_lines(text: str) -> Iterator[tuple[str | None, str, int]]:
    """Yield ``(role, line, offset)``; a line without a role prefix keeps the previous role."""
    role, offset = None, 0
    for line in text.splitlines(keepends=True):
        match = _ROLE_PREFIX.match(line)
        if match:
            role = match.group(1).lower()
            role = _ROLE_ALIAS.get(role, role)
            yield role, line[match.end():], offset + match.end()
        else:
            yield role, line, offset
        offset += len(line)


def split_clauses(sentence: str) -> Iterator[tuple[str, int]]:
    """Yield ``(clause, offset)`` for each clause of a sentence."""
    start = 0
    for brk in _CLAUSE_BREAK.finditer(sentence):
        if brk.start() > start:
            yield sentence[start:brk.start()], start
        start = brk.end()
    if start < len(sentence):
        yield sentence[start:], start
