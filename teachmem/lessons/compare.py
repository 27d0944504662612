"""Notebook 07's checkers, comparison and extraction views, and plots: every strategy side by side.

Taught in notebooks/07_compare_strategies.ipynb.
"""
from __future__ import annotations

import functools
import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from numbers import Real

import numpy as np
from matplotlib.figure import Figure

from teachmem.core.change import Change
from teachmem.core.tokens import count_message_tokens
from teachmem.lab.replay import Replay, comparison_strategies, replacements
from teachmem.lab.replay import replay as replay_scenario
from teachmem.lab.scenarios import Fact, Scenario, Turn, load_scenario
from teachmem.lessons.common import (OKABE_ITO, after_prediction as after_prediction, answer_checker, checker,
                                     differs, explore as explore, figure, first_problem, mark, short,
                                     wrapped as wrapped)
from teachmem.llm import importance_rules
from teachmem.memory.buffer import ConversationBuffer
from teachmem.memory.semantic import SemanticMemoryStore
from teachmem.memory.window import SlidingWindowMemory


# ---------------------------------------------------------------- the strategies notebook 07 compares
class JudgedSemanticStore(SemanticMemoryStore):
    """The semantic store, each chat message stored with the importance the rules give it (``add`` alone
    stores every message at 0.5). Notebook 07 builds it inline; the projected page uses this one.

    Taught in notebooks/07_compare_strategies.ipynb.
    """

    def store(self, text, memory_type="general", importance=None, timestamp=None, **metadata):
        if importance is None:              # add() stores "role: content" and passes no importance
            importance = importance_rules(text.partition(": ")[2])
        return super().store(text, memory_type, importance, timestamp, **metadata)


def lesson_strategies() -> dict[str, Callable[[], object]]:
    """``comparison_strategies()`` with the judged semantic store: what notebook 07 and ``make app`` replay.

    Taught in notebooks/07_compare_strategies.ipynb.
    """
    return {**comparison_strategies(), "semantic": JudgedSemanticStore}


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


def _window_problem(record: Replay, setting: str) -> str | None:
    """What keeps a window's replay from passing exercise 7.2, or None; ``setting`` names the settings."""
    scenario, question = record.scenario, record.scenario.questions[0]
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


@answer_checker("window_settings")
def check_window_settings(window_settings: object) -> str | None:
    """Exercise 7.2: settings ``{"recent_k": …, "important_k": …}`` for a sliding window that answers the
    turn-29 question, never presents a replaced fact as current, and sends at most ``WINDOW_TOKEN_LIMIT``
    tokens on turn 29."""
    if not isinstance(window_settings, dict) or set(window_settings) != {"recent_k", "important_k"}:
        raise TypeError(f"window_settings must be a dict with recent_k and important_k, such as "
                        f"dict(recent_k=6, important_k=2), got {window_settings!r}")
    settings = dict(window_settings)
    record = replay_scenario(load_scenario("project_30"), {"window": lambda: SlidingWindowMemory(**settings)})
    return _window_problem(record, f"with recent_k={settings['recent_k']} and important_k={settings['important_k']}")


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
        return f"for {case} you said {start}, but it does not answer on turn {gap}: not on every later turn"
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


# ---------------------------------------------------------------- the comparison view
def _context_lines(context: Sequence[dict], width: int = 72, head: int = 2, tail: int = 2) -> list[str]:
    """A context, shortened: each memory block on up to three lines, then the first and last messages."""
    lines: list[str] = []
    for m in context:
        if m["role"] == "system":
            wrapped = textwrap.wrap(" ".join(m["content"].split()), width - 13) or [""]
            lines += [f"   {'system' if i == 0 else '':<10} {w}" for i, w in enumerate(wrapped[:3])]
            lines[-1] += " …" if len(wrapped) > 3 else ""
    talk: list[dict | None] = [m for m in context if m["role"] != "system"]
    shown = talk if len(talk) <= head + tail + 1 else talk[:head] + [None] + talk[-tail:]
    for said in shown:
        lines.append(f"   … {len(talk) - head - tail} more messages …" if said is None
                     else f"   {said['role']:<10} {short(said['content'], width - 13)}")
    return lines or ["   (nothing yet)"]


