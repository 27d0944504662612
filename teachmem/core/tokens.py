"""Counting tokens: estimates close enough to reason with, the same on every machine.

``estimate_tokens`` (words × 1.3) is what every strategy uses unless given another counter. The
others are here too: ``chars_estimate`` (characters ÷ 4) and ``from_tokenizer``, which plugs in a
real tokenizer. Each is a ``TokenCounter`` (text -> int), so any strategy takes one as its
``token_counter``.

Taught in notebooks/01_conversation_buffer.ipynb.
"""
from __future__ import annotations

import math
from typing import Callable, Iterable

__all__ = ["TokenCounter", "TOKENS_PER_WORD", "words_estimator", "estimate_tokens",
           "count_message_tokens", "chars_estimate", "from_tokenizer"]

TokenCounter = Callable[[str], int]

#: A common rule of thumb: an English word is about 1.3 tokens.
TOKENS_PER_WORD = 1.3


def words_estimator(tokens_per_word: float = TOKENS_PER_WORD) -> TokenCounter:
    """Return a counter that estimates ``int(words × tokens_per_word)``.

    >>> count = words_estimator(2)
    >>> count("three short words")
    6
    """
    is_number = isinstance(tokens_per_word, (int, float)) and not isinstance(tokens_per_word, bool)
    if not is_number or not math.isfinite(tokens_per_word) or tokens_per_word <= 0:
        raise ValueError(f"tokens_per_word must be a positive number, got {tokens_per_word!r}")

    def count(text: str) -> int:
        return int(len(text.split()) * tokens_per_word)

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
