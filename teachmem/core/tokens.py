"""Counting tokens without a tokenizer: estimates close enough to reason with, the same on every machine.

This is the estimate every strategy uses unless given another counter; :mod:`teachmem.core.counters` has
the others (characters ÷ 4, a real tokenizer plugged in).

Taught in notebooks/01_conversation_buffer.ipynb.
"""
from __future__ import annotations

import math
from typing import Callable, Iterable

TokenCounter = Callable[[str], int]

#: A common rule of thumb: an English word is about 1.3 tokens.
TOKENS_PER_WORD = 1.3


def words_estimator(tokens_per_word: float = TOKENS_PER_WORD) -> TokenCounter:
    """Return a counter that estimates ``int(words × tokens_per_word)``.

    >>> count = words_estimator(2)
    >>> count("three short words")
    6
    """
    if isinstance(tokens_per_word, bool) or not isinstance(tokens_per_word, (int, float)) \
            or not math.isfinite(tokens_per_word) or tokens_per_word <= 0:
        raise ValueError(f"tokens_per_word must be a positive number, got {tokens_per_word!r}")

    def count(text: str) -> int:
        return int(len(text.split()) * tokens_per_word)

    count.__name__ = f"words_x{tokens_per_word:g}"
    return count


#: The default estimator everywhere in teachmem: int(words × 1.3).
estimate_tokens: TokenCounter = words_estimator(TOKENS_PER_WORD)
estimate_tokens.__name__ = "estimate_tokens"


def count_message_tokens(messages: Iterable[dict], counter: TokenCounter = estimate_tokens) -> int:
    """Sum the token estimates of the ``content`` of chat messages.

    >>> count_message_tokens([{"role": "user", "content": "one two three"},
    ...                       {"role": "assistant", "content": "four"}])
    4
    """
    return sum(counter(m["content"]) for m in messages)
