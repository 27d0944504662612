"""Worked solutions for notebooks/01_conversation_buffer.ipynb."""
from itertools import accumulate


def request_tokens(turn_tokens):
    """Exercise 1.1: request i resends messages 1..i, so it costs their running sum."""
    return list(accumulate(turn_tokens))


def exchanges_that_fit(tokens_per_exchange, max_tokens, system_tokens):
    """Exercise 1.2: whole exchanges that fit beside the system prompt, never negative."""
    return max(0, (max_tokens - system_tokens) // tokens_per_exchange)
