"""Memory governance: where a memory came from, how long it may stay, and how to erase it.

A memory system in production owes its users four things. This module makes
each one concrete, for every strategy in ``teachmem.memory``:

* **Provenance** — ``provenance(memory)`` lists every stored item (message,
  pinned fact, summary, entity value, changelog entry, semantic memory) with
  its source turn, time, confidence and a PII flag from ``find_pii``.
* **Retention** — ``RetentionPolicy`` gives each memory type a time to live;
  ``apply_retention(memory, policy, now)`` removes what has expired. ``now``
  comes from the simulated clock: never the wall clock.
* **Deletion** — ``forget(memory, "maya@example.com", db, user_id=...)``
  removes a text (or a regular expression) from every tier and from the
  database, and returns an ``Audit`` that counts, tier by tier, the copies
  still reachable afterwards. Popular memory libraries leave copies in
  history tables and summaries; here the audit would show them.
* **Fresh beats stale** — ``reconcile`` lets a newer tool result or a system
  of record override what memory says.

Governance reaches every tier through the optional parts of the strategy
contract (``teachmem.memory.protocol``), never through a table of class names:

* ``Erasable``: ``erase(pattern) -> list[Change]`` removes or redacts every
  stored copy of what ``pattern`` matches (``forget``);
* ``Traceable``: ``provenance() -> list[dict]`` lists every stored item, as
  ``id``, ``memory_type``, ``text``, ``turn``, ``timestamp`` and ``confidence``;
* ``Deletable``: ``delete(id) -> list[Change]`` removes one stored item (retention).

A tier is an object with a state (``Stateful``). A composite (the hybrid manager, or any object holding strategies) is
searched attribute by attribute for the strategies inside it.

Taught in notebooks/09_persistence_and_governance.ipynb.
"""
from __future__ import annotations

import inspect
import math
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Iterable, Iterator

from teachmem.core.change import Change
from teachmem.core.embed import Embedder, embedder_from_config
from teachmem.core.text import forget_pattern, scrubbed
from teachmem.core.validate import require_text
from teachmem.lab.governance.freshness import Observation, naive_utc, apply_fresh, memory_observations, reconcile
from teachmem.lab.governance.pii import PIIMatch, find_pii, luhn_valid, redact_pii
from teachmem.lab.storage.memory_db import MemoryDB, require_user_id
from teachmem.memory.protocol import Audited, Deletable, Erasable, Stateful, Traceable, UsesEmbedder
from teachmem.core.text import REDACTED

__all__ = ["PIIMatch", "find_pii", "luhn_valid", "redact_pii", "Provenance", "provenance",
           "RetentionPolicy", "apply_retention", "TierAudit", "Audit", "forget", "copies",
           "Observation", "reconcile", "memory_observations", "apply_fresh", "REDACTED"]

# ====================================================================== the tiers
def _is_memory(value) -> bool:
    return isinstance(value, (Stateful, Audited)) and not isinstance(value, type)


def _inside(obj, prefix: str) -> list[tuple[str, Any]]:
    """The strategies held by ``obj``'s attributes, searched through composites ("hybrid.window")."""
    found: list[tuple[str, Any]] = []
    for name, value in (vars(obj).items() if hasattr(obj, "__dict__") else []):
        if _is_memory(value):
            found += _inside(value, f"{prefix}{name}.") or [(prefix + name, value)]
    return found


def _tiers(memory) -> list[tuple[str, Any]]:
    """``(name, strategy)`` for a single strategy, or for each strategy inside a composite.

    A strategy is an object with ``to_state``; one holding others (a manager,
    an application object) is searched attribute by attribute.
    """
    found = _inside(memory, "")
    if not found and _is_memory(memory):
        return [(type(memory).__name__, memory)]
    if not found:
        raise TypeError(f"memory must be a teachmem strategy or hold some, got {type(memory).__name__}")
    return found


def _protocol(tiers: list[tuple[str, Any]], part: type, method: str) -> None:
    """Check, before anything changes, that every tier implements ``part`` of the protocol (``method``)."""
    for name, tier in tiers:
        if not isinstance(tier, part):
            raise TypeError(f"tier {name!r} ({type(tier).__name__}) has no {method}(): governance cannot reach it")


