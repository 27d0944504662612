"""Memory governance: where a memory came from, how long it may stay, and how to erase it.

Seed 001's interview notes ask four things of any memory system. This module
makes each one concrete, for every strategy in ``teachmem.memory``:

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

Every edit goes through the strategies' own ``to_state()``/``from_state()``:
the state is edited as data and the object rebuilt in place, so live
collaborators (its clock, model, embedder, token counter) are kept.

Taught in notebooks/09_persistence_and_governance.ipynb.
"""
from __future__ import annotations

import inspect
import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Iterable

from teachmem.lab.store import MemoryDB, _compile, _strings
from teachmem.core.validate import require_datetime, require_int_at_least, require_text

__all__ = ["PIIMatch", "find_pii", "luhn_valid", "redact_pii", "Provenance", "provenance",
           "RetentionPolicy", "apply_retention", "TierAudit", "Audit", "forget", "copies",
           "Observation", "reconcile", "REDACTED"]

# ====================================================================== PII
_EMAIL = re.compile(r"(?<![\w.%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![\w-])")
# Digits, optionally grouped by single spaces, dots, dashes or an (area code):
# the shapes phone and card numbers are written in.
_NUMBER = re.compile(r"(?<![\w+])\+?(?:\(\d{1,4}\)|\d)(?:[ .-]?(?:\(\d{1,4}\)|\d))*(?!\w)")
_DATE = re.compile(r"^(\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4})$")
_IP = re.compile(r"^\d{1,3}(\.\d{1,3}){3}$")


@dataclass(frozen=True)
class PIIMatch:
    """One piece of personal data found in a text: its kind and where it is.

    Taught in notebooks/09_persistence_and_governance.ipynb.
    """

    kind: str      # "email", "phone" or "card"
    text: str
    start: int
    end: int


def luhn_valid(number: str) -> bool:
    """The Luhn checksum card numbers carry: True for "4111 1111 1111 1111".

    From the right, double every second digit (subtracting 9 above 9); the
    sum must end in 0. A random 16-digit number passes one time in ten, so
    the check removes most order numbers and IDs that merely look like cards.

    Taught in notebooks/09_persistence_and_governance.ipynb.
    """
    digits = re.sub(r"[ -]", "", require_text("number", number))
    if not digits.isdigit() or not digits.isascii():
        return False
    total = 0
    for i, d in enumerate(int(c) for c in reversed(digits)):
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _number_kind(candidate: str) -> str | None:
    digits = re.sub(r"\D", "", candidate)
    if 13 <= len(digits) <= 19 and luhn_valid(digits):
        return "card"
    if not 7 <= len(digits) <= 15 or _DATE.match(candidate) or _IP.match(candidate):
        return None
    groups = re.split(r"[ .-]", candidate.lstrip("+"))
    if len(groups) == 1:   # one run of digits: a phone only if long (an amount or a year is short)
        return "phone" if len(digits) >= 10 or candidate.startswith(("+", "(")) else None
    # "3 4 5 6 7" is a list, not a phone: after the first, groups have two digits or more.
    return "phone" if all(len(re.sub(r"\D", "", g)) >= 2 for g in groups[1:]) else None


def find_pii(text: str) -> list[PIIMatch]:
    """Emails, phone numbers and card-like numbers (Luhn-checked) in ``text``, in order.

    A simple detector, not a guarantee: it misses names and addresses, and an
    eight-digit reference like "1234-5678" looks like a phone number to it.

    Taught in notebooks/09_persistence_and_governance.ipynb.
    """
    require_text("text", text, allow_empty=True)
    found = [PIIMatch("email", m.group(), m.start(), m.end()) for m in _EMAIL.finditer(text)]
    taken = [(f.start, f.end) for f in found]
    for m in _NUMBER.finditer(text):
        kind = _number_kind(m.group())
        if kind and not any(s < m.end() and m.start() < e for s, e in taken):   # not inside an email
            found.append(PIIMatch(kind, m.group(), m.start(), m.end()))
    return sorted(found, key=lambda f: f.start)


