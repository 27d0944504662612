"""Worked solutions for notebooks/07_compare_strategies.ipynb."""
from teachmem import fact_in_text


def is_stale(scenario, fact_id, text, turn):
    """07.1: superseded by ``turn``, mentioned, and none of the facts that replaced it is mentioned."""
    fact = scenario.fact(fact_id)
    if fact.superseded_turn is None or turn < fact.superseded_turn or not fact_in_text(fact, text):
        return False
    replaced_by = [f for f in scenario.facts
                   if f.entity == fact.entity and f.stated_turn == fact.superseded_turn and f is not fact]
    return not any(fact_in_text(f, text) for f in replaced_by)


def cheapest_answer(replay, turn):
    """07.2: among the strategies that answer the question at ``turn``, the one sending the fewest tokens."""
    question = replay.scenario.questions[0]
    able = [name for name in replay.strategies if replay.answers(name, turn, question)]
    if not able:
        return None
    return min(able, key=lambda name: replay.at(name, turn).tokens)
