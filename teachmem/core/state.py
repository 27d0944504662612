"""Lab equipment: the save-and-load plumbing behind ``to_state`` / ``from_state``.

Every strategy in :mod:`teachmem.memory` turns into JSON-ready data (str,
int, float, bool, None, lists and dicts; datetimes as ISO strings) and back,
so that ``type(m).from_state(m.to_state())`` answers every query as ``m``
did. Each strategy does it in its own file, with the small helpers here.
Collaborators that are not data (a model, a clock, an embedder, a token
counter) are not saved: pass them again when loading.

Taught in notebooks/09_persistence_and_governance.ipynb.
"""
from __future__ import annotations

from datetime import datetime

import numpy as np

from teachmem.core.clock import ManualClock
from teachmem.core.embed import embedder_from_config

__all__ = ["iso", "from_iso", "rebuild", "semantic_state", "semantic_from_state"]


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


def semantic_state(store, names) -> dict:
    """A SemanticMemoryStore as data: settings, every row (vector as a list), what retired it, the keys."""
    rows = [{"text": x, "memory_type": k, "metadata": m, **store.table.row_state(r)}
            for r, (x, k, m) in enumerate(zip(store.texts, store.types, store.metadata))]
    return {**_settings(store, names), "embedder": store.embedder.config(),
            "now": iso(store.clock()), "last_turn": store.last_turn, "memories": rows,
            "retired": [[r, why] for r, why in sorted(store.retired.items())],
            "keys": [[user, key, rows] for (user, key), rows in store.keys.items()]}


def semantic_from_state(cls, state: dict, names, *, embedder=None, clock=None):
    """Rows are appended again in order, so every row keeps its number; the clock resumes at the saved time."""
    store = rebuild(cls, state, names, embedder=embedder or embedder_from_config(state["embedder"]),
                    clock=clock or ManualClock(from_iso(state["now"])))
    for m in state["memories"]:
        store._append(m["text"], m["memory_type"], np.asarray(m["vector"], np.float32),
                      dict(m["metadata"]), **m["numbers"])
    for row, why in state["retired"]:
        store._retire(row, why)
    store.keys = {(user, key): list(rows) for user, key, rows in state["keys"]}
    return store
