"""Other ways to count tokens than words × 1.3: characters ÷ 4, or a real tokenizer plugged in.

Each is a ``TokenCounter`` (text -> int), so any strategy takes one as its ``token_counter``.

Taught in notebooks/01_conversation_buffer.ipynb.
"""
from __future__ import annotations

import math
from typing import Callable, Iterable

from teachmem.core.tokens import TokenCounter

__all__ = ["chars_estimate", "from_tokenizer"]


def chars_estimate(text: str) -> int:
    """Characters ÷ 4, rounded up (OpenAI's rule of thumb): unlike the word estimate it sees long
    words, code and text without spaces (Chinese, Japanese).

    >>> chars_estimate("hello world")      # words × 1.3 says 2
    3

    Taught in notebooks/01_conversation_buffer.ipynb.
    """
    return math.ceil(len(text) / 4)


def from_tokenizer(encode: Callable[[str], Iterable]) -> TokenCounter:
    """A real tokenizer's ``encode`` as a counter, e.g. ``tiktoken.get_encoding("cl100k_base").encode``:

    >>> count = from_tokenizer(lambda text: text.replace(".", " .").split())
    >>> count("Hello there. Bye.")
    5
    """
    if not callable(encode):
        raise TypeError(f"encode must be callable, got {type(encode).__name__}")

    def count(text: str) -> int:
        return len(list(encode(text)))

    return count
