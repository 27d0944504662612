"""Replay a scenario through a memory strategy, turn by turn.

Taught in notebooks/02_sliding_window.ipynb.
"""
from __future__ import annotations

import numpy as np

from teachmem.scenarios import Scenario


def add_turn(memory, scenario: Scenario, turn: int) -> None:
    """Tell ``memory`` what was said on ``turn`` of ``scenario``, with its turn number and time."""
    t = scenario.turns[turn - 1]
    memory.add(t.role, t.content, turn=t.turn, timestamp=scenario.timestamp(t.turn))


def feed(memory, scenario: Scenario, upto: int | None = None):
    """Add the scenario's turns 1..``upto`` (all by default) to ``memory``; return it."""
    for t in scenario.turns[:upto]:
        add_turn(memory, scenario, t.turn)
    return memory


def window_membership(scenario: Scenario, make_memory) -> np.ndarray:
    """``M[i, j]`` is True when turn j+1 is in the window after turn i+1 arrived.

    ``make_memory()`` builds a fresh strategy that has ``window_turns()``.
    """
    n = len(scenario)
    membership = np.zeros((n, n), dtype=bool)
    memory = make_memory()
    for t in scenario.turns:
        add_turn(memory, scenario, t.turn)
        membership[t.turn - 1, [k - 1 for k in memory.window_turns()]] = True
    return membership
