"""Every public call of every strategy, fed odd values (hypothesis).

The strategies are found by introspection: every class ``teachmem`` exports
that has ``add``, ``context`` and ``to_state`` (the state this file round-trips); so are their public methods (every one
that takes an argument, except ``to_state``/``from_state`` and the file
``save``/``load``). A strategy or method added later is covered without
editing this file. Arguments are drawn per parameter name from plausible
values mixed with odd ones: wrong types, empty and blank text, huge text,
lone surrogates, timezone-aware datetimes, negative and float turns,
user ids that are not strings.

Each call must end one of two ways:

* a clear ``TypeError``/``ValueError``/``KeyError`` whose message names one
  of the arguments passed, with ``to_state()`` unchanged; or
* accepted, and the state round-trips through ``to_state``/``from_state``
  (via JSON) and through ``MemoryDB`` save/load, with the same context.

Cases that still fail in strategies this file cannot fix are listed in
``KNOWN`` and marked ``xfail(strict=True)``: when a fix lands, the case
passes, the strict mark fails, and the entry is removed.
"""
import inspect
import json
import math
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, Phase, given, settings, strategies as st

import teachmem
from teachmem.lab.storage.memory_db import MemoryDB
from teachmem.lab.storage.state_codec import restore, state_of

AWARE = datetime(2026, 1, 1, 12, 0, tzinfo=timezone(timedelta(hours=5)))
SKIP = {"to_state", "from_state", "save", "load"}       # save/load(path) of a strategy write files
CLEAR = (TypeError, ValueError, KeyError)


def strategy_classes() -> list[type]:
    return sorted((obj for obj in vars(teachmem).values()
                   if isinstance(obj, type) and not getattr(obj, "_is_protocol", False)
                   and callable(getattr(obj, "add", None)) and callable(getattr(obj, "context", None))
                   and callable(getattr(obj, "to_state", None))),      # PgMemoryStore: tests/library/test_pg_store_odd_input.py
                  key=lambda cls: cls.__name__)


def public_calls(cls: type) -> list[str]:
    """Public methods that take at least one argument (the others cannot be given odd input)."""
    return sorted(name for name, fn in inspect.getmembers(cls, inspect.isfunction)
                  if not name.startswith("_") and name not in SKIP
                  and len(inspect.signature(fn).parameters) > 1)


# ------------------------------------------------------------ odd values, and plausible ones by parameter name
ODD = st.sampled_from([
    None, True, False, 0, 1, -1, 1.0, 0.5, -0.5, 1.5, 2 ** 70, -(2 ** 70), math.nan, math.inf, -math.inf,
    "", "   ", "\n\t", "caf\udce9", "\ud800", "x" * 20_000, "word " * 1_000, b"bytes", [], {}, ["a"], ("t",),
    object(), AWARE, AWARE.replace(tzinfo=timezone.utc), datetime(1, 1, 1), datetime.max,
    datetime.max.replace(tzinfo=timezone(timedelta(hours=-1))), timedelta(days=1)])
TEXT = st.one_of(st.sampled_from(["My name is Maya and I live in Porto.", "Let's use PostgreSQL.", "Maya",
                                  "which database?", "prefers window seats", "x"]),
                 st.text(max_size=30))
WHEN = st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1),
                    timezones=st.sampled_from([None, timezone.utc, timezone(timedelta(hours=-7))]))
PLAUSIBLE = {
    "role": st.sampled_from(["user", "assistant", "system", "tool", "User", "robot"]),
    "turn": st.one_of(st.none(), st.integers(-3, 10 ** 6), st.floats(-2, 1e6), TEXT),
    "turn_number": st.integers(-3, 10 ** 6),
    "as_of": st.one_of(st.none(), st.integers(-3, 100), st.floats(-2, 100), st.just("3")),
    "timestamp": WHEN, "now": WHEN,           # None is the default: leaving the argument out covers it
    "user_id": st.one_of(st.none(), st.sampled_from(["maya", "ola", "1"]), st.sampled_from([1, True, 1.0])),
    "session_id": st.sampled_from(["s1", "s2", 1]),
    "importance": st.floats(-1, 2), "threshold": st.floats(-1, 2), "confidence": st.floats(-1, 2),
    "top_k": st.integers(-2, 50), "max_age_days": st.integers(-2, 10 ** 6),
    "memory_type": st.sampled_from(["fact", "general", "episodic", "FACT"]),
    "tags": st.lists(TEXT, max_size=3),
    "db": st.none(),
}
METADATA_KEYS = st.sampled_from(["user_id", "session_id", "tags", "confidence", "turn"])


