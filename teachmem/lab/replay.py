"""Replay a scenario through memory strategies, turn by turn.

``add_turn``, ``feed`` and ``window_membership`` drive one strategy (taught in
notebooks/02_sliding_window.ipynb). ``replay`` drives many side by side and
records, for every strategy after every turn, the Changes its write
reported, what it would send and what that context knows; ``extractions``
keeps the Changes of each message's write. The comparison widgets only look
those records up (taught in notebooks/07_compare_strategies.ipynb).
``agent_turns`` records what the memory agent did on each turn (notebook 11).

What a context *knows* is measured with the scenario's ground truth:

* it **holds** a fact when the fact has been stated by then and the context
  mentions it (``fact_in_text``: any keyword, whole words, any case);
* it **leaks** a superseded fact when, on or after the turn that replaced it,
  the context mentions the old fact and none of its replacements. The
  replacements are the facts about the same entity stated on that turn
  (PostgreSQL's is MySQL, stated on turn 17). A context that says "switch to
  MySQL instead of PostgreSQL", or a changelog "PostgreSQL → MySQL", carries
  the old value *with* its correction, so it does not leak; a pinned "I want
  PostgreSQL" without any MySQL does.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import datetime
from types import SimpleNamespace
from typing import Any, Callable, Mapping

import numpy as np

from teachmem.core.change import Change
from teachmem.core.clock import ManualClock
from teachmem.core.tokens import TokenCounter, count_message_tokens, estimate_tokens
from teachmem.lab.scenarios import Fact, Question, Scenario, fact_in_text, load_scenario
from teachmem.memory.agent import MemoryAgent
from teachmem.memory.buffer import ConversationBuffer
from teachmem.memory.entity import EntityMemory
from teachmem.memory.hybrid import HybridMemoryManager
from teachmem.memory.judged_semantic import JudgedSemanticStore
from teachmem.memory.protocol import Clocked, Memory, model_calls
from teachmem.memory.semantic import SemanticMemoryStore
from teachmem.memory.summary import SummaryMemory
from teachmem.memory.window import SlidingWindowMemory


def add_turn(memory, scenario: Scenario, turn: int) -> list[Change]:
    """Tell ``memory`` what was said on ``turn`` of ``scenario``, with its turn number and time.

    A memory with a simulated clock (``memory.clock``, a ``ManualClock``) has it
    moved forward to that time first, so whatever it ranks by age (decay)
    replays as the conversation's own calendar says. Returns the Changes the
    write reported (none from a strategy whose ``add`` returns nothing, such
    as one written before writes said what they changed).
    Taught in notebooks/03_summary_memory.ipynb.
    """
    t, when = scenario.turns[turn - 1], scenario.timestamp(turn)
    advance_clock(memory, when)
    return list(memory.add(t.role, t.content, turn=t.turn, timestamp=when) or [])


def advance_clock(memory, when: datetime) -> None:
    """Move the simulated clock of ``memory`` (``Clocked``, a ``ManualClock``) forward to ``when``;
    a memory on another clock, or on none, is left alone."""
    if isinstance(memory, Clocked) and isinstance(memory.clock, ManualClock) and memory.clock() < when:
        memory.clock.set(when)


def feed(memory, scenario: Scenario, upto: int | None = None):
    """Add the scenario's turns 1..``upto`` (all by default) to ``memory``; return it."""
    for t in scenario.turns[:upto]:
        add_turn(memory, scenario, t.turn)
    return memory


def window_membership(scenario: Scenario, make_memory) -> np.ndarray:
    """``M[i, j]`` is True when turn j+1 is in the window after turn i+1 arrived.

    ``make_memory()`` builds a fresh strategy that has ``window_turns()``.
    """
    n = len(scenario)
    membership = np.zeros((n, n), dtype=bool)
    memory = make_memory()
    for t in scenario.turns:
        add_turn(memory, scenario, t.turn)
        membership[t.turn - 1, [k - 1 for k in memory.window_turns()]] = True
    return membership


# ------------------------------------------------------------ what a context knows
def context_text(context: list[dict] | tuple[dict, ...]) -> str:
    """All message contents of a context, one per line: what the fact checks read."""
    return "\n".join(m["content"] for m in context)


def latest_user_message(scenario: Scenario, turn: int) -> str | None:
    """The last thing the user said on or before ``turn``: the query a strategy ranks by."""
    return next((t.content for t in reversed(scenario.turns[:turn]) if t.role == "user"), None)


def replacements(scenario: Scenario, fact: Fact) -> tuple[Fact, ...]:
    """The facts that replaced ``fact``: same entity, stated on the turn it was superseded."""
    if fact.superseded_turn is None:
        return ()
    return tuple(f for f in scenario.facts
                 if f.entity == fact.entity and f.stated_turn == fact.superseded_turn and f is not fact)


