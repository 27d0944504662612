"""Fresh beats stale: a newer tool result or a system of record overrides what memory says.

``reconcile`` picks the value to believe for each key; ``apply_fresh`` writes
the winners into a memory's entity tier(s), keeping the remembered value as
history so ``as_of`` and the changelog show the correction.

Taught in notebooks/09b_sqlite_internals_and_audits.ipynb.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Iterable

from teachmem.core.validate import require_datetime, require_int_at_least, require_text
from teachmem.llm import Triple
from teachmem.memory.entity import EntityMemory
from teachmem.memory.protocol import Stateful

__all__ = ["Observation", "reconcile", "memory_observations", "apply_fresh", "naive_utc"]


def naive_utc(name: str, value) -> datetime:
    """``require_datetime``'s check, with a timezone-aware time turned into naive UTC (the library's clock).

    >>> from datetime import timedelta
    >>> naive_utc("now", datetime(2026, 1, 1, 10, 0, tzinfo=timezone(timedelta(hours=1))))
    datetime.datetime(2026, 1, 1, 9, 0)
    """
    when = require_datetime(name, value, allow_none=False)
    return when.astimezone(timezone.utc).replace(tzinfo=None) if when.tzinfo is not None else when


_AUTHORITY = {"memory": 0, "tool": 1, "system_of_record": 2}


@dataclass(frozen=True)
class Observation:
    """A value for ``key`` (e.g. ``("Project", "database")``), who said it and when.

    ``source`` is "memory" (recalled from an earlier conversation), "tool"
    (a tool call just now) or "system_of_record" (the authoritative database).
    An aware ``observed_at`` is kept as naive UTC, the library's clock.

    Taught in notebooks/09b_sqlite_internals_and_audits.ipynb.
    """

    key: tuple
    value: str
    source: str
    observed_at: datetime

    def __post_init__(self):
        require_text("value", self.value)
        if self.source not in _AUTHORITY:
            raise ValueError(f"source must be one of {tuple(_AUTHORITY)}, got {self.source!r}")
        object.__setattr__(self, "observed_at", naive_utc("observed_at", self.observed_at))


def reconcile(observations: Iterable[Observation]) -> dict[tuple, Observation]:
    """The value to believe for each key.

    A system of record always wins; otherwise the newest observation wins,
    and at the same time a tool beats memory. Memory never overrides a
    fresher tool result: that is how a stale fact gets repeated confidently.

    Taught in notebooks/09b_sqlite_internals_and_audits.ipynb.
    """
    best: dict[tuple, Observation] = {}
    for obs in observations:
        if not isinstance(obs, Observation):
            raise TypeError(f"observations must be Observation objects, got {type(obs).__name__}")
        rank = (obs.source == "system_of_record", obs.observed_at, _AUTHORITY[obs.source])
        current = best.get(obs.key)
        if current is None or rank > (current.source == "system_of_record", current.observed_at,
                                      _AUTHORITY[current.source]):
            best[obs.key] = obs
    return best


def _entity_tiers(memory) -> list[EntityMemory]:
    """The entity memories ``memory`` is or holds (a manager's tier, an application's strategies)."""
    if isinstance(memory, EntityMemory):
        return [memory]
    held = vars(memory).values() if hasattr(memory, "__dict__") else []
    return [tier for value in held if isinstance(value, Stateful) for tier in _entity_tiers(value)]


def memory_observations(memory) -> list[Observation]:
    """What the entity tier(s) of ``memory`` currently believe, as ``source="memory"`` observations.

    Taught in notebooks/09b_sqlite_internals_and_audits.ipynb.
    """
    return [Observation((f.entity, f.attribute), f.value, "memory", f.since)
            for tier in _entity_tiers(memory) for f in tier.facts() if f.since]


def apply_fresh(memory, observations: Iterable[Observation], *, turn: int) -> list[dict]:
    """Write fresher tool / system-of-record values into ``memory``'s entity tier(s).

    Where ``reconcile`` says a non-memory observation wins and its value
    differs, the remembered value is closed at ``turn`` (kept as history, so
    ``as_of`` and the changelog show the correction) and the fresh value
    becomes current. Returns the changes made.

    Taught in notebooks/09b_sqlite_internals_and_audits.ipynb.
    """
    observations = list(observations)
    require_int_at_least("turn", turn, 0)
    changes = []
    for tier in _entity_tiers(memory):
        winners = reconcile(memory_observations(tier) + observations)
        current = {(f.entity, f.attribute): i for i, f in enumerate(tier.values) if f.valid_to is None}
        for key, obs in winners.items():
            old = tier.values[current[key]] if key in current else None
            if obs.source == "memory" or (old and old.value.casefold() == obs.value.casefold()):
                continue
            # through store, as any new value: it closes the old one and keeps the fact's id
            tier.store(Triple(key[0], key[1], obs.value, 1.0), turn, obs.observed_at)
            changes.append({"key": key, "old": old.value if old else None, "new": obs.value, "source": obs.source})
    return changes
