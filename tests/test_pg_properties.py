"""Every public call of PgMemoryStore, fed odd values (hypothesis), as tests/test_properties.py does for the
in-memory strategies: a clear TypeError/ValueError/KeyError naming an argument with the table unchanged, or
accepted and the store still answers. Nothing reaches PostgreSQL that it would refuse with an error of its own
(a NUL character, a lone surrogate)."""
import pytest
from hypothesis import HealthCheck, Phase, given, settings, strategies as st
from test_properties import CLEAR, draw_call, public_calls, seeded

from conftest import RUN
from teachmem import PgMemoryStore

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
])
def test_what_postgresql_cannot_hold_is_refused_naming_the_argument(store, call, message):
    before = snapshot(store)
    with pytest.raises(ValueError, match=message):
        call(store)
    assert snapshot(store) == before