def held_facts(scenario: Scenario, text: str, turn: int) -> frozenset[str]:
    """Ids of the facts stated by ``turn`` that ``text`` mentions."""
    return frozenset(f.id for f in scenario.facts if f.stated_turn <= turn and fact_in_text(f, text))


def leaked_facts(scenario: Scenario, text: str, turn: int) -> frozenset[str]:
    """Ids of the facts superseded by ``turn`` that ``text`` still presents as current.

    The rule (see the module docstring): the old fact is mentioned and none of
    its replacements is. Taught in notebooks/07_compare_strategies.ipynb.
    """
    return frozenset(
        f.id for f in scenario.facts
        if f.superseded_turn is not None and f.superseded_turn <= turn and fact_in_text(f, text)
        and not any(fact_in_text(r, text) for r in replacements(scenario, f)))


# ------------------------------------------------------------ many strategies, every turn
@dataclass(frozen=True)
class Step:
    """One strategy, right after one turn: what the turn changed, what it would send and what that knows."""

    turn: int
    context: tuple[dict, ...]
    tokens: int
    model_calls: int            # made so far, summed over the turns up to this one
    holds: frozenset[str]       # ids of stated facts the context mentions
    leaks: frozenset[str]       # ids of superseded facts it presents as current
    changes: tuple[Change, ...] = ()   # what the strategy's write reported for this turn

    @property
    def text(self) -> str:
        return context_text(self.context)


@dataclass(frozen=True)
class Replay:
    """The record of ``replay``: one ``Step`` per strategy and turn, computed once."""

    scenario: Scenario
    steps: Mapping[str, tuple[Step, ...]]   # strategy name -> its steps, turn 1 first

    @property
    def strategies(self) -> list[str]:
        return list(self.steps)

    def at(self, strategy: str, turn: int) -> Step:
        """The step of ``strategy`` after ``turn`` (1-based)."""
        if strategy not in self.steps:
            raise KeyError(f"no strategy {strategy!r} in this replay; it has {self.strategies}")
        if isinstance(turn, bool) or not isinstance(turn, int) or not 1 <= turn <= len(self.scenario):
            raise ValueError(f"turn must be an int between 1 and {len(self.scenario)}, got {turn!r}")
        return self.steps[strategy][turn - 1]

    def tokens(self, strategy: str) -> list[int]:
        """Tokens of the context after each turn."""
        return [s.tokens for s in self.steps[strategy]]

    def calls(self, strategy: str) -> list[int]:
        """Model calls made so far, after each turn."""
        return [s.model_calls for s in self.steps[strategy]]

    def answers(self, strategy: str, turn: int, question: Question) -> bool | None:
        """Does the context at ``turn`` hold every fact ``question`` needs, none of them leaked?

        None while some needed fact has not been stated yet: nobody could answer then.
        """
        needs = [self.scenario.fact(i) for i in question.needs]
        if any(f.stated_turn > turn for f in needs):
            return None
        step = self.at(strategy, turn)
        return all(f.id in step.holds and f.id not in step.leaks for f in needs)

    def reflects(self, strategy: str, turn: int, old: Fact) -> bool | None:
        """Has the change that superseded ``old`` reached the context at ``turn``?

        True when the context mentions a replacement and does not leak ``old``;
        None before the change happened.
        """
        if old.superseded_turn is None or turn < old.superseded_turn:
            return None
        step = self.at(strategy, turn)
        return old.id not in step.leaks and any(r.id in step.holds for r in replacements(self.scenario, old))

    def recall(self) -> np.ndarray:
        """``R[s, f]``: the share of the turns fact ``f`` was current on where strategy ``s`` held it.

        Rows follow ``strategies``, columns ``scenario.facts``. A superseded
        fact counts only while it was true; afterwards holding it is a leak.
        """
        facts = self.scenario.facts
        out = np.zeros((len(self.steps), len(facts)))
        for i, steps in enumerate(self.steps.values()):
            for j, fact in enumerate(facts):
                current = [s for s in steps if fact.is_current(s.turn)]
                out[i, j] = sum(fact.id in s.holds for s in current) / len(current) if current else 0.0
        return out


def replay(scenario: Scenario, strategies: Mapping[str, Callable[[], object]],
           *, counter: TokenCounter = estimate_tokens) -> Replay:
    """Run every strategy over ``scenario``, turn by turn, and record each ``Step``.

    ``strategies`` maps a display name to a *factory* (a class, or a lambda)
    that builds a fresh, empty memory. After each turn every memory is asked
    for ``context(query)``, the query being the user's latest message: that
    is what would be sent if the model answered now.

    Taught in notebooks/07_compare_strategies.ipynb.
    """
    if not strategies:
        raise ValueError("strategies must name at least one strategy factory")
    memories: dict[str, Any] = {}
    for name, factory in strategies.items():
        if not callable(factory):
            raise TypeError(f"strategies[{name!r}] must be a factory that builds a memory, "
                            f"got {type(factory).__name__}")
        memories[name] = factory()
        if not isinstance(memories[name], Memory):
            raise TypeError(f"strategies[{name!r}] built a {type(memories[name]).__name__}, "
                            "which has no add(...) and context(query)")
    steps: dict[str, list[Step]] = {name: [] for name in memories}
    for t in scenario.turns:
        query = latest_user_message(scenario, t.turn)
        for name, memory in memories.items():
            changes = tuple(add_turn(memory, scenario, t.turn))
            context = tuple(dict(m) for m in memory.context(query))
            text = context_text(context)
            steps[name].append(Step(t.turn, context, count_message_tokens(context, counter), model_calls(memory),
                                    held_facts(scenario, text, t.turn), leaked_facts(scenario, text, t.turn),
                                    changes))
    return Replay(scenario, {name: tuple(s) for name, s in steps.items()})


