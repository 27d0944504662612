"""What each strategy's model calls cost with and without prompt caching, under each price row.

For the 30-turn scenario and the whole scenario bank (six scenarios), every model call each of
notebook 07's six strategies makes (replies, summaries, judged importance) is billed with
``teachmem.lab.evaluation.prompt_cache``: the stated system prompt (1,168 tokens), the scenarios'
own times between turns, and each row of ``teachmem/lab/data/prices.csv``. Prints, side by side,
the cost without and with caching (US cents), their ratio, and the share of input tokens read
from the cache.

    .venv/bin/python benchmarks/bench_prompt_cache.py
"""
from __future__ import annotations

from teachmem import load_scenario
from teachmem.lab.evaluation.prompt_cache import bill, load_prices, requests, system_prompt
from teachmem.lab.replay import comparison_strategies
from teachmem.lab.scenarios import list_scenarios


def table(title: str, scenarios: list[str]) -> None:
    strategies, prices, system = comparison_strategies(), load_prices(), system_prompt()
    sent = {name: [r for s in scenarios for r in requests(load_scenario(s), make, system)]
            for name, make in strategies.items()}
    print(f"\n{title}: cost in US cents, without caching -> with caching (ratio), share of "
          "input read from the cache")
    for price in prices:
        print(f"  {price.provider} {price.model} (as of {price.as_of}; at least {price.min_cached} "
              f"tokens cached, entries live {price.lifetime_s:.0f} s)")
        for name, calls in sent.items():
            on, off = bill(calls, price), bill(calls, price, caching=False)
            cents_on, cents_off = 100 * sum(b.cost for b in on), 100 * sum(b.cost for b in off)
            read = sum(b.cached for b in on) / sum(b.prompt for b in on)
            print(f"    {name:<9} {len(calls):>4} calls {cents_off:>8.3f} -> {cents_on:>8.3f} "
                  f"({cents_on / cents_off:.2f})  {read:>4.0%} read from the cache")


def main() -> None:
    table("30-turn scenario (project_30)", ["project_30"])
    table("scenario bank (all six, each from a fresh strategy)", list_scenarios())


if __name__ == "__main__":
    main()
