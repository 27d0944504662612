"""Notebook 07's checkers and plots: every strategy side by side.

The comparison and extraction views it prints are the projected page's (``teachmem.app.comparison``).

Taught in notebooks/07_compare_strategies.ipynb.
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from numbers import Real

import numpy as np
from matplotlib.figure import Figure

from teachmem.app.comparison import comparison_view as comparison_view, extraction_view as extraction_view
from teachmem.app.comparison import fact_name
from teachmem.core.tokens import count_message_tokens
from teachmem.lab.replay import Replay, comparison_strategies, lesson_strategies
from teachmem.lab.replay import replay as replay_scenario
from teachmem.lab.scenarios import Turn, load_scenario
from teachmem.lessons.common import (OKABE_ITO, after_prediction as after_prediction, answer_checker,
                                     checker, differs, figure, first_problem)
from teachmem.memory.buffer import ConversationBuffer
from teachmem.memory.window import SlidingWindowMemory


# ---------------------------------------------------------------- checkers
#: Exercise 7.2's limit on what the window may send on turn 29.
WINDOW_TOKEN_LIMIT = 300


def _buffer_total(turns: Sequence[Turn]) -> int:
    """Tokens a buffer sends in all, summed over every turn, when it hears ``turns`` one by one."""
    buffer, total = ConversationBuffer(), 0
    for number, t in enumerate(turns, start=1):
        buffer.add(t.role, t.content, turn=number)
        total += count_message_tokens(buffer.context())
    return total


@answer_checker("predicted_ratio")
def check_predicted_ratio(predicted_ratio: object) -> str | None:
    """Exercise 7.1: if the 30 turns went on at the same pace to 60, how many times as many tokens would
    the buffer send in all? Measured by replaying the conversation twice over; within 0.5 passes."""
    if isinstance(predicted_ratio, bool) or not isinstance(predicted_ratio, Real):
        raise TypeError(f"predicted_ratio must be a number such as 1.5, got {predicted_ratio!r}")
    guess, turns = float(predicted_ratio), load_scenario("project_30").turns
    ratio = _buffer_total(turns * 2) / _buffer_total(turns)
    if abs(guess - ratio) <= 0.5:
        return None
    hint = (" Twice the turns, yes, but each of the later turns also sends a context twice as long."
            if abs(guess - 2) < 0.5 else "")
    return f"you predicted {predicted_ratio}; the buffer sends {ratio:.1f} times as many tokens in all.{hint}"


@answer_checker("window_settings")
def check_window_settings(window_settings: object) -> str | None:
    """Exercise 7.2: settings ``{"recent_k": …, "important_k": …}`` for a sliding window that answers the
    turn-29 question, never presents a replaced fact as current, and sends at most ``WINDOW_TOKEN_LIMIT``
    tokens on turn 29."""
    if not isinstance(window_settings, dict) or set(window_settings) != {"recent_k", "important_k"}:
        raise TypeError(f"window_settings must be a dict with recent_k and important_k, such as "
                        f"dict(recent_k=6, important_k=2), got {window_settings!r}")
    settings = dict(window_settings)
    scenario = load_scenario("project_30")
    record = replay_scenario(scenario, {"window": lambda: SlidingWindowMemory(**settings)})
    setting = f"with recent_k={settings['recent_k']} and important_k={settings['important_k']}"
    question = scenario.questions[0]
    leaks = [t for t in range(1, len(scenario) + 1) if record.at("window", t).leaks]
    if leaks:
        stale = ", ".join(sorted(scenario.fact(i).value for i in record.at("window", leaks[0]).leaks))
        return (f"{setting} the window presents {stale} as current from turn {leaks[0]} on "
                f"({len(leaks)} turns in all): a message pinned as important outlived the one that replaced it")
    step = record.at("window", question.turn)
    missing = [scenario.fact(i).value for i in question.needs if i not in step.holds]
    if missing:
        return f"{setting} the window leaks nothing, but on turn {question.turn} it lacks {' and '.join(missing)}"
    if step.tokens > WINDOW_TOKEN_LIMIT:
        return (f"{setting} the window answers turn {question.turn} and never leaks, but sends {step.tokens} "
                f"tokens there; at most {WINDOW_TOKEN_LIMIT} is the goal")
    return None


@functools.lru_cache(maxsize=1)
def _answer_replays() -> tuple[Replay, ...]:
    """Exercise 7.3's cases: notebook 07's replay, and two other conversations with the strategies in
    another order, where some stop answering before the end and the semantic store answers on and off."""
    plain = comparison_strategies()
    return (replay_scenario(load_scenario("project_30"), lesson_strategies()),
            *(replay_scenario(load_scenario(name), dict(reversed(plain.items())))
              for name in ("renovation_year", "offsite_changes")))


def _answers_from_problem(result: Replay, name: str, start: object) -> str | None:
    """What is wrong with ``start`` as the first turn from which ``name`` answers on every later turn,
    judged turn by turn with the replay's own ``answers``."""
    question, last = result.scenario.questions[0], len(result.scenario)
    case = f"{name!r} in the {result.scenario.name} conversation"
    if not result.answers(name, last, question):
        return differs(f"{case} (it does not answer on the last turn, {last})", start, None)
    if isinstance(start, bool) or not isinstance(start, int) or not 1 <= start <= last:
        return f"for {case} expected a turn between 1 and {last}, got {start!r}"
    gap = next((t for t in range(start, last + 1) if not result.answers(name, t, question)), None)
    if gap is not None:
        later = ": not on every later turn" if gap > start else ""
        return f"for {case} you said {start}, but it does not answer on turn {gap}{later}"
    if start > 1 and result.answers(name, start - 1, question):
        return f"for {case} you said {start}, but it already answers on turn {start - 1} and every turn after it"
    return None


