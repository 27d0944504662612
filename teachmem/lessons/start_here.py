"""Notebook 00's prediction and checkers: the toy model's memory, the facts true at a turn.

Taught in notebooks/00_start_here.ipynb.
"""
from __future__ import annotations

from collections.abc import Callable

from teachmem.lab.scenarios import Fact, load_scenario
from teachmem.lessons.common import (after_prediction as after_prediction, answer_checker, checker, differs,
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
    """Exercise 0.1: which name the toy model answers with once Maya has corrected it to Maia."""
    if not isinstance(name_prediction, str):
        raise TypeError(f"write the name you expect in quotes, like \"Maia\", got {type(name_prediction).__name__}")
    if name_prediction.strip().lower() == FIRST_NAME_WINS.lower():
        return None
    return (f"you predicted {name_prediction!r}; the model answered {FIRST_NAME_WINS!r}. It reads the messages in "
            "order and stops at the first name it finds, so the old name, still in the history, wins.")


@checker("toy_model")
def check_toy_model(fn: Callable) -> str | None:
    """Exercise 0.2: answer with the name the user gave last (the assistant's own name does not count)."""
    with forbidding((fact_rules, "found_facts")):
        return first_problem(differs(_conversation(messages), fn([dict(m) for m in messages]), want)
                             for messages, want in LATEST_NAME)


def _conversation(messages: list[dict]) -> str:
    """A conversation on one line, as a checker names it: ``user: "Hi" / assistant: "Hello"``."""
    return "the conversation " + (" / ".join(f'{m["role"]}: "{m["content"]}"' for m in messages) or "with no messages")


@checker("current_facts")
def check_current_facts(fn: Callable) -> str | None:
    """Exercise 0.3: the ids of the facts true at a turn of the booking-app conversation, in order.

    The known answer is each fact's own ``Fact.is_current``, worked out before the learner's
    function runs; while it runs, ``is_current`` is off limits.
    """
    scenario = load_scenario("project_30")
    wants = {turn: [f.id for f in scenario.facts if f.is_current(turn)] for turn in range(1, len(scenario) + 1)}
    with forbidding((Fact, "is_current")):
        return first_problem(differs(f"turn {turn}", list(fn(scenario, turn)), want) for turn, want in wants.items())