def _maybe(flag: bool | None) -> str:
    return "–" if flag is None else mark(flag)


@dataclass(frozen=True)
class ComparisonRow:
    """One strategy after one turn, as the comparison shows it (``None``: cannot be judged yet)."""

    strategy: str
    tokens: int
    calls: int
    knows: bool | None          # has the scenario's first change reached its context?
    answers: bool | None        # does its context hold what the scenario's first question needs?
    stale: tuple[str, ...]      # the superseded facts it still sends as current
    context: tuple[dict, ...]


def comparison_rows(replay: Replay, turn: int) -> list[ComparisonRow]:
    """Every strategy of ``replay`` after ``turn``, looked up, not recomputed; a bad turn is a ValueError.

    What ``comparison_view`` prints and ``teachmem.lessons.projector.comparison_html`` shows.
    """
    scenario = replay.scenario
    replay.at(replay.strategies[0], turn)   # a bad turn fails here, with a clear message
    question, change = scenario.questions[0], first_change(scenario)
    rows = []
    for name in replay.strategies:
        step = replay.at(name, turn)
        rows.append(ComparisonRow(name, step.tokens, step.model_calls, replay.reflects(name, turn, change),
                                  replay.answers(name, turn, question),
                                  tuple(scenario.fact(i).value for i in sorted(step.leaks)), step.context))
    return rows


def first_change(scenario: Scenario) -> Fact:
    """The scenario's first superseded fact: the change the comparison follows (PostgreSQL on turn 17)."""
    return next(f for f in scenario.facts if f.superseded_turn is not None)


def question_needs(scenario: Scenario) -> str:
    """What the scenario's first question needs, in words: "pytest (turn 7) and MySQL (turn 17)"."""
    return " and ".join(f"{scenario.fact(i).value} (turn {scenario.fact(i).stated_turn})"
                        for i in scenario.questions[0].needs)


def change_words(scenario: Scenario) -> str:
    """The change the comparison follows, in words: "PostgreSQL→MySQL"."""
    change = first_change(scenario)
    return f"{change.value}→{', '.join(f.value for f in replacements(scenario, change))}"


def comparison_view(replay: Replay, turn: int) -> str:
    """Every strategy of ``replay`` after ``turn``: its cost, whether it knows of the change and can
    answer the scenario's question, and the context it would send, shortened.

    The change is the scenario's first superseded fact (PostgreSQL → MySQL on
    turn 17), the question its first question (turn 29). "–" means it cannot
    be judged yet. Only looks the replay up: nothing is recomputed.

    Taught in notebooks/07_compare_strategies.ipynb.
    """
    rows, scenario = comparison_rows(replay, turn), replay.scenario
    question, said = scenario.questions[0], scenario.turns[turn - 1]
    change_head = f"knows {change_words(scenario)}"
    lines = [f"after turn {turn} of {len(scenario)} · {said.role}: {short(said.content, 76)}",
             f"the turn-{question.turn} question needs {question_needs(scenario)}", "",
             f"{'strategy':<10}{'tokens':>7}{'calls':>7}  {change_head:<24}{'answers turn ' + str(question.turn):<18}"
             "stale facts sent"]
    lines += [f"{r.strategy:<10}{r.tokens:>7,}{r.calls:>7}  {_maybe(r.knows):<24}{_maybe(r.answers):<18}"
              f"{', '.join(r.stale) or '–'}" for r in rows]
    for r in rows:
        lines += ["", f"── {r.strategy} would send {r.tokens:,} tokens:", *_context_lines(r.context)]
    return "\n".join(lines)


# ---------------------------------------------------------------- the extraction view
EXTRACTORS = ("buffer", "summary", "entity", "semantic")


