"""Notebook 06's checkers, budget view and plot: packing a prompt under a token budget.

Taught in notebooks/06_hybrid_manager.ipynb.
"""
from __future__ import annotations

import functools
from collections.abc import Iterator
from numbers import Real
from typing import Any

import ipywidgets

from matplotlib.figure import Figure

from teachmem.lab.lesson_examples import turn_29_at_tight_budget
from teachmem.lab.replay import context_text, feed
from teachmem.lab.scenarios import Scenario, fact_in_text, load_scenario
from teachmem.lab.unseen_conversations import HYBRID_QUESTIONS, hybrid_conversation
from teachmem.lessons.building import (class_checker, first_context_difference, own_code_except_parts,
                                       show_source as show_source)
from teachmem.lessons.common import (OKABE_ITO, after_prediction as after_prediction, answer_checker,
                                     explore as explore, figure, hanging, mark, short, wrapped as wrapped)
from teachmem.memory.hybrid import Candidate, HybridMemoryManager, PromptTrace

# ---------------------------------------------------------------- your hybrid manager
#: (seed, token budget) of each unseen conversation: tight budgets, so the caps and the window cut.
_CASES = ((1, 650), (2, 700), (3, 650))


def _asked(manager: Any, said: list[tuple]) -> Iterator[tuple[int, str | None]]:
    """Tell ``manager`` what was said, message by message; at each checkpoint, the turn and the
    query context() is asked with there."""
    asked = {12: HYBRID_QUESTIONS[0], 17: None,
             len(said) - 3: HYBRID_QUESTIONS[2], len(said): HYBRID_QUESTIONS[1]}
    for role, content, turn, when in said:
        manager.add(role, content, turn=turn, timestamp=when)
        if turn in asked:
            yield turn, asked[turn]


def _shown(entry: tuple) -> str:
    return f"{'✓' if entry[2] else '✗'} {entry[0]} {short(str(entry[1]), 40)!r}"


def _system_difference(case: str, got: str, want: str) -> str | None:
    """One line naming the first line of the system message that differs, or None."""
    mine, theirs = got.splitlines(), want.splitlines()
    for index, line in enumerate(theirs):
        if index >= len(mine):
            return f"{case}: your system message stops before {short(line, 50)!r}"
        if mine[index] != line:
            return (f"{case}: the system message's line {index + 1} should be {short(line, 42)!r}, "
                    f"yours is {short(mine[index], 42)!r}")
    if len(mine) > len(theirs):
        return f"{case}: your system message goes on with {short(mine[len(theirs)], 50)!r}"
    return None


def _trace_difference(case: str, got: object, want: list[Candidate]) -> str | None:
    """One line naming the first trace entry that differs from the library's candidates."""
    if not isinstance(got, list) or not all(isinstance(e, tuple) and len(e) == 4 for e in got):
        return (f"{case}: self.trace should be a list of (source, text, kept, why) tuples, "
                f"got {short(repr(got), 40)}")
    wanted = [(c.source, c.text, c.kept) for c in want if not c.reason.startswith("outside")]
    for index, (entry, (source, text, kept)) in enumerate(zip(got, wanted, strict=False)):
        if entry[:3] != (source, text, kept):
            return (f"{case}: trace entry {index + 1} should be {_shown((source, text, kept))}, "
                    f"yours is {_shown(entry)}")
        if not isinstance(entry[3], str) or not entry[3].strip():
            return f"{case}: trace entry {index + 1} should say why, in words; got {entry[3]!r}"
    if len(got) != len(wanted):
        return f"{case}: your trace has {len(got)} entries; the packing considered {len(wanted)}"
    return None


