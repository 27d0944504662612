"""Entity memory: what is *true*, as entity–attribute–value triples, with their history.

A fact (``("Project", "database", "MySQL")``) costs a few tokens in every prompt. A newer value
for the same entity and attribute wins; the old one is *closed* (it keeps the turns it held), so
``as_of(turn)`` answers what was true then. Every fact has a stable id ("e3").

Taught in notebooks/04_entity_memory.ipynb: the learner builds ``add``, ``store`` and
``context``; validity windows, relevance and extraction by a model come after them.
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, replace
from datetime import datetime

from teachmem.core.change import Change
from teachmem.core.clock import Clock, ManualClock
from teachmem.core.validate import (require_callable, require_choice, require_datetime,
                                    require_fraction, require_int_at_least, require_message,
                                    require_positive_int, require_text)
from teachmem.core.words import shared_words
from teachmem.llm import LLM, Triple, extract_triples, rule_triples

SETTINGS = ("min_confidence", "on_error", "small_store", "min_overlap")


@dataclass(frozen=True)
class FactValue:
    """One value of one fact: when it held, and where it came from."""

    entity: str
    attribute: str
    value: str
    valid_from: int              # the turn it was said: its provenance, and when it became true
    confidence: float            # how sure the extractor was
    since: datetime | None = None
    valid_to: int | None = None  # the turn a newer value replaced it; None while still true
    until: datetime | None = None
    id: str = ""                 # the fact's id, shared by all its values
    nth: int = 1                 # once replaced: 2, 3… for later old values said in its turn

    @property
    def line(self) -> str:
        return f"{self.entity}.{self.attribute} = {self.value}"

    def shares(self, query: str | None) -> int:
        """How many content words ``query`` shares with this fact's entity, attribute and value."""
        return shared_words(query, f"{self.entity} {self.attribute} {self.value}")


def fact_table(facts) -> dict[str, dict[str, str]]:
    """``{entity: {attribute: value}}``, entities in order of appearance, attributes sorted."""
    table: dict[str, dict[str, str]] = {}
    for f in facts:
        table.setdefault(f.entity, {})[f.attribute] = f.value
    return {entity: dict(sorted(attrs.items())) for entity, attrs in table.items()}


def _locate(value: str, message: str) -> tuple[int, int] | None:
    """Where ``value``'s words stand in ``message`` (any case, any spacing), or None."""
    if not value.strip():
        return None
    words = r"\s+".join(map(re.escape, value.split()))
    found = re.search(words, message, re.IGNORECASE)
    return found.span() if found else None


