"""Worked solutions for notebooks/00_start_here.ipynb."""


def current_facts(scenario, turn):
    """Exercise 0.1: stated by ``turn`` and not yet replaced, in scenario order."""
    return [f.id for f in scenario.facts
            if f.stated_turn <= turn and (f.superseded_turn is None or turn < f.superseded_turn)]
