"""Worked solutions for notebooks/11_memory_as_tools.ipynb."""

# 11.1 · Predict, then run. The context held 739 tokens at the warning (turn 17), and the turns before
# it added about 35 tokens each. The 261 tokens left to the budget last about eight more turns, so the
# first message that would not fit comes around turn 25; it does, and the eviction cuts the context to
# half the budget.
predicted_turn = 25

# 11.2 · Modify and observe. Before turn 27 the human block holds 226 characters: every line up to
# `payments: Stripe`, which must stay, so the limit must be at least 226. Turn 27 appends the hosting budget
# (41 characters with its newline, 267 in all) and then the deadline (23 more). From 267 to 289 only the
# deadline is refused and goes to archival storage. From 226 to 248 the hosting budget is refused too, and
# the deadline with it (226 + 23 = 249). From 249 to 266 the budget is refused but the shorter deadline
# still fits, so the check fails. 280 moves only the deadline.
block_limit = 280


def oldest_to_evict(sizes, room):
    """11.3 · The eviction cut: how many of the oldest messages must go for the rest to fit in ``room``.
    Drop the oldest one at a time while what stays adds up to more than ``room``; stop when it fits or
    nothing is left."""
    kept, cut = sum(sizes), 0
    while cut < len(sizes) and kept > room:
        kept -= sizes[cut]
        cut += 1
    return cut
