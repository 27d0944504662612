"""Notebook 01's checkers, cost view and plots: what a buffer that resends everything costs.

Taught in notebooks/01_conversation_buffer.ipynb.
"""
from __future__ import annotations

from collections.abc import Callable

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import StrMethodFormatter

from teachmem.lab.scenarios import load_scenario
from teachmem.lab.unseen_conversations import buffer_conversation
from teachmem.lessons.building import (class_checker, first_context_difference, own_code,
                                       show_source as show_source)
from teachmem.lessons.common import (OKABE_ITO, after_prediction as after_prediction, answer_checker,
                                     checker, differs, explore as explore, first_problem,
                                     forbidding)
from teachmem.memory.buffer import ConversationBuffer

# (tokens_per_exchange, max_tokens, system_tokens) -> whole exchanges that fit beside the system prompt.
EXCHANGES_THAT_FIT = [((200, 4096, 0), 20), ((200, 4096, 500), 17), ((200, 128_000, 500), 637),
                      ((300, 1000, 1200), 0), ((64, 64, 0), 1), ((65, 64, 0), 0), ((100, 1000, 1000), 0),
                      ((250, 8192, 192), 32)]

# Inches at 100 dpi: 840 px, the width of a JupyterLab output at 1280×720 with the file browser open, so
# the figure is shown at its own size and its 10-point labels are not scaled down below 9 points.
PLOT_WIDTH = 8.4
# While a learner's answer runs, the buffer's own counting is off limits: it already does the job.
BUFFER_COUNTS = ((ConversationBuffer, "token_count"), (ConversationBuffer, "is_near_limit"))
# Exercise 1.4: the guard on a 1,024-token window must leave room for three more exchanges.
GUARD_WINDOW, GUARD_ROOM, GUARD_EARLIEST = 1024, 250, 0.5


def _buffer_difference(cls: type, seed: int) -> str | None:
    """The first way ``cls`` differs from ``ConversationBuffer`` on unseen conversation ``seed``."""
    said = buffer_conversation(seed)
    library = ConversationBuffer(max_tokens=10**6)
    wanted = []
    for turn, (role, content) in enumerate(said, start=1):
        library.add(role, content, turn=turn)
        wanted.append((library.context(), library.token_count()))
    with own_code():
        mine = cls()
        for turn, (role, content) in enumerate(said, start=1):
            mine.add(role, content, turn=turn)
            context, tokens = wanted[turn - 1]
            case = f"unseen conversation {seed}, after message {turn}"
            sent = mine.context()
            if not isinstance(sent, list):
                return f"{case}, context() should return a list of messages, got {type(sent).__name__}"
            problem = first_context_difference(case, sent, context)
            if problem:
                return problem
            sent.append({"role": "user", "content": "a message the caller added"})
            if len(mine.context()) != len(context):
                return (f"{case}, context() hands out your own list: a caller who changes it changes "
                        "your buffer; return a copy")
            if mine.token_count() != tokens:
                return (f"{case}, token_count() should be {tokens}, yours is {mine.token_count()}: "
                        "int(words × 1.3) for each message, then the sum")
    return None


@class_checker("your buffer")
def check_buffer_class(cls: type) -> str | None:
    """Section 1: the learner's buffer sends what ``ConversationBuffer`` sends, and counts the same
    tokens, after every message of three conversations they have not seen.

    Taught in notebooks/01_conversation_buffer.ipynb.
    """
    return first_problem(_buffer_difference(cls, seed) for seed in (1, 2, 3))


@checker("exchanges_that_fit")
def check_exchanges_that_fit(fn: Callable) -> str | None:
    """Exercise 1.3: how many whole exchanges fit beside the system prompt. A case names its arguments as
    the learner's function takes them; what was expected goes on the next line, so a projected cell does
    not wrap it mid-word."""
    with forbidding(*BUFFER_COUNTS):
        return first_problem(differs(f"tokens_per_exchange={per_exchange}, max_tokens={most}, "
                                     f"system_tokens={system}:\n ", fn(per_exchange, most, system), want)
                             for (per_exchange, most, system), want in EXCHANGES_THAT_FIT)


