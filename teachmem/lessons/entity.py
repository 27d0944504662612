"""Notebook 04's checkers, entity view and validity plot: facts that change over time.

Taught in notebooks/04_entity_memory.ipynb.
"""
from __future__ import annotations

from collections.abc import Callable

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from teachmem.core.validate import require_positive_int
from teachmem.lab.scenarios import Scenario, fact_in_text
from teachmem.lessons.common import checker, differs, explore as explore, fact_label, figure, first_problem, mark, short


def _change(turn: int, entity: str, attribute: str, old: str, new: str) -> dict:
    return {"turn": turn, "entity": entity, "attribute": attribute, "old": old, "new": new}


_OPENING = [("Project", "framework", "React", 1), ("Project", "database", "PostgreSQL", 1),
            ("API", "auth_method", "JWT", 5), ("Project", "database", "MySQL", 12)]
_AFTER_OPENING = ({"Project": {"framework": "React", "database": "MySQL"}, "API": {"auth_method": "JWT"}},
                  [_change(12, "Project", "database", "PostgreSQL", "MySQL")])

# steps of apply_fact -> (the store, the changelog) they leave, worked out by hand.
APPLY_FACT = [
    ([], ({}, [])),
    (_OPENING, _AFTER_OPENING),
    (_OPENING + [("Project", "database", "MySQL", 14)], _AFTER_OPENING),     # the same value again: no change
    ([("User", "name", "Maya", 1), ("User", "name", "Dana", 2), ("User", "name", "Maya", 3)],
     ({"User": {"name": "Maya"}}, [_change(2, "User", "name", "Maya", "Dana"),
                                   _change(3, "User", "name", "Dana", "Maya")])),
    ([("API", "auth_method", "JWT", 1), ("API", "auth_method", "JWT", 2), ("API", "auth_method", "OAuth 2.0", 3),
      ("Project", "database", "SQLite", 4)],
     ({"API": {"auth_method": "OAuth 2.0"}, "Project": {"database": "SQLite"}},
      [_change(3, "API", "auth_method", "JWT", "OAuth 2.0")])),
]

_HISTORY = [{"value": "PostgreSQL", "valid_from": 3, "valid_to": 17},
            {"value": "MySQL", "valid_from": 17, "valid_to": 25},
            {"value": "SQLite", "valid_from": 25, "valid_to": None}]
# (history, turn) -> the value that held, read off the windows [3, 17), [17, 25), [25, …) by hand.
VALUE_AT = ([((_HISTORY, t), None) for t in range(0, 3)] + [((_HISTORY, t), "PostgreSQL") for t in range(3, 17)]
            + [((_HISTORY, t), "MySQL") for t in range(17, 25)] + [((_HISTORY, t), "SQLite") for t in range(25, 31)]
            + [(([], 5), None), ((_HISTORY[:1], 20), None), ((_HISTORY[1:], 10), None),
               ((_HISTORY[:1], 16), "PostgreSQL")])


@checker("apply_fact")
def check_apply_fact(fn: Callable) -> str | None:
    """Exercise 4.1: store a fact; the newer value wins and a change goes to the changelog."""
    for steps, (want_store, want_log) in APPLY_FACT:
        store: dict = {}
        log: list = []
        for step in steps:
            fn(store, log, *step)
        if (store, log) != (want_store, want_log):
            return (f"after the steps {steps}: expected store {want_store} and changelog {want_log}, "
                    f"got store {store} and changelog {log}")
    return None


@checker("value_at")
def check_value_at(fn: Callable) -> str | None:
    """Exercise 4.2: the value that held at ``turn``, from a history of validity windows."""
    return first_problem(differs(f"turn {t} of {[(h['value'], h['valid_from'], h['valid_to']) for h in history]}",
                                 fn([dict(h) for h in history], t), want) for (history, t), want in VALUE_AT)


def entity_view(memory, turn: int, scenario: Scenario | None = None) -> str:
    """What an ``EntityMemory`` fed the whole conversation held true after ``turn``, the changes
    logged so far and, given the ``scenario``, which of its true facts the memory knows.

    Taught in notebooks/04_entity_memory.ipynb.
    """
    require_positive_int("turn", turn)
    lines = []
    if scenario is not None:
        if turn > len(scenario):
            raise ValueError(f"turn must be between 1 and {len(scenario)}, got {turn}")
        said = scenario.turns[turn - 1]
        lines += [f"turn {turn} · {said.role}: {short(said.content, 90)}", ""]
    known = memory.get_relevant(as_of=turn)
    changes = [f"  turn {c['turn']}: {c['entity']}.{c['attribute']} {c['old']} → {c['new']}"
               for c in memory.get_changelog(as_of=turn)]
    lines += [f"facts true after turn {turn}:", known or "(none yet)", "",
              "changelog:", *(changes or ["  (no changes yet)"])]
    if scenario is not None:
        truth = [f for f in scenario.facts if f.is_current(turn)]
        found = [fact_in_text(f, known) for f in truth]
        lines += ["", f"the scenario's facts true at turn {turn}: {sum(found)} of {len(truth)} known"]
        lines += [f"  {mark(k)} {fact_label(f)}" for f, k in zip(truth, found, strict=True)]
    return "\n".join(lines)


def plot_validity(memory, last_turn: int) -> Figure:
    """Each attribute of an ``EntityMemory`` as a row; each value as a bar from the turn it
    became true to the turn it was replaced (or ``last_turn``).

    Taught in notebooks/04_entity_memory.ipynb.
    """
    keys = list(dict.fromkeys((f.entity, f.attribute) for f in memory.values))
    fig, ax = figure(8, 0.45 * len(keys) + 1.2)
    colours = plt.get_cmap("tab10")
    for row, key in enumerate(keys):
        values = [f for f in memory.values if (f.entity, f.attribute) == key]
        for i, f in enumerate(values):
            end = f.valid_to if f.valid_to is not None else last_turn + 1
            ax.barh(row, end - f.valid_from, left=f.valid_from, color=colours(i % 10), alpha=0.75)
            ax.text(f.valid_from + 0.2, row, f.value[:28], va="center", fontsize=8)
    ax.set_yticks(range(len(keys)), [f"{e}.{a}" for e, a in keys], fontsize=8)
    ax.invert_yaxis()
    ax.set(title="When each value was true", xlabel="turn", xlim=(0.5, last_turn + 1.5))
    return fig