def comparison_strategies() -> dict[str, Callable[[], object]]:
    """The six strategies notebook 07 compares, with the settings the earlier notebooks teach.

    The window keeps 6 recent messages and pins 2 (notebook 02), the summary
    folds every 6 messages (notebook 03); the rest use their defaults. Notebook 07 replays them with
    the semantic store's importance judged (``lesson_strategies``).
    """
    return {"buffer": ConversationBuffer,
            "window": lambda: SlidingWindowMemory(recent_k=6, important_k=2),
            "summary": lambda: SummaryMemory(summarize_every=6),
            "entity": EntityMemory,
            "semantic": SemanticMemoryStore,
            "hybrid": HybridMemoryManager}


def lesson_strategies() -> dict[str, Callable[[], object]]:
    """``comparison_strategies()`` with the judged semantic store: what notebook 07 and
    ``make app`` replay.

    Taught in notebooks/07_compare_strategies.ipynb.
    """
    return {**comparison_strategies(), "semantic": JudgedSemanticStore}


# -------------------------------------------------------- what the memory agent did on each turn
@dataclass(frozen=True)
class AgentTurn:
    """The memory agent right after one turn of a scenario: what it holds, the tools it called."""

    turn: int
    role: str
    content: str
    tokens: int
    core: dict
    tool_calls: tuple
    warned: bool
    evicted: tuple


@functools.lru_cache(maxsize=8)
def agent_turns(name: str, context_tokens: int, block_limit: int) -> tuple[AgentTurn, ...]:
    """A fresh ``MemoryAgent`` replayed on the scenario ``name``: every turn's record (computed
    once), which notebook 11's turn view and plot draw."""
    scenario = load_scenario(name)
    agent = MemoryAgent(context_tokens=context_tokens, block_limit=block_limit)
    turns = []
    for t in scenario.turns:
        changes = add_turn(agent, scenario, t.turn)
        step = agent.last_step if t.role == "user" else None
        evicted = tuple(c.id for c in changes if c.reason == "evicted to recall storage")
        turns.append(AgentTurn(t.turn, t.role, t.content, agent.tokens(), dict(agent.core),
                               tuple(step["tool_calls"]) if step else (),
                               bool(step and step["warned"]), evicted))
    return tuple(turns)


# ------------------------------------------------------------ what each system takes from one message
def extraction_strategies() -> dict[str, Callable[[], object]]:
    """The four ways of keeping a message that notebook 07's extraction view sets side by side."""
    return {"buffer": ConversationBuffer,
            "summary": lambda: SummaryMemory(summarize_every=6),
            "entity": EntityMemory,
            "semantic": SemanticMemoryStore}


def extractions(scenario: Scenario, strategies: Mapping[str, Callable[[], object]] | None = None,
                ) -> dict[int, dict[str, list[Change]]]:
    """For every turn, what each strategy's write of that one message changed: ``{turn: {name: [Change, …]}}``.

    * buffer: the ADD of the raw message;
    * summary: the ADD of the message and, on the turn of a fold, the
      summary's rewrite and the DELETE of every message folded into it;
    * entity: the facts extracted from it and what they replaced;
    * semantic: the memories stored from it.

    ``strategies`` maps a name to a factory (``extraction_strategies()`` by
    default). Computed once for the whole scenario; the widget only looks it up.
    Taught in notebooks/07_compare_strategies.ipynb.
    """
    makers = extraction_strategies() if strategies is None else strategies
    memories = {name: make() for name, make in makers.items()}
    return {t.turn: {name: add_turn(memory, scenario, t.turn) for name, memory in memories.items()}
            for t in scenario.turns}


def assistant_until(scenario: Scenario, turn: int) -> SimpleNamespace:
    """Notebook 09's assistant after ``turn`` turns of ``scenario``: a hybrid manager, a transcript
    and a summary, each fed the same turns."""
    app = SimpleNamespace(hybrid=HybridMemoryManager(), transcript=ConversationBuffer(),
                          summary=SummaryMemory(summarize_every=6, keep_recent=2))
    for memory in vars(app).values():
        feed(memory, scenario, turn)
    return app
