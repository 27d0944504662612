"""Notebook 13's sequences, checkers, views and plot: what memory costs with prompt caching.

Taught in notebooks/13_what_memory_costs.ipynb.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping

from matplotlib.figure import Figure

from teachmem.app.comparison import cache_costs, cost_view as cost_view
from teachmem.app.projector import strategy_style
from teachmem.lab.evaluation.prompt_cache import PromptCache, bill, load_prices, requests, system_prompt
from teachmem.lab.replay import lesson_strategies, replay
from teachmem.lab.scenarios import load_scenario
from teachmem.lessons.common import (after_prediction as after_prediction, answer_checker, checker, figure,
                                     prediction_problem, short)
from teachmem.memory.hybrid import HybridMemoryManager

#: The price row the notebook bills with: the table's last row (cache reads at a tenth of the input
#: price, cache writes at 1.25 times it).
PRICE = load_prices()[-1]
SCENARIO = load_scenario("project_30")

# ---------------------------------------------------------------- exercise 13.1: cache hits by hand
#: The stated sequence: four requests a minute apart, each sent after the user's next message.
MESSAGE_WORDS = 100          # every message: 100 words, 130 tokens by the series' estimate
WINDOW_KEEPS = 3             # the window sends the last 3 messages
SECONDS_APART = 60


def _message(role: str, number: int) -> dict:
    """Message ``number`` of ``role``: its own first word, then filler, 100 words in all."""
    return {"role": role, "content": " ".join([f"{role}{number}", *["word"] * (MESSAGE_WORDS - 1)])}


def hand_requests(strategy: str) -> list[list[dict]]:
    """The four prompts ``strategy`` ("buffer" or "window") sends: the stated system prompt, then
    what it keeps of user 1, assistant 1, user 2, … up to the user's latest message."""
    if strategy not in ("buffer", "window"):
        raise ValueError(f"strategy must be 'buffer' or 'window', got {strategy!r}")
    system, said, prompts = {"role": "system", "content": system_prompt()}, [], []
    for number in range(1, 5):
        said.append(_message("user", number))
        kept = said if strategy == "buffer" else said[-WINDOW_KEEPS:]
        prompts.append([system, *kept])
        said.append(_message("assistant", number))
    return prompts


def hand_hits(strategy: str) -> list[int]:
    """The tokens each of ``strategy``'s four requests reads from the cache, under ``PRICE``'s rules."""
    cache = PromptCache(PRICE.min_cached, PRICE.lifetime_s)
    return [cache.send(prompt, at=n * SECONDS_APART)[1] for n, prompt in enumerate(hand_requests(strategy))]


def _hits_problem(strategy: str, given: object) -> str | None:
    want = hand_hits(strategy)
    if not isinstance(given, list) or len(given) != len(want) or not all(
            isinstance(g, int) and not isinstance(g, bool) for g in given):
        return f'cache_hits["{strategy}"] should be a list of {len(want)} whole numbers, got {given!r}'
    for number, (g, w) in enumerate(zip(given, want, strict=True), start=1):
        if g != w:
            return (f"{strategy}, request {number}: you wrote {g:,} tokens read from the cache, the cache "
                    f"reads {w:,}. It reads only the longest opening a cached prompt shares with this one, "
                    "and only when that opening has at least 1,024 tokens: a message that was sent before "
                    "but now sits at another place is not read.")
    return None


@answer_checker("13.1 cache hits by hand")
def check_cache_hits(cache_hits: object) -> str | None:
    """Exercise 13.1: the tokens each of the four requests reads from the cache, for both strategies."""
    if not isinstance(cache_hits, dict) or set(cache_hits) != {"buffer", "window"}:
        return f'cache_hits should be a dict with the keys "buffer" and "window", got {cache_hits!r}'
    return _hits_problem("buffer", cache_hits["buffer"]) or _hits_problem("window", cache_hits["window"])


# ---------------------------------------------------------------- 13.2: the bill of the six
def lesson_costs() -> dict[str, tuple[list[float], list[float]]]:
    """US cents each of notebook 07's six strategies has spent after each turn of the 30-turn
    scenario, without and with caching, under ``PRICE``."""
    return cache_costs(SCENARIO, lesson_strategies(), PRICE)


@answer_checker("13.2 the cheapest with caching")
def check_cheapest(cheapest: object) -> str | None:
    """Exercise 13.2: of the buffer, the window and the summary, which costs least with caching on?"""
    if isinstance(cheapest, str) and cheapest not in ("buffer", "window", "summary"):
        return f'the prediction is one of "buffer", "window" or "summary", got {cheapest!r}'
    spent = {name: on[-1] for name, (_, on) in lesson_costs().items()
             if name in ("buffer", "window", "summary")}
    actual = min(spent, key=spent.__getitem__)
    return prediction_problem(cheapest, actual,
                              "The buffer sends the most tokens but never changes what it has sent: each "
                              "request opens with the whole previous one, read at a tenth of the price. The "
                              "window drops a message each turn and rewrites its opening after the system "
                              "prompt; the summary's rewrite does the same at every fold.")