def redact_pii(text: str) -> str:
    """``text`` with every email, phone and card number replaced by ``[email]``, ``[phone]``, ``[card]``.

    Taught in notebooks/09_persistence_and_governance.ipynb.
    """
    for match in reversed(find_pii(text)):
        text = text[:match.start] + f"[{match.kind}]" + text[match.end:]
    return text


# ====================================================================== provenance
@dataclass(frozen=True)
class Provenance:
    """One stored item and where it came from.

    ``where`` locates the item inside its tier's state (for removal);
    ``source_turn``, ``observed_at`` and ``confidence`` are None when the
    strategy did not record them (itself worth knowing: an item nobody can
    trace is an item nobody can vouch for).

    Taught in notebooks/09_persistence_and_governance.ipynb.
    """

    tier: str
    where: tuple
    memory_type: str
    text: str
    source_turn: int | None
    observed_at: datetime | None
    confidence: float | None
    pii: tuple[str, ...]

    @property
    def has_pii(self) -> bool:
        return bool(self.pii)


def _when(value) -> datetime | None:
    return datetime.fromisoformat(value) if isinstance(value, str) else value


def _record(tier, where, memory_type, text, turn=None, when=None, confidence=None) -> Provenance:
    return Provenance(tier, where, memory_type, text, turn, _when(when), confidence,
                      tuple(sorted({m.kind for m in find_pii(text)})))


# ====================================================================== tiers
# How governance reads and edits each strategy, through its state. ``items``
# yields the stored items; ``edit`` removes the items named in ``drop`` and
# redacts ``pattern`` from the rest, returning how many items it touched.
REDACTED = "[forgotten]"


def _redact(pattern: re.Pattern, text: str) -> str:
    marker = "" if pattern.search(REDACTED) else REDACTED
    return pattern.sub(marker, text)


def _message_items(tier, state, key, memory_type="message"):
    for i, m in enumerate(state[key]):
        yield _record(tier, (key, i), memory_type, m["content"], m.get("turn"), m.get("timestamp"), 1.0)


def _edit_messages(state, key, drop, pattern, parallel=(), counts=None, counter=None) -> int:
    """Drop messages by position, redact the pattern in the others; ``parallel`` lists follow.

    ``counts`` names a list of token counts to redo with ``counter`` for
    redacted messages (a count of the old text would now be wrong).
    """
    keep = [i for i in range(len(state[key])) if (key, i) not in drop]
    touched = len(state[key]) - len(keep)
    state[key] = [state[key][i] for i in keep]
    for name in parallel:
        state[name] = [state[name][i] for i in keep]
    for i, m in enumerate(state[key]):
        if pattern is not None and pattern.search(m["content"]):
            m["content"] = _redact(pattern, m["content"])
            touched += 1
            if counts:
                state[counts][i] = counter(m["content"])
    return touched


class _Messages:
    """ConversationBuffer, SlidingWindowMemory, TokenBudgetWindow: a list of messages."""

    def __init__(self, parallel=(), counts=None):
        self.parallel, self.counts = parallel, counts

    def items(self, tier, state):
        yield from _message_items(tier, state, "messages")

    def edit(self, state, drop, pattern, live) -> int:
        return _edit_messages(state, "messages", drop, pattern, self.parallel, self.counts, live.get("count_tokens"))


class _Summary:
    """SummaryMemory: pinned facts, the running summary, the messages not yet folded."""

    def items(self, tier, state):
        for i, fact in enumerate(state["pinned"]):
            yield _record(tier, ("pinned", i), "pinned", fact, confidence=1.0)
        if state["summary"]:
            yield _record(tier, ("summary",), "summary", state["summary"])
        yield from _message_items(tier, state, "buffer")

    def edit(self, state, drop, pattern, live) -> int:
        touched = _edit_messages(state, "buffer", drop, pattern)
        pinned = [f for i, f in enumerate(state["pinned"])
                  if ("pinned", i) not in drop and not (pattern and pattern.search(f))]
        touched += len(state["pinned"]) - len(pinned)
        state["pinned"] = pinned
        if ("summary",) in drop:
            state["summary"], touched = "", touched + 1
        elif pattern is not None and pattern.search(state["summary"]):
            # Regenerate the summary from what remains: the sentences that do
            # not mention it, summarised afresh (a redacted sentence would
            # still say *that* something was there, and read badly).
            from teachmem.llm import summarize
            kept = [s for s in re.split(r"(?<=[.!?])\s+", state["summary"]) if not pattern.search(s)]
            state["summary"] = summarize(live["llm"], " ".join(kept), max_words=state["max_words"])
            touched += 1
        return touched


