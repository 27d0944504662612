"""Notebook 08's checkers, probe view and plots: measuring what a memory remembers.

Taught in notebooks/08_evaluate_memory.ipynb.
"""
from __future__ import annotations

import textwrap
from collections.abc import Callable

from matplotlib.figure import Figure

from teachmem.lab.evaluation.scenario_scores import Scoreboard, default_strategies, evaluate
from teachmem.lab.replay import replay
from teachmem.lab.scenarios import DATA, Scenario, load_scenario
from teachmem.lessons.common import (OKABE_ITO, OUTPUT_WIDTH, after_prediction as after_prediction, answer_checker,
                                     checker, differs, explore as explore, figure, first_problem, mark,
                                     prediction_problem, wrapped as wrapped)


# ---------------------------------------------------------------- exercise 8.1: a prediction
@answer_checker("still_sends")
def check_still_sends(still_sends: object) -> str | None:
    """Exercise 8.1: which strategies still send what Noor asked to forget (``forget_address``'s
    deletion leakage above 0)?"""
    board = evaluate(default_strategies(), "forget_address", progress=False)
    actual = {s for s in board.strategies if board.get(s, "forget_address").deletion_leakage}
    return prediction_problem(still_sends, actual,
                              "A strategy that keeps the raw words (every message, a running text written from "
                              "them, or a message pinned as important) sends them again: nothing acts on the "
                              "request. The others leave the address out because they never extracted it or "
                              "never ranked it among the best matches, not because they were asked.")


# ---------------------------------------------------------------- exercise 8.2: turns to forget
# (holds_by_turn, deleted_on) -> the answer, worked out by hand; a turn's set lists the facts its context mentions.
TURNS_TO_FORGET: list[tuple[tuple[dict[int, set[str]], dict[str, int]], dict[str, int | None]]] = [
    (({1: {"a"}, 2: {"a"}, 3: set(), 4: set()}, {"a": 2}), {"a": 1}),          # gone from turn 3: one turn late
    (({1: {"a"}, 2: set(), 3: set()}, {"a": 2}), {"a": 0}),                     # gone on the request's turn
    (({1: {"a"}, 2: {"a"}, 3: {"a"}}, {"a": 2}), {"a": None}),                  # still there at the end
    (({1: {"a"}, 2: set(), 3: {"a"}, 4: set(), 5: set()}, {"a": 2}), {"a": 2}),  # back on turn 3: gone for good on 4
    (({1: {"a", "b"}, 2: {"a", "b"}, 3: {"b"}, 4: {"b"}, 5: set()}, {"a": 2, "b": 3}), {"a": 1, "b": 2}),
    (({1: set(), 2: set()}, {"a": 1}), {"a": 0}),                               # never mentioned at all
    (({1: {"a"}, 2: {"a"}}, {"a": 2}), {"a": None}),                            # asked on the last turn, still there
    (({10: {"x"}, 20: {"x"}, 30: set()}, {"x": 20}), {"x": 10}),                # turns need not be 1, 2, 3
    (({1: {"a", "b"}, 2: {"b"}}, {}), {}),                                      # nothing to forget
]


@checker("turns_to_forget")
def check_turns_to_forget(fn: Callable) -> str | None:
    """Exercise 8.2: for each forgotten fact, how many turns after the request the context last
    mentioned it (``TURNS_TO_FORGET``)."""
    return first_problem(differs(f"holds_by_turn={ {t: sorted(h) for t, h in holds.items()} }, deleted_on={deleted}",
                                 fn({t: set(h) for t, h in holds.items()}, dict(deleted)), want)
                         for (holds, deleted), want in TURNS_TO_FORGET)


# ---------------------------------------------------------------- exercise 8.3: a rule that forgets
#: A second, short conversation the forgetting rule must also handle (different words, same requests).
RAVI = DATA.parent / "exercises" / "ravi_desk.json"


