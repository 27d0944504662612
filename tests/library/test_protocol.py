"""Every strategy, present and future, through the whole contract of teachmem.memory.protocol.

The strategies are found by the registry (``strategy_classes``: every class of teachmem.memory
that declares its own ``kind``), never listed here, so a new strategy file is tested as it lands.
"""
from __future__ import annotations

import importlib
import inspect
import json
import pkgutil
import re
from datetime import timedelta

import pytest

import teachmem
from teachmem import EPOCH, Change
from teachmem.core.text import forget_pattern
from teachmem.lab.storage.state_codec import restore, state_of, strategy_class
from teachmem.memory.protocol import (PROVENANCE_KEYS, Clocked, Composite, Deletable, Erasable, Memory,
                                      Saveable, Stateful, Traceable, UsesEmbedder, UsesModel, declared_kind,
                                      is_saveable_class, strategy_classes)

STRATEGIES = strategy_classes()
TURNS = [("user", "Hi, I am Maya and my email is maya@example.com."),
         ("assistant", "Nice to meet you, Maya."),
         ("user", "Our project uses PostgreSQL for the orders service."),
         ("assistant", "Noted: PostgreSQL."),
         ("user", "Remember that the deadline is Friday.")]


def _fed(cls) -> tuple[object, list[list[Change]]]:
    memory = cls()
    written = [memory.add(role, content, turn=turn, timestamp=EPOCH + timedelta(hours=turn))
               for turn, (role, content) in enumerate(TURNS, 1)]
    return memory, written


def _context(memory, query=None) -> list[dict]:
    return [dict(m) for m in memory.context(query)]


def test_the_registry_finds_every_strategy_teachmem_ships():
    kinds = {cls.kind for cls in STRATEGIES}
    assert kinds >= {"buffer", "window", "token_window", "summary", "entity", "semantic", "hybrid",
                     "agent", "reflective", "episodic", "procedural"}
    assert all(strategy_class(cls.kind) is cls for cls in STRATEGIES)


def _classes_declaring_a_kind() -> list[type]:
    """Every class anywhere in teachmem that declares a ``kind`` of its own (lab and lessons too)."""
    found = []
    for info in pkgutil.walk_packages(teachmem.__path__, "teachmem."):
        if info.name == "teachmem.__main__":
            continue
        module = importlib.import_module(info.name)
        found += [value for value in vars(module).values() if isinstance(value, type)
                  and value.__module__ == module.__name__ and isinstance(vars(value).get("kind"), str)
                  and callable(getattr(value, "context", None))]
    return found


def test_kinds_are_unique_across_teachmem():
    classes = _classes_declaring_a_kind()
    kinds = [cls.kind for cls in classes]
    assert len(kinds) == len(set(kinds)), sorted(kinds)
    assert "pg_semantic" in kinds


