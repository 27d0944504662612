"""Notebook 04's checkers, entity view and validity plot: facts that change over time.

Taught in notebooks/04_entity_memory.ipynb.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from matplotlib.figure import Figure
from matplotlib.patches import Patch

from teachmem.core.validate import require_positive_int
from teachmem.core.words import shared_words
from teachmem.lab.scenarios import Scenario, fact_in_text, load_scenario
from teachmem.lessons.common import (OKABE_ITO, CheckResult, after_prediction as after_prediction, answer_checker,
                                     checker, explore as explore, fact_label, figure, mark, report, short,
                                     wrapped as wrapped)
from teachmem.llm import rule_triples
from teachmem.memory.entity import EntityMemory

# Exercise 4.1: messages the extractor has not met; which of them yield a fact that passes the 0.7 filter?
PREDICT_MESSAGES = (
    "Could we use Redis for sessions?",
    "I'm a pharmacist at a hospital in Leeds.",
    "I write Rust at my day job.",
    "For styling let's use Bootstrap. I love its grid.",
    "My guess is that nobody reads the docs.",
    "Probably Vue, but I'm not sure yet.",
)

# Exercise 4.3: each question and the one fact it is about, in the memory that heard project_30.
QUESTIONS = {"Which database should CI start?": ("Project", "database"),
             "What's the hosting budget?": ("Project", "hosting_budget"),
             "How do users log in?": ("API", "auth_method"),
             "When do we launch?": ("Project", "deadline")}


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

@checker("apply_fact")
def check_apply_fact(fn: Callable) -> str | None:
    """Exercise 4.2: store a fact; the newer value wins and a change goes to the changelog."""
    for steps, (want_store, want_log) in APPLY_FACT:
        store: dict = {}
        log: list = []
        for step in steps:
            fn(store, log, *step)
        if (store, log) != (want_store, want_log):
            return (f"after the steps {steps}: expected store {want_store} and changelog {want_log}, "
                    f"got store {store} and changelog {log}")
    return None


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
        lines += [f"turn {turn} · {said.role}: {short(said.content, 75)}", ""]
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
    return wrapped("\n".join(lines))


def _confident_messages() -> set[int]:
    return {i for i, m in enumerate(PREDICT_MESSAGES, 1) if rule_triples(m)}


def _extraction_problem(prediction: Any) -> str | None:
    if not isinstance(prediction, (set, frozenset, list, tuple)) or \
            not all(isinstance(i, int) and 1 <= i <= len(PREDICT_MESSAGES) for i in prediction):
        return (f"write your prediction as a set of message numbers from 1 to {len(PREDICT_MESSAGES)}, "
                f"e.g. {{1, 2}}; got {prediction!r}")
    want, got = _confident_messages(), set(prediction)
    if got == want:
        return None
    missed, extra = sorted(want - got), sorted(got - want)
    return ("; ".join(part for part in (f"messages {missed} do yield a confident fact" if missed else "",
                                        f"messages {extra} yield none above 0.7" if extra else "") if part)
            + ". Read the facts printed above for why.")


@answer_checker("extraction prediction")
def check_yields_a_fact(yields_a_fact: Any) -> str | None:
    """Exercise 4.1 (predict, then run): the numbers of the messages that yield a fact of confidence >= 0.7."""
    return _extraction_problem(yields_a_fact)


def question_memory() -> EntityMemory:
    """The memory that heard the whole project_30 conversation."""
    memory, scenario = EntityMemory(), load_scenario("project_30")
    for t in scenario.turns:
        memory.add(t.role, t.content, turn=t.turn, timestamp=scenario.timestamp(t.turn))
    return memory


def _found(question: str, extra_words: dict, memory: EntityMemory) -> set[tuple[str, str]]:
    added = [w for word in question.lower().replace("?", " ").split() for w in extra_words.get(word, [])]
    query = " ".join([question, *added])
    return {(f.entity, f.attribute) for f in memory.facts() if shared_words(query, f"{f.entity} {f.attribute} {f.value}")}


def check_extra_words(extra_words: Any) -> CheckResult:
    """Exercise 4.3 (modify and observe): words added to a query (``{"query word": ["added", ...]}``) so that
    every question finds its fact, without dragging in more unrelated facts than plain overlap does."""
    if not isinstance(extra_words, dict) or not all(isinstance(k, str) and isinstance(v, (list, tuple))
                                                    and all(isinstance(w, str) for w in v)
                                                    for k, v in extra_words.items()):
        return report(False, "✗ query words: expected a dict from a query word to a list of words to add, "
                             f"e.g. {{'log': ['session']}}; got {type(extra_words).__name__}")
    memory, problems = question_memory(), []
    for question, key in QUESTIONS.items():
        plain, found = _found(question, {}, memory), _found(question, extra_words, memory)
        noise = sorted(f"{e}.{a}" for e, a in found - plain - {key})
        if key not in found:
            problems.append(f"{question!r} still misses {key[0]}.{key[1]}")
        elif noise:
            problems.append(f"{question!r} now also drags in {', '.join(noise)}")
    if problems:
        return report(False, "✗ query words: " + "; ".join(problems))
    return report(True, "✓ query words: every question finds its fact, and no new noise")


def plot_validity(memory, last_turn: int) -> Figure:
    """Each attribute of an ``EntityMemory`` as a row; each value as a bar from the turn it
    became true to the turn it was replaced (or ``last_turn``), coloured by whether it still holds.

    Taught in notebooks/04_entity_memory.ipynb.
    """
    keys = list(dict.fromkeys((f.entity, f.attribute) for f in memory.values))
    fig, ax = figure(9, 0.42 * len(keys) + 1.6)
    colour = {True: OKABE_ITO[2], False: OKABE_ITO[5]}   # still true, replaced
    for row, key in enumerate(keys):
        for f in (f for f in memory.values if (f.entity, f.attribute) == key):
            end = f.valid_to if f.valid_to is not None else last_turn + 1
            ax.barh(row, end - f.valid_from, left=f.valid_from, color=colour[f.valid_to is None], alpha=0.8)
            ax.text(f.valid_from + 0.2, row, short(f.value, 26), va="center", fontsize=8, clip_on=True)
    ax.set_yticks(range(len(keys)), [short(f"{e}.{a}", 40) for e, a in keys], fontsize=8)
    ax.invert_yaxis()
    ax.set(title="When each value was true", xlabel="turn", xlim=(0.5, last_turn + 9))
    ax.legend(handles=[Patch(color=colour[True], label="still true"), Patch(color=colour[False], label="replaced")],
              loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8)
    return fig
