"""Notebook 02's checkers, prediction, window view and plot: which messages a window keeps.

Taught in notebooks/02_sliding_window.ipynb.
"""
from __future__ import annotations

import random
import re
from collections.abc import Callable

import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from teachmem.lab.replay import feed
from teachmem.lab.scenarios import Fact, Scenario, fact_in_text, load_scenario
from teachmem.lab.unseen_conversations import WINDOW_SIZES, window_conversation
from teachmem.lessons.building import (class_checker, first_context_difference, own_code,
                                       show_source as show_source)
from teachmem.lessons.common import (OKABE_ITO, after_prediction as after_prediction, answer_checker,
                                     checker, differs, explore as explore, figure, first_problem,
                                     forbidding, mark, short)
from teachmem.memory.token_window import MIN_ROOM, TokenBudgetWindow
from teachmem.memory.window import SlidingWindowMemory

# Exercise 2.4: a scorer must still put these decisions and facts (none from a scenario) above small talk.
ABOVE_SMALL_TALK = [("We'll use Redis for the job queue.", "ok thanks"), ("Auth0 for login.", "haha nice"),
                    ("My manager is called Priya.", "I see"), ("I prefer tabs over spaces.", "sounds great")]

# Exercise 2.4: the same conversation with its tools and topics named otherwise. A rule about how people talk
# pins the same messages in it; a rule that looks for "pytest" or "tests" does not.
RENAMED = {"pytest": "unittest", "PostgreSQL": "SQLite", "MySQL": "MariaDB", "FastAPI": "Flask", "React": "Vue",
           "TypeScript": "Dart", "JWT": "OAuth", "Stripe": "PayPal", "Maya": "Lena", "tests": "checks",
           "test": "check", "fixtures": "helpers", "fixture": "helper", "coverage": "lint", "database": "datastore"}
_RENAMING = re.compile(r"\b(" + "|".join(RENAMED) + r")\b", re.IGNORECASE)


def renamed(text: str) -> str:
    """``text`` with the tools and topics of ``RENAMED`` named otherwise (whole words, any case)."""
    return _RENAMING.sub(lambda m: RENAMED.get(m.group(1), RENAMED.get(m.group(1).lower(), m.group(1))), text)


# (token_counts, budget) -> the positions kept, worked out by hand: drop the oldest until the rest fit.
KEPT_AFTER_TRIM = [(([], 10), []), (([5, 5, 5], 15), [0, 1, 2]), (([5, 5, 5], 14), [1, 2]), (([100], 50), []),
                   (([30, 1, 1], 2), [1, 2]), (([30, 1, 1], 1), [2]), (([10, 20, 30, 40], 70), [2, 3]),
                   (([1, 100, 1, 1], 99), [2, 3])]


def _kept_by_token_window(token_counts: list[int], budget: int) -> list[int]:
    """What ``TokenBudgetWindow`` keeps of messages weighing ``token_counts`` under ``budget``
    (at least ``MIN_ROOM``, and no message over it: the window would cut that one, not drop it)."""
    assert budget >= MIN_ROOM and all(0 < t <= budget for t in token_counts)
    window = TokenBudgetWindow(budget, 0, token_counter=lambda content: len(content.split()))
    for i, tokens in enumerate(token_counts, start=1):
        window.add("user", " ".join(["word"] * tokens), turn=i)
    return [turn - 1 for turn in window.window_turns()]


def facts_held(memory, scenario: Scenario, fact_ids: tuple[str, ...]) -> dict[str, bool]:
    """Whether what ``memory`` would send now mentions each fact."""
    text = " ".join(m["content"] for m in memory.context())
    return {fact_id: fact_in_text(scenario.fact(fact_id), text) for fact_id in fact_ids}


def _window_difference(cls: type, seed: int, recent_k: int, important_k: int) -> str | None:
    """The first way ``cls(recent_k, important_k)`` differs from ``SlidingWindowMemory``."""
    said = window_conversation(seed)
    library = SlidingWindowMemory(recent_k, important_k)
    wanted = []
    for role, content in said:
        library.add(role, content)
        wanted.append(library.context())
    with own_code():
        mine = cls(recent_k, important_k)
        for n, (role, content) in enumerate(said, start=1):
            mine.add(role, content, turn=n)
            case = f"unseen conversation {seed} (recent_k={recent_k}, important_k={important_k}), after message {n}"
            sent = mine.context()
            if not isinstance(sent, list):
                return f"{case}, context() should return a list of messages, got {type(sent).__name__}"
            want = wanted[n - 1]
            if sent != want and sorted(map(str, sent)) == sorted(map(str, want)):
                return (f"{case}, you send the right messages in the wrong order: the pins first, "
                        "as they were said, then the recent ones")
            problem = _sent_difference(case, sent, want, library)
            if problem:
                return problem
    return None


