"""The contract between a memory strategy and everything that runs it, in one place.

A strategy is any object with ``add`` and ``context``: that is ``Memory``, the only part every
strategy must implement. The replay, the widgets and the scoreboard need nothing more. Each other
part is optional and switches on one more service, which checks for it with ``isinstance``
(every protocol here is runtime-checkable) before it relies on it:

==================  ========================================  =====================================
protocol            what the strategy implements              who uses it, and for what
==================  ========================================  =====================================
``Memory``          ``add``, ``context`` (required)           replay, evaluation, widgets
``Stateful``        ``to_state()``                            governance finds the tiers by it
``Saveable``        ``kind``, ``to_state``, ``from_state``    ``MemoryDB``: save and load by kind
``Composite``       ``parts``: the attributes holding others  saving, loading, ``forget`` walk them
``Erasable``        ``erase(pattern)``                        ``teachmem.forget``
``Audited``         ``copies_held(pattern)``                  ``forget``'s audit, for a database
``Traceable``       ``provenance()``                          ``teachmem.provenance``
``Deletable``       ``delete(id)``                            ``teachmem.apply_retention``
``Clocked``         a ``clock`` attribute                     replay moves a ``ManualClock`` on
``UsesModel``       an ``llm`` attribute                      ``model_calls`` for the scoreboard
``UsesEmbedder``    an ``embedder`` attribute                 ``forget`` empties a word cache
==================  ========================================  =====================================

Every write (``add``, ``erase``, ``delete``) returns the list of ``Change`` records saying what it
did. Every class in ``teachmem.memory`` that declares its own ``kind`` is a strategy teachmem
ships: ``strategy_classes()`` finds them, and ``strategies_by_kind()`` is the database's registry.
"""
from __future__ import annotations

import importlib
import pkgutil
import re
from datetime import datetime
from typing import Any, Callable, Protocol, runtime_checkable

from teachmem.core.change import Change

__all__ = ["Memory", "Stateful", "Saveable", "Composite", "Erasable", "Audited", "Traceable",
           "Deletable", "Clocked", "UsesModel", "UsesEmbedder", "PROVENANCE_KEYS", "declared_kind",
           "is_saveable_class", "model_calls", "strategies_by_kind", "strategy_classes"]

# What each dict of ``provenance()`` holds.
PROVENANCE_KEYS = ("id", "memory_type", "text", "turn", "timestamp", "confidence")


@runtime_checkable
class Memory(Protocol):
    """Required. What the replay, the widgets and the evaluation need from a strategy.

    ``add`` is told what was said, on which turn and when; it returns the Changes it made (an
    empty list when it kept nothing). ``context`` answers what would be sent to the model now,
    as chat messages ``{"role": ..., "content": ...}``; ``query`` is the user's latest words,
    which a retrieving strategy ranks by and a window ignores.
    """

    def add(self, role: str, content: str, *, turn: int | None = None,
            timestamp: datetime | None = None) -> list[Change]: ...

    def context(self, query: str | None = None) -> list[dict]: ...


@runtime_checkable
class Stateful(Protocol):
    """Optional. ``to_state()`` returns everything the strategy holds, as JSON-ready data (a
    ``Composite``: everything beside its parts).

    It is also how governance tells a strategy from plain data: an object held by a composite
    (the hybrid manager, or an application object) is searched as a tier when it has a state.
    """

    def to_state(self) -> dict: ...


@runtime_checkable
class Saveable(Stateful, Protocol):
    """Optional. A strategy ``MemoryDB`` can save and load.

    ``kind`` is the stable name the database stores ("buffer", "semantic", …), one per class:
    a file names a kind, never a module to import. The classmethod ``from_state(state)`` builds
    an equal strategy from what ``to_state()`` returned.
    """

    kind: str

    @classmethod
    def from_state(cls, state: dict) -> Any: ...


@runtime_checkable
class Composite(Protocol):
    """Optional. A strategy built from other strategies (the hybrid manager, the agent) names the
    attributes that hold them in ``parts``.

    Its own ``to_state``, ``from_state`` and ``erase`` cover only what it holds beside its parts.
    Saving, loading and ``teachmem.forget`` reach each part through this contract, so a composite
    never saves, rebuilds or erases its parts itself. When it is rebuilt, its parts are rebuilt in
    the order of ``parts`` and share one clock: the one passed in, else the one the first part
    with a ``clock`` resumes at its saved time.
    """

    parts: tuple[str, ...]


