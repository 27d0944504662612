"""Notebook 00's prediction and checkers: the toy model's memory, the facts true at a turn.

Taught in notebooks/00_start_here.ipynb.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from teachmem.lab.scenarios import Fact, load_scenario
from teachmem.lessons.common import (after_prediction as after_prediction, answer_checker, checker,
                                     first_problem, forbidding)
from teachmem.llm import facts as fact_rules

DONT_KNOW = "I don't know your name."
# Exercise 0.1: the toy model of section 1 stops at the first name it reads.
FIRST_NAME_WINS = "Maya"

# messages -> what a toy model that answers with the name the user gave last replies, worked out by hand.
LATEST_NAME = [
    ([], DONT_KNOW),
    ([{"role": "user", "content": "Hi, my name is Maya."}], "Your name is Maya."),
    ([{"role": "user", "content": "What is my name?"}], DONT_KNOW),
    ([{"role": "user", "content": "Hi, my name is Maya."}, {"role": "assistant", "content": "Hello Maya!"},
      {"role": "user", "content": "Sorry, a typo: my name is Maia."}], "Your name is Maia."),
    ([{"role": "user", "content": "MY NAME IS Ana"}, {"role": "user", "content": "no wait, my name is Bea"},
      {"role": "user", "content": "What is my name?"}], "Your name is Bea."),
    ([{"role": "user", "content": "My name is Sam."},
      {"role": "assistant", "content": "Hello Sam, my name is Tess, your assistant."}], "Your name is Sam."),
]


@answer_checker("name_prediction")
def check_name_prediction(name_prediction: str) -> str | None:
    """Exercise 0.1: which name the toy model answers with once Maya has corrected it to Maia (case,
    spaces and a full stop do not matter; a sentence is asked for the name alone)."""
    if not isinstance(name_prediction, str):
        raise TypeError(f"write the name you expect in quotes, like \"Sam\", got {type(name_prediction).__name__}")
    name = name_prediction.strip().rstrip(".!").strip("'\"").lower()
    if name == FIRST_NAME_WINS.lower():
        return None
    if len(name.split()) > 1:
        return f"you wrote {name_prediction!r}: write just the name you expect, like \"Sam\"."
    return (f"you predicted {name_prediction!r}; the model answered {FIRST_NAME_WINS!r}.\n  It reads the messages "
            "in order and stops at the first name it finds,\n  so the old name, still in the history, wins.")


@checker("latest_name_model")
def check_latest_name_model(fn: Callable) -> str | None:
    """Exercise 0.2: answer with the name the user gave last (the assistant's own name does not
    count), in a function of its own: exercise 0.1's reveal runs section 1's ``toy_model`` again."""
    with forbidding((fact_rules, "found_facts")):
        return first_problem(_name_problem(messages, fn([dict(m) for m in messages]), want)
                             for messages, want in LATEST_NAME)


def _name_problem(messages: list[dict], got: object, want: str) -> str | None:
    """None if ``got == want``, else the conversation one message a line (so a projected cell does not wrap
    mid-word), then what was expected and what came back."""
    if got == want:
        return None
    said = "".join(f'\n    {m["role"]}: "{m["content"]}"' for m in messages) or " with no messages"
    return f"for the conversation{said}\n  expected {want!r}, got {got!r}"


@checker("current_facts")
def check_current_facts(fn: Callable) -> str | None:
    """Exercise 0.3: the ids of the facts true at a turn of the booking-app conversation, in order
    (known from ``Fact.is_current``, which the learner's function may not call)."""
    scenario = load_scenario("project_30")
    wants = {turn: [f.id for f in scenario.facts if f.is_current(turn)] for turn in range(1, len(scenario) + 1)}
    with forbidding((Fact, "is_current")):
        answers = {turn: list(fn(scenario, turn)) for turn in wants}
    return first_problem(_facts_problem(scenario.facts, turn, answers[turn], want) for turn, want in wants.items())


def _facts_problem(facts: Sequence[Fact], turn: int, got: list, want: list[str]) -> str | None:
    """What is wrong with ``got`` at ``turn``, naming the first fact listed or left out by mistake and why."""
    if got == want:
        return None
    by_id = {f.id: f for f in facts}
    extra = next((i for i in got if i not in want), None)
    missing = next((i for i in want if i not in got), None)
    if extra is not None and extra not in by_id:
        return f"at turn {turn} you listed {extra!r}, which is not the id of a fact in scenario.facts"
    if extra is not None and by_id[extra].stated_turn > turn:
        return f"at turn {turn} {extra!r} is not stated yet: that happens on turn {by_id[extra].stated_turn}"
    if extra is not None:
        return (f"at turn {turn} {extra!r} is no longer current: it was replaced on turn "
                f"{by_id[extra].superseded_turn}")
    if missing is not None:
        return f"at turn {turn} {missing!r} is missing: it was stated on turn {by_id[missing].stated_turn}"
    return (f"at turn {turn} the ids are right, but list each once, in the order of scenario.facts:"
            f"\n  expected {want}\n  got      {got}")
