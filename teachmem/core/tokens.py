"""Counting tokens: estimates close enough to reason with, the same on every machine.

``estimate_tokens`` (words × 1.3) is what every strategy uses unless given another counter. A
budget must hold for text without spaces too, so a run of more than ``LONGEST_WORD`` characters (a
URL, a line of code) counts by its characters, ÷ 4, and each character of a script written without
spaces (Chinese, Japanese; Korean syllables too) counts one token. The other counters are here as
well: ``chars_estimate`` (characters ÷ 4) and ``from_tokenizer``, which plugs in a real tokenizer.
Each is a ``TokenCounter`` (text -> int), so any strategy takes one as its ``token_counter``.

Taught in notebooks/01_conversation_buffer.ipynb.
"""
from __future__ import annotations

import math
import re
from typing import Callable, Iterable

__all__ = ["TokenCounter", "TOKENS_PER_WORD", "LONGEST_WORD", "UNSPACED", "is_word", "run_tokens",
           "cut_points", "words_estimator", "estimate_tokens", "count_message_tokens",
           "chars_estimate", "from_tokenizer", "prompt_pieces", "shared_pieces", "prefix_tokens",
           "shared_prefix_tokens"]

TokenCounter = Callable[[str], int]

#: A common rule of thumb: an English word is about 1.3 tokens.
TOKENS_PER_WORD = 1.3
#: A run between spaces longer than this is no word (a URL, code): it counts its characters ÷ 4.
LONGEST_WORD = 40
#: Scripts written without spaces between words, where a character is about one token.
UNSPACED = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def is_word(run: str) -> bool:
    """Is this run of characters between spaces one word, as the word estimate counts it?

    >>> is_word("Project.backend_language"), is_word("https://example.com/api/v1/classes?studio=42")
    (True, False)
    """
    if len(run) > LONGEST_WORD:
        return False
    return run.isascii() or not UNSPACED.search(run)


def run_tokens(run: str) -> int:
    """Tokens of a run that is no word: one a character of an unspaced script, the rest ÷ 4.

    >>> run_tokens("https://example.com/api/v1/classes?studio=42"), run_tokens("日本語")
    (11, 3)
    """
    unspaced = len(UNSPACED.findall(run))
    return unspaced + math.ceil((len(run) - unspaced) / 4)


def cut_points(text: str) -> list[str]:
    """``text`` in pieces a cut may fall between: each word with the space before it, and each
    character of a run that is no word (a URL, a Chinese sentence), so such a run can be cut too.

    >>> cut_points("see 日本語")
    [' see', ' 日', '本', '語']
    """
    pieces = []
    for run in text.split():
        if is_word(run):
            pieces.append(" " + run)
        else:
            pieces += [" " + run[0], *run[1:]]
    return pieces


def words_estimator(tokens_per_word: float = TOKENS_PER_WORD) -> TokenCounter:
    """Return a counter that estimates ``int(words × tokens_per_word)``; a run that is no word
    counts ``run_tokens``.

    >>> count = words_estimator(2)
    >>> count("three short words")
    6
    """
    is_number = isinstance(tokens_per_word, (int, float)) and not isinstance(tokens_per_word, bool)
    if not is_number or not math.isfinite(tokens_per_word) or tokens_per_word <= 0:
        raise ValueError(f"tokens_per_word must be a positive number, got {tokens_per_word!r}")

    def count(text: str) -> int:
        runs = text.split()
        words = sum(1 for run in runs if is_word(run))
        others = sum(run_tokens(run) for run in runs if not is_word(run))
        return int(words * tokens_per_word) + others

    count.__name__ = f"words_x{tokens_per_word:g}"
    return count


#: The default estimator everywhere in teachmem: int(words × 1.3).
estimate_tokens: TokenCounter = words_estimator(TOKENS_PER_WORD)
estimate_tokens.__name__ = "estimate_tokens"


def count_message_tokens(messages: Iterable[dict],
                         counter: TokenCounter = estimate_tokens) -> int:
    """Sum the token estimates of the ``content`` of chat messages.

    >>> count_message_tokens([{"role": "user", "content": "one two three"},
    ...                       {"role": "assistant", "content": "four"}])
    4
    """
    return sum(counter(m["content"]) for m in messages)


# ---- Going further (01: other ways to count) ----
def chars_estimate(text: str) -> int:
    """Characters ÷ 4, rounded up (OpenAI's rule of thumb): unlike the word estimate it sees long
    words, code and text without spaces (Chinese, Japanese).

    >>> chars_estimate("hello world")      # words × 1.3 says 2
    3

    Taught in notebooks/01_conversation_buffer.ipynb.
    """
    return math.ceil(len(text) / 4)


def from_tokenizer(encode: Callable[[str], Iterable]) -> TokenCounter:
    """A real tokenizer's ``encode`` as a counter, for example
    ``tiktoken.get_encoding("cl100k_base").encode``:

    >>> count = from_tokenizer(lambda text: text.replace(".", " .").split())
    >>> count("Hello there. Bye.")
    5
    """
    if not callable(encode):
        raise TypeError(f"encode must be callable, got {type(encode).__name__}")

    def count(text: str) -> int:
        return len(list(encode(text)))

    return count


# ---- Going further (13: what a prompt cache can read) ----
def prompt_pieces(messages: Iterable[dict]) -> tuple[str, ...]:
    """A prompt in the pieces prefixes are compared by: each message's role, then its words.

    >>> prompt_pieces([{"role": "system", "content": "Be brief."},
    ...                {"role": "user", "content": "Hi"}])
    ('<system>', ' Be', ' brief.', '<user>', ' Hi')
    """
    out: list[str] = []
    for m in messages:
        out.append(f"<{m['role']}>")
        out += cut_points(m["content"])
    return tuple(out)


def shared_pieces(a: tuple, b: tuple) -> int:
    """How many pieces ``a`` and ``b`` share from their start.

    >>> shared_pieces(("<user>", " one", " two"), ("<user>", " one", " three"))
    2
    """
    n = 0
    for x, y in zip(a, b, strict=False):   # the shorter one ends the shared part
        if x != y:
            break
        n += 1
    return n


def prefix_tokens(messages: list[dict], n_pieces: int,
                  counter: TokenCounter = estimate_tokens) -> int:
    """Tokens of the first ``n_pieces`` pieces of ``messages`` (a role is a piece of no tokens).

    >>> prefix_tokens([{"role": "user", "content": "one two three four five six"}], 1 + 5)
    6
    """
    total = 0
    for m in messages:
        words = cut_points(m["content"])
        if n_pieces == 0:
            break
        n_pieces -= 1                               # the role
        total += counter("".join(words[:n_pieces]))
        n_pieces = max(0, n_pieces - len(words))
    return total


def shared_prefix_tokens(before: list[dict], messages: list[dict],
                         counter: TokenCounter = estimate_tokens) -> int:
    """Tokens ``messages`` open with, role by role and word by word, as ``before`` did: what a
    prompt cache holding ``before`` could read of them.

    >>> shared_prefix_tokens([{"role": "system", "content": "one two three four"}],
    ...                      [{"role": "system", "content": "one two three five"}])
    3
    """
    return prefix_tokens(messages, shared_pieces(prompt_pieces(before), prompt_pieces(messages)),
                         counter)