class _Semantic:
    """SemanticMemoryStore: rows of text + vector + labels; retired rows are history.

    A removed row becomes a tombstone (no text, a zero vector, no labels but
    its time), retired: row numbers elsewhere in the state stay valid.
    """

    def items(self, tier, state):
        retired = {row for row, _ in state["retired"]}
        for i, m in enumerate(state["memories"]):
            meta = m["metadata"]
            if meta.get("forgotten"):
                continue
            kind = m["memory_type"] if i not in retired else f"{m['memory_type']} (history)"
            yield _record(tier, ("memories", i), kind, m["text"], meta.get("turn", meta.get("source_turn")),
                          meta.get("timestamp"), meta.get("confidence", 1.0 if m["memory_type"] == "message" else None))

    def edit(self, state, drop, pattern, live) -> int:
        gone = {i for i, m in enumerate(state["memories"])
                if ("memories", i) in drop or (pattern is not None and any(map(pattern.search, _strings(m))))}
        for i in gone:
            m = state["memories"][i]
            m["text"], m["vector"] = "", [0.0] * len(m["vector"])
            m["metadata"] = {"timestamp": m["metadata"]["timestamp"], "forgotten": True}
        retired = dict(state["retired"])
        retired.update({i: "forgotten" for i in gone})
        state["retired"] = [[r, why] for r, why in sorted(retired.items())]
        # Keys say what a fact is about ("email is …" -> "email"); drop the forgotten rows from them.
        keys = [[user, key, [r for r in rows if r not in gone]] for user, key, rows in state["keys"]]
        state["keys"] = [k for k in keys if k[2] and not (pattern and pattern.search(k[1]))]
        return len(gone)


class _Entities:
    """EntityMemory: every value ever held, each with its validity; the changelog is derived from them."""

    def items(self, tier, state):
        for i, f in enumerate(state["history"]):
            kind = "fact" if f["valid_to"] is None else "fact (history)"
            yield _record(tier, ("history", i), kind, f"{f['entity']}.{f['attribute']} = {f['value']}",
                          f["valid_from"], f["since"], f["confidence"])

    def edit(self, state, drop, pattern, live) -> int:
        # A removed current value does not bring the value it replaced back to
        # life: that one stays closed, so the attribute simply has no value now.
        keep = [f for i, f in enumerate(state["history"]) if ("history", i) not in drop
                and not (pattern and any(pattern.search(f[k]) for k in ("entity", "attribute", "value")))]
        touched, state["history"] = len(state["history"]) - len(keep), keep
        return touched


_TIERS = {"ConversationBuffer": _Messages(), "SlidingWindowMemory": _Messages(parallel=("importance",)),
          "TokenBudgetWindow": _Messages(parallel=("tokens",), counts="tokens"),
          "SummaryMemory": _Summary(), "EntityMemory": _Entities(), "SemanticMemoryStore": _Semantic()}

# Collaborators a strategy holds but does not save: kept across a rebuild.
_LIVE = {"token_counter": "count_tokens", "llm": "llm", "clock": "clock", "embedder": "embedder",
         "scorer": "scorer", "extractor": "extractor"}


