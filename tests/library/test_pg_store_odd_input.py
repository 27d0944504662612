"""Every public call of PgMemoryStore, fed odd values (hypothesis), as tests/library/test_strategies_odd_input.py does for the
in-memory strategies: a clear TypeError/ValueError/KeyError naming an argument with the table unchanged, or
accepted and the store still answers. Nothing reaches PostgreSQL that it would refuse with an error of its own
(a NUL character, a lone surrogate). And isolation under random interleavings of several users' writes: no
read of one user (retrieve, get, history, a hand-written SELECT under row-level security) ever returns another's
row, and each user's answers are those of an in-memory store fed that user's writes alone."""
import itertools
from datetime import timedelta

import pytest
from hypothesis import HealthCheck, Phase, given, settings, strategies as st
from test_pg_store import outcome
from test_strategies_odd_input import CLEAR, draw_call, public_calls, seeded

from conftest import RUN
from teachmem import EPOCH, PgMemoryStore, SemanticMemoryStore

CALLS = public_calls(PgMemoryStore)
NUL = ["a\x00b", "\x00", "user: \x00"]


@pytest.fixture(scope="module")
def store(pg_dsn):
    memory = PgMemoryStore(pg_dsn, user_id=f"properties-{RUN}")
    seeded(lambda: memory)
    yield memory
    memory.close()


def snapshot(store) -> list:
    return store.conn.execute("SELECT seq, text, retired, edits, metadata::text, recalls, accessed FROM memories "
                              "ORDER BY seq").fetchall() + [store.last_turn]