# ====================================================================== provenance
@dataclass(frozen=True)
class Provenance:
    """One stored item and where it came from.

    ``where`` is the item's stable id in its tier ("m3", "p1", "summary", …);
    ``source_turn``, ``observed_at`` and ``confidence`` are None when the
    strategy did not record them (itself worth knowing: an item nobody can
    trace is an item nobody can vouch for).

    Taught in notebooks/09_persistence_and_governance.ipynb.
    """

    tier: str
    where: str
    memory_type: str
    text: str
    source_turn: int | None
    observed_at: datetime | None
    confidence: float | None
    pii: tuple[str, ...]

    @property
    def has_pii(self) -> bool:
        return bool(self.pii)


def _record(tier: str, item: dict) -> Provenance:
    when = item.get("timestamp")
    when = datetime.fromisoformat(when) if isinstance(when, str) else when
    when = None if when is None else naive_utc("timestamp", when)
    return Provenance(tier, str(item["id"]), item["memory_type"], item["text"], item.get("turn"), when,
                      item.get("confidence"), tuple(sorted({m.kind for m in find_pii(item["text"])})))


def provenance(memory) -> list[Provenance]:
    """Every item ``memory`` stores (every tier of a manager), with its provenance.

    Taught in notebooks/09_persistence_and_governance.ipynb.
    """
    tiers = _tiers(memory)
    _protocol(tiers, Traceable, "provenance")
    return [_record(name, item) for name, tier in tiers for item in tier.provenance()]


# ====================================================================== retention
def _duration(name: str, value) -> timedelta | None:
    """A time to live: a timedelta or a number of days; None, ``math.inf`` or more than
    ``timedelta.max`` mean "keep forever" (no date can be that far away)."""
    if value is None:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if math.isnan(value):
            raise ValueError(f"{name} must be a number of days, got nan")
        if value > timedelta.max.days:
            return None
        value = timedelta(days=value)
    if not isinstance(value, timedelta):
        raise TypeError(f"{name} must be a timedelta, a number of days or None, got {type(value).__name__}")
    if value <= timedelta(0):
        raise ValueError(f"{name} must be positive, got {value}")
    return value


class RetentionPolicy:
    """How long each memory type may be kept.

    ``ttl`` maps a memory type ("message", "fact", "summary", …) to a
    ``timedelta`` or a number of days; None (or ``math.inf``) keeps it
    forever. ``default`` applies to types not listed. ``pii`` caps the life
    of any item that contains personal data, whatever its type.

    Taught in notebooks/09_persistence_and_governance.ipynb.
    """

    def __init__(self, ttl: dict | None = None, *, default=None, pii=None):
        if ttl is not None and not isinstance(ttl, dict):
            raise TypeError(f"ttl must be a dict of memory type -> time to live, got {type(ttl).__name__}")
        self.ttl = {require_text("memory type", k): _duration(f"ttl[{k!r}]", v) for k, v in (ttl or {}).items()}
        self.default = _duration("default", default)
        self.pii = _duration("pii", pii)

    def ttl_for(self, record: Provenance) -> timedelta | None:
        """The type's own limit ("fact (history)" falls back to "fact"), capped by ``pii``."""
        base = record.memory_type.removesuffix(" (history)")
        own = self.ttl[record.memory_type] if record.memory_type in self.ttl else self.ttl.get(base, self.default)
        limits = [t for t in [own] + ([self.pii] if record.pii else []) if t is not None]
        return min(limits) if limits else None

    def expires_at(self, record: Provenance) -> datetime | None:
        """When ``record`` must be gone; None if it may stay (or has no time to age from, or
        its end lies past the last date a datetime can hold)."""
        ttl = self.ttl_for(record)
        if ttl is None or record.observed_at is None:
            return None
        try:
            return record.observed_at + ttl
        except OverflowError:        # past the last date a datetime can hold: it never expires
            return None

    def expired(self, records: Iterable[Provenance], now: datetime) -> list[Provenance]:
        now = naive_utc("now", now)
        return [r for r in records if (end := self.expires_at(r)) is not None and end <= now]

    def __repr__(self) -> str:
        days = {k: (v.days if v is not None else None) for k, v in self.ttl.items()}
        return f"RetentionPolicy(ttl_days={days}, default={self.default}, pii={self.pii})"