def _tiers(memory, prefix: str = "") -> list[tuple[str, object]]:
    """``(name, strategy)`` for a single strategy, or for each tier of a manager.

    A manager (or any object) is searched attribute by attribute, and so are
    managers inside it: ``app.hybrid.window`` is found as "hybrid.window".
    """
    if type(memory).__name__ in _TIERS:
        return [(prefix or type(memory).__name__, memory)]
    found = []
    for name, value in (vars(memory).items() if hasattr(memory, "__dict__") else []):
        if type(value).__name__ in _TIERS:
            found.append((prefix + name, value))
        elif callable(getattr(value, "to_state", None)) and hasattr(value, "__dict__"):
            found += _tiers(value, f"{prefix}{name}.")
    if not found and not prefix:
        raise TypeError(f"memory must be a teachmem strategy or hold some, got {type(memory).__name__}")
    return found


def _edit(memory, drop=frozenset(), pattern=None) -> int:
    """Edit ``memory``'s state as data, then rebuild it in place; returns the items touched."""
    state = json.loads(json.dumps(memory.to_state()))     # a deep copy we may change freely
    touched = _TIERS[type(memory).__name__].edit(state, drop, pattern, _collaborators(memory))
    if touched:
        _rebuild(memory, state)
        _refresh_embedder(memory, pattern)
    return touched


def _collaborators(memory) -> dict:
    return {attr: getattr(memory, attr) for attr in _LIVE.values() if hasattr(memory, attr)}


def _rebuild(memory, state: dict) -> None:
    """Make ``memory`` the strategy ``state`` describes, keeping the same object and collaborators."""
    live = _collaborators(memory)
    accepts = inspect.signature(type(memory).from_state).parameters
    rebuilt = type(memory).from_state(state, **{p: live[a] for p, a in _LIVE.items() if p in accepts and a in live})
    vars(memory).clear()
    vars(memory).update(vars(rebuilt))
    vars(memory).update(live)


def _refresh_embedder(memory, pattern) -> None:
    """A hashing embedder caches the words it has seen: swap it for an identical empty one.

    Its vectors depend only on its settings, so the swap changes no result;
    a trained model (no such cache) is left alone.
    """
    from teachmem.core.embed import embedder_from_config
    embedder = getattr(memory, "embedder", None)
    if embedder is None or not callable(getattr(embedder, "config", None)) \
            or embedder.config().get("name") == "sentence-transformers":
        return
    if pattern is None or copies(embedder, pattern):
        memory.embedder = embedder_from_config(embedder.config())


def provenance(memory) -> list[Provenance]:
    """Every item ``memory`` stores (every tier of a manager), with its provenance.

    Taught in notebooks/09_persistence_and_governance.ipynb.
    """
    return [record for name, tier in _tiers(memory)
            for record in _TIERS[type(tier).__name__].items(name, tier.to_state())]


# ====================================================================== retention
def _duration(name: str, value) -> timedelta | None:
    if value is None:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = timedelta(days=value)
    if not isinstance(value, timedelta):
        raise TypeError(f"{name} must be a timedelta, a number of days or None, got {type(value).__name__}")
    if value <= timedelta(0):
        raise ValueError(f"{name} must be positive, got {value}")
    return value