@pytest.mark.parametrize("name", CALLS)
@settings(max_examples=15, deadline=None, phases=[Phase.explicit, Phase.generate], report_multiple_bugs=False,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
                                 HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_public_call_refuses_clearly_or_is_stored(store, name, data):
    args, kwargs, names = draw_call(data, getattr(store, name))
    if data.draw(st.booleans(), label="a NUL character") and names:
        swapped = data.draw(st.sampled_from(names), label="in")
        value = data.draw(st.sampled_from(NUL), label="nul")
        kwargs = {k: value if k == swapped else v for k, v in kwargs.items()}
        args = [value if n == swapped else a for n, a in zip(names, args, strict=False)] + args[len(names):]
    before = snapshot(store)
    try:
        getattr(store, name)(*args, **kwargs)
    except CLEAR as err:
        assert any(n in str(err) for n in names), f"{type(err).__name__}: {err} names none of {names}"
        assert snapshot(store) == before, f"{type(err).__name__} raised after the table changed"
        return
    assert store.retrieve("Maya", 1) and store.conn.execute("SELECT 1").fetchone() == (1,)


def test_every_public_call_is_covered():
    assert {"add", "context", "store", "remember", "retrieve", "explain", "get", "update", "delete",
            "history"} <= set(CALLS)


@pytest.mark.parametrize("call, message", [
    (lambda s: s.store("a\x00b"), "text must not contain a NUL character"),
    (lambda s: s.store("x", tags=["ok", "\x00"]), "metadata 'tags' must not contain a NUL"),
    (lambda s: s.add("user", "hi\x00"), "content must not contain a NUL"),
    (lambda s: s.retrieve("x\x00"), "query must not contain a NUL"),
    (lambda s: s.retrieve("x", session="\x00"), "filter 'session' must not contain a NUL"),
    (lambda s: s.store("x", tags=["caf\udce9"]), "metadata 'tags' must be valid Unicode text"),
    # issue 27, row 17: a label's key with a NUL or a lone surrogate, or a NaN label, was a raw driver error
    (lambda s: s.store("x", **{"k\x00": "v"}), r"metadata key 'k\\x00' must not contain a NUL"),
    (lambda s: s.retrieve("x", **{"k\x00": "v"}), r"filter key 'k\\x00' must not contain a NUL"),
    (lambda s: s.store("x", **{"k\udce9": "v"}), r"metadata 'k\\udce9' must be valid Unicode text"),
    (lambda s: s.retrieve("x", **{"k\udce9": "v"}), r"metadata 'k\\udce9' must be valid Unicode text"),
    (lambda s: s.store("x", confidence=float("nan")), "metadata 'confidence' must be a finite number"),
    (lambda s: s.store("x", confidence=[0.5, float("inf")]), "metadata 'confidence' must be a finite number"),
    (lambda s: s.retrieve("x", confidence=float("nan")), "metadata 'confidence' must be a finite number"),
])
def test_what_postgresql_cannot_hold_is_refused_naming_the_argument(store, call, message):
    before = snapshot(store)
    with pytest.raises(ValueError, match=message):
        call(store)
    assert snapshot(store) == before


# ------------------------------------------------------------------ isolation under interleaved writes
# Two or three users write through their own PgMemoryStore in a random interleaving; each user's writes also go to
# an in-memory store of that user alone, under PgMemoryStore's ranking settings. Every text carries its user's
# name, and two users' facts share keys ("favorite color"), so a fact of one that retired another's would show.
NAMES = ("alice", "bob", "carol")
SAID = ["favorite color is blue", "favorite color is green", "Favorite color is  BLUE", "lives in lisbon",
        "lives in porto", "prefers window seats", "is vegetarian", "we deploy on Fly.io",
        "the launch is on march 3", "my bank PIN is 4921"]
ASKED = ["what is my favorite color?", "where do I live?", "when is the launch?", "bank PIN", "window or aisle?"]
NOW = EPOCH + timedelta(days=40)
WRITE = st.one_of(
    st.tuples(st.just("store"), st.sampled_from(SAID), st.sampled_from(["fact", "general"]),
              st.sampled_from([0.2, 0.5, 0.9, 1.0]), st.integers(0, 30)),
    st.tuples(st.just("add"), st.sampled_from(["user", "assistant"]), st.sampled_from(SAID), st.integers(0, 30)),
    st.tuples(st.just("update"), st.integers(0, 9), st.sampled_from(SAID)),
    st.tuples(st.just("delete"), st.integers(0, 9)))
EXAMPLES = itertools.count()


def written(write: tuple, name: str):
    """The step (store, labels) -> result a drawn write stands for; ``name`` marks the texts it writes."""
    kind, *args = write
    if kind == "store":
        text, memory_type, importance, day = args
        return lambda s, u: s.store(f"{text} ({name})", memory_type, importance, EPOCH + timedelta(days=day), **u)
    if kind == "add":
        role, text, day = args
        return lambda s, u: s.add(role, f"{text} ({name})", timestamp=EPOCH + timedelta(days=day))
    if kind == "update":
        return lambda s, u: s.update(f"s{args[0]}", f"{args[1]} ({name})")
    return lambda s, u: s.delete(f"s{args[0]}")


def read(id: str):
    """The steps that read memory ``id``: what get() says of it, and its history."""
    return [lambda s, u: [s.get(id)[key] for key in ("text", "memory_type", "importance", "retired")],
            lambda s, u: s.history(id)]


def assert_isolated(pg_store, memory, name: str, others: list[str]) -> None:
    """What ``pg_store``'s user reads is exactly what the in-memory store fed the same writes holds, and only that."""
    rows = pg_store.conn.execute("SELECT user_id, seq, text, retired FROM memories ORDER BY seq").fetchall()
    assert {user for user, *_ in rows} <= {pg_store.user_id}
    assert [row[1:] for row in rows] == [(r, text, memory.retired.get(r)) for r, text in enumerate(memory.texts)]
    assert pg_store.conn.execute("SELECT count(*) FROM memories WHERE user_id = ANY(%s)", [others]).fetchone() == (0,)
    seen = [row[2] for row in rows]
    for query in ASKED:
        for k in (3, 10):
            got, expected = pg_store.explain(query, k, NOW), memory.explain(query, k, NOW)
            assert [h["id"] for h in got] == [f"s{h['row']}" for h in expected], query
            assert [h["score"] for h in got] == pytest.approx([h["score"] for h in expected], rel=1e-5, abs=1e-9)
        hits, expected = pg_store.retrieve(query, 3, NOW), memory.retrieve(query, 3, NOW)
        assert [hit[1:] for hit in hits] == [hit[1:] for hit in expected], query
        seen += [text for _, text, _ in hits]
    for r in range(len(memory.texts) + 2):                     # the last two: ids this user does not have
        for step in read(f"s{r}"):
            assert outcome(pg_store, step, {}) == outcome(memory, step, {}), r
        seen += [text for text, _ in pg_store.history(f"s{r}")] if r < len(memory.texts) else []
    for fact in ("favorite color", "lives in", "prefers seat"):
        history = pg_store.history(fact)
        assert history == memory.history(fact, user_id=pg_store.user_id)
        seen += [text for text, _ in history]
    assert all(text == "" or text.endswith(f"({name})") for text in seen), seen


@settings(max_examples=25, deadline=None, derandomize=True, database=None, report_multiple_bugs=False,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(users=st.integers(2, 3), data=st.data())
def test_interleaved_writes_of_several_users_stay_isolated(pg_dsn, users, data):
    names = NAMES[:users]
    ids = [f"isolated-{RUN}-{next(EXAMPLES)}-{name}" for name in names]
    memories = [SemanticMemoryStore(lexical_weight=0.0, reply_weight=0.0, neighbour_words=False) for _ in names]
    stores = [PgMemoryStore(pg_dsn, user_id=user_id) for user_id in ids]
    try:
        for who, write in data.draw(st.lists(st.tuples(st.integers(0, users - 1), WRITE), min_size=1, max_size=16),
                                    label="writes"):
            step, labels = written(write, names[who]), {"user_id": ids[who]}
            assert outcome(stores[who], step, labels) == outcome(memories[who], step, labels), (names[who], write)
        for who, name in enumerate(names):
            assert_isolated(stores[who], memories[who], name, [i for i in ids if i != ids[who]])
    finally:
        for store in stores:
            store.close()