def apply_retention(memory, policy: RetentionPolicy, now: datetime) -> list[Provenance]:
    """Remove every item whose time to live has run out at ``now``; return what was removed.

    ``now`` is required: pass the simulated clock's time (``clock()``); an
    aware time is read as UTC. Each tier removes its own items (``delete(id)``).
    Taught in notebooks/09_persistence_and_governance.ipynb.
    """
    if not isinstance(policy, RetentionPolicy):
        raise TypeError(f"policy must be a RetentionPolicy, got {type(policy).__name__}")
    now = naive_utc("now", now)
    tiers = _tiers(memory)
    _protocol(tiers, Deletable, "delete")
    gone = policy.expired(provenance(memory), now)
    for name, tier in tiers:
        for record in gone:
            if record.tier == name:
                tier.delete(record.where)
    return gone


# ====================================================================== forget and audit
def _found(pattern: re.Pattern, text: str) -> bool:
    """Does ``text`` hold a match, also once its whitespace runs are single spaces?"""
    return bool(pattern.search(text) or pattern.search(" ".join(text.split())))


def copies(obj, text_or_pattern, *, skip: Iterable = ()) -> int:
    """How many strings reachable from ``obj`` contain ``text_or_pattern`` (any whitespace, any case).

    Walks everything the object holds (attributes, lists, dicts, caches,
    traces), not just what it would save: a copy in a forgotten corner
    counts. Objects in ``skip`` are not entered.

    Taught in notebooks/09b_sqlite_internals_and_audits.ipynb.
    """
    pattern = forget_pattern(text_or_pattern)
    seen, stack, found = {id(s) for s in skip}, [obj], 0
    while stack:
        item = stack.pop()
        if id(item) in seen or inspect.ismodule(item) or inspect.isroutine(item) or isinstance(item, type):
            continue
        seen.add(id(item))
        if isinstance(item, str):
            found += _found(pattern, item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            stack.extend(item)
        elif hasattr(item, "dtype") and getattr(item, "dtype", None) is not None and item.dtype.kind in "OUS":
            stack.extend(item.ravel().tolist())
        elif hasattr(item, "__dict__"):
            stack.extend(vars(item).values())
    return found


@dataclass(frozen=True)
class TierAudit:
    """One tier after ``forget``: items removed or redacted, copies still found, and the Changes made.

    Taught in notebooks/09b_sqlite_internals_and_audits.ipynb.
    """

    tier: str
    removed: int
    remaining: int
    changes: tuple[Change, ...] = ()


@dataclass(frozen=True)
class Audit:
    """The proof that ``forget`` worked: every tier must show 0 remaining.

    Taught in notebooks/09b_sqlite_internals_and_audits.ipynb.
    """

    pattern: str
    tiers: tuple[TierAudit, ...] = field(default_factory=tuple)
    notes: tuple[str, ...] = ()      # what the audit could not check

    @property
    def clean(self) -> bool:
        return all(t.remaining == 0 for t in self.tiers)

    @property
    def changes(self) -> list[Change]:
        """Every Change ``forget`` made, tier by tier."""
        return [c for t in self.tiers for c in t.changes]

    def __str__(self) -> str:
        width = max([len(t.tier) for t in self.tiers] + [4])
        lines = [f"forget {self.pattern!r}", f"{'tier':<{width}}  removed  remaining"]
        lines += [f"{t.tier:<{width}}  {t.removed:>7}  {t.remaining:>9}" for t in self.tiers]
        lines.append("✓ no copy remains" if self.clean else "✗ copies remain")
        return "\n".join(lines + list(self.notes))


def _erase(name: str, tier, pattern: re.Pattern) -> TierAudit:
    changes = tuple(scrubbed(tier.erase(pattern), pattern))
    _refresh_embedder(tier, pattern)
    left = tier.copies_held(pattern) if isinstance(tier, Audited) else copies(tier, pattern)
    return TierAudit(name, len(changes), left, changes)


def _refresh_embedder(memory, pattern: re.Pattern) -> None:
    """A hashing embedder caches the words it has seen: swap it for an identical empty one.

    Its vectors depend only on its settings, so the swap changes no result;
    a trained model (no such cache) is left alone.
    """
    if not isinstance(memory, UsesEmbedder) or not isinstance(memory.embedder, Embedder):
        return
    embedder = memory.embedder
    if embedder.config().get("name") == "sentence-transformers":
        return
    if copies(embedder, pattern):
        memory.embedder = embedder_from_config(embedder.config())


def forget(memory, text_or_pattern, db: MemoryDB | None = None, *, user_id: str | None = None) -> Audit:
    """Remove ``text_or_pattern`` from every tier of ``memory`` (and ``user_id``'s saved memories in ``db``).

    A plain string matches case-insensitively, with any run of whitespace
    between its words ("4111 1111" also finds "4111  1111"); pass
    ``re.compile(...)`` for a pattern. Each tier erases through its own
    ``erase(pattern)`` (messages keep their place with the match replaced by
    ``[forgotten]``; pinned facts, memories and entity values that contain it
    go; a summary that mentions it is rewritten). A composite's own
    ``erase`` runs after its tiers', for anything it holds beside them.
    Returns an ``Audit``: per tier, what was erased, the Changes, and the
    copies still reachable (counted with whitespace normalised).

    The audit counts every reachable string, labels included, so a word the
    library itself uses (a role such as "user", a memory type such as
    "fact") cannot come out clean: such a word is not a memory to forget.

    A ``db`` opened with ``read_only=True`` (a ``PermissionError``), or a
    ``user_id`` it would refuse, is refused before anything is erased.

    Taught in notebooks/09_persistence_and_governance.ipynb.
    """
    pattern = forget_pattern(text_or_pattern)
    if db is not None and not isinstance(db, MemoryDB):
        raise TypeError(f"db must be a MemoryDB or None, got {type(db).__name__}")
    if db is not None and not isinstance(user_id, str):
        raise TypeError(f"user_id must be a str naming whose saved memories to search, got {type(user_id).__name__}")
    if db is not None and db.read_only:      # refused before anything is erased, not half way
        raise PermissionError(f"forget writes, and {db!r} cannot be written: nothing was erased")
    if db is not None:
        require_user_id("user_id", user_id)  # empty, a lone surrogate, a NUL: refused before anything goes
    rows = _erase_everywhere(memory, pattern)
    if db is not None:
        rows += _forget_in_db(db, pattern, str(user_id))
    return Audit(text_or_pattern.pattern if isinstance(text_or_pattern, re.Pattern) else text_or_pattern,
                 tuple(rows), (db.caveat,) if db is not None and db.caveat else ())


def _erase_everywhere(memory, pattern: re.Pattern) -> list[TierAudit]:
    """Erase in every tier of ``memory``, then, for a composite, in what it holds beside them."""
    tiers = _tiers(memory)
    _protocol(tiers, Erasable, "erase")
    rows = [_erase(name, tier, pattern) for name, tier in tiers]
    if len(tiers) > 1 or tiers[0][1] is not memory:   # a composite: anything outside its tiers?
        own = tuple(scrubbed(memory.erase(pattern), pattern)) if isinstance(memory, Erasable) else ()
        rows.append(TierAudit("manager (other state)", len(own),
                              copies(memory, pattern, skip=[t for _, t in tiers]), own))
    return rows


def _forget_in_db(db: MemoryDB, pattern: re.Pattern, user_id: str) -> list[TierAudit]:
    rewritten = db.find(pattern, user_id=user_id)
    changes: list[Change] = []
    with db.batch():
        for _, name in rewritten:
            saved = db.load(user_id=user_id, name=name)
            changes += [c for row in _erase_everywhere(saved, pattern) for c in row.changes]
            db.save(saved, user_id=user_id, name=name)
    db.compact()      # SQLite: no old page images left in the WAL or free pages; PostgreSQL: VACUUM FULL
    others = sum(_occurrences(pattern, db.load_state(user_id=u, name=n)[1])
                 for u, n in db.find(pattern) if u != user_id)
    return [TierAudit("database", len(rewritten), len(db.find(pattern, user_id=user_id)), tuple(changes))] + [
        TierAudit(check, 0, copies_left) for check, copies_left in db.leftovers(pattern, others)]


def _strings(value) -> Iterator[str]:
    """Every string value in a JSON document (not the keys: they are the state's own field names)."""
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, str):
        yield value


def _occurrences(pattern: re.Pattern, state) -> int:
    return sum(len(pattern.findall(s)) for s in _strings(state))
