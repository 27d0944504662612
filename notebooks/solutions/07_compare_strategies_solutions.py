"""Worked solutions for notebooks/07_compare_strategies.ipynb."""

# 7.1 · Predict, then run. The buffer's context grows by about the same amount every turn, so the
# tokens it sends in all are the area under a rising line: twice as long, twice as high, about four
# times the area (the replay measures 3.9).
predicted_ratio = 4

# 7.2 · Modify and observe. Two pins go to the switch to MySQL (turn 17) and the PostgreSQL choice
# (turn 3): nothing stale, but pytest (turn 7) is lost. Pin enough to keep it: on turn 29 the five most
# important older messages are turns 3, 5, 7, 17 and 27. Pinning more with six recent messages costs
# 312 tokens; a short recent part keeps the cost low (233 tokens on turn 29). The switch outranks the
# choice it replaced, so nothing stale is ever alone.
window_settings = dict(recent_k=2, important_k=5)


def cheapest_answer(replay, turn):
    """7.3: among the strategies that answer the question at ``turn``, the one sending the fewest tokens."""
    question = replay.scenario.questions[0]
    able = [name for name in replay.strategies if replay.answers(name, turn, question)]
    if not able:
        return None
    return min(able, key=lambda name: replay.at(name, turn).tokens)