def highlight(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """``text`` with the characters of each ``(start, end)`` span between « and »; overlapping spans merge.

    >>> highlight("We moved to MySQL last week", [(12, 17)])
    'We moved to «MySQL» last week'
    """
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if not 0 <= start <= end <= len(text):
            raise ValueError(f"span must lie within the message's {len(text)} characters, got {(start, end)}")
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    out, at = [], 0
    for start, end in merged:
        out += [text[at:start], "«", text[start:end], "»"]
        at = end
    return "".join([*out, text[at:]])


def change_line(change: Change) -> str:
    """One ``Change`` as a line: event, id, text, what an UPDATE replaced, and why."""
    was = f"  (was: {change.previous})" if change.previous is not None else ""
    why = f"  · {change.reason}" if change.reason else ""
    return f"{change.event:<6} {change.id}: {change.text}{was}{why}"


def _wrapped(text: str, width: int) -> list[str]:
    return textwrap.wrap(text, width, initial_indent="   ", subsequent_indent="     ")


def _extractor_lines(items: Sequence[Change | str], message: str | None, width: int) -> list[str]:
    lines = [line for item in items
             for line in _wrapped(change_line(item) if isinstance(item, Change) else item, width)]
    spans = [c.span for c in items if isinstance(c, Change) and c.span is not None]
    if spans and message is not None:
        lines += _wrapped("in the message: " + highlight(message, spans), width)
    return lines or ["   (nothing: this write changed nothing)"]


def extraction_row(extracted: Mapping[int, Mapping[str, Sequence[Change | str]]], turn: int,
                   ) -> list[tuple[str, Sequence[Change | str]]]:
    """(extractor, what its write of ``turn``'s message reported), in the order of ``EXTRACTORS`` first.

    A turn that ``extracted`` does not have is a ValueError.
    """
    if turn not in extracted:
        raise ValueError(f"turn must be between 1 and {len(extracted)}, got {turn!r}")
    row = extracted[turn]
    return [(n, row[n]) for n in [*(n for n in EXTRACTORS if n in row), *(n for n in row if n not in EXTRACTORS)]]


def extraction_view(extracted: Mapping[int, Mapping[str, Sequence[Change | str]]], turn: int,
                    scenario: Scenario | None = None, width: int = 96) -> str:
    """What each system did with the message of ``turn``, from ``teachmem.lab.replay.extractions``.

    ``extracted`` maps turn → extractor name → the ``Change`` records that
    extractor's write returned for that turn's message. Each Change is listed
    (ADD / UPDATE / DELETE / NOOP, its id, its text and what an UPDATE
    replaced); given the ``scenario``, the words each Change's ``span`` points
    at (character offsets into the message's content) are marked «like this»
    in the message. Plain lines of text are shown as they are.

    Taught in notebooks/07_compare_strategies.ipynb.
    """
    rows = extraction_row(extracted, turn)
    message = scenario.turns[turn - 1].content if scenario is not None else None
    lines = [f"the message of turn {turn}:"]
    for name, items in rows:
        lines += ["", f"── {name}", *_extractor_lines(items, message, width)]
    return "\n".join(lines)


# ---------------------------------------------------------------- plots
# Each strategy's line has its own marker and dash as well as its colour: window (orange) and hybrid
# (vermilion) are neighbours in the Okabe–Ito palette.
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
LINE_STYLES = ("-", "--", "-.", ":", "-.", "-")


def fact_name(fact: Fact) -> str:
    """A fact as a chart names it: its value, or what it is ("payments") when the value is long."""
    return fact.value if len(fact.value) <= 16 else fact.attribute.replace("_", " ")


def plot_tokens_per_turn(replay: Replay, mark_turn: int | None = None) -> Figure:
    """Tokens each strategy would send after every turn of the replay.

    Taught in notebooks/07_compare_strategies.ipynb.
    """
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
    """Strategy × fact: the share of the turns a fact was true on where the strategy's context held it.

    Taught in notebooks/07_compare_strategies.ipynb.
    """
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
    """Model calls each strategy has made so far, after every turn.

    Taught in notebooks/07_compare_strategies.ipynb.
    """
    fig, ax = figure(8, 3.4)
    turns = np.arange(1, len(replay.scenario) + 1)
    never = [name for name in replay.strategies if not replay.calls(name)[-1]]
    for i, name in enumerate(replay.strategies):
        if name not in never:
            ax.step(turns, replay.calls(name), where="post", color=OKABE_ITO[i % len(OKABE_ITO)], label=name)
    ax.set(xlabel="turn", ylabel="model calls so far", title="What remembering costs in model calls")
    ax.legend(title=f"no calls at all: {', '.join(never)}" if never else None, fontsize=9, title_fontsize=9)
    return fig