def argument(name: str):
    return st.one_of(PLAUSIBLE.get(name, TEXT), ODD)


def draw_call(data, fn) -> tuple[list, dict, list[str]]:
    """Positional and keyword arguments for ``fn``, and the names of those passed."""
    args, kwargs, names = [], {}, []
    for p in inspect.signature(fn).parameters.values():
        if p.kind is p.VAR_KEYWORD:
            for key in data.draw(st.lists(METADATA_KEYS, max_size=2, unique=True), label=p.name):
                kwargs[key] = data.draw(argument(key), label=key)
                names.append(key)
        elif p.kind is p.VAR_POSITIONAL:
            continue
        elif p.default is not p.empty and data.draw(st.booleans(), label=f"leave {p.name}"):
            continue
        else:
            value = data.draw(argument(p.name), label=p.name)
            if p.kind is p.POSITIONAL_ONLY:
                args.append(value)
            else:
                kwargs[p.name] = value
            names.append(p.name)
    return args, kwargs, names


def seeded(cls: type):
    """A small memory with something in it, so a call has state to change."""
    memory = cls()
    for turn, (role, text) in enumerate([("user", "My name is Maya and I live in Porto."),
                                         ("assistant", "Noted, Maya."), ("user", "Let's use PostgreSQL.")], 1):
        memory.add(role, text, turn=turn, timestamp=datetime(2026, 1, 1, 9) + timedelta(hours=turn))
    return memory


def snapshot(memory) -> str:
    return json.dumps(state_of(memory), sort_keys=True)


# ------------------------------------------------------------ cases the strategies' own files must fix
# (class, method): what the property found. Each is xfail(strict=True): remove the entry once fixed.
KNOWN: dict[tuple[str, str], str] = {
}

CASES = [pytest.param(cls, name, id=f"{cls.__name__}.{name}",
                      marks=[pytest.mark.xfail(strict=True, reason=KNOWN[cls.__name__, name])]
                      if (cls.__name__, name) in KNOWN else [])
         for cls in strategy_classes() for name in public_calls(cls)]


@pytest.fixture(scope="module")
def db():
    with MemoryDB(":memory:") as database:
        yield database


@pytest.mark.parametrize("cls, name", CASES)
@settings(max_examples=20, deadline=None, phases=[Phase.explicit, Phase.generate], report_multiple_bugs=False,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
@given(data=st.data())
def test_a_public_call_refuses_clearly_or_persists(cls, name, db, data):
    memory = seeded(cls)
    args, kwargs, names = draw_call(data, getattr(memory, name))
    before = snapshot(memory)
    try:
        getattr(memory, name)(*args, **kwargs)
    except CLEAR as err:
        assert any(n in str(err) for n in names), f"{type(err).__name__}: {err} names none of {names}"
        assert snapshot(memory) == before, f"{type(err).__name__} raised after the memory changed"
        return
    state = state_of(memory)
    via_json = restore(cls, json.loads(json.dumps(state)))
    assert state_of(via_json) == state
    db.save(memory, user_id="prop", name=cls.__name__)
    via_db = db.load(user_id="prop", name=cls.__name__)
    assert state_of(via_db) == state
    assert via_json.context() == via_db.context() == memory.context()


def test_every_strategy_and_its_writes_are_found():
    """The introspection finds what the lessons teach (and whatever is added later)."""
    found = {cls.__name__: public_calls(cls) for cls in strategy_classes()}
    assert {"ConversationBuffer", "SlidingWindowMemory", "TokenBudgetWindow", "SummaryMemory", "EntityMemory",
            "SemanticMemoryStore", "HybridMemoryManager"} <= set(found)
    assert all("add" in calls and "context" in calls for calls in found.values())
    assert {"store", "remember", "consolidate", "prune", "retrieve"} <= set(found["SemanticMemoryStore"])
    assert "pin" in found["SummaryMemory"] and "assemble_prompt" in found["HybridMemoryManager"]
    assert all(key in {c.values[0].__name__ + "." + c.values[1] for c in CASES} for key in
               (f"{c}.{m}" for c, m in KNOWN)), "a KNOWN entry names a call that no longer exists"