def test_every_strategy_class_in_memory_declares_a_kind_of_its_own():
    """A subclass inheriting its parent's kind would be saved as its parent: it needs its own."""
    inheriting = []
    for info in pkgutil.iter_modules(teachmem.memory.__path__, "teachmem.memory."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if (isinstance(value, type) and value.__module__ == module.__name__
                    and not getattr(value, "_is_protocol", False)
                    and declared_kind(value) is not None and "kind" not in vars(value)):
                inheriting.append(value.__qualname__)
    assert inheriting == []


def test_is_saveable_class_and_declared_kind():
    class Saves:
        kind = "mine"

        def to_state(self):
            return {}

        @classmethod
        def from_state(cls, state):
            return cls()

    assert is_saveable_class(Saves) and declared_kind(Saves) == "mine"
    assert not is_saveable_class(Saves()) and not is_saveable_class(int)
    assert declared_kind(int) is None


@pytest.mark.parametrize("cls", STRATEGIES, ids=lambda cls: cls.kind)
def test_add_and_context(cls):
    memory, written = _fed(cls)
    assert isinstance(memory, Memory)
    for changes in written:
        assert isinstance(changes, list) and all(isinstance(c, Change) for c in changes)
    for query in (None, "Which database do we use?"):
        context = _context(memory, query)
        assert isinstance(context, list)        # empty is allowed: a store may wait for a query
        assert all(set(m) >= {"role", "content"} and isinstance(m["content"], str) for m in context)


@pytest.mark.parametrize("cls", STRATEGIES, ids=lambda cls: cls.kind)
def test_state_round_trip(cls):
    memory, _ = _fed(cls)
    assert isinstance(memory, Saveable) and isinstance(memory, Stateful)
    assert declared_kind(cls) == cls.kind and is_saveable_class(cls)
    state = state_of(memory)
    again = restore(cls, json.loads(json.dumps(state)))
    assert type(again) is cls
    assert state_of(again) == state
    assert _context(again) == _context(memory)
    assert _context(again, "Which database?") == _context(memory, "Which database?")


@pytest.mark.parametrize("cls", [c for c in STRATEGIES if callable(getattr(c, "erase", None))],
                         ids=lambda cls: cls.kind)
def test_erase(cls):
    memory, _ = _fed(cls)
    assert isinstance(memory, Erasable)
    pattern = forget_pattern("maya@example.com")
    held = bool(pattern.search(json.dumps(memory.to_state())))    # a procedure store keeps no email
    changes = memory.erase(pattern)               # a composite: what it holds beside its parts
    assert isinstance(changes, list) and all(isinstance(c, Change) for c in changes)
    assert bool(changes) == held
    assert not pattern.search(json.dumps(memory.to_state()))
    for name in memory.parts if isinstance(memory, Composite) else ():
        getattr(memory, name).erase(pattern)
    assert not pattern.search(json.dumps(state_of(memory)))
    assert not any(pattern.search(m["content"]) for m in _context(memory) + _context(memory, "email"))
    assert memory.erase(pattern) == []              # nothing left to erase
    with pytest.raises(TypeError):
        memory.erase("maya@example.com")             # a pattern, compiled


def test_the_strategies_that_keep_no_provenance_are_the_composites_and_procedures():
    untraced = {cls.__name__ for cls in STRATEGIES if not isinstance(_fed(cls)[0], Traceable)}
    assert untraced == {"HybridMemoryManager", "MemoryAgent", "ProceduralMemory"}


@pytest.mark.parametrize("cls", [c for c in STRATEGIES if "provenance" in dir(c)], ids=lambda cls: cls.kind)
def test_provenance_and_delete(cls):
    memory, _ = _fed(cls)
    assert isinstance(memory, Traceable)
    records = memory.provenance()
    assert records and all(set(r) >= set(PROVENANCE_KEYS) for r in records)
    if not isinstance(memory, Deletable):
        return
    first = records[0]["id"]
    changes = memory.delete(first)
    assert isinstance(changes, list) and changes and all(isinstance(c, Change) for c in changes)
    assert first not in {r["id"] for r in memory.provenance() if r["memory_type"] == records[0]["memory_type"]}


@pytest.mark.parametrize("cls", STRATEGIES, ids=lambda cls: cls.kind)
def test_the_optional_attributes_hold_what_the_protocol_says(cls):
    memory, _ = _fed(cls)
    if isinstance(memory, Clocked):
        assert callable(memory.clock) and memory.clock() is not None
    if isinstance(memory, UsesModel):
        assert memory.llm is None or hasattr(memory.llm, "usage")     # None: rules, no model
    if isinstance(memory, UsesEmbedder):
        assert callable(memory.embedder.embed)


def test_the_protocol_module_names_every_part_it_defines():
    from teachmem.memory import protocol
    parts = [name for name, value in vars(protocol).items()
             if inspect.isclass(value) and value.__module__ == protocol.__name__]
    assert sorted(parts) == sorted(p for p in protocol.__all__ if p[0].isupper() and p != "PROVENANCE_KEYS")
    assert all(re.search(rf"``{name}``", protocol.__doc__) for name in parts)


def test_the_registry_refuses_two_classes_of_one_kind(monkeypatch):
    from teachmem.memory import protocol

    class One:
        kind = "same"

    class Two:
        kind = "same"

    assert set(protocol.strategies_by_kind()) == {cls.kind for cls in STRATEGIES}
    monkeypatch.setattr(protocol, "strategy_classes", lambda: [One, Two])
    with pytest.raises(ValueError, match="kind 'same' is declared by .*One and by .*Two"):
        protocol.strategies_by_kind()


def test_model_calls_reads_the_models_usage():
    from teachmem.memory.protocol import model_calls

    class Counted:
        calls = 3

    class WithModel:
        llm = type("LLM", (), {"usage": Counted()})()

    class RulesOnly:
        llm = None

    assert model_calls(WithModel()) == 3
    assert model_calls(RulesOnly()) == 0 and model_calls(object()) == 0
    memory, _ = _fed(teachmem.ReflectiveMemory)           # one call to score each message
    assert model_calls(memory) == memory.llm.usage.calls >= len(TURNS)


@pytest.mark.parametrize("cls", STRATEGIES, ids=lambda cls: cls.kind)
def test_a_strategy_holding_others_names_them_in_parts(cls):
    memory, _ = _fed(cls)
    held = {name for name, value in vars(memory).items() if isinstance(value, (Memory, Stateful))}
    assert held == set(memory.parts if isinstance(memory, Composite) else ())


@pytest.mark.parametrize("cls", [c for c in STRATEGIES if "parts" in vars(c)], ids=lambda cls: cls.kind)
def test_a_composite_is_saved_and_forgotten_through_its_parts(cls):
    memory, _ = _fed(cls)
    state = state_of(memory)
    assert all(state[name] == state_of(getattr(memory, name)) for name in memory.parts)
    assert not set(memory.to_state()) & set(memory.parts)       # its own state holds no part
    audit = teachmem.forget(memory, "maya@example.com")
    assert audit.clean and {t.tier for t in audit.tiers} >= set(memory.parts)
    assert "maya@example.com" not in json.dumps(state_of(memory))
