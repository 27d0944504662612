"""Worked solutions for notebooks/06_hybrid_manager.ipynb."""

# 6.1 · Predict, then run. At a budget of 700 the window has 141 tokens: turns 28, 27, 26 and 25 cost
# 45 + 27 + 20 + 20 = 112, which leaves 29. The manager stops at turn 24 (39 tokens). A window that
# skips instead passes over turn 24, keeps turn 23 (27 tokens, 2 left), and nothing older costs 2 or less.
# The prompt then holds the user's question about emails (turn 23) without the answer (turn 24).
predicted_turns = {23, 25, 26, 27, 28}

# 6.2 · Modify and observe. The facts' block costs 17 tokens for the pytest line (with the block's
# header) and 12 more for the MySQL line: 29 in all. The room at 700 is 163 tokens, so the fact cap
# must be at least 29 / 163 ≈ 0.178 of it: 0.18 keeps both lines. Much more (0.4 and up) lets lower
# ranked facts in too, and the window loses its older messages to make room for them.
fact_share = 0.18