class RetentionPolicy:
    """How long each memory type may be kept.

    ``ttl`` maps a memory type ("message", "fact", "summary", …) to a
    ``timedelta`` or a number of days; None keeps it forever. ``default``
    applies to types not listed. ``pii`` caps the life of any item that
    contains personal data, whatever its type.

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
        limits = [own] + ([self.pii] if record.pii else [])
        limits = [t for t in limits if t is not None]
        return min(limits) if limits else None

    def expires_at(self, record: Provenance) -> datetime | None:
        """When ``record`` must be gone; None if it may stay (or has no time to age from)."""
        ttl = self.ttl_for(record)
        return None if ttl is None or record.observed_at is None else record.observed_at + ttl

    def expired(self, records: Iterable[Provenance], now: datetime) -> list[Provenance]:
        require_datetime("now", now, allow_none=False)
        return [r for r in records if (end := self.expires_at(r)) is not None and end <= now]

    def __repr__(self) -> str:
        days = {k: (v.days if v is not None else None) for k, v in self.ttl.items()}
        return f"RetentionPolicy(ttl_days={days}, default={self.default}, pii={self.pii})"


def apply_retention(memory, policy: RetentionPolicy, now: datetime) -> list[Provenance]:
    """Remove every item whose time to live has run out at ``now``; return what was removed.

    ``now`` is required: pass the simulated clock's time (``clock()``).
    Taught in notebooks/09_persistence_and_governance.ipynb.
    """
    if not isinstance(policy, RetentionPolicy):
        raise TypeError(f"policy must be a RetentionPolicy, got {type(policy).__name__}")
    require_datetime("now", now, allow_none=False)
    gone = policy.expired(provenance(memory), now)
    for name, tier in _tiers(memory):
        drop = {r.where for r in gone if r.tier == name}
        if drop:
            _edit(tier, drop=drop)
    return gone


# ====================================================================== forget and audit
def copies(obj, text_or_pattern, *, skip: Iterable = ()) -> int:
    """How many strings reachable from ``obj`` contain ``text_or_pattern``.

    Walks everything the object holds (attributes, lists, dicts, caches,
    traces), not just what it would save: a copy in a forgotten corner
    counts. Objects in ``skip`` are not entered.

    Taught in notebooks/09_persistence_and_governance.ipynb.
    """
    pattern = _compile(text_or_pattern)
    seen, stack, found = {id(s) for s in skip}, [obj], 0
    while stack:
        item = stack.pop()
        if id(item) in seen or inspect.ismodule(item) or inspect.isroutine(item) or isinstance(item, type):
            continue
        seen.add(id(item))
        if isinstance(item, str):
            found += bool(pattern.search(item))
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
    """One tier after ``forget``: items removed or redacted, copies still found.

    Taught in notebooks/09_persistence_and_governance.ipynb.
    """

    tier: str
    removed: int
    remaining: int


@dataclass(frozen=True)
class Audit:
    """The proof that ``forget`` worked: every tier must show 0 remaining.

    Taught in notebooks/09_persistence_and_governance.ipynb.
    """

    pattern: str
    tiers: tuple[TierAudit, ...] = field(default_factory=tuple)

    @property
    def clean(self) -> bool:
        return all(t.remaining == 0 for t in self.tiers)

    def __str__(self) -> str:
        width = max([len(t.tier) for t in self.tiers] + [4])
        lines = [f"forget {self.pattern!r}", f"{'tier':<{width}}  removed  remaining"]
        lines += [f"{t.tier:<{width}}  {t.removed:>7}  {t.remaining:>9}" for t in self.tiers]
        lines.append("✅ no copy remains" if self.clean else "❌ copies remain")
        return "\n".join(lines)


def forget(memory, text_or_pattern, db: MemoryDB | None = None, *, user_id: str | None = None) -> Audit:
    """Remove ``text_or_pattern`` from every tier of ``memory`` (and ``user_id``'s saved memories in ``db``).

    A plain string is matched case-insensitively; pass ``re.compile(...)``
    for a pattern. Messages keep their place with the match replaced by
    ``[forgotten]``; pinned facts, semantic memories (and their vectors) and
    entity values that contain it are removed; a summary that mentions it is
    regenerated from its other sentences. Returns an ``Audit``.

    The audit counts every reachable string, labels included, so a word the
    library itself uses (a role such as "user", a memory type such as
    "fact") cannot come out clean: such a word is not a memory to forget.

    Taught in notebooks/09_persistence_and_governance.ipynb.
    """
    pattern = _compile(text_or_pattern)
    if db is not None and not isinstance(db, MemoryDB):
        raise TypeError(f"db must be a MemoryDB or None, got {type(db).__name__}")
    if db is not None:
        require_text("user_id", user_id)
    tiers = _tiers(memory)
    rows = [TierAudit(name, _edit(tier, pattern=pattern), copies(tier, pattern)) for name, tier in tiers]
    if len(tiers) > 1 or tiers[0][1] is not memory:   # a manager: anything outside its tiers?
        rows.append(TierAudit("manager (other state)", 0, copies(memory, pattern, skip=[t for _, t in tiers])))
    if db is not None:
        rows += _forget_in_db(db, pattern, user_id)
    return Audit(pattern.pattern if text_or_pattern is pattern else text_or_pattern, tuple(rows))


def _forget_in_db(db: MemoryDB, pattern: re.Pattern, user_id: str) -> list[TierAudit]:
    rewritten = db.find(pattern, user_id=user_id)
    with db.batch():
        for _, name in rewritten:
            saved = db.load(user_id=user_id, name=name)
            for _, tier in _tiers(saved):
                _edit(tier, pattern=pattern)
            db.save(saved, user_id=user_id, name=name)
    db.compact()      # no old page images left in the WAL or in free pages
    others = sum(_occurrences(pattern, db.load_state(user_id=u, name=n)[1])
                 for u, n in db.find(pattern) if u != user_id)
    return [TierAudit("database", len(rewritten), len(db.find(pattern, user_id=user_id))),
            TierAudit("database file bytes", 0, max(0, db.raw_matches(pattern) - others))]


def _occurrences(pattern: re.Pattern, state) -> int:
    return sum(len(pattern.findall(s)) for s in _strings(state))


# ====================================================================== fresh beats stale
_AUTHORITY = {"memory": 0, "tool": 1, "system_of_record": 2}


@dataclass(frozen=True)
class Observation:
    """A value for ``key`` (e.g. ``("Project", "database")``), who said it and when.

    ``source`` is "memory" (recalled from an earlier conversation), "tool"
    (a tool call just now) or "system_of_record" (the authoritative database).

    Taught in notebooks/09_persistence_and_governance.ipynb.
    """

    key: tuple
    value: str
    source: str
    observed_at: datetime

    def __post_init__(self):
        if self.source not in _AUTHORITY:
            raise ValueError(f"source must be one of {tuple(_AUTHORITY)}, got {self.source!r}")
        require_datetime("observed_at", self.observed_at, allow_none=False)


def reconcile(observations: Iterable[Observation]) -> dict[tuple, Observation]:
    """The value to believe for each key.

    A system of record always wins; otherwise the newest observation wins,
    and at the same time a tool beats memory. Memory never overrides a
    fresher tool result: that is how a stale fact gets repeated confidently.

    Taught in notebooks/09_persistence_and_governance.ipynb.
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


def memory_observations(memory) -> list[Observation]:
    """What the entity tier(s) of ``memory`` currently believe, as ``source="memory"`` observations.

    Taught in notebooks/09_persistence_and_governance.ipynb.
    """
    return [Observation((f["entity"], f["attribute"]), f["value"], "memory", _when(f["since"]))
            for _, tier in _tiers(memory) if type(tier).__name__ == "EntityMemory"
            for f in tier.to_state()["history"] if f["valid_to"] is None and f["since"]]


def apply_fresh(memory, observations: Iterable[Observation], *, turn: int) -> list[dict]:
    """Write fresher tool / system-of-record values into ``memory``'s entity tier(s).

    Where ``reconcile`` says a non-memory observation wins and its value
    differs, the remembered value is closed at ``turn`` (kept as history, so
    ``as_of`` and the changelog show the correction) and the fresh value
    becomes current. Returns the changes made.

    Taught in notebooks/09_persistence_and_governance.ipynb.
    """
    observations = list(observations)
    require_int_at_least("turn", turn, 0)
    changes = []
    for _, tier in _tiers(memory):
        if type(tier).__name__ != "EntityMemory":
            continue
        winners = reconcile(memory_observations(tier) + observations)
        state = tier.to_state()
        current = {(f["entity"], f["attribute"]): f for f in state["history"] if f["valid_to"] is None}
        for key, obs in winners.items():
            old = current.get(key)
            if obs.source == "memory" or (old and old["value"].casefold() == obs.value.casefold()):
                continue
            if old:
                old["valid_to"], old["until"] = turn, obs.observed_at.isoformat()
            state["history"].append({"entity": key[0], "attribute": key[1], "value": obs.value,
                                     "valid_from": turn, "confidence": 1.0,
                                     "since": obs.observed_at.isoformat(), "valid_to": None, "until": None})
            changes.append({"key": key, "old": old["value"] if old else None, "new": obs.value,
                            "source": obs.source})
        if changes:
            _rebuild(tier, state)
    return changes
