"""Where an extracted fact came from: the span of a message its words stand in.

An extractor rewrites what was said ("I live in Lisbon" -> "lives in lisbon"), so the fact is rarely
a substring of the message; its words, found in order by their stems, still say where it came from.
"""
from __future__ import annotations

import re

from teachmem.core.words import stem

__all__ = ["locate"]


def locate(fact: str, text: str) -> tuple[int, int] | None:
    """``(start, end)`` of ``fact``'s words in ``text``, in order, each found by its stem;
    None if one is missing.

    >>> locate("lives in lisbon", "Hi! I live in Lisbon now.")
    (6, 20)
    """
    spans = []
    at = 0
    for word in re.findall(r"\w+", fact.lower()):
        found = re.compile(rf"\b{re.escape(stem(word))}\w*", re.IGNORECASE).search(text, at)
        if found is None:
            return None
        spans.append(found.span())
        at = found.end()
    return (spans[0][0], spans[-1][1]) if spans else None
