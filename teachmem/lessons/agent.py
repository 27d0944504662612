"""Notebook 11's run, turn view, plot, comparison and checkers: a model that manages its own memory.

Taught in notebooks/11_memory_as_tools.ipynb.
"""
from __future__ import annotations

from collections.abc import Callable
from numbers import Integral

from matplotlib.figure import Figure

from teachmem.lab.evaluation.scenario_scores import evaluate
from teachmem.lab.replay import AgentTurn, agent_turns, replay
from teachmem.lab.scenarios import Scenario
from teachmem.lessons.common import (OKABE_ITO, after_prediction as after_prediction, answer_checker, checker,
                                     differs, explore as explore, figure, forbidding, wrapped)
from teachmem.memory import agent as agent_module
from teachmem.memory.agent import WARN_AT, MemoryAgent, oldest_to_evict
from teachmem.memory.hybrid import HybridMemoryManager


def run(scenario: str = "project_30", context_tokens: int = 1000,
        block_limit: int = 400) -> tuple[AgentTurn, ...]:
    """What a fresh ``MemoryAgent`` did on every turn of ``scenario`` (computed once, then remembered)."""
    return agent_turns(scenario, context_tokens, block_limit)


def turn_view(turn: int, context_tokens: int = 1000, scenario: str = "project_30") -> str:
    """One turn of the agent, as text: the message, the context's fill, the tool calls, the blocks."""
    turns = run(scenario, context_tokens)
    t = turns[turn - 1]
    filled = round(40 * t.tokens / context_tokens)
    lines = [f"turn {t.turn} · {t.role}: {t.content}",
             f"context {t.tokens:>4}/{context_tokens} tokens |{'█' * filled}{'·' * (40 - filled)}| "
             f"{t.tokens / context_tokens:.0%}" + ("  ⚠ memory pressure (warned)" if t.warned else "")]
    if t.evicted:
        lines.append(f"evicted to recall storage: {', '.join(t.evicted)} (and folded into the summary)")
    lines.append("tool calls:" if t.tool_calls else
                 "tool calls: none" + (" (the reply is recorded as said)" if t.role == "assistant" else ""))
    for c in t.tool_calls:
        args = ", ".join(f"{k}={str(v)!r}" for k, v in c["args"].items())
        lines.append(f"  {c['name']}({args})\n    → {c['result']}")
    for label, text in t.core.items():
        lines.append(f"[{label}] {len(text)} characters")
        lines += [f"  {line}" for line in text.splitlines()]
    return wrapped("\n".join(lines))


def plot_context_fill(turns: tuple[AgentTurn, ...], context_tokens: int, title: str) -> Figure:
    """Tokens in context after each turn, with the warning line, the budget, and every eviction marked."""
    fig, ax = figure(9, 3.6)
    x = [t.turn for t in turns]
    ax.plot(x, [t.tokens for t in turns], marker="o", ms=3, color=OKABE_ITO[0], label="tokens in context")
    ax.axhline(context_tokens, color=OKABE_ITO[5], label=f"budget ({context_tokens})")
    ax.axhline(WARN_AT * context_tokens, color=OKABE_ITO[1], ls="--", label=f"warning ({WARN_AT:.0%})")
    evictions = [t.turn for t in turns if t.evicted]
    for i, turn in enumerate(evictions):
        ax.axvline(turn, color=OKABE_ITO[2], ls=":", label="eviction" if i == 0 else None)
    ax.set(xlabel="turn", ylabel="tokens", title=title, ylim=(0, context_tokens * 1.1))
    ax.legend(loc="lower right", fontsize=8)
    return fig


def compare(scenario: Scenario) -> str:
    """The agent beside the hybrid manager on one scenario: tokens, probes, stale facts, calls."""
    record = replay(scenario, {"hybrid manager": HybridMemoryManager, "memory agent": MemoryAgent})
    calls = [len(t.tool_calls) for t in run(scenario.name)]
    users = sum(t.role == "user" for t in scenario.turns)
    rows = [f"{'':<15} {'tokens/turn':>11} {'max':>5} {'probes':>7} {'stale':>6} {'model calls':>12} "
            f"{'tool calls/user turn':>21}"]
    for name in record.strategies:
        tokens = record.tokens(name)
        probes = sum(bool(record.answers(name, q.turn, q)) for q in scenario.questions)
        stale = sum(len(s.leaks) for s in record.steps[name])
        tools = f"{sum(calls) / users:.2f}" if name == "memory agent" else "–"
        rows.append(f"{name:<15} {sum(tokens) / len(tokens):>11.0f} {max(tokens):>5} "
                    f"{probes:>3}/{len(scenario.questions):<3} {stale:>6} {record.calls(name)[-1]:>12} {tools:>21}")
    return "\n".join(rows)


def compare_bank() -> str:
    """The scoreboard of both over every scenario of the bank: the means of what section 5 discusses."""
    board = evaluate({"hybrid manager": HybridMemoryManager, "memory agent": MemoryAgent}, progress=False)
    return board.table(metrics=("probe_accuracy", "end_accuracy", "stale_leakage", "deletion_leakage",
                                "tokens_per_turn", "model_calls"))


# ---------------------------------------------------------------- exercises
@answer_checker("predicted_turn")
def check_predicted_turn(predicted_turn: object) -> str | None:
    """Exercise 11.1: on which turn does the agent (1,000 tokens) first evict? Within one turn counts."""
    if isinstance(predicted_turn, bool) or not isinstance(predicted_turn, Integral):
        raise TypeError(f"predicted_turn must be a turn number such as 20, got {predicted_turn!r}")
    answer = next(t.turn for t in run() if t.evicted)
    if abs(int(predicted_turn) - answer) <= 1:
        print(f"Right: the first eviction comes on turn {answer} (within one turn counts).")
        return None
    warned = next(t.turn for t in run() if t.warned)
    if predicted_turn == warned:
        return (f"turn {warned} is the warning (70 %); the eviction waits until a message would pass 100 %, "
                f"on turn {answer}")
    return f"the context first passes the budget on turn {answer}"


# (sizes, room): the tokens of the queued messages, oldest first, and the tokens they may keep
CUTS = [([10, 20, 30], 100), ([10, 20, 30], 50), ([10, 20, 30], 49), ([10, 20, 30], 29), ([40, 1, 1], 2),
        ([], 10), ([5], 0), ([35, 42, 28, 46, 31, 39], 120), ([206, 36, 42, 31, 35], 80)]


@checker("oldest_to_evict")
def check_oldest_to_evict(candidate: Callable) -> str | None:
    """Exercise 11.2: ``oldest_to_evict(sizes, room)`` -> how many of the oldest messages must go for the rest
    to fit in ``room`` tokens. Compared with ``MemoryAgent``'s own cut, which it may not call."""
    wants = [oldest_to_evict(list(sizes), room) for sizes, room in CUTS]
    with forbidding((agent_module, "oldest_to_evict"), (MemoryAgent, "__init__")):
        for (sizes, room), want in zip(CUTS, wants, strict=True):
            got = candidate(list(sizes), room)
            problem = differs(f"sizes {sizes} and room {room}", got, want)
            if problem:
                break
        else:
            return None
    if isinstance(got, int) and not isinstance(got, bool) and 0 <= got < want:
        kept = sizes[got:]
        return f"{problem}: the {kept} that stay add up to {sum(kept)}, over room {room}: evict more"
    return (f"{problem}: evict as few of the oldest as you can, so that what stays adds up to at "
            "most room (exactly room fits)")
