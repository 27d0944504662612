"""The prompt-cache cost model, proven on sequences worked out by hand.

Token counts use the series' estimate: int(words × 1.3) per message, so 10 words are 13 tokens.
"""
import pytest

from teachmem import ConversationBuffer, SummaryMemory, load_scenario
from teachmem.lab.evaluation.prompt_cache import (Price, PromptCache, bill, load_prices, requests,
                                                  system_prompt)
from teachmem.lab.replay import comparison_strategies
from teachmem.memory.protocol import model_calls

TEN = "a b c d e f g h i j"          # 10 words: 13 tokens
PRICE = Price("test", "m", input=2.0, cached_input=0.5, cache_write=3.0, output=10.0,
              min_cached=10, lifetime_s=300)


def msg(content: str, role: str = "user") -> dict:
    return {"role": role, "content": content}


def test_a_prefix_shared_in_part_is_read_up_to_the_first_difference():
    cache = PromptCache(min_cached=10, lifetime_s=300)
    assert cache.send([msg(TEN), msg("k l m")], at=0) == (13 + 3, 0, 16)       # all written
    # the first message and two words of the second are shared: 13 + int(2 × 1.3) = 15 read
    assert cache.send([msg(TEN), msg("k l x y")], at=60) == (13 + 5, 15, 3)
    # a different role on the first message shares nothing
    assert cache.send([msg(TEN, "system"), msg("k l m")], at=120) == (16, 0, 16)


def test_an_entry_expires_after_its_lifetime_unless_it_is_used():
    cache = PromptCache(min_cached=10, lifetime_s=300)
    cache.send([msg(TEN)], at=0)
    assert cache.send([msg(TEN)], at=300) == (13, 13, 0)         # 300 s after: still there
    assert cache.send([msg(TEN)], at=600) == (13, 13, 0)         # the hit at 300 renewed it
    assert cache.send([msg(TEN)], at=901) == (13, 0, 13)         # 301 s unused: gone, written again


def test_a_prompt_below_the_minimum_is_neither_read_nor_written():
    cache = PromptCache(min_cached=14, lifetime_s=300)
    assert cache.send([msg(TEN)], at=0) == (13, 0, 0)            # 13 < 14: not cached
    assert cache.send([msg(TEN)], at=1) == (13, 0, 0)
    assert cache.send([msg(TEN + " k")], at=2) == (14, 0, 14)   # 14 tokens: written
    assert cache.send([msg(TEN), msg("z")], at=3) == (14, 0, 14)  # shares 13 < 14: nothing read


def test_bill_prices_each_part_at_its_own_rate():
    sent = [([msg(TEN)], 0, 5), ([msg(TEN), msg("k l m")], 60, 5)]
    first, second = bill(sent, PRICE)
    assert (first.prompt, first.cached, first.written, first.output) == (13, 0, 13, 5)
    assert first.cost == pytest.approx((13 * 3.0 + 5 * 10.0) / 1e6)
    assert (second.cached, second.written, second.uncached) == (13, 3, 3)
    assert second.cost == pytest.approx((13 * 0.5 + 3 * 3.0 + 5 * 10.0) / 1e6)
    without = bill(sent, PRICE, caching=False)
    assert [b.cached for b in without] == [0, 0] and [b.written for b in without] == [0, 0]
    assert without[1].cost == pytest.approx((16 * 2.0 + 5 * 10.0) / 1e6)


def test_prices_are_data_with_a_source_and_a_date():
    prices = load_prices()
    assert len(prices) >= 3 and len({p.model for p in prices}) == len(prices)
    for p in prices:
        assert p.source.startswith("https://") and len(p.as_of) == 10, p
        assert p.cached_input < p.input <= p.cache_write and p.min_cached >= 1024, p
    with pytest.raises(ValueError, match="cached_input"):
        Price("x", "y", 1.0, -0.5, 1.0, 1.0, 1024, 300)


def test_the_stated_system_prompt_can_be_cached_on_its_own():
    from teachmem.core.tokens import estimate_tokens
    tokens = estimate_tokens(system_prompt())
    assert tokens == 1168 and tokens >= max(p.min_cached for p in load_prices())


def test_requests_count_every_model_call_a_strategy_makes():
    scenario = load_scenario("project_30")
    summary = SummaryMemory(summarize_every=6)
    sent = requests(scenario, lambda: summary, "instructions")
    users = sum(t.role == "user" for t in scenario.turns)
    assert len(sent) == users + model_calls(summary) and model_calls(summary) > 0
    replies = [s for s in sent if s[0][0] == msg("instructions", "system")]
    assert len(replies) == users and replies[0][2] > 0                 # the answer's tokens as output
    last = requests(scenario, ConversationBuffer, "instructions")[-1]       # after turn 29's question
    assert len(last[0]) == 1 + 29 and last[0][-1]["content"] == scenario.turns[28].content


def test_with_caching_the_append_only_buffer_beats_the_window_it_lost_to():
    """The point the cost model exists to show: dropping the oldest message every turn changes the
    prompt's beginning, so the window pays full price for what the buffer reads from the cache."""
    scenario, price = load_scenario("project_30"), load_prices()[2]
    strategies = comparison_strategies()
    cost = {name: {caching: sum(b.cost for b in bill(requests(scenario, strategies[name],
                                                              system_prompt()), price,
                                                     caching=caching))
                   for caching in (False, True)}
            for name in ("buffer", "window")}
    assert cost["window"][False] < cost["buffer"][False]
    assert cost["buffer"][True] < cost["window"][True]
