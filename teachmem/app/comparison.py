"""The comparison page's model: every strategy side by side after a turn, and what each extracted.

``comparison_view`` and ``extraction_view`` print it as text (notebook 07, through its lesson
module); ``teachmem.app.projector`` draws the same rows as HTML and a chart for ``make app``.
Each view only looks a ``Replay`` up: nothing is recomputed. ``cache_costs`` is what each strategy
has spent after each turn, with and without prompt caching (notebook 13).

Taught in notebooks/07_compare_strategies.ipynb.
"""
from __future__ import annotations

import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate

from teachmem.core.change import Change
from teachmem.lab.evaluation.prompt_cache import Price, bill, load_prices, requests, system_prompt
from teachmem.lab.replay import Replay, replacements
from teachmem.lab.scenarios import Fact, Scenario
from teachmem.lessons.common import mark, short


# ---------------------------------------------------------------- the comparison view
def checked_turn(replay: Replay, turn: object) -> int:
    """``turn`` if it is a turn of ``replay`` (an int from 1 to its length), else a clear ValueError."""
    if isinstance(turn, bool) or not isinstance(turn, int) or not 1 <= turn <= len(replay.scenario):
        raise ValueError(f"turn must be an int between 1 and {len(replay.scenario)}, got {turn!r}")
    return turn



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

    What ``comparison_view`` prints and ``teachmem.app.projector.comparison_html`` shows.
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


def fact_name(fact: Fact) -> str:
    """A fact as a chart names it: its value, or what it is ("payments") when the value is long."""
    return fact.value if len(fact.value) <= 16 else fact.attribute.replace("_", " ")


# ---------------------------------------------------------------- what each strategy has spent
def cache_costs(scenario: Scenario, strategies: Mapping[str, Callable[[], object]],
                price: Price | None = None, system: str | None = None,
                ) -> dict[str, tuple[list[float], list[float]]]:
    """US cents each strategy has spent after each turn of ``scenario``: (without caching, with caching).

    Every model call a fresh strategy makes (its replies' prompts, after ``system``, and its own calls:
    summaries, judged importance) is billed by ``teachmem.lab.evaluation.prompt_cache.bill`` under
    ``price``, by default the price table's last row; ``system`` is the stated system prompt by default.

    Taught in notebooks/13_what_memory_costs.ipynb.
    """
    price = load_prices()[-1] if price is None else price
    system = system_prompt() if system is None else system
    start = scenario.timestamp(1)
    turn_at = {(scenario.timestamp(t.turn) - start).total_seconds(): t.turn for t in scenario.turns}
    costs = {}
    for name, make in strategies.items():
        sent = requests(scenario, make, system)
        spent = []
        for caching in (False, True):
            per_turn = [0.0] * len(scenario)
            for (_, at, _), billed in zip(sent, bill(sent, price, caching=caching), strict=True):
                per_turn[turn_at[at] - 1] += 100 * billed.cost
            spent.append(list(accumulate(per_turn)))
        costs[name] = (spent[0], spent[1])
    return costs


def cost_view(costs: Mapping[str, tuple[Sequence[float], Sequence[float]]], turn: int) -> str:
    """What each strategy of ``costs`` (from ``cache_costs``) has spent after ``turn``: without
    caching, with caching, and their ratio.

    Taught in notebooks/13_what_memory_costs.ipynb.
    """
    last = min(len(off) for off, _ in costs.values())
    if isinstance(turn, bool) or not isinstance(turn, int) or not 1 <= turn <= last:
        raise ValueError(f"turn must be an int from 1 to {last}, got {turn!r}")
    lines = [f"after turn {turn}, US cents spent   {'no caching':>10} {'caching':>8}   ratio"]
    for name, (off, on) in costs.items():
        lines.append(f"  {name:<30} {off[turn - 1]:>10.2f} {on[turn - 1]:>8.2f}   "
                     f"{on[turn - 1] / off[turn - 1]:.2f}")
    return "\n".join(lines)