def conversation_tokens(n_turns: int, user: int = 50, assistant: int = 150) -> int:
    """Tokens sent in all over ``n_turns`` requests when request n resends n - 1 exchanges plus a user message."""
    return sum((user + assistant) * (n - 1) + user for n in range(1, n_turns + 1))


@answer_checker("doubling_prediction")
def check_doubling_prediction(doubling_prediction: float) -> str | None:
    """Exercise 1.1: how many times the bill of 100 turns do 200 turns cost? (within 10 %)"""
    if isinstance(doubling_prediction, bool) or not isinstance(doubling_prediction, (int, float)):
        raise TypeError(f"write your prediction as a number, like 3, got {type(doubling_prediction).__name__}")
    ratio = conversation_tokens(200) / conversation_tokens(100)
    if abs(doubling_prediction - ratio) <= 0.1 * ratio:
        return None
    return (f"you predicted {doubling_prediction:g}×; the table gives {ratio:.2f}×.\n  Twice the turns means "
            "twice as many requests, and the late ones are twice as long: 2 × 2 = 4.")


def guard_trips(threshold: float, max_tokens: int = GUARD_WINDOW) -> tuple[int, int]:
    """(turn, tokens still free) when ``is_near_limit(threshold)`` first turns true on the booking-app
    conversation in a ``max_tokens`` buffer; the last turn if it never does."""
    scenario, buffer = load_scenario("project_30"), ConversationBuffer(max_tokens=max_tokens)
    for t in scenario.turns:
        buffer.add(t.role, t.content, turn=t.turn)
        if buffer.is_near_limit(threshold):
            break
    return t.turn, max_tokens - buffer.token_count()


@answer_checker("threshold")
def check_threshold(threshold: float) -> str | None:
    """Exercise 1.4: a threshold that warns while three more exchanges (250 tokens) still fit, not earlier
    than half full."""
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
        raise TypeError(f"threshold must be a number between 0 and 1, got {type(threshold).__name__}")
    turn, free = guard_trips(threshold)
    said = f"{threshold:g} trips after turn {turn} with {free} of {GUARD_WINDOW} tokens free.\n  "
    if threshold < GUARD_EARLIEST:
        return f"{said}A guard that fires before the window is half full cries wolf: raise it."
    if free < GUARD_ROOM:
        return f"{said}That is fewer than the {GUARD_ROOM} it must leave free: lower it."
    return None


def buffer_cost_view(turn: int, request_tokens: list[int], price_per_million: float = 3.0) -> str:
    """What request number ``turn`` costs when the buffer resends everything.

    Taught in notebooks/01_conversation_buffer.ipynb.
    """
    if not 1 <= turn <= len(request_tokens):
        raise ValueError(f"turn must be between 1 and {len(request_tokens)}, got {turn}")
    sent = request_tokens[turn - 1]
    so_far = sum(request_tokens[:turn])
    first = request_tokens[0]
    return (f"request {turn:>3}: sends {sent:>6,} tokens (${sent * price_per_million / 1e6:.4f}), "
            f"{sent / first:.3g}× the first request\n"
            f"requests 1–{turn}: {so_far:>8,} tokens in all (${so_far * price_per_million / 1e6:.4f})")


def plot_buffer_cost(request_tokens: list[int], price_per_million: float = 3.0) -> Figure:
    """Tokens per request (linear) and cumulative tokens and dollars (quadratic).

    Taught in notebooks/01_conversation_buffer.ipynb.
    """
    turns = np.arange(1, len(request_tokens) + 1)
    cumulative = np.cumsum(request_tokens)
    fig, (left, right) = plt.subplots(1, 2, figsize=(PLOT_WIDTH, 3.4), layout="constrained")
    plt.close(fig)
    left.plot(turns, request_tokens, color=OKABE_ITO[0])
    left.set(title="Tokens sent with each request", xlabel="turn", ylabel="tokens")
    right.plot(turns, cumulative, color=OKABE_ITO[5])
    right.set(title="Tokens paid so far", xlabel="turn", ylabel="cumulative tokens")
    for ax in (left, right):
        ax.yaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
    dollars = right.secondary_yaxis("right", functions=(lambda t: t * price_per_million / 1e6,
                                                         lambda d: d * 1e6 / price_per_million))
    dollars.set_ylabel(f"dollars at ${price_per_million:g}/M")
    return fig
