"""Reading a value out of the words after a trigger: phrases, proper names, lists, keys.

A rule matches a short, fixed trigger ("I live in ", "my favourite colour is ")
and then reads the value word by word from what follows, at most ``WINDOW``
characters of it, which keeps every rule linear in the length of the message.
"""
from __future__ import annotations

import itertools
import re
from typing import Iterator

__all__ = ["PHRASE_ENDS", "WINDOW", "each", "after", "phrase", "proper_name", "with_article", "strip_article",
           "singular", "slug", "head_noun", "list_items", "is_vague"]

_EDGE_PUNCT = "\"'“”‘’()[]{}<>*_`"
# The words at which a value ends: "I live in Lisbon *since* May". Not the
# stopwords of teachmem.core.words, which matching drops: those include "my",
# "no" and "the", which belong inside a value ("my sister's studio", "no nuts").
PHRASE_ENDS = frozenset("""and but or so because since as when while if though although which who whom whose
    where whenever after before until unless than then now currently recently lately nowadays anymore
    too also either really very much these those this that with on at in from for by during every each
    last next ago today tomorrow yesterday tonight already yet just over via about around into onto
    instead rather whereas except plus""".split())
# A value made of these points somewhere else ("I love *that*") and is not kept.
_VAGUE_WORDS = frozenset("""it its that this them these those you your yours him her his hers their they
    what how which who why when where something anything everything nothing one ones stuff things""".split())
_ARTICLES = ("the ", "a ", "an ", "some ")


WINDOW = 240   # values are read from at most this many characters after a trigger
_PER_CLAUSE = 20   # a real clause states a handful of facts; a pasted log is not worth more


def each(pattern: re.Pattern, clause: str) -> Iterator[re.Match]:
    """The first matches of ``pattern`` in the clause (at most ``_PER_CLAUSE``)."""
    return itertools.islice(pattern.finditer(clause), _PER_CLAUSE)


def after(clause: str, m: re.Match) -> str:
    """The text just after a match, bounded: copying the whole rest of a long
    clause for every match would make a 100k-character message quadratic."""
    return clause[m.end():m.end() + WINDOW]


def _words(tail: str, limit: int) -> list[str]:
    """The first ``limit`` words of ``tail`` (only its head is read, so this stays cheap)."""
    return tail[:WINDOW].split(None, limit)[:limit]


def _clean(word: str) -> tuple[str, bool]:
    """Strip edge punctuation; report whether the word ended a phrase (.,;:!?)."""
    stripped = word.rstrip(".,;:!?…")
    ended = stripped != word
    return stripped.strip(_EDGE_PUNCT), ended


def phrase(tail: str, max_words: int = 4, stops: frozenset[str] = PHRASE_ENDS) -> str:
    """Words from the start of ``tail`` up to a stop word or punctuation, at most ``max_words``."""
    out = []
    for raw in _words(tail, max_words + 1):
        word, ended = _clean(raw)
        if not word or word.lower() in stops:
            break
        out.append(word)
        if ended or len(out) == max_words:
            break
    return " ".join(out)


_CONNECTORS = frozenset("de da do dos das del della di la le van von der den of upon on am el y du".split())


def proper_name(tail: str, lowercase_text: bool, max_words: int = 4) -> str:
    """A proper name at the start of ``tail``: "New York City", "Rio de Janeiro", "Bank of America".

    In ordinary text a name is capitalised; in text typed all in lower case we
    accept up to three plain words and capitalise them ourselves.
    """
    if lowercase_text:
        value = phrase(tail, min(3, max_words))
        return " ".join(w.capitalize() for w in value.split())
    raw = _words(tail, max_words + 3)
    if raw and raw[0].lower() == "the":
        raw = raw[1:]
    out: list[str] = []
    for i, token in enumerate(raw):
        word, ended = _clean(token)
        if word[:1].isupper():
            # "Google's office": the name ends at the 's; "St. Mary's Hospital" goes on.
            if word.endswith("'s") and not (i + 1 < len(raw) and raw[i + 1][:1].isupper()):
                out.append(word[:-2])
                break
            out.append(word)
        elif out and word.lower() in _CONNECTORS and i + 1 < len(raw) and raw[i + 1][:1].isupper() and not ended:
            out.append(word)
        else:
            break
        if ended or len(out) >= max_words:
            break
    while out and out[-1].lower() in _CONNECTORS:
        out.pop()
    return " ".join(out)


def with_article(noun: str) -> str:
    """"engineer" -> "an engineer"."""
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


def strip_article(value: str) -> str:
    """"the beach" -> "beach"."""
    low = value.lower()
    for article in _ARTICLES:
        if low.startswith(article):
            return value[len(article):]
    return value


def singular(word: str) -> str:
    """A plural noun made singular, lower case, for attribute keys: "seats" -> "seat", "allergies" -> "allergy".

    It is the plural step of :func:`teachmem.core.words.stem` and stops there:
    a key is read by people, so "aisles" becomes "aisle", where the stemmer,
    which only has to match words with words, goes on to "aisl". Unlike the
    stemmer it also folds words with digits or symbols ("mp3s" -> "mp3").

    >>> singular("allergies"), singular("aisles"), singular("glass")
    ('allergy', 'aisle', 'glass')
    """
    low = word.lower()
    if len(low) > 4 and low.endswith("ies"):
        return low[:-3] + "y"
    if len(low) > 4 and low.endswith("sses"):
        return low[:-2]
    if len(low) > 3 and low.endswith("s") and not low.endswith(("ss", "us", "is")):
        return low[:-1]
    return low


# The words of a key keep "+" and "#", so C++ and C# do not become C (as
# teachmem.core.words.tokenize would make them, rightly, for matching).
_KEY_WORD = re.compile(r"[a-z0-9+#]+")


def slug(value: str, singular_last: bool = True) -> str:
    """A stable attribute key.

    >>> slug("Window Seats"), slug("Favorite Color", singular_last=False)
    ('window_seat', 'favorite_color')
    """
    words = _KEY_WORD.findall(value.lower().replace("'s ", " "))
    if singular_last and words:
        words[-1] = singular(words[-1])
    return "_".join(words)


def head_noun(value: str) -> str:
    """The last word of a noun phrase, singular: what a preference is *about*."""
    words = _KEY_WORD.findall(value.lower())
    return singular(words[-1]) if words else ""


def list_items(tail: str, max_words: int = 4) -> list[str]:
    """Split a coordinated list: "peanuts, shellfish and eggs" -> three items."""
    out = []
    for part in re.split(r",\s*(?:and\s+|or\s+)?|\s+(?:and|or|&)\s+", tail[:WINDOW]):
        item = strip_article(phrase(part, max_words))
        if item:
            out.append(item)
        if not part.strip() or re.search(r"[.;:!?]", part) or not item or len(out) >= 6:
            break
        if len(part.split()) > len(item.split()) + 1:   # the list ended inside this part
            break
    return out


def is_vague(value: str) -> bool:
    """Empty, or pointing elsewhere: "it", "that one", "those things"."""
    words = value.lower().split()
    return not words or words[0] in _VAGUE_WORDS or any(w in _VAGUE_WORDS for w in words)

