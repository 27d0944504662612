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


def answers_from(replay):
    """7.3: for each strategy, the first turn from which its context answers the scenario's first question
    on every later turn, or None when it does not answer on the last turn. Walk back from the last turn
    while it answers: the last turn it answered on in that walk is where it became reliable."""
    question, last = replay.scenario.questions[0], len(replay.scenario)
    first = {}
    for name in replay.strategies:
        start = None
        for turn in range(last, 0, -1):
            if not replay.answers(name, turn, question):
                break
            start = turn
        first[name] = start
    return first