@checker("answers_from")
def check_answers_from(fn: Callable) -> str | None:
    """Exercise 7.3: for each strategy, the first turn from which its context answers the scenario's first
    question on every later turn, or None when it does not answer on the last turn."""
    for result in _answer_replays():
        got = fn(result)
        if not isinstance(got, dict) or sorted(got) != sorted(result.strategies):
            return (f"for the {result.scenario.name} conversation expected a dict with one entry per strategy "
                    f"({', '.join(result.strategies)}), got {got!r}")
        problem = first_problem(_answers_from_problem(result, name, got[name]) for name in result.strategies)
        if problem:
            return problem
    return None


# ---------------------------------------------------------------- plots
# Each strategy's line has its own marker and dash as well as its colour: window (orange) and hybrid
# (vermilion) are neighbours in the Okabe–Ito palette.
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
LINE_STYLES = ("-", "--", "-.", ":", "-.", "-")


def plot_tokens_per_turn(replay: Replay, mark_turn: int | None = None) -> Figure:
    """Tokens each strategy would send after every turn of the replay."""
    fig, ax = figure(8, 3.8)
    turns = np.arange(1, len(replay.scenario) + 1)
    for i, name in enumerate(replay.strategies):
        ax.plot(turns, replay.tokens(name), marker=MARKERS[i % len(MARKERS)], ms=5,
                ls=LINE_STYLES[i % len(LINE_STYLES)], color=OKABE_ITO[i % len(OKABE_ITO)], label=name)
    if mark_turn:
        ax.axvline(mark_turn, color="0.5", ls="--", lw=0.8)
    ax.set(xlabel="turn", ylabel="tokens in the context", title="What each strategy sends, turn by turn")
    ax.legend(fontsize=9)
    return fig


def plot_recall_heatmap(replay: Replay) -> Figure:
    """Strategy × fact: the share of the turns a fact was true on where the context held it."""
    recall, facts = replay.recall(), replay.scenario.facts
    fig, ax = figure(9, 0.45 * len(replay.strategies) + 2.2)
    ax.imshow(recall, cmap="Greens", vmin=0, vmax=1, aspect="auto")
    for (i, j), value in np.ndenumerate(recall):
        ax.text(j, i, f"{value:.0%}", ha="center", va="center", fontsize=9,
                color="white" if value > 0.6 else "black")
    ax.set_xticks(range(len(facts)), [fact_name(f) for f in facts], rotation=40, ha="right", fontsize=9)
    ax.set_yticks(range(len(replay.strategies)), replay.strategies)
    ax.set_title("Recall: share of the turns each fact was true on where the context held it")
    return fig


def plot_model_calls(replay: Replay) -> Figure:
    """Model calls each strategy has made so far, after every turn."""
    fig, ax = figure(8, 3.4)
    turns = np.arange(1, len(replay.scenario) + 1)
    never = [name for name in replay.strategies if not replay.calls(name)[-1]]
    for i, name in enumerate(replay.strategies):
        if name not in never:
            ax.step(turns, replay.calls(name), where="post", color=OKABE_ITO[i % len(OKABE_ITO)], label=name)
    ax.set(xlabel="turn", ylabel="model calls so far", title="What remembering costs in model calls")
    ax.legend(title=f"no calls at all: {', '.join(never)}" if never else None, fontsize=9, title_fontsize=9)
    return fig
