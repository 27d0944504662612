"""Worked solutions for notebooks/11_memory_as_tools.ipynb."""

# 11.1 · Predict, then run. The context held 739 tokens at the warning (turn 17), and the turns before
# it added about 35 tokens each. The 261 tokens left to the budget last about eight more turns, so the
# first message that would not fit comes around turn 25; it does, and the eviction cuts the context to
# half the budget.
predicted_turn = 25

# 11.2 · Modify and observe. Before turn 27 the human block holds 226 characters. Turn 27 appends the
# hosting budget (41 characters with its newline) and then the deadline (23). At 250 the budget line is
# refused and goes to archival storage, but the shorter deadline line still fits (249 characters), so
# the limit must be below 249. It must also hold every line up to the test framework (turn 7), 180
# characters, or that line goes to archival storage too: 230 refuses both turn-27 lines and keeps the rest.
block_limit = 230
