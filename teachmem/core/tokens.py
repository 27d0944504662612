"""Counting tokens without a tokenizer.

A model bills and limits by tokens, so every memory strategy needs a token
count. Real tokenizers differ per model; for teaching we use estimates that
are close enough to reason with and identical on every machine.

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


def chars_estimate(text: str) -> int:
    """Estimate tokens as characters ÷ 4, rounded up (OpenAI's rule of thumb).

    Unlike the word estimate it notices long words, code and text without
    spaces (Chinese or Japanese), which the word count badly undercounts.

    >>> chars_estimate("hello world")
    3
    >>> estimate_tokens("hello world")
    2

    Taught in notebooks/01_conversation_buffer.ipynb.
    """
    return math.ceil(len(text) / 4)


def from_tokenizer(encode: Callable[[str], Iterable]) -> TokenCounter:
    """Wrap a real tokenizer's ``encode`` function as a token counter.

    For example ``from_tokenizer(tiktoken.get_encoding("cl100k_base").encode)``;
    here a stand-in tokenizer that splits on spaces and on dots:

    >>> count = from_tokenizer(lambda text: text.replace(".", " .").split())
    >>> count("Hello there. Bye.")
    5
    """
    if not callable(encode):
        raise TypeError(f"encode must be callable, got {type(encode).__name__}")

    def count(text: str) -> int:
        return len(list(encode(text)))

    return count


def count_message_tokens(messages: Iterable[dict], counter: TokenCounter = estimate_tokens) -> int:
    """Sum the token estimates of the ``content`` of chat messages.

    >>> count_message_tokens([{"role": "user", "content": "one two three"},
    ...                       {"role": "assistant", "content": "four"}])
    4
    """
    return sum(counter(m["content"]) for m in messages)


def truncate_to_tokens(text: str, max_tokens: int, counter: TokenCounter = estimate_tokens) -> str:
    """Cut ``text`` so that it, with a visible marker, fits in ``max_tokens``.

    The head is kept (it usually says what the message is about) and a marker
    ``[… truncated N tokens]`` tells the model, and the learner, that
    something is missing: silently dropping text is how bugs hide.

    >>> truncate_to_tokens("one two three four five six seven eight nine ten", 8)
    'one two [… truncated 11 tokens]'
    >>> truncate_to_tokens("short enough", 8)
    'short enough'
    """
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise ValueError(f"max_tokens must be a positive int, got {max_tokens!r}")
    total = counter(text)
    if total <= max_tokens:
        return text
    words = text.split()

    def candidate(n_words: int) -> str:
        return " ".join(words[:n_words] + [f"[… truncated {total - counter(' '.join(words[:n_words]))} tokens]"])

    if counter(candidate(0)) > max_tokens:
        raise ValueError(f"max_tokens must leave room for the truncation marker "
                         f"({counter(candidate(0))} tokens), got {max_tokens}")
    # Binary search for the longest head that still fits with its marker.
    lo, hi = 0, len(words)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if counter(candidate(mid)) <= max_tokens:
            lo = mid
        else:
            hi = mid - 1
    return candidate(lo)