def _forgetting_problem(make_memory: Callable, scenario: Scenario) -> str | None:
    """What goes wrong for one scenario: a forgotten fact still sent, or a probe no longer answered."""
    steps = replay(scenario, {"yours": make_memory}).steps["yours"]
    for fact in (f for f in scenario.facts if f.deleted):
        late = [s.turn for s in steps if s.turn >= (fact.superseded_turn or 0) and fact.id in s.holds]
        if late:
            request = scenario.turns[(fact.superseded_turn or 1) - 1].content
            return (f"in {scenario.name}, the context on turn {late[0]} still mentions {fact.value!r}, which the "
                    f"user asked to forget on turn {fact.superseded_turn}: {request!r}. Does a rule catch "
                    f"the words of that request, and does its pattern match how the detail was written?")
    for q in scenario.questions:
        missing = [scenario.fact(i).value for i in q.needs if i not in steps[q.turn - 1].holds]
        if missing:
            return (f"in {scenario.name}, the question on turn {q.turn} no longer finds {missing[0]!r}: "
                    f"a pattern removes more than the detail it was written for")
    return None


@checker("ForgetfulNotes")
def check_forgetful_notes(make_memory: Callable) -> str | None:
    """Exercise 8.3: ``make_memory()`` builds a memory that, in ``forget_address`` and ``RAVI``,
    stops sending what the user asked it to forget, and still answers every probe."""
    return first_problem(_forgetting_problem(make_memory, load_scenario(s)) for s in ("forget_address", RAVI))


def _number(value: float | None) -> float:
    """A metric for a plot: None (nothing to measure) becomes NaN, which draws nothing."""
    return float("nan") if value is None else value


def _rows(items: list[str], width: int = 96) -> list[str]:
    """``items`` on rows of at most ``width``, three spaces apart and indented three, wrapped between items,
    never inside one."""
    rows, row = [], ""
    for item in items:
        if row and len(row) + 3 + len(item) > width:
            rows.append(row)
            row = ""
        row += "   " + item
    return rows + ([row] if row else [])


def probe_view(board: Scoreboard, scenario: str, strategy: str) -> str:
    """How ``strategy`` did on each probe of ``scenario``, and on every fact asked at the end: ✓/✗
    whether the context mentions a fact it needs, "(sent)"/"(left out)" for one it must avoid."""
    result, facts = board.get(strategy, scenario), board.bank[scenario]
    value = {f.id: f.value for f in facts.facts}
    answered = sum(p.answered for p in result.probes)
    lines = [f"{strategy} on {scenario}: {answered} of {len(result.probes)} probes answered, "
             f"{result.tokens_per_turn:.0f} tokens a turn, {result.model_calls} model calls"]
    for p in result.probes:
        verdict = "answered" if p.answered else "not answered"
        lines.append(textwrap.fill(f"turn {p.turn:>2}, {verdict}: {' '.join(p.question.split())}", OUTPUT_WIDTH,
                                   subsequent_indent="      "))
        lines += [f"   needs{row}" for row in _rows([f"{mark(i in p.mentioned)} {value[i]}" for i in p.needs], 91)]
        if p.avoid:
            lines += [f"   avoid{row}" for row in _rows([f"{value[i]} ({'sent' if i in p.mentioned else 'left out'})"
                                                          for i in p.avoid], 91)]
        others = len(p.mentioned - set(p.needs))
        lines.append(f"   the context mentions {len(p.mentioned)} fact{'' if len(p.mentioned) == 1 else 's'}, "
                     f"{others} not needed: "
                     f"coverage {p.coverage:.2f}, precision {p.precision:.2f}")
    lines.append(f"after the last turn, asked each current fact's own question: "
                 f"{sum(result.end.values())} of {len(result.end)} brought up")
    return "\n".join(lines + _rows([f"{mark(ok)} {value[i]}" for i, ok in result.end.items()]))


def plot_cost_vs_quality(board: Scoreboard, quality: str = "probe_accuracy") -> Figure:
    """Tokens per turn (x, the cost) against ``quality`` (y), one named point per strategy."""
    fig, ax = figure(7, 4.2)
    for name in board.strategies:
        m = board.metrics(name)
        x, y = _number(m["tokens_per_turn"]), _number(m[quality])
        ax.scatter(x, y, s=60, color=OKABE_ITO[0])
        ax.annotate(name, (x, y), textcoords="offset points", xytext=(6, 5), fontsize=11)
    ax.set_xlabel("tokens per turn (mean over scenarios)  →  costs more", fontsize=11)
    ax.set_ylabel(f"{quality.replace('_', ' ')}  →  remembers more", fontsize=11)
    ax.set(ylim=(-0.05, 1.1))
    ax.set_title("What a strategy costs against what it remembers (best: top left)", fontsize=12)
    ax.tick_params(labelsize=10)
    return fig
