"""Notebook 00's checker: the facts true at a turn.

Taught in notebooks/00_start_here.ipynb.
"""
from __future__ import annotations

from collections.abc import Callable

from teachmem.lab.scenarios import list_scenarios, load_scenario
from teachmem.lessons.common import checker, differs


@checker("current_facts")
def check_current_facts(fn: Callable) -> str | None:
    """Exercise 0.1: the ids of the facts true at a turn, in scenario order.

    The known answer is each built-in scenario's own ``Fact.is_current``.
    """
    for name in list_scenarios():
        scenario = load_scenario(name)
        for turn in range(1, len(scenario) + 1):
            want = [f.id for f in scenario.facts if f.is_current(turn)]
            problem = differs(f"scenario {name!r}, turn {turn}", list(fn(scenario, turn)), want)
            if problem:
                return problem
    return None