class EntityMemory:
    """Facts about entities: the newest value wins, every change is kept.

    Facts come from rules (``rule_triples``) or from ``llm``, if given; only those with
    ``confidence >= min_confidence`` are kept. Above ``small_store`` facts, ``get_relevant``
    keeps those sharing ``min_overlap`` words or more with the query.

    Taught in notebooks/04_entity_memory.ipynb.
    """

    kind = "entity"

    def __init__(self, *, llm: LLM | None = None, min_confidence: float = 0.7,
                 on_error: str = "raise", small_store: int = 20, min_overlap: int = 1,
                 clock: Clock | None = None):
        self.min_confidence = require_fraction("min_confidence", min_confidence)
        self.small_store = require_int_at_least("small_store", small_store, 0)
        self.min_overlap = require_positive_int("min_overlap", min_overlap)
        self.llm = require_callable("llm", llm, "complete")
        self.on_error = require_choice("on_error", on_error, ("raise", "warn"))
        self.clock: Clock = require_callable("clock", clock) or ManualClock()
        self.values: list[FactValue] = []   # every value ever stored, in the order it arrived
        self.last_turn: int | None = None
        self.next_id = 1

    def add(self, role: str, content: str, *, turn: int | None = None,
            timestamp: datetime | None = None) -> list[Change]:
        """Remember a message: only the user's are mined (a suggestion is no decision)."""
        turn = require_message(role, content, turn, timestamp, self.last_turn)
        changes = []
        if role == "user":
            changes = self.extract_and_store(content, turn, timestamp=timestamp)
        self.last_turn = turn
        return changes

    def extract_and_store(self, message: str, turn_number: int, *,
                          timestamp: datetime | None = None) -> list[Change]:
        """Store the facts found in ``message``, said on ``turn_number``; return the changes."""
        require_text("message", message, allow_empty=True)
        require_int_at_least("turn_number", turn_number, self.last_turn or 0)
        when = require_datetime("timestamp", timestamp) or self.clock()
        # Extract before touching the store: if the model's reply is unreadable, nothing changes.
        triples = self.extract(message) if message.strip() else []
        changes = []
        for t in triples:
            changes += self.store(t, turn_number, when, span=_locate(t.value, message))
        self.last_turn = turn_number
        return changes

    def store(self, t: Triple, turn: int, when: datetime, *, span=None,
              reason: str = "") -> list[Change]:
        """Store a triple said at ``turn``: a new fact (ADD), value (UPDATE) or a repeat (NOOP)."""
        if not isinstance(t, Triple):
            raise TypeError(f"t must be a Triple, got {type(t).__name__}")
        require_int_at_least("turn", turn, 0)
        when = require_datetime("when", when)
        confidence = round(float(t.confidence), 2)
        new = FactValue(t.entity, t.attribute, t.value, turn, confidence, when)
        key = (t.entity, t.attribute)
        old = next((f for f in self.facts() if (f.entity, f.attribute) == key), None)
        if old is None:
            new = replace(new, id=f"e{self.next_id}")
            self.next_id += 1
            self.values.append(new)
            why = reason or f"new fact at turn {turn}"
            return [Change("ADD", new.id, new.line, reason=why, span=span)]
        if old.value.casefold() == t.value.casefold():
            # Said again: it keeps the turn it was first said.
            why = f"already known since turn {old.valid_from}"
            return [Change("NOOP", old.id, old.line, reason=why, span=span)]
        # A contradiction: the newer statement wins; the old value is closed, not erased.
        self._close(old, turn, when)
        self.values.append(replace(new, id=old.id))
        why = reason or f"a newer statement at turn {turn} replaces turn {old.valid_from}'s"
        return [Change("UPDATE", old.id, new.line, previous=old.line, reason=why, span=span)]

    def _close(self, value: FactValue, turn: int, when: datetime | None) -> None:
        closed = replace(value, valid_to=turn, until=when, nth=self._next_nth(value))
        self.values[self.values.index(value)] = closed

    def context(self, query: str | None = None) -> list[dict]:
        """One system message of known facts, or nothing when nothing is known."""
        facts = self.get_relevant(query or "")
        return [{"role": "system", "content": f"Known facts:\n{facts}"}] if facts else []

    # ---- Going further (04: relevance, extraction by a model, what was true when) ----
    def get_relevant(self, query: str = "", *, as_of: int | None = None) -> str:
        """``[Entity] attribute: value, ...`` lines; a big store keeps facts sharing query words."""
        require_text("query", query, allow_empty=True)
        facts = self.facts(as_of)
        if query.strip() and len(facts) > self.small_store:
            facts = [f for f in facts if f.shares(query) >= self.min_overlap]
        lines = []
        for entity, attributes in fact_table(facts).items():
            pairs = ", ".join(f"{name}: {value}" for name, value in attributes.items())
            lines.append(f"[{entity}] {pairs}")
        return "\n".join(lines)

    def extract(self, text: str) -> list[Triple]:
        """The confident triples in ``text``, by the model if there is one, else by rules."""
        if self.llm is None:
            return rule_triples(text, min_confidence=self.min_confidence)
        return extract_triples(self.llm, text, min_confidence=self.min_confidence,
                               on_error=self.on_error)

    def facts(self, as_of: int | None = None) -> list[FactValue]:
        """The values true now, or at turn ``as_of``, in the order they arrived."""
        if as_of is None:
            return [f for f in self.values if f.valid_to is None]
        turn = require_int_at_least("as_of", as_of, 0)
        return [f for f in self.values
                if f.valid_from <= turn and (f.valid_to is None or turn < f.valid_to)]

    def as_of(self, turn: int) -> dict[str, dict[str, str]]:
        """What was true at ``turn``: ``{entity: {attribute: value}}``."""
        return fact_table(self.facts(as_of=require_int_at_least("as_of: turn", turn, 0)))

    @property
    def entities(self) -> dict[str, dict[str, str]]:
        """What is true now: ``{entity: {attribute: value}}``."""
        return fact_table(self.facts())

    def get_changelog(self, as_of: int | None = None) -> list[dict]:
        """Each change of value up to turn ``as_of``: ``{turn, entity, attribute, old, new}``."""
        as_of = as_of if as_of is None else require_int_at_least("as_of", as_of, 1)
        log: list[dict] = []
        previous: dict[tuple[str, str], str] = {}
        for f in self.values:
            key = (f.entity, f.attribute)
            if key in previous and (as_of is None or f.valid_from <= as_of):
                log.append({"turn": f.valid_from, "entity": f.entity, "attribute": f.attribute,
                            "old": previous[key], "new": f.value})
            previous[key] = f.value
        return log

    # ---- Going further (09: ids, corrections, forgetting and saving) ----
    def history(self, id: str) -> list[FactValue]:
        """Every value fact ``id`` held, oldest first (``valid_to``: the next one replaced it)."""
        values = [f for f in self.values if f.id == require_text("id", id)]
        if not values:
            ids = sorted({f.id for f in self.values}, key=lambda i: int(i[1:]))
            known = ", ".join(ids) or "none yet"
            raise KeyError(f"no fact with id {id!r}; known ids: {known}")
        return values

    def get(self, id: str) -> FactValue:
        """The current value of fact ``id``; a KeyError if it is unknown or was deleted."""
        last = self.history(id)[-1]
        if last.valid_to is not None:
            raise KeyError(f"fact {id!r} was deleted at turn {last.valid_to}; "
                           f"history({id!r}) shows its values")
        return last

    def update(self, id: str, value: str) -> list[Change]:
        """Give fact ``id`` a new value from the current turn on (a correction by hand)."""
        old = self.get(id)
        require_text("value", value)
        triple = Triple(old.entity, old.attribute, value, 1.0)
        return self.store(triple, self.last_turn or 0, self.clock(), reason="updated by hand")

    def delete(self, id: str) -> list[Change]:
        """Close fact ``id`` now (its history stays); an old value's id ("e2@3") removes it."""
        if "@" in require_text("id", id):
            old = next((f for f in self.values
                        if f.valid_to is not None and self._old_id(f) == id), None)
            if old is None:
                raise KeyError(f"no old value with id {id!r}")
            self.values.remove(old)
            return [Change("DELETE", id, old.line, reason="an old value, deleted")]
        old = self.get(id)
        self._close(old, self.last_turn or 0, self.clock())
        return [Change("DELETE", id, old.line, reason="deleted by hand")]

    def provenance(self) -> list[dict]:
        """Every value held, old ones as history (id ``"e2@3"``: said at turn 3, ``_old_id``)."""
        records = []
        for f in self.values:
            current = f.valid_to is None
            records.append({"id": f.id if current else self._old_id(f), "text": f.line,
                            "memory_type": "fact" if current else "fact (history)",
                            "turn": f.valid_from, "timestamp": f.since,
                            "confidence": f.confidence})
        return records

    def _old_id(self, value: FactValue) -> str:
        """An old value's own id: its fact's id, then "@" and the turn it was said ("e2@3"), then
        ".2", ".3"… for the later old values said in that same turn ("e2@3.2")."""
        later = f".{value.nth}" if value.nth > 1 else ""
        return f"{value.id}@{value.valid_from}{later}"

    def _next_nth(self, value: FactValue) -> int:
        """One more than the old values of its fact said in its turn: no two share an id."""
        said_then = [f.nth for f in self.values if f.valid_to is not None and f.id == value.id
                     and f.valid_from == value.valid_from]
        return max(said_then, default=0) + 1

    def erase(self, pattern: re.Pattern) -> list[Change]:
        """Remove every value, current or old, whose entity, attribute or value matches."""
        if not isinstance(pattern, re.Pattern):
            raise TypeError(f"pattern must be a compiled re.Pattern, got {type(pattern).__name__}")
        gone = [f for f in self.values
                if any(pattern.search(x) for x in (f.entity, f.attribute, f.value, f.line))]
        self.values = [f for f in self.values if all(f is not g for g in gone)]
        return [Change("DELETE", f.id, f.line,
                       reason="erased" + (" (an old value)" if f.valid_to else ""))
                for f in gone]

    def to_state(self) -> dict:
        """Settings, turn, next id and every value ever held, as JSON-ready data."""
        history = []
        for f in self.values:
            record = asdict(f)
            for name in ("since", "until"):
                if getattr(f, name):
                    record[name] = getattr(f, name).isoformat()
            history.append(record)
        settings = {name: getattr(self, name) for name in SETTINGS}
        return {**settings, "last_turn": self.last_turn, "next_id": self.next_id,
                "history": history}

    @classmethod
    def from_state(cls, state: dict, *, llm: LLM | None = None,
                   clock: Clock | None = None) -> "EntityMemory":
        """Rebuild from ``to_state()`` (pass the model and clock again); give ids where missing."""
        memory = cls(**{name: state[name] for name in SETTINGS}, llm=llm, clock=clock)
        memory.last_turn = state["last_turn"]
        history = state["history"]
        ids = {(r["entity"], r["attribute"]): r["id"] for r in history if r.get("id")}
        saved_next = [int(i[1:]) + 1 for i in ids.values()]
        memory.next_id = max([state.get("next_id", 1)] + saved_next)
        for r in history:
            key = (r["entity"], r["attribute"])
            if key not in ids:
                ids[key] = f"e{memory.next_id}"
                memory.next_id += 1
            times = {k: datetime.fromisoformat(r[k]) for k in ("since", "until") if r[k]}
            memory.values.append(FactValue(**{**r, "id": r.get("id") or ids[key], **times}))
        return memory
