"""Notebook 03's checkers, drift view and plot: folding old messages into a summary.

Taught in notebooks/03_summary_memory.ipynb.
"""
from __future__ import annotations

import random
import textwrap
from collections.abc import Callable, Sequence

from matplotlib.figure import Figure

from teachmem.core.tokens import count_message_tokens
from teachmem.lab.scenarios import Fact, fact_in_text
from teachmem.lessons.common import checker, differs, explore as explore, fact_label, figure, mark

# (messages in the buffer, keep_recent) -> how many of the oldest go to the summary, worked out by hand.
SUMMARISED = [((6, 0), 6), ((6, 3), 3), ((10, 5), 5), ((5, 1), 4), ((4, 4), 0), ((3, 7), 0), ((0, 0), 0)]


def _random_messages(rng: random.Random, n: int) -> list[dict]:
    words = "we use mysql for the booking app and pytest with coverage ok sounds good".split()
    return [{"role": ("user", "assistant")[i % 2], "content": " ".join(rng.choices(words, k=rng.randint(1, 25)))}
            for i in range(n)]


@checker("split_for_summary")
def check_split_for_summary(fn: Callable) -> str | None:
    """Exercise 3.1: split a buffer into (the oldest, to summarise) and (the last keep_recent, kept as is)."""
    rng = random.Random(31)
    for (n, keep_recent), cut in SUMMARISED:
        messages = _random_messages(rng, n)
        oldest, recent = fn(list(messages), keep_recent)
        if (list(oldest), list(recent)) != (messages[:cut], messages[cut:]):
            sizes_ok = " (the right sizes, but not the right messages)" if len(oldest) == cut else ""
            return (f"for {n} messages and keep_recent={keep_recent} expected the first {cut} "
                    f"to summarise and the last {n - cut} to keep; got {len(oldest)} and "
                    f"{len(recent)} messages{sizes_ok}")
    return None


@checker("compression_ratio")
def check_compression_ratio(fn: Callable) -> str | None:
    """Exercise 3.2: tokens of the raw messages ÷ tokens of the context, rounded to 1 decimal.

    The tokens are the library's ``count_message_tokens``.
    """
    rng = random.Random(32)
    for _ in range(12):
        raw, context = _random_messages(rng, rng.randint(1, 40)), _random_messages(rng, rng.randint(1, 4))
        want = round(count_message_tokens(raw) / count_message_tokens(context), 1)
        problem = differs(f"{len(raw)} raw messages and a {len(context)}-message context", fn(raw, context), want)
        if problem:
            return problem
    return None


def drift_view(rounds: list[str], facts: list[Fact], round: int, pinned: Sequence[str] = (),
               width: int = 88) -> str:
    """Re-summary number ``round`` of a telephone game: which ``facts`` the summary still
    mentions on its own, and with the ``pinned`` lines kept beside it.

    Taught in notebooks/03_summary_memory.ipynb.
    """
    if not 0 <= round < len(rounds):
        raise ValueError(f"round must be between 0 and {len(rounds) - 1}, got {round}")
    summary = rounds[round]
    with_pins = "\n".join([*pinned, summary])
    alone = [fact_in_text(f, summary) for f in facts]
    kept = [fact_in_text(f, with_pins) for f in facts]
    lines = [f"round {round} of {len(rounds) - 1}: the summary has {len(summary.split())} words; facts kept: "
             f"{sum(alone)}/{len(facts)} alone, {sum(kept)}/{len(facts)} with {len(pinned)} pinned",
             "", " alone  pinned  fact"]
    lines += [f"   {mark(a)}      {mark(k)}    {fact_label(f)}" for f, a, k in zip(facts, alone, kept, strict=True)]
    return "\n".join([*lines, "", "summary:", *textwrap.wrap(summary, width)])


def plot_summary_drift(kept: dict[str, list[int]], total: int, words: list[int] | None = None) -> Figure:
    """Facts surviving each round of re-summarising, one line per setting in ``kept``
    (e.g. ``{"summary alone": [...], "with pinned facts": [...]}``); ``words`` adds the
    summary's length in words on a second axis.

    Taught in notebooks/03_summary_memory.ipynb.
    """
    fig, ax = figure()
    for (label, counts), style in zip(kept.items(), ("o-", "s--", "^:", "d-."), strict=False):
        ax.plot(range(len(counts)), counts, style, label=label)
    ax.set(title="Summary drift: facts that survive re-summarising", xlabel="round",
           ylabel=f"facts kept (of {total})", ylim=(-0.3, total + 0.5))
    if words is not None:
        length = ax.twinx()
        length.bar(range(len(words)), words, color="grey", alpha=0.2, label="summary words")
        length.set_ylabel("summary length (words)")
        ax.set_zorder(length.get_zorder() + 1)
        ax.patch.set_visible(False)
    ax.legend(loc="lower left")
    return fig
