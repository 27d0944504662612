from datetime import datetime

import pytest

from teachmem import ConversationBuffer, Memory, Message
from teachmem.core.tokens import chars_estimate


def test_seed_example_runs_unchanged():
    buf = ConversationBuffer(max_tokens=4096)
    buf.add("user", "I'm building a web app with React and PostgreSQL")
    buf.add("assistant", "Great stack choice! What features are you planning?")
    buf.add("user", "User auth, a dashboard, and real-time notifications")
    assert len(buf.messages) == 3
    assert buf.token_count() == 30
    assert buf.is_near_limit() is False


def test_context_is_every_message_in_order(scenario):
    buf = ConversationBuffer()
    for t in scenario.turns:
        buf.add(t.role, t.content, turn=t.turn)
    assert buf.context() == [{"role": t.role, "content": t.content} for t in scenario.turns]
    assert buf.context("any query") == buf.context()
    assert isinstance(buf, Memory)


def test_near_limit_trips_past_threshold():
    buf = ConversationBuffer(max_tokens=100)
    buf.add("user", " ".join(["w"] * 65))          # 84 tokens, under 85
    assert not buf.is_near_limit()
    buf.add("user", "one more word")               # 84 + 3 = 87
    assert buf.is_near_limit()
    assert not buf.is_near_limit(threshold=0.9)
    with pytest.raises(ValueError, match="threshold"):
        buf.is_near_limit(0)


def test_turns_number_themselves_and_move_forward():
    buf = ConversationBuffer()
    buf.add("user", "a")
    buf.add("assistant", "b")
    buf.add("user", "c", turn=10)
    buf.add("assistant", "d")
    assert [m.turn for m in buf.messages] == [1, 2, 10, 11]
    with pytest.raises(ValueError, match="turn must be greater than the previous turn"):
        buf.add("user", "e", turn=5)


@pytest.mark.parametrize("kwargs, error, words", [
    (dict(role="robot", content="hi"), ValueError, "role"),
    (dict(role=None, content="hi"), TypeError, "role"),
    (dict(role="user", content=42), TypeError, "content"),
    (dict(role="user", content=None), TypeError, "content"),
    (dict(role="user", content="hi", turn=-1), ValueError, "turn"),
    (dict(role="user", content="hi", turn=2.5), TypeError, "turn"),
    (dict(role="user", content="hi", timestamp="yesterday"), TypeError, "timestamp"),
])
def test_bad_input_is_refused_and_nothing_changes(kwargs, error, words):
    buf = ConversationBuffer()
    buf.add("user", "kept")
    before = (buf.context(), buf.token_count())
    with pytest.raises(error, match=words):
        buf.add(**kwargs)
    assert (buf.context(), buf.token_count()) == before


@pytest.mark.parametrize("bad", [0, -5, 1.5, "4096"])
def test_bad_sizes(bad):
    with pytest.raises((ValueError, TypeError), match="max_tokens"):
        ConversationBuffer(max_tokens=bad)


def test_unicode_and_long_messages():
    buf = ConversationBuffer(token_counter=chars_estimate)
    buf.add("user", "我们改用MySQL 🚀 café")
    buf.add("user", "x" * 1_000_000)
    assert buf.context()[0]["content"] == "我们改用MySQL 🚀 café"
    assert buf.token_count() == 4 + 250_000   # 16 characters, then a million


def test_round_trip_state(scenario):
    buf = ConversationBuffer(max_tokens=2048)
    for t in scenario.turns:
        buf.add(t.role, t.content, turn=t.turn, timestamp=scenario.timestamp(t.turn))
    again = ConversationBuffer.from_state(buf.to_state())
    assert again.context() == buf.context()
    assert again.messages == buf.messages
    assert again.token_count() == buf.token_count()


def test_message_is_frozen_and_validated():
    m = Message("user", "hi", 3, datetime(2026, 1, 1))
    assert m.as_dict() == {"role": "user", "content": "hi"}
    assert Message.from_state(m.to_state()) == m
    with pytest.raises(AttributeError):        # a frozen dataclass refuses the assignment
        m.content = "changed"


def test_add_says_what_it_changed_and_ids_survive_a_reload():
    from teachmem import Change
    buf = ConversationBuffer()
    assert buf.add("user", "we use PostgreSQL") == [
        Change("ADD", "m1", "user: we use PostgreSQL", reason="new message")]
    assert buf.add("assistant", "noted")[0].id == "m2"
    assert buf.delete("m1") == [Change("DELETE", "m1", "user: we use PostgreSQL", reason="deleted")]
    again = ConversationBuffer.from_state(buf.to_state())
    assert [m.id for m in again.messages] == ["m2"] and again.add("user", "x")[0].id == "m3"
    assert again.token_count() == buf.token_count() + buf.count_tokens("x")
    with pytest.raises(KeyError, match="m1"):
        buf.delete("m1")


def test_a_state_saved_before_messages_had_ids_gets_them_by_place():
    state = {"max_tokens": 100, "tokens_per_word": 1.3,
             "messages": [{"role": "user", "content": "a", "turn": 1, "timestamp": None},
                          {"role": "assistant", "content": "b", "turn": 2, "timestamp": None}]}
    buf = ConversationBuffer.from_state(state)
    assert [m.id for m in buf.messages] == ["m1", "m2"] and buf.add("user", "c")[0].id == "m3"
