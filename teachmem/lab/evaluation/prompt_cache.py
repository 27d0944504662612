"""What a memory strategy's requests cost when the provider caches prompt prefixes.

A hosted model bills a request's opening tokens at a lower price when an earlier request, sent
recently, opened with the same tokens: the provider kept its work on that prefix. Writing a prefix
to the cache may cost more than plain input. So a strategy that keeps its prompt's beginning
unchanged (an append-only buffer) pays mostly cache prices, and one that changes it every turn (a
window that drops its oldest message) pays full price.

``PromptCache`` replays that billing: a cache keyed on exact prefixes, whose entries live
``lifetime`` seconds after their last use, and which caches nothing shorter than ``min_cached``
tokens. Prices are data, in ``teachmem/lab/data/prices.csv``: one row per model with its source
and date. Providers change them; edit the file, or pass your own ``Price``.

Simplifications, stated: a prefix is compared word by word (``cut_points``), not by the provider's
tokenizer, and counted with the series' token estimate; OpenAI caches in steps of 128 tokens and
this cache to the token; Anthropic caches up to breakpoints you mark, this cache every prefix (as
its automatic caching does).
"""
from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from teachmem.core.tokens import (TokenCounter, estimate_tokens, prefix_tokens, prompt_pieces,
                                  shared_pieces)
from teachmem.lab.replay import add_turn
from teachmem.lab.scenarios import Scenario
from teachmem.memory.hybrid import HybridMemoryManager
from teachmem.memory.protocol import Composite, UsesModel
from teachmem.memory.summary import SummaryMemory
from teachmem.memory.window import ChunkedWindowMemory

PRICES_FILE = Path(__file__).resolve().parent.parent / "data" / "prices.csv"
PER_MILLION = 1_000_000


