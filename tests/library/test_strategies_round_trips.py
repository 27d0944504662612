"""Reliability, as properties over random input (hypothesis).

1. Every strategy round-trips exactly, through JSON and through MemoryDB:
   the reloaded memory has the same state, gives the same context for any
   query, and keeps behaving the same as new messages arrive.
2. Random bad input to every public method raises only the documented
   errors (TypeError or ValueError, plus MemoryNotFound for a missing
   memory) and never changes what is stored.
"""
import inspect
import json
import math
import sqlite3
from datetime import datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from teachmem import (ConversationBuffer, EntityMemory, SemanticMemoryStore, SlidingWindowMemory, SummaryMemory,
                      TokenBudgetWindow)
from teachmem.core.clock import EPOCH
from teachmem.lab.governance import RetentionPolicy, apply_fresh, apply_retention, forget, provenance
from teachmem.memory.hybrid import HybridMemoryManager
from teachmem.memory.semantic import SCORINGS
from teachmem.lab.storage.memory_db import MemoryDB, MemoryNotFound
from teachmem.lab.storage.state_codec import restore, state_of



@pytest.fixture(scope="module")
def tmp(tmp_path_factory):
    return tmp_path_factory.mktemp("reliability")


@pytest.fixture(scope="module")
def db(tmp):
    with MemoryDB(tmp / "roundtrip.db") as database:
        yield database

# ------------------------------------------------------------ random conversations
names = st.sampled_from(["Maya", "Noor", "Dana", "Jürgen", "Åsa", "李雷", "O'Brien"])
things = st.sampled_from(["PostgreSQL", "MySQL", "pytest", "React", "Lisbon", "Porto", "window seats", "tea",
                          "a@b.io", "07700 900123", "FastAPI", "Stripe"])
sentence = st.one_of(
    st.builds("My name is {} and I live in {}.".format, names, things),
    st.builds("Let's switch to {} instead of {}.".format, things, things),
    st.builds("I prefer {}; my budget is about {} dollars a month.".format, things, st.integers(0, 5000)),
    st.builds("For the database I want {}, mainly for its JSON support.".format, things),
    st.builds("ok, sounds good {}".format, st.sampled_from(["", "!", "🙂", "…"])),
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=0, max_size=60),
)
message = st.tuples(st.sampled_from(["user", "assistant", "user", "system", "tool"]), sentence,
                    st.integers(0, 3), st.booleans())    # role, text, turn gap, timestamped?


def conversation_into(memory, messages, start: int = 0):
    """Add ``messages`` with increasing turns (sometimes left to the memory) and times."""
    turn, when = start, EPOCH + timedelta(hours=start)
    for role, text, gap, stamped in messages:
        turn += 1 + gap
        when += timedelta(hours=gap * 7 + 1)
        # with no gap, leave the number to the memory: it must count previous + 1 itself
        try:
            memory.add(role, text, turn=turn if gap else None, timestamp=when if stamped else None)
        except ValueError:   # documented refusals, e.g. system messages larger than a token window
            pass


FACTORIES = {
    "buffer": st.builds(ConversationBuffer, st.integers(1, 10_000)),
    "window": st.builds(SlidingWindowMemory, st.integers(1, 8), st.integers(0, 5)),
    "token_window": st.builds(lambda m, r: TokenBudgetWindow(m + r + 16, r), st.integers(0, 600), st.integers(0, 80)),
    "summary": st.builds(lambda every, keep, words: SummaryMemory(every, keep_recent=min(keep, every - 1),
                                                                  max_words=words),
                         st.integers(1, 8), st.integers(0, 4), st.integers(5, 80)),
    "entity": st.builds(lambda c, small: EntityMemory(min_confidence=c, small_store=small),
                        st.sampled_from([0.0, 0.5, 0.7, 0.95]), st.integers(0, 5)),
    "semantic": st.builds(lambda decay, dim, scoring, k: SemanticMemoryStore(decay, dim, scoring=scoring,
                                                                             context_top_k=k),
                          st.sampled_from([0.5, 0.95, 1.0]), st.sampled_from([8, 32, 64]),
                          st.sampled_from(sorted(SCORINGS)), st.integers(1, 5)),
    "hybrid": st.builds(lambda budget, recent, k: HybridMemoryManager(budget, reserve_tokens=50, recent_k=recent,
                                                                      memory_top_k=k, min_importance=0.3),
                        st.integers(300, 3000), st.integers(1, 10), st.integers(1, 4)),
}


def extras(memory, data):
    """Strategy-specific verbs, so their state is exercised too."""
    if isinstance(memory, SummaryMemory):
        for fact in data.draw(st.lists(sentence.filter(str.strip), max_size=2)):
            memory.pin(fact)
    if isinstance(memory, SemanticMemoryStore):
        for text, user in data.draw(st.lists(st.tuples(sentence.filter(str.strip), names), max_size=4)):
            memory.store(text, data.draw(st.sampled_from(["fact", "general", "episodic"])),
                         data.draw(st.floats(0, 1)), user_id=user, confidence=0.8, tags=["a", 1])
        memory.consolidate(0.95)


queries = st.one_of(st.none(), sentence, st.sampled_from(["which database?", "where do I live", "Maya"]))


