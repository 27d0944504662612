"""What each strategy's model calls cost with and without prompt caching, under each price row,
and what each keeps.

For the 30-turn scenario and the whole scenario bank (six scenarios), every model call each
strategy makes (replies, summaries, judged importance) is billed with
``teachmem.lab.evaluation.prompt_cache``: the stated system prompt (1,168 tokens), the scenarios'
own times between turns, and each row of ``teachmem/lab/data/prices.csv``. The strategies are
notebook 07's six and the cache-friendly options of ``cache_friendly_strategies()``: a window that
drops its oldest messages in chunks, a summary that appends a block instead of rewriting, the
hybrid with its stable-first layout, and compaction at runtime (a summary folded only when the
context passes 600 tokens). Prints, side by side, the cost without and with caching (US cents),
their ratio, the share of input tokens read from the cache (the cache hit rate), and the probes
(questions answered on their turn) each keeps.

    .venv/bin/python benchmarks/bench_prompt_cache.py
"""
from __future__ import annotations

from teachmem import load_scenario
from teachmem.lab.evaluation.prompt_cache import (bill, cache_friendly_strategies, load_prices,
                                                  requests, system_prompt)
from teachmem.lab.replay import comparison_strategies, replay
from teachmem.lab.scenarios import list_scenarios


def probes_kept(scenarios: list[str], make) -> tuple[int, int]:
    """Questions answered on their turn, summed over ``scenarios``, and how many were asked."""
    kept = asked = 0
    for name in scenarios:
        scenario = load_scenario(name)
        record = replay(scenario, {"s": make})
        kept += sum(bool(record.answers("s", q.turn, q)) for q in scenario.questions)
        asked += len(scenario.questions)
    return kept, asked


def table(title: str, scenarios: list[str]) -> None:
    strategies = {**comparison_strategies(), **cache_friendly_strategies()}
    prices, system = load_prices(), system_prompt()
    sent = {name: [r for s in scenarios for r in requests(load_scenario(s), make, system)]
            for name, make in strategies.items()}
    probes = {name: probes_kept(scenarios, make) for name, make in strategies.items()}
    print(f"\n{title}: cost in US cents, without caching -> with caching (ratio), share of "
          "input read from the cache, probes kept")
    for price in prices:
        print(f"  {price.provider} {price.model} (as of {price.as_of}; at least {price.min_cached} "
              f"tokens cached, entries live {price.lifetime_s:.0f} s)")
        for name, calls in sent.items():
            on, off = bill(calls, price), bill(calls, price, caching=False)
            cents_on, cents_off = 100 * sum(b.cost for b in on), 100 * sum(b.cost for b in off)
            read = sum(b.cached for b in on) / sum(b.prompt for b in on)
            kept, asked = probes[name]
            print(f"    {name:<16} {len(calls):>4} calls {cents_off:>8.3f} -> {cents_on:>8.3f} "
                  f"({cents_on / cents_off:.2f})  {read:>4.0%} read from the cache  "
                  f"probes {kept}/{asked}")


def main() -> None:
    table("30-turn scenario (project_30)", ["project_30"])
    table("scenario bank (all six, each from a fresh strategy)", list_scenarios())


if __name__ == "__main__":
    main()