@dataclass(frozen=True)
class Price:
    """One model's prices in US dollars per million tokens, and its cache's rules."""

    provider: str
    model: str
    input: float          # input tokens not read from the cache
    cached_input: float   # input tokens read from the cache
    cache_write: float    # input tokens written to the cache (= input where writing costs nothing more)
    output: float
    min_cached: int       # no prefix shorter than this many tokens is cached
    lifetime_s: float     # an entry is dropped this many seconds after its last use
    source: str = ""
    as_of: str = ""

    def __post_init__(self) -> None:
        for name in ("input", "cached_input", "cache_write", "output", "min_cached", "lifetime_s"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
                raise ValueError(f"{name} must be a number ≥ 0, got {value!r}")


def load_prices(path: Path | str = PRICES_FILE) -> list[Price]:
    """The price rows of a CSV file with ``Price``'s fields as its header."""
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    prices = []
    for row in rows:
        numbers = {k: float(row[k]) for k in ("input", "cached_input", "cache_write", "output",
                                              "lifetime_s")}
        prices.append(Price(row["provider"], row["model"], **numbers,
                            min_cached=int(row["min_cached"]), source=row["source"],
                            as_of=row["as_of"]))
    return prices


@dataclass(frozen=True)
class Billed:
    """One request as the provider bills it: its input tokens split three ways, and the price."""

    prompt: int        # input tokens in all
    cached: int        # read from the cache
    written: int       # written to the cache (the rest of a prompt long enough to be cached)
    output: int
    cost: float        # US dollars

    @property
    def uncached(self) -> int:
        return self.prompt - self.cached


class PromptCache:
    """A provider's prompt cache: what each request reads from it and writes to it.

    >>> cache = PromptCache(min_cached=3, lifetime_s=300)
    >>> cache.send([{"role": "system", "content": "one two three four five"}], at=0)
    (6, 0, 6)
    >>> cache.send([{"role": "system", "content": "one two three four six"}], at=60)
    (6, 5, 1)
    """

    def __init__(self, min_cached: float, lifetime_s: float, counter: TokenCounter = estimate_tokens):
        self.min_cached, self.lifetime_s, self.counter = min_cached, lifetime_s, counter
        self.entries: dict[tuple[str, ...], float] = {}    # a cached prompt -> when last used

    def send(self, messages: list[dict], at: float) -> tuple[int, int, int]:
        """Bill one request sent at ``at`` seconds: ``(prompt, cached, written)`` tokens."""
        key = prompt_pieces(messages)
        self.entries = {k: t for k, t in self.entries.items() if at - t <= self.lifetime_s}
        best = max(self.entries, key=lambda k: shared_pieces(k, key), default=())
        prompt = sum(self.counter(m["content"]) for m in messages)
        cached = prefix_tokens(messages, shared_pieces(best, key), self.counter)
        if cached < self.min_cached:
            cached = 0
        else:
            self.entries[best] = at
        written = 0
        if prompt >= self.min_cached:
            written = prompt - cached
            self.entries[key] = at
        return prompt, cached, written


def bill(requests: Iterable[tuple[list[dict], float, int]], price: Price, *,
         caching: bool = True, counter: TokenCounter = estimate_tokens) -> list[Billed]:
    """Each request ``(messages, at_seconds, output_tokens)`` as billed under ``price``, with its
    prompt cache (``caching=False``: every input token at the input price)."""
    cache = PromptCache(price.min_cached if caching else float("inf"), price.lifetime_s, counter)
    billed = []
    for messages, at, output in requests:
        prompt, cached, written = cache.send(messages, at)
        plain = prompt - cached - written
        cost = (cached * price.cached_input + written * price.cache_write + plain * price.input
                + output * price.output) / PER_MILLION
        billed.append(Billed(prompt, cached, written, output, cost))
    return billed


# ---- a strategy's requests over a scenario ----
SYSTEM_PROMPT_FILE = PRICES_FILE.with_name("system_prompt.txt")


def system_prompt() -> str:
    """The stated system prompt of the cost comparisons: an application's instructions and tools,
    1,168 tokens by the series' estimate, so it can be cached on its own."""
    return SYSTEM_PROMPT_FILE.read_text(encoding="utf-8")


class Recorder:
    """A model that writes down each prompt it is sent and its reply, then answers as ``llm``."""

    def __init__(self, llm, log: list[tuple[list[dict], str]]):
        self.llm, self.log = llm, log

    @property
    def usage(self):
        return self.llm.usage

    def complete(self, messages: list[dict], *, json_mode: bool = False) -> str:
        reply = self.llm.complete(messages, json_mode=json_mode)
        self.log.append(([dict(m) for m in messages], reply))
        return reply

    def complete_with_tools(self, messages: list[dict], tools: list[dict]) -> dict:
        """The tools' schemas are sent too: they count as a first message of the prompt."""
        reply = self.llm.complete_with_tools(messages, tools)
        sent = [{"role": "tools", "content": json.dumps(tools)}, *(dict(m) for m in messages)]
        self.log.append((sent, reply.get("content") or json.dumps(reply.get("tool_calls"))))
        return reply


def record_calls(memory, log: list[tuple[list[dict], str]]) -> None:
    """Give ``memory`` and every part of it that calls a model a ``Recorder`` writing to ``log``."""
    if isinstance(memory, UsesModel) and memory.llm is not None:
        memory.llm = Recorder(memory.llm, log)
    if isinstance(memory, Composite):
        for name in memory.parts:
            record_calls(getattr(memory, name), log)


def requests(scenario: Scenario, factory: Callable[[], object], system: str,
             counter: TokenCounter = estimate_tokens) -> list[tuple[list[dict], float, int]]:
    """Every model call a fresh strategy makes over ``scenario``, as ``bill`` takes them: its own
    calls (summaries, judged importance, extraction) when a turn is added, and, after each user
    turn, the reply's prompt (``system``, then the strategy's context) with the next turn's tokens
    as its output. Times are the scenario's, in seconds from its first turn."""
    memory: Any = factory()
    log: list[tuple[list[dict], str]] = []
    record_calls(memory, log)
    start, out = scenario.timestamp(1), []
    for t in scenario.turns:
        add_turn(memory, scenario, t.turn)
        at = (scenario.timestamp(t.turn) - start).total_seconds()
        out += [(messages, at, counter(reply)) for messages, reply in log]
        log.clear()
        if t.role == "user":
            said = scenario.turns[t.turn].content if t.turn < len(scenario) else ""
            prompt = [{"role": "system", "content": system}, *memory.context(t.content)]
            out.append((prompt, at, counter(said)))
    return out


def cache_friendly_strategies() -> dict[str, Callable[[], object]]:
    """Each a small change that keeps the prompt's opening, next to what it changes in
    ``comparison_strategies()``: the window dropping 6 messages at a time, the summary appending
    a block per fold, the hybrid laid out stable first; and compaction at runtime: a summary
    folded (all but the last 6 messages) only when the context passes 600 tokens."""
    return {"window chunked": lambda: ChunkedWindowMemory(6, 2, evict_chunk=6),
            "summary append": lambda: SummaryMemory(summarize_every=6, compaction="append"),
            "hybrid stable": lambda: HybridMemoryManager(layout="stable"),
            "compaction": lambda: SummaryMemory(keep_recent=6, max_tokens=600)}