@class_checker("hybrid manager")
def check_hybrid_class(cls: type) -> str | None:
    """Section 2: the learner's manager, on three unseen conversations at tight budgets, sends the
    same messages as ``HybridMemoryManager.context`` at four points of each, and its trace records
    the same candidates, kept or dropped, each with a reason. It may use the window, entity and
    semantic stores, but not the hybrid manager."""
    for seed, budget in _CASES:
        said = hybrid_conversation(seed)
        library = HybridMemoryManager(budget)
        packings = [library._pack(query, library.system_prompt, None)   # what context(query) sends, traced
                    for _, query in _asked(library, said)]
        answers = []
        with own_code_except_parts(HybridMemoryManager):
            mine = cls(token_budget=budget)
            for turn, query in _asked(mine, said):
                answers.append((turn, mine.context(query), list(mine.trace)))
        for (turn, sent, trace), packing in zip(answers, packings, strict=True):
            case = f"conversation {seed} (budget {budget}), turn {turn}"
            if not isinstance(sent, list) or not all(isinstance(m, dict) for m in sent):
                got = short(repr(sent), 40)
                return f"{case}: context() should return a list of messages, got {got}"
            want = packing.messages
            problem = (_system_difference(case, sent[0].get("content", "") if sent else "",
                                          want[0]["content"])
                       or first_context_difference(case, sent, want)
                       or _trace_difference(case, trace, packing.candidates))
            if problem:
                return problem
    return None


VIEW_WIDTH = 92          # budget_view's lines: what a projected cell shows without wrapping


@functools.lru_cache(maxsize=1)
def _default_turn_29() -> tuple[frozenset[int], frozenset[int]]:
    """At the default shares: the turns the window keeps (newest first, stopping at the first misfit)
    and the turns a window that skips each misfit and tries older messages would keep."""
    manager, trace = turn_29_at_tight_budget(HybridMemoryManager().fact_share)
    in_window, split = set(manager.window.window_turns()), trace.split()
    left, skipping = split["message"] + split["unused"], set[int]()
    for c in trace.candidates:                       # the window's messages come newest first
        if c.source == "message" and c.turn in in_window and c.tokens <= left:
            skipping.add(c.turn)
            left -= c.tokens
    return frozenset(c.turn for c in trace.kept("message") if c.turn is not None), frozenset(skipping)


@answer_checker("predicted_turns")
def check_predicted_turns(predicted_turns: object) -> str | None:
    """Exercise 6.1: which turns would the window keep at a budget of 700 if it skipped a message
    that does not fit and went on trying older ones? The answer is worked out from the manager's trace."""
    if not isinstance(predicted_turns, (set, frozenset, list, tuple)) or not all(
            isinstance(t, int) and not isinstance(t, bool) for t in predicted_turns):
        raise TypeError(f"predicted_turns must be a set of turn numbers such as {{27, 28}}, "
                        f"got {predicted_turns!r}")
    got = set(predicted_turns)
    stop, skip = _default_turn_29()
    if got == skip:
        return None
    if got == stop:
        return (f"turns {sorted(stop)} are what the manager keeps: it stops at the first message that does not "
                "fit. The skip rule passes over that message and tries every older one while tokens are left")
    return f"you predicted turns {sorted(got)}; the skip rule keeps turns {sorted(skip)}"


@answer_checker("fact_share")
def check_fact_share(fact_share: object) -> str | None:
    """Exercise 6.2: a ``fact_share`` with which the budget-700 prompt for turn 29 holds every fact the
    question needs, and the window still keeps every message it keeps at the default share."""
    if isinstance(fact_share, bool) or not isinstance(fact_share, Real):
        raise TypeError(f"fact_share must be a number between 0 and 0.85, got {fact_share!r}")
    scenario = load_scenario("project_30")
    _, trace = turn_29_at_tight_budget(float(fact_share))
    text = context_text(trace.messages)
    missing = [scenario.fact(i).value for i in scenario.questions[0].needs
               if not fact_in_text(scenario.fact(i), text)]
    if missing:
        facts = ", ".join(c.text for c in trace.kept("fact")) or "none"
        return (f"with fact_share {fact_share} the facts may use {trace.caps['fact']} tokens, and the prompt "
                f"still lacks {' and '.join(missing)} (facts kept: {facts})")
    lost = sorted(_default_turn_29()[0] - {c.turn for c in trace.kept("message") if c.turn is not None})
    if lost:
        return (f"with fact_share {fact_share} the prompt holds the facts, but the window lost turn(s) {lost}: "
                f"the facts ({trace.used('fact')} tokens) took their room")
    return None


