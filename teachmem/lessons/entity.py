"""Notebook 04's checkers, entity view and validity plot: facts that change over time.

Taught in notebooks/04_entity_memory.ipynb.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from matplotlib.figure import Figure
from matplotlib.patches import Patch

from teachmem.core.validate import require_positive_int
from teachmem.core.words import shared_words
from teachmem.lab.lesson_examples import PREDICT_MESSAGES
from teachmem.lab.replay import feed
from teachmem.lab.scenarios import Scenario, fact_in_text, load_scenario
from teachmem.lab.unseen_conversations import entity_conversations
from teachmem.lessons.building import class_checker, own_code, show_source as show_source
from teachmem.lessons.common import (OKABE_ITO, after_prediction as after_prediction, answer_checker,
                                     explore as explore, figure, hanging, mark, short,
                                     wrapped as wrapped)
from teachmem.llm import rule_triples
from teachmem.memory.entity import EntityMemory

# Exercise 4.3: each question and the one fact it is about, in the memory that heard project_30.
QUESTIONS = {"Which database should CI start?": ("Project", "database"),
             "What's the hosting budget?": ("Project", "hosting_budget"),
             "How do users log in?": ("API", "auth_method"),
             "When do we launch?": ("Project", "deadline")}


# ---------------------------------------------------------------- Exercise 4.2: the learner's class
def _fact_lines(context: Any) -> list[str] | str:
    """The ``[Entity] ...`` lines of a ``context()`` answer, in order, or what is wrong with it."""
    if not isinstance(context, list) or not all(isinstance(m, dict) for m in context):
        return f"context() should return a list of messages (dicts), got {context!r:.60}"
    if not context:
        return []
    if len(context) > 1 or context[0].get("role") != "system":
        return "context() should send one system message"
    lines = str(context[0].get("content", "")).split("\n")
    if lines[0] != "Known facts:":
        return f"its system message should start with the line 'Known facts:', not {lines[0]!r:.40}"
    return lines[1:]


def facts_difference(case: str, got: Any, want: list[dict]) -> str | None:
    """None if the learner's ``context()`` sends the same facts as the library's (entities in any
    order), else one sentence naming the first entity line that differs."""
    mine, theirs = _fact_lines(got), _fact_lines(want)
    if isinstance(mine, str):
        return f"{case}, {mine}"
    if not theirs and mine:
        return f"{case}, nothing is known yet: context() should send no message, yours sends one"
    if theirs and not mine:
        return f"{case}, context() should send {short(theirs[0], 50)!r}, yours sends nothing"
    by_entity = {line.split("] ")[0] + "]": line for line in mine}
    for line in theirs:
        entity = line.split("] ")[0] + "]"
        yours = by_entity.pop(entity, None)
        if yours is None:
            return f"{case}, context() should send a line {short(line, 50)!r}, yours has none"
        if yours != line:
            return f"{case}, {_first_pair_difference(entity, yours, line)}"
    if by_entity:
        return f"{case}, context() sends {short(next(iter(by_entity.values())), 50)!r} too"
    return None


def _first_pair_difference(entity: str, mine: str, theirs: str) -> str:
    """Where two lines of one entity part: the first ``attribute: value`` pair that differs."""
    mine_pairs = mine.removeprefix(entity).strip().split(", ")
    their_pairs = theirs.removeprefix(entity).strip().split(", ")
    for yours, want in zip(mine_pairs, their_pairs, strict=False):
        if yours != want:
            return f"the line {entity} should say {short(want, 40)!r}, yours says {short(yours, 40)!r}"
    if len(mine_pairs) < len(their_pairs):
        return f"the line {entity} should also say {short(their_pairs[len(mine_pairs)], 40)!r}"
    return f"the line {entity} says {short(mine_pairs[len(their_pairs)], 40)!r} too"


def _changed(change: Any) -> str:
    if not isinstance(change, dict):
        return repr(change)
    return (f"turn {change.get('turn')}: {change.get('entity')}.{change.get('attribute')} "
            f"{change.get('old')} → {change.get('new')}")


def changelog_difference(case: str, got: Any, want: list[dict]) -> str | None:
    """None if the two changelogs agree, else one sentence naming the first change that differs."""
    if not isinstance(got, list):
        return f"{case}, changelog should be a list, got {type(got).__name__}"
    for number, (mine, theirs) in enumerate(zip(got, want, strict=False), 1):
        if mine != theirs:
            return (f"{case}, change {number} of the changelog should be {_changed(theirs)!r}, "
                    f"yours is {_changed(mine)!r}")
    if len(got) < len(want):
        return f"{case}, the changelog should also hold {_changed(want[len(got)])!r}"
    if len(got) > len(want):
        return f"{case}, the changelog holds {_changed(got[len(want)])!r}, which changed nothing"
    return None


def _replayed(memory: Any, messages: list[tuple[str, str]],
              changelog: Callable[[Any], Any]) -> Iterator[tuple[Any, Any]]:
    """After each message, what ``memory`` sends and its ``changelog``."""
    for turn, (role, content) in enumerate(messages, 1):
        memory.add(role, content, turn=turn)
        yield memory.context(), changelog(memory)


@class_checker("entity memory")
def check_entity_class(cls: type) -> str | None:
    """Exercise 4.2: the learner's entity memory, replayed beside ``EntityMemory`` on conversations
    they have not seen: the same facts in ``context()`` and the same ``changelog`` after every turn."""
    for number, messages in enumerate(entity_conversations(), 1):
        wanted = list(_replayed(EntityMemory(), messages, EntityMemory.get_changelog))
        with own_code():
            mine = _replayed(cls(), messages, lambda memory: getattr(memory, "changelog", None))
            pairs = zip(mine, wanted, strict=True)
            for turn, ((sent, changelog), (want, want_changelog)) in enumerate(pairs, 1):
                role, content = messages[turn - 1]
                case = f"conversation {number}, after turn {turn} ({role}: {short(content, 30)!r})"
                problem = (facts_difference(case, sent, want)
                           or changelog_difference(case, changelog, want_changelog))
                if problem:
                    return problem
    return None


def entity_view(memory, turn: int, scenario: Scenario | None = None) -> str:
    """What an ``EntityMemory`` fed the whole conversation held true after ``turn``, the changes
    logged so far and, given the ``scenario``, which of its true facts the memory knows."""
    require_positive_int("turn", turn)
    lines = []
    if scenario is not None:
        if turn > len(scenario):
            raise ValueError(f"turn must be between 1 and {len(scenario)}, got {turn}")
        said = scenario.turns[turn - 1]
        lines += [*hanging(f"turn {turn} · {said.role}: ", said.content), ""]
    known = memory.get_relevant(as_of=turn)
    changes = [f"  {_changed(c)}" for c in memory.get_changelog(as_of=turn)]
    lines += [f"facts true after turn {turn}:", known or "(none yet)", "",
              "changelog:", *(changes or ["  (no changes yet)"])]
    if scenario is not None:
        truth = [f for f in scenario.facts if f.is_current(turn)]
        found = [fact_in_text(f, known) for f in truth]
        lines += ["", f"the scenario's facts true at turn {turn}: {sum(found)} of {len(truth)} known"]
        lines += [f"  {mark(k)} {f.label}" for f, k in zip(truth, found, strict=True)]
    return wrapped("\n".join(lines))


@answer_checker("extraction prediction")
def check_yields_a_fact(yields_a_fact: Any) -> str | None:
    """Exercise 4.1 (predict, then run): the numbers of the messages that yield a fact of confidence >= 0.7."""
    if not isinstance(yields_a_fact, (set, frozenset, list, tuple)) or \
            not all(isinstance(i, int) and 1 <= i <= len(PREDICT_MESSAGES) for i in yields_a_fact):
        return (f"write your prediction as a set of message numbers from 1 to {len(PREDICT_MESSAGES)}, "
                f"e.g. {{1, 2}}; got {yields_a_fact!r}")
    want = {i for i, message in enumerate(PREDICT_MESSAGES, 1) if rule_triples(message)}
    missed, extra = sorted(want - set(yields_a_fact)), sorted(set(yields_a_fact) - want)
    if not missed and not extra:
        return None
    return ("; ".join(part for part in (f"messages {missed} do yield a confident fact" if missed else "",
                                        f"messages {extra} yield none above 0.7" if extra else "") if part)
            + ". Read the facts printed above for why.")


def _found(question: str, extra_words: dict, memory: EntityMemory) -> set[tuple[str, str]]:
    added = [w for word in question.lower().replace("?", " ").split() for w in extra_words.get(word, [])]
    query = " ".join([question, *added])
    return {(f.entity, f.attribute) for f in memory.facts() if shared_words(query, f"{f.entity} {f.attribute} {f.value}")}


@answer_checker("query words")
def check_extra_words(extra_words: Any) -> str | None:
    """Exercise 4.3 (modify and observe): words added to a query (``{"query word": ["added", ...]}``) so that
    every question finds its fact, without dragging in more unrelated facts than plain overlap does."""
    if not isinstance(extra_words, dict) or not all(isinstance(k, str) and isinstance(v, (list, tuple))
                                                    and all(isinstance(w, str) for w in v)
                                                    for k, v in extra_words.items()):
        raise TypeError("expected a dict from a query word to a list of words to add, "
                        f"e.g. {{'log': ['session']}}; got {type(extra_words).__name__}")
    memory, problems = feed(EntityMemory(), load_scenario("project_30")), []
    for question, key in QUESTIONS.items():
        plain, found = _found(question, {}, memory), _found(question, extra_words, memory)
        noise = sorted(f"{e}.{a}" for e, a in found - plain - {key})
        if key not in found:
            problems.append(f"{question!r} still misses {key[0]}.{key[1]}")
        elif noise:
            problems.append(f"{question!r} now also drags in {', '.join(noise)}")
    return "; ".join(problems) or None


def plot_validity(memory, last_turn: int) -> Figure:
    """Each attribute of an ``EntityMemory`` as a row; each value as a bar from the turn it
    became true to the turn it was replaced (or ``last_turn``), coloured by whether it still holds.
    A value's label sits on its bar, or beside it where the bar is too short to hold it."""
    keys = list(dict.fromkeys((f.entity, f.attribute) for f in memory.values))
    fig, ax = figure(9, 0.34 * len(keys) + 1.4)
    colour = {True: OKABE_ITO[2], False: OKABE_ITO[5]}   # still true, replaced
    ax.set(title="When each value was true", xlabel="turn", xlim=(0.5, last_turn + 9))
    ax.set_yticks(range(len(keys)), [f"{e}.{a}" for e, a in keys], fontsize=8)
    ax.set_ylim(len(keys) - 0.5, -0.5)
    labels = []
    for row, key in enumerate(keys):
        values = [f for f in memory.values if (f.entity, f.attribute) == key]
        for position, f in enumerate(values):
            end = f.valid_to if f.valid_to is not None else last_turn + 1
            ax.barh(row, end - f.valid_from, left=f.valid_from, color=colour[f.valid_to is None],
                    alpha=0.8)
            label = ax.text(f.valid_from + 0.2, row, f.value, va="center", fontsize=8)
            labels.append((label, f.valid_from, end, position, len(values)))
    legend = [Patch(color=colour[True], label="still true"),
              Patch(color=colour[False], label="replaced")]
    ax.legend(handles=legend, loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8)
    fig.draw_without_rendering()          # lays the figure out, so a label's width is known
    for label, start, end, position, count in labels:
        right_edge = ax.transData.inverted().transform(label.get_window_extent())[1][0]
        if right_edge <= end:
            continue                      # it fits on its bar
        if position == count - 1:         # the last value: nothing to its right
            label.set_x(end + 0.2)
        elif position == 0:               # the first value: nothing to its left
            label.set(x=start - 0.2, ha="right")
    return fig
