"""Lab equipment: the save-and-load plumbing behind ``to_state`` / ``from_state``.

Every strategy in :mod:`teachmem.memory` turns into JSON-ready data (str,
int, float, bool, None, lists and dicts; datetimes as ISO strings) and back,
so that ``type(m).from_state(m.to_state())`` answers every query as ``m``
did. The short strategies do it in a few lines of their own; the longer ones
hand the plumbing to the functions here, so their files show the strategy.
Collaborators that are not data (a model, a clock, an embedder, a token
counter) are not saved: pass them again when loading.

Taught in notebooks/09_persistence_and_governance.ipynb.
"""
from __future__ import annotations

from dataclasses import asdict
from datetime import datetime

from teachmem.core.clock import ManualClock

__all__ = ["iso", "from_iso", "rebuild", "entity_state",
           "entity_from_state", "hybrid_state", "hybrid_from_state"]


def iso(when: datetime | None) -> str | None:
    """``when`` as an ISO string; ``None`` stays ``None``."""
    return when.isoformat() if when else None


def from_iso(text: str | None) -> datetime | None:
    """The datetime an :func:`iso` string stands for; ``None`` (or "") gives ``None``."""
    return datetime.fromisoformat(text) if text else None


def _settings(memory, names) -> dict:
    return {name: getattr(memory, name) for name in names}


def rebuild(cls, state: dict, names, **live):
    """``cls`` built from the saved settings ``names`` and the collaborators ``live``, at its saved turn."""
    memory = cls(**{name: state[name] for name in names}, **live)
    memory.last_turn = state["last_turn"]
    return memory


def entity_state(memory, names) -> dict:
    """An EntityMemory as data: its settings, its turn, and every value it ever held."""
    return {**_settings(memory, names), "last_turn": memory.last_turn,
            "history": [{**asdict(f), "since": iso(f.since), "until": iso(f.until)} for f in memory.history]}


def entity_from_state(cls, state: dict, names, fact, *, llm=None, clock=None):
    """``fact`` is the class of one saved value (``FactValue``)."""
    memory = rebuild(cls, state, names, llm=llm, clock=clock)
    memory.history = [fact(**{**record, "since": from_iso(record["since"]), "until": from_iso(record["until"])})
                      for record in state["history"]]
    return memory


def hybrid_state(manager, names) -> dict:
    """A HybridMemoryManager as data: its settings and the state of each tier."""
    return {**_settings(manager, names), "window": manager.window.to_state(),
            "entities": manager.entities.to_state(), "longterm": manager.longterm.to_state(),
            "last_turn": manager.last_turn, "now": iso(manager.now)}


def hybrid_from_state(cls, state: dict, names, *, llm=None, clock=None, token_counter):
    """Each tier is rebuilt by its own ``from_state``; without a ``clock`` they share one that
    resumes at the saved time."""
    clock = clock or ManualClock(from_iso(state["longterm"]["now"]))
    manager = rebuild(cls, state, names, llm=llm, clock=clock, token_counter=token_counter)
    manager.window = type(manager.window).from_state(state["window"])
    manager.entities = type(manager.entities).from_state(state["entities"], clock=clock)
    manager.longterm = type(manager.longterm).from_state(state["longterm"], clock=clock)
    manager.now = from_iso(state["now"])
    return manager