def plot_costs(costs: Mapping[str, tuple[list[float], list[float]]]) -> Figure:
    """Cents spent after each turn, without caching (left) and with caching (right), on one scale."""
    fig, (left, right) = figure(10, 3.6, ncols=2, sharey=True)
    styles = strategy_style(list(costs))
    for ax, caching in ((left, False), (right, True)):
        for name, spent in costs.items():
            colour, marker = styles[name]
            ax.plot(range(1, len(spent[caching]) + 1), spent[caching], color=colour, marker=marker,
                    markevery=5, label=name)
        ax.set_title("with prompt caching" if caching else "without caching")
        ax.set_xlabel("turn")
    left.set_ylabel("US cents spent so far")
    right.legend(fontsize=9, ncols=2)
    return fig


# ---------------------------------------------------------------- exercise 13.3: a cache-friendly hybrid
class ReorderedHybrid(HybridMemoryManager):
    """The hybrid manager whose context goes through ``order`` before it is sent."""

    def __init__(self, order: Callable[[list[dict]], list[dict]], **settings):
        super().__init__(**settings)
        self.order = order

    def context(self, query: str | None = None) -> list[dict]:
        context = super().context(query)
        return self.order([dict(m) for m in context]) if context else context


def hit_rate(make: Callable[[], object]) -> tuple[float, float]:
    """(share of input tokens read from the cache, US cents) of every call ``make()`` makes over the
    30-turn scenario, after the stated system prompt, under ``PRICE``."""
    billed = bill(requests(SCENARIO, make, system_prompt()), PRICE)
    return sum(b.cached for b in billed) / sum(b.prompt for b in billed), 100 * sum(b.cost for b in billed)


RATE_NEEDED = 0.70


def _lines(context: list[dict]) -> set[str]:
    return {line for m in context for line in m["content"].splitlines() if line.strip()}


def _order_problem(order: Callable[[list[dict]], list[dict]]) -> str | None:
    """What differs when ``order`` reorders the hybrid's context on each of the 30 turns."""
    plain = replay(SCENARIO, {"hybrid": HybridMemoryManager})
    for turn in range(1, len(SCENARIO) + 1):
        context = list(plain.at("hybrid", turn).context)
        mine = order([dict(m) for m in context])
        if not isinstance(mine, list) or not all(isinstance(m, dict) and set(m) == {"role", "content"}
                                                 and m["role"] in ("system", "user", "assistant")
                                                 for m in mine):
            return f"turn {turn}: return a list of messages, each a dict with a role and a content; got {short(repr(mine), 80)}"
        missing = sorted(_lines(context) - _lines(mine))
        if missing:
            return f"turn {turn}: the line {short(missing[0], 70)!r} is no longer sent: reorder, don't drop"
        if [m for m in mine if m["role"] != "system"] != [m for m in context if m["role"] != "system"]:
            return (f"turn {turn}: the conversation's messages are not all there in their order: move the "
                    "blocks of the system message, not what was said")
    mine_replay = replay(SCENARIO, {"hybrid": lambda: ReorderedHybrid(order)})
    for turn in range(1, len(SCENARIO) + 1):
        lost = plain.at("hybrid", turn).holds - mine_replay.at("hybrid", turn).holds
        if lost:
            return f"turn {turn}: the context no longer holds {sorted(SCENARIO.fact(i).value for i in lost)}"
    question = SCENARIO.questions[0]
    if not mine_replay.answers("hybrid", question.turn, question):
        return f"the turn-{question.turn} question is no longer answered"
    return None


@checker("13.3 a cache-friendly hybrid")
def check_stable_first(stable_first: Callable[[list[dict]], list[dict]]) -> str | None:
    """Exercise 13.3: the hybrid's context reordered, stable blocks first and retrieved memories last,
    reads at least 70 % of its input from the cache and keeps every fact on every turn."""
    problem = _order_problem(stable_first)
    if problem:
        return problem
    before, _ = hit_rate(HybridMemoryManager)
    rate, cents = hit_rate(lambda: ReorderedHybrid(stable_first))
    if rate < RATE_NEEDED:
        return (f"every fact kept, but {rate:.1%} of the input is read from the cache ({before:.1%} as it "
                f"is), and {RATE_NEEDED:.0%} is needed. Does any block change between two turns even when "
                "what it says has not?")
    print(f"read from the cache: {before:.1%} as it is, {rate:.1%} reordered; {cents:.2f} US cents")
    return None
