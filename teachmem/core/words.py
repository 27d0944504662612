"""Words: the one tokenizer, stopword list and stemmer every part of teachmem shares.

Text is matched to text as comparable pieces: folded, function words dropped, endings trimmed so
"seats" meets "seat". Doing it the *same* way everywhere matters more than doing it perfectly.

Taught in notebooks/05_semantic_memory.ipynb.
"""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

__all__ = ["STOPWORDS", "fold", "tokenize", "stem", "content_words", "shared_words"]

#: Words that say how a sentence is built, not what it is about ("what", "is", "my").
STOPWORDS = frozenset("""
a about above after again against all also am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further had has
have having he her here hers herself him himself his how i if in into is it its itself just let me
more most my myself no nor not now of off on once only or other our ours ourselves out over own
really same she should so some such than that the their theirs them themselves then there these
they this those through to too under until up very was we were what when where which while who whom
why will with would you your yours yourself yourselves s t d ll m re ve don didn doesn isn wasn
weren won wouldn shouldn couldn hasn haven hadn aren mustn yeah yes oh ok okay hey hi hello um uh
hmm wow lol thanks thank please just got get gets getting go going gone went""".split())

# Scripts written without spaces between words: every character is a token.
_NO_SPACE_SCRIPTS = ("CJK", "HIRAGANA", "KATAKANA")
_WORD = re.compile(r"[^\W_]+")


def _is_unspaced(ch: str) -> bool:
    return unicodedata.name(ch, "").startswith(_NO_SPACE_SCRIPTS)


def fold(text: str) -> str:
    """Lower-case and strip accents after Latin letters only (other scripts' marks change words).

    >>> fold("Café")
    'cafe'
    """
    text = text.casefold()
    if text.isascii():
        return text
    out, base = [], ""
    for ch in unicodedata.normalize("NFKD", text):
        if unicodedata.combining(ch) and base.isascii():
            continue
        out.append(ch)
        base = ch
    return unicodedata.normalize("NFC", "".join(out))


def tokenize(text: str) -> list[str]:
    """Folded word tokens; a run of Chinese or Japanese characters gives one token per character and
    per pair of neighbours (no spaces to split on); emoji are tokens too.

    >>> tokenize("Café au lait, please!")
    ['cafe', 'au', 'lait', 'please']

    Taught in notebooks/05_semantic_memory.ipynb.
    """
    text = fold(text)
    tokens: list[str] = []
    for match in _WORD.finditer(text):
        word = match.group()
        if word.isascii() or not any(_is_unspaced(c) for c in word):
            tokens.append(word)
            continue
        run = ""
        for ch in word + " ":
            if _is_unspaced(ch):
                run += ch
                continue
            tokens.extend(run)                                   # single characters
            tokens.extend(run[i:i + 2] for i in range(len(run) - 1))   # and neighbour pairs
            run = ""
            if ch != " ":
                tokens.append(ch)
    if not text.isascii():
        tokens.extend(ch for ch in text if unicodedata.category(ch) == "So")
    return tokens


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """Crude English stemming: plurals, -ing/-ed/-ly, a final e ("hiking" and "hike" -> "hik"). Its
    mistakes are the *same* on the query and on the memory, which is what matching needs.

    >>> stem("planned"), stem("tests")
    ('plan', 'test')

    Taught in notebooks/05_semantic_memory.ipynb.
    """
    if len(word) <= 3 or not word.isascii() or not word.isalpha():
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("sses"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix, min_len in (("ing", 6), ("ed", 5), ("ly", 6)):
        if word.endswith(suffix) and len(word) >= min_len and not word.endswith("eed"):
            word = word[: -len(suffix)]
            if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouls":
                word = word[:-1]                                # planned -> plann -> plan
            break
    if word.endswith("e") and not word.endswith("ee") and len(word) > 3:
        word = word[:-1]
    return word


def content_words(text: str) -> list[str]:
    """The stemmed tokens of ``text`` that are not stopwords (what gets matched).

    >>> content_words("Which seats did we book?")
    ['seat', 'book']

    Taught in notebooks/05_semantic_memory.ipynb.
    """
    return list(_content_words(text))


@lru_cache(maxsize=4096)
def _content_words(text: str) -> tuple[str, ...]:
    """``content_words``, worked out once per text: a store indexes its newest turns again as their
    neighbours arrive (notebook 05b), reading the same few texts several times."""
    return tuple(stem(t) for t in tokenize(text) if t not in STOPWORDS)


def shared_words(query: str | None, text: str) -> int:
    """How many distinct content words ``query`` and ``text`` share (no query: 0).

    >>> shared_words("Which tests do we run?", "Project.test_framework = pytest")
    1
    """
    return len(set(content_words(query)) & set(content_words(text))) if query else 0
