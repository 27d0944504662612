"""Worked solutions for notebooks/03_summary_memory.ipynb."""
from teachmem.core.tokens import estimate_tokens


def split_for_summary(messages, keep_recent):
    """Exercise 3.1: the oldest messages to summarise, and the last keep_recent to keep as they are."""
    # Not messages[:-keep_recent]: with keep_recent=0 that slice is empty, not everything.
    cut = max(len(messages) - keep_recent, 0)
    return messages[:cut], messages[cut:]


def compression_ratio(raw_messages, context_messages):
    """Exercise 3.2: how many times fewer tokens the context sends than the raw conversation."""
    raw = sum(estimate_tokens(m["content"]) for m in raw_messages)
    sent = sum(estimate_tokens(m["content"]) for m in context_messages)
    return round(raw / sent, 1)