def _why(c: Candidate, trace: PromptTrace, left: int) -> str:
    """A candidate's reason, short enough for a 1280×720 screen: "fits cap 24", "over cap 24", "full: 29 left"."""
    if c.source != "message":
        return f"{'fits' if c.kept else 'over'} cap {trace.caps[c.source]}"
    return "fits" if c.kept else f"full: {left} left"


def budget_view(scenario: Scenario, token_budget: int, turn: int | None = None, reserve_tokens: int = 500) -> str:
    """The hybrid manager's prompt for the user's message on ``turn`` (the scenario's question by
    default) under ``token_budget``: where the tokens go, and what was kept or dropped, and why.
    A line per candidate, its text (never cut) in a column 50 characters wide on the first line, then why;
    no line is longer than ``VIEW_WIDTH``."""
    turn = scenario.questions[0].turn if turn is None else turn
    if isinstance(turn, bool) or not isinstance(turn, int) or not 1 <= turn <= len(scenario):
        raise ValueError(f"turn must be an int between 1 and {len(scenario)}, got {turn!r}")
    if scenario.turns[turn - 1].role != "user":
        raise ValueError(f"turn must be a turn where the user speaks, got turn {turn} "
                         f"({scenario.turns[turn - 1].role})")
    manager = feed(HybridMemoryManager(token_budget, reserve_tokens=reserve_tokens), scenario, turn - 1)
    trace = manager.explain_prompt(scenario.turns[turn - 1].content)
    split = trace.split()
    lines = [f"budget {token_budget:,}: prompt {trace.prompt_tokens:,} tokens = fixed {split['fixed']} + facts "
             f"{split['fact']} + memories {split['memory']} + window {split['message']}",
             f"caps: facts {trace.caps['fact']}, memories {trace.caps['memory']};  unused {split['unused']:,}, "
             f"reply {split['reply']}"]
    outside, left = 0, split["message"] + split["unused"]      # what the window had to fill
    for c in trace.candidates:
        if c.source == "message" and c.reason.startswith("outside"):
            outside += 1
            continue
        prefix = f"{mark(c.kept)} {c.source:<7} turn {c.turn:>2} {c.tokens:>3} tok  "
        said = hanging(prefix, c.text, VIEW_WIDTH, first=50)
        lines += [f"{said[0]:<{len(prefix) + 50}}  {_why(c, trace, left)}", *said[1:]]
        left -= c.tokens if c.source == "message" and c.kept else 0
    lines.append(f"  ({outside} older messages are outside the sliding window: never candidates)")
    return "\n".join(lines)


def budget_explorer(scenario: Scenario, token_budget: int = 1000) -> ipywidgets.VBox:
    """``budget_view`` under a budget slider (600 to 3,500); the view scrolls below the slider, so the slider
    stays on a 1280×720 screen."""
    box = explore(budget_view, scenario=ipywidgets.fixed(scenario),
                  token_budget=ipywidgets.IntSlider(value=token_budget, min=600, max=3500, step=100,
                                                    description="budget"))
    box.children[-1].layout = ipywidgets.Layout(max_height="430px", overflow="auto")
    return box


# Each part of the budget: its colour (Okabe–Ito, or a grey) and its name in the legend.
_SPLIT = {"fixed": ("0.35", "system prompt + question"), "fact": (OKABE_ITO[2], "entity facts"),
          "memory": (OKABE_ITO[3], "long-term memories"), "message": (OKABE_ITO[0], "conversation window"),
          "unused": ("0.88", "unused"), "reply": (OKABE_ITO[1], "reserved for the reply")}


def plot_budget_split(traces: list, labels: list[str], title: str = "Where the token budget goes") -> Figure:
    """One stacked bar per packed prompt (``PromptTrace``): fixed parts, facts, memories, window, unused, reply.
    """
    fig, ax = figure(8, 0.45 * len(traces) + 1.6)
    for i, trace in enumerate(traces):
        left = 0
        for part, tokens in trace.split().items():
            colour, name = _SPLIT[part]
            ax.barh(i, tokens, left=left, color=colour, label=name if i == 0 else None)
            left += tokens
    ax.set_yticks(range(len(traces)), labels)
    ax.invert_yaxis()
    ax.set(xlabel="tokens", title=title)
    fig.legend(loc="outside lower center", ncol=3, fontsize=9)
    return fig