@runtime_checkable
class Erasable(Protocol):
    """Optional. ``erase(pattern)`` removes or redacts every stored copy of what the compiled
    pattern matches, and returns the Changes. ``teachmem.forget`` calls it on every tier (on a
    composite's parts first, then on the composite for what it holds beside them)."""

    def erase(self, pattern: re.Pattern) -> list[Change]: ...


@runtime_checkable
class Audited(Protocol):
    """Optional. A strategy whose memories live outside Python (in a database) counts the copies of
    what a compiled pattern matches that it still holds; ``teachmem.forget``'s audit asks it, since
    walking the object would only find a connection."""

    def copies_held(self, pattern: re.Pattern) -> int: ...


@runtime_checkable
class Traceable(Protocol):
    """Optional. ``provenance()`` lists every stored item as a dict with ``PROVENANCE_KEYS``:
    where it came from (turn, time) and how sure the strategy is of it."""

    def provenance(self) -> list[dict]: ...


@runtime_checkable
class Deletable(Protocol):
    """Optional. ``delete(id)`` removes one stored item, named by the id ``provenance()`` gives
    it, and returns the Changes. Retention deletes what has expired this way."""

    def delete(self, id: str) -> list[Change]: ...


@runtime_checkable
class Clocked(Protocol):
    """Optional. A strategy that ranks by age keeps its time source in ``clock``.

    When it is a ``ManualClock``, the replay moves it to each turn's time before the turn is
    added, so decay plays out over the conversation's own calendar.
    """

    clock: Callable[[], datetime]


@runtime_checkable
class UsesModel(Protocol):
    """Optional. A strategy that calls a language model keeps it in ``llm`` (None where it
    works by rules instead); the model's ``usage.calls`` is what the scoreboard reports."""

    llm: Any


@runtime_checkable
class UsesEmbedder(Protocol):
    """Optional. A strategy that embeds text keeps its embedder in ``embedder``. Governance
    swaps a hashing embedder for an empty copy after ``forget``: its cache held the words."""

    embedder: Any


def model_calls(memory: object) -> int:
    """How many model calls ``memory`` has made: its model's ``usage.calls``; 0 without a model,
    or with one that does not count its calls."""
    if not isinstance(memory, UsesModel):
        return 0
    usage = getattr(memory.llm, "usage", None)
    return int(getattr(usage, "calls", 0))


def is_saveable_class(cls: object) -> bool:
    """Is ``cls`` a class whose instances can be saved and rebuilt?

    It needs ``to_state`` and ``from_state``; the ``kind`` it is saved under is checked apart.
    """
    if not isinstance(cls, type):
        return False
    return callable(getattr(cls, "to_state", None)) and callable(getattr(cls, "from_state", None))


def declared_kind(cls: type) -> str | None:
    """The ``kind`` a strategy class declares (its own or inherited), or None without one."""
    kind = getattr(cls, "kind", None)
    return kind if isinstance(kind, str) else None


# ---- Going further (09: the saved-strategy registry) ----
def strategy_classes() -> list[type]:
    """Every strategy teachmem ships: each class of a ``teachmem.memory`` module that declares
    its own ``kind``, sorted by name. A new strategy file is found here without being listed."""
    package = importlib.import_module("teachmem.memory")
    found = []
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        for value in vars(module).values():
            defined_here = isinstance(value, type) and value.__module__ == module.__name__
            if defined_here and "kind" in vars(value):
                found.append(value)
    return sorted(found, key=lambda cls: cls.__qualname__)


def strategies_by_kind() -> dict[str, type]:
    """``kind`` -> class for every strategy teachmem ships: the registry ``MemoryDB`` starts from.

    Two classes declaring one kind would make a saved file ambiguous: that is an error.
    """
    registry: dict[str, type] = {}
    for cls in strategy_classes():
        kind = vars(cls)["kind"]
        if kind in registry:
            raise ValueError(f"kind {kind!r} is declared by {registry[kind].__qualname__} and by "
                             f"{cls.__qualname__}: each strategy needs a kind of its own")
        registry[kind] = cls
    return registry