def _sent_difference(case: str, sent: list, want: list[dict], library: SlidingWindowMemory) -> str | None:
    """``first_context_difference``, and when two messages differ, the scores the library gave them:
    the reply weight or the tie rule is then plain to see."""
    problem = first_context_difference(case, sent, want)
    index = next((i for i, (mine, theirs) in enumerate(zip(sent, want, strict=False)) if mine != theirs), None)
    if problem is None or index is None:
        return problem
    scores = {(m.role, m.content): s for m, s in zip(library.all_messages, library.importance, strict=True)}
    theirs = scores.get((want[index]["role"], want[index]["content"]))
    mine = scores.get((sent[index].get("role"), sent[index].get("content"))) if isinstance(sent[index], dict) else None
    if theirs is None or mine is None:
        return problem
    rule = ("the same score: among equal scores the older message is pinned" if theirs == mine else
            "a reply (role \"assistant\") counts half its importance_rules score")
    return f"{problem} (the library scores them {theirs:.3g} and {mine:.3g}; {rule})"


@class_checker("your window")
def check_window_class(cls: type) -> str | None:
    """Section 2: after every message of five unseen conversations, the learner's window sends
    what ``SlidingWindowMemory(recent_k, important_k)`` sends (default scorer)."""
    return first_problem(_window_difference(cls, seed, recent_k, important_k)
                         for seed, (recent_k, important_k) in enumerate(WINDOW_SIZES, start=1))


@answer_checker("pins_prediction")
def check_pins_prediction(pins_prediction: set) -> str | None:
    """Exercise 2.1: which of the facts turn 29 needs does a window of 6 recent messages and 3 pins keep?"""
    if not isinstance(pins_prediction, (set, frozenset)):
        raise TypeError(f"write your prediction as a set of fact ids, like {{\"db_mysql\"}} or set(), got "
                        f"{type(pins_prediction).__name__}")
    scenario = load_scenario("project_30")
    needs = scenario.questions[0].needs
    unknown = sorted(str(x) for x in set(pins_prediction) - set(needs))
    if unknown:
        return (f"{', '.join(map(repr, unknown))} is not one of the two fact ids the question needs: write a set "
                f"of {' and '.join(map(repr, sorted(needs)))}, or set() for neither.")
    held = facts_held(feed(SlidingWindowMemory(6, 3), scenario, 29), scenario, needs)
    kept = {fact_id for fact_id, found in held.items() if found}
    if set(pins_prediction) == kept:
        return None
    return (f"you predicted {sorted(pins_prediction)}; three pins keep {sorted(kept)}. The pins go to the three "
            "highest scores among the older messages, and turn 7's pytest is not among them.")


@checker("kept_after_trim")
def check_kept_after_trim(fn: Callable) -> str | None:
    """Exercise 2.3: drop the oldest messages until the rest fit the budget (known answer: ``TokenBudgetWindow``)."""
    rng = random.Random(3)
    budgets = [rng.randint(50, 600) for _ in range(8)]
    cases = [([rng.randint(1, min(120, b)) for _ in range(rng.randint(1, 25))], b) for b in budgets]
    known = [((list(c), b), want) for (c, b), want in KEPT_AFTER_TRIM]
    known += [((c, b), _kept_by_token_window(c, b)) for c, b in cases]
    with forbidding((TokenBudgetWindow, "__init__")):
        return first_problem(differs(f"token_counts={c}, budget={b}", list(fn(list(c), b)), want)
                             for (c, b), want in known)


def _pinned_by(fn: Callable, scenario: Scenario, rename: Callable[[str], str]) -> SlidingWindowMemory:
    """The window at turn 29 with three pins, each message scored by ``fn`` on its text passed through ``rename``."""
    scores = {t.content: fn(rename(t.content)) for t in scenario.turns}
    return feed(SlidingWindowMemory(6, 3, scorer=lambda text: scores[text]), scenario, 29)