@pytest.mark.parametrize("kind", sorted(FACTORIES))
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_strategy_round_trips_exactly(kind, db, data):
    memory = data.draw(FACTORIES[kind])
    conversation_into(memory, data.draw(st.lists(message, max_size=14)))
    extras(memory, data)
    state = state_of(memory)
    via_json = restore(type(memory), json.loads(json.dumps(state)))
    db.save(memory, user_id="prop", name=kind)
    via_db = db.load(user_id="prop", name=kind)
    assert state_of(via_json) == state and state_of(via_db) == state
    for q in data.draw(st.lists(queries, min_size=1, max_size=3)):
        want = memory.context(q)
        assert via_json.context(q) == want and via_db.context(q) == want
    more = data.draw(st.lists(message, max_size=3))    # and they go on to behave the same
    for copy in (memory, via_json, via_db):
        conversation_into(copy, more, start=1000)
    assert via_json.context("database") == memory.context("database") == via_db.context("database")


# ------------------------------------------------------------ bad input
BAD = st.one_of(
    st.sampled_from([None, 0, -1, 1, 2 ** 40, -(2 ** 40), 0.5, -0.5, 1.5, math.nan, math.inf, -math.inf, True, False,
                     "", "   ", "\n", "x", "user", "system", "💥", "a" * 5000, b"bytes", [], {}, [1, "a"],
                     {"user_id": None}, ("t",), object(), EPOCH, EPOCH - timedelta(days=400), datetime(2100, 1, 1),
                     timedelta(days=1)]),
    st.integers(), st.floats(), st.text(max_size=20),
)
DOCUMENTED = (TypeError, ValueError)
SKIP = {"to_state", "from_state", "save", "load"}    # save/load(path) of SummaryMemory would write files


def public_methods(cls):
    return sorted(name for name, fn in inspect.getmembers(cls, inspect.isfunction)
                  if not name.startswith("_") and name not in SKIP)


def random_call(data, fn):
    args, kwargs = [], {}
    for p in list(inspect.signature(fn).parameters.values())[1:]:
        if p.kind is p.VAR_KEYWORD:
            kwargs.update(data.draw(st.dictionaries(st.sampled_from(["user_id", "memory_type", "tags"]), BAD,
                                                    max_size=2)))
        elif p.kind is p.VAR_POSITIONAL:
            args += data.draw(st.lists(BAD, max_size=2))
        elif p.default is not p.empty and data.draw(st.booleans()):
            continue
        elif p.kind is p.KEYWORD_ONLY:
            kwargs[p.name] = data.draw(BAD)
        else:
            args.append(data.draw(BAD))
    return args, kwargs


def snapshot(memory) -> str:
    return json.dumps(state_of(memory), sort_keys=True)


@pytest.mark.parametrize("kind", sorted(FACTORIES))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_bad_input_raises_documented_errors_and_changes_nothing(kind, data):
    memory = data.draw(FACTORIES[kind])
    conversation_into(memory, [("user", "My name is Maya and I want PostgreSQL.", 0, True),
                               ("assistant", "Noted.", 0, True), ("user", "Let's switch to MySQL.", 1, True)])
    name = data.draw(st.sampled_from(public_methods(type(memory))))
    args, kwargs = random_call(data, getattr(memory, name))
    before = snapshot(memory)
    try:
        getattr(memory, name)(*args, **kwargs)
    except DOCUMENTED:
        assert snapshot(memory) == before, f"{kind}.{name}{args, kwargs} failed but changed the memory"
    # whatever happened, the memory is still whole: it serialises and answers
    json.dumps(state_of(memory))
    memory.context("which database?")


def test_every_strategy_is_fuzzed_through_its_public_methods():
    classes = [ConversationBuffer, SlidingWindowMemory, TokenBudgetWindow, SummaryMemory, EntityMemory,
               SemanticMemoryStore, HybridMemoryManager]
    assert len(classes) == len(FACTORIES)
    for cls in classes:
        assert {"add", "context"} <= set(public_methods(cls)), cls
    assert {"store", "retrieve", "remember", "consolidate", "prune", "history"} <= set(public_methods(SemanticMemoryStore))


def dump(path) -> list:
    with sqlite3.connect(path) as conn:
        return [conn.execute("SELECT * FROM memories ORDER BY id").fetchall(),
                conn.execute("SELECT * FROM vectors ORDER BY memory_id, position").fetchall()]


@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_memorydb_bad_input_raises_documented_errors_and_changes_nothing(tmp, data):
    path = tmp / "fuzz.db"
    with MemoryDB(path) as db:
        buf = ConversationBuffer()
        buf.add("user", "kept")
        db.save(buf, user_id="u")
        name = data.draw(st.sampled_from(["save", "load", "load_state", "update", "exists", "revision", "names",
                                          "find", "delete", "delete_user"]))
        args, kwargs = random_call(data, getattr(db, name))
        before = dump(path)
        try:
            getattr(db, name)(*args, **kwargs)
        except DOCUMENTED + (MemoryNotFound,):
            assert dump(path) == before, f"{name}{args, kwargs} failed but changed the database"
        assert db.integrity_check() == "ok"
        db.delete_user("u")


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_governance_bad_input_raises_documented_errors_and_changes_nothing(data):
    memory = HybridMemoryManager()
    conversation_into(memory, [("user", "My name is Maya, mail me at maya@example.com", 0, True)])
    fn = data.draw(st.sampled_from([forget, apply_retention, apply_fresh, provenance]))
    args = [memory] + [data.draw(BAD) for _ in range(data.draw(st.integers(1, 2)))]
    kwargs = {"turn": data.draw(BAD)} if fn is apply_fresh else {}
    if fn is provenance:
        args = [data.draw(BAD)]
    before = snapshot(memory)
    try:
        fn(*args, **kwargs)
    except DOCUMENTED:
        assert snapshot(memory) == before
    if fn is apply_retention:
        with pytest.raises(TypeError):
            apply_retention(memory, RetentionPolicy(), data.draw(BAD.filter(lambda v: not isinstance(v, datetime))))
