import pytest

from teachmem import TokenBudgetWindow
from teachmem.lab.replay import feed
from teachmem.core.tokens import estimate_tokens


def test_trims_oldest_and_stays_within_capacity(scenario):
    w = TokenBudgetWindow(max_tokens=400, reserve_tokens=100)
    for t in scenario.turns:
        w.add(t.role, t.content, turn=t.turn)
        assert w.estimated_tokens() <= w.capacity == 300
        kept = w.window_turns()
        assert kept == list(range(kept[0], t.turn + 1))          # a contiguous recent run
        assert w.dropped_turns == list(range(1, kept[0]))        # oldest dropped first
    assert w.remaining_capacity() == 300 - w.estimated_tokens()


def test_system_messages_are_never_dropped(scenario):
    w = TokenBudgetWindow(max_tokens=200, reserve_tokens=50)
    w.add("system", "Be brief.", turn=0)
    feed(w, scenario)
    assert w.context()[0] == {"role": "system", "content": "Be brief."}
    assert 0 not in w.dropped_turns


def test_oversize_message_is_truncated_with_marker():
    w = TokenBudgetWindow(max_tokens=120, reserve_tokens=20)
    w.add("user", "hello there")
    w.add("user", "log " * 1000)
    content = w.context()[-1]["content"]
    assert "[… truncated" in content and content.startswith("log log")
    assert estimate_tokens(content) <= 100
    assert w.window_turns() == [2]


def test_system_prompt_too_big_is_refused_and_nothing_changes():
    w = TokenBudgetWindow(max_tokens=100, reserve_tokens=20)
    w.add("user", "kept")
    before = w.to_state()
    with pytest.raises(ValueError, match="system messages would need 130 tokens but the window holds 80"):
        w.add("system", "word " * 100)
    assert w.to_state() == before


@pytest.mark.parametrize("kwargs, name", [(dict(max_tokens=0), "max_tokens"), (dict(reserve_tokens=-1), "reserve_tokens"),
                                          (dict(max_tokens=100, reserve_tokens=95), "max_tokens - reserve_tokens")])
def test_bad_sizes(kwargs, name):
    with pytest.raises(ValueError, match=name):
        TokenBudgetWindow(**kwargs)


def test_round_trip_state(scenario):
    w = feed(TokenBudgetWindow(300, 60), scenario)
    again = TokenBudgetWindow.from_state(w.to_state())
    assert again.context() == w.context()
    assert again.dropped_turns == w.dropped_turns


def test_eviction_is_a_delete_and_truncation_an_update():
    from teachmem import Change
    w = TokenBudgetWindow(60, 10)
    assert w.add("system", "be brief")[0] == Change("ADD", "m1", "system: be brief", reason="new message")
    w.add("user", "one two three four five six seven eight")
    big = " ".join(["word"] * 200)
    changes = w.add("user", big)
    assert [(c.event, c.id) for c in changes][:2] == [("ADD", "m3"), ("UPDATE", "m3")]
    assert changes[1].previous == f"user: {big}" and changes[1].reason.startswith("cut to fit the token budget")
    assert changes[1].text == f"user: {w.messages[-1].content}"
    assert changes[2:] == [Change("DELETE", "m2", "user: one two three four five six seven eight",
                                  reason="over the token budget")]
    assert [m.id for m in w.messages] == ["m1", "m3"]