@checker("my_importance")
def check_my_importance(fn: Callable) -> str | None:
    """Exercise 2.4: a scorer (0 to 1, small talk below ``ABOVE_SMALL_TALK``) whose three pins keep
    both facts turn 29 asks about, and the same pins once the chat is ``renamed``."""
    scenario = load_scenario("project_30")
    for text in [t.content for t in scenario.turns]:
        score = fn(text)
        if isinstance(score, bool) or not isinstance(score, (int, float)) or not 0 <= score <= 1:
            return f"scores must be numbers between 0 and 1, got {score!r} for {short(text, 40)!r}"
    for high, low in ABOVE_SMALL_TALK:
        if not fn(high) > fn(low):
            return f"{high!r} should score above {low!r}, got {fn(high)} and {fn(low)}"
    memory = _pinned_by(fn, scenario, lambda text: text)
    pinned = memory.window_turns()[:-6]
    held = facts_held(memory, scenario, scenario.questions[0].needs)
    if not all(held.values()):
        missing = ", ".join(fact_id for fact_id, found in held.items() if not found)
        return f"with your scorer three pins keep turns {pinned}: the window still lacks {missing}"
    elsewhere = _pinned_by(fn, scenario, renamed).window_turns()[:-6]
    if elsewhere != pinned:
        return (f"your rule pins turns {pinned}, but {elsewhere} once the chat names its tools "
                "otherwise (pytest → unittest, tests → checks, MySQL → MariaDB …): make it about how people talk "
                "(a word that decides, a reason, a number), not about the words of this chat")
    return None


def window_view(scenario: Scenario, recent_k: int, important_k: int, turn: int | None = None,
                facts_first: bool = False) -> str:
    """The scenario after ``turn`` messages: which turns a window keeps, and which facts it still
    mentions (``fact_line``); ``facts_first`` puts the facts above the rows, under the sliders."""
    turn = len(scenario) if turn is None else turn
    memory = feed(SlidingWindowMemory(recent_k, important_k), scenario, turn)
    kept = set(memory.window_turns())
    header = [f"after turn {turn}: recent_k={recent_k}, important_k={important_k} "
              f"keeps {len(kept)} of {turn} messages"]
    rows = [f"{'■' if t.turn in kept else '·'} {t.turn:>2} {t.role:<9} {score:.2f}  {short(t.content)}"
            for t, score in zip(scenario.turns[:turn], memory.importance, strict=True)]
    window_text = " ".join(m["content"] for m in memory.context())
    facts = [fact_line(fact, fact_in_text(fact, window_text), turn) for fact in scenario.facts
             if fact.stated_turn <= turn]
    return "\n".join(header + facts + [""] + rows if facts_first else header + rows + facts)


def fact_line(fact: Fact, mentioned: bool, turn: int) -> str:
    """Whether the window mentions ``fact``: ✓ or ✗ for a fact still true at ``turn``; for a stale one
    (replaced since) ⚠ when the window still holds it, which a model may take for current, · when not."""
    if fact.is_current(turn):
        return f"{mark(mentioned)} window mentions {fact.value} (stated on turn {fact.stated_turn})"
    return (f"{'⚠' if mentioned else '·'} window mentions {fact.value} (stated on turn {fact.stated_turn}, "
            f"replaced on turn {fact.superseded_turn}: stale)")


def plot_window_membership(membership: np.ndarray, title: str, mark_turns: dict | None = None) -> Figure:
    """Which earlier turns (y) are in the context at each turn (x): ``membership[i, j]`` is True
    when message j+1 is sent after message i+1; ``mark_turns`` labels rows ({3: "PostgreSQL"})."""
    n = membership.shape[0]
    said = np.tril(np.ones((n, n), dtype=int))             # message j has been said once the conversation reaches i
    state = (said + membership.astype(int) * (said > 0)).T  # 0 not said yet, 1 said but not sent, 2 sent
    colours = ["white", "#D9D9D9", OKABE_ITO[0]]
    fig, ax = figure(6.5, 5)
    ax.imshow(state, origin="lower", cmap=ListedColormap(colours), aspect="auto",
              extent=(0.5, n + 0.5, 0.5, n + 0.5), vmin=0, vmax=2, interpolation="nearest")
    for turn, label in (mark_turns or {}).items():
        ax.axhline(turn, color=OKABE_ITO[5], lw=0.8, ls="--")
        ax.text(n + 0.6, turn, label, color="black", va="center", fontsize=9)
    ax.legend(handles=[Patch(facecolor=colours[2], label="sent with the request"),
                       Patch(facecolor=colours[1], label="said, no longer sent")],
              loc="upper left", fontsize=9, framealpha=1)
    ax.set(title=title, xlabel="conversation has reached turn", ylabel="message from turn")
    return fig
