"""Worked solutions for notebooks/07_compare_strategies.ipynb."""

# 7.1 · Predict, then run. The buffer's context grows by about the same amount every turn, so the
# tokens it sends in all are the area under a rising line: twice as long, twice as high, about four
# times the area (the replay measures 3.9).
predicted_ratio = 4

# 7.2 · Modify and observe. Pinning two messages keeps turn 3 (PostgreSQL) after turn 17 (MySQL) has
# scrolled out. Pin enough to keep the change as well (turns 1, 3, 5, 7 and 17 are the five most
# important older messages): the pytest decision (turn 7) and MySQL stay, nothing stale is alone,
# and a short recent part keeps the cost low (247 tokens on turn 29).
window_settings = dict(recent_k=2, important_k=5)


def cheapest_answer(replay, turn):
    """7.3: among the strategies that answer the question at ``turn``, the one sending the fewest tokens."""
    question = replay.scenario.questions[0]
    able = [name for name in replay.strategies if replay.answers(name, turn, question)]
    if not able:
        return None
    return min(able, key=lambda name: replay.at(name, turn).tokens)
