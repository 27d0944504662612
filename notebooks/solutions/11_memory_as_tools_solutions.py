"""Worked solutions for notebooks/11_memory_as_tools.ipynb."""

# 11.1 · Predict, then run. The context held 739 tokens at the warning (turn 17), and the turns before
# it added about 35 tokens each. The 261 tokens left to the budget last about eight more turns, so the
# first message that would not fit comes around turn 25; it does, and the eviction cuts the context to
# half the budget.
predicted_turn = 25


def oldest_to_evict(sizes, room):
    """11.2 · The eviction cut: how many of the oldest messages must go for the rest to fit in ``room``.
    Drop the oldest one at a time while what stays adds up to more than ``room``; stop when it fits or
    nothing is left."""
    kept, cut = sum(sizes), 0
    while cut < len(sizes) and kept > room:
        kept -= sizes[cut]
        cut += 1
    return cut
