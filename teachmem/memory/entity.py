"""Entity memory: facts as entity–attribute–value triples, with their history.

Instead of remembering what was *said*, remember what is *true*:
``("Project", "database", "MySQL")``. A fact is extracted once, then sent with
every prompt for a handful of tokens, however long ago it was said.

When a new value arrives for the same entity and attribute, the newer
statement wins, and the change goes into a changelog. The old value is not
erased but *closed*: every value keeps the turn (and time) it became true and
the turn it stopped being true, so ``as_of(turn)`` answers what was true back
then. That is the idea of a temporal knowledge graph, kept in a list.

Taught in notebooks/04_entity_memory.ipynb.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from teachmem.core.clock import Clock, ManualClock
from teachmem.llm.extract import Triple, rule_triples
from teachmem.llm import LLM, extract_triples
from teachmem.memory.message import next_message
from teachmem.core.packing import fact_table, overlap_words
from teachmem.core.state import entity_from_state, entity_state
from teachmem.core.validate import (require_datetime, require_fraction, require_int_at_least,
                               require_positive_int, require_text)

SETTINGS = ("min_confidence", "on_error", "small_store", "min_overlap")


@dataclass(frozen=True)
class FactValue:
    """One value of one attribute: when it held, and where it came from."""

    entity: str
    attribute: str
    value: str
    valid_from: int              # the turn it was said: its provenance, and when it became true
    confidence: float            # how sure the extractor was
    since: datetime | None = None
    valid_to: int | None = None  # the turn a newer value replaced it; None while still true
    until: datetime | None = None

    def holds_at(self, turn: int) -> bool:
        return self.valid_from <= turn and (self.valid_to is None or turn < self.valid_to)


class EntityMemory:
    """Facts about entities: the newest value wins, every change is kept.

    Facts are extracted by rules (``teachmem.llm.extract.rule_triples``), or by a
    language model when ``llm`` is given (seed 001's JSON prompt); either way
    only those with ``confidence >= min_confidence`` are kept. Above
    ``small_store`` facts, ``get_relevant`` keeps only the facts sharing
    ``min_overlap`` words or more with the query.

    Taught in notebooks/04_entity_memory.ipynb.
    """

    def __init__(self, *, llm: LLM | None = None, min_confidence: float = 0.7, on_error: str = "raise",
                 small_store: int = 20, min_overlap: int = 1, clock: Clock | None = None):
        if on_error not in ("raise", "warn"):
            raise ValueError(f"on_error must be 'raise' or 'warn', got {on_error!r}")
        self.min_confidence = require_fraction("min_confidence", min_confidence)
        self.small_store = require_int_at_least("small_store", small_store, 0)
        self.min_overlap = require_positive_int("min_overlap", min_overlap)
        self.llm, self.on_error, self.clock = llm, on_error, clock or ManualClock()
        self.history: list[FactValue] = []   # every value ever stored, in the order it arrived
        self.last_turn: int | None = None

    def extract(self, text: str) -> list[Triple]:
        """The confident triples in ``text``, by the model if there is one, else by rules."""
        if self.llm is None:
            return rule_triples(text, min_confidence=self.min_confidence)
        return extract_triples(self.llm, text, min_confidence=self.min_confidence, on_error=self.on_error)

    def extract_and_store(self, message: str, turn_number: int, *,
                          timestamp: datetime | None = None) -> list[Triple]:
        """Extract the facts in ``message``, said on ``turn_number``, store them, and return them."""
        require_text("message", message, allow_empty=True)
        require_int_at_least("turn_number", turn_number, self.last_turn or 0)
        when = require_datetime("timestamp", timestamp) or self.clock()
        # Extract before touching the store: if the model's reply is unreadable, nothing changes.
        triples = self.extract(message) if message.strip() else []
        for t in triples:
            index = next((i for i, f in enumerate(self.history)
                          if f.valid_to is None and (f.entity, f.attribute) == (t.entity, t.attribute)), None)
            if index is not None:
                if self.history[index].value.casefold() == t.value.casefold():
                    continue   # said again: the fact keeps the turn it was first said
                # A contradiction: the newer statement wins; the old value is closed, not erased.
                self.history[index] = replace(self.history[index], valid_to=turn_number, until=when)
            self.history.append(FactValue(t.entity, t.attribute, t.value, turn_number,
                                          round(float(t.confidence), 2), when))
        self.last_turn = turn_number
        return triples

    def add(self, role: str, content: str, *, turn: int | None = None,
            timestamp: datetime | None = None) -> None:
        """Remember a message. Only the user's messages are mined for facts:
        an assistant's suggestion is not a decision until the user makes it."""
        message = next_message(role, content, turn, timestamp, after=self.last_turn)
        if role == "user":
            self.extract_and_store(content, message.turn, timestamp=timestamp)
        self.last_turn = message.turn

    def facts(self, as_of: int | None = None) -> list[FactValue]:
        """The values true now, or at turn ``as_of``, in the order they arrived."""
        if as_of is None:
            return [f for f in self.history if f.valid_to is None]
        return [f for f in self.history if f.holds_at(require_int_at_least("as_of", as_of, 0))]

    def as_of(self, turn: int) -> dict[str, dict[str, str]]:
        """What was true at ``turn``: ``{entity: {attribute: value}}``."""
        return fact_table(self.facts(as_of=turn))

    @property
    def entities(self) -> dict[str, dict[str, str]]:
        """What is true now: ``{entity: {attribute: value}}``."""
        return fact_table(self.facts())

    def get_relevant(self, query: str = "", *, as_of: int | None = None) -> str:
        """Facts for the prompt, one ``[Entity] attribute: value, ...`` line per entity:
        all of them for a small store, else those sharing words with ``query``."""
        require_text("query", query, allow_empty=True)
        facts = self.facts(as_of)
        if query.strip() and len(facts) > self.small_store:
            wanted = overlap_words(query)
            facts = [f for f in facts
                     if len(wanted & overlap_words(f"{f.entity} {f.attribute} {f.value}")) >= self.min_overlap]
        return "\n".join(f"[{entity}] " + ", ".join(f"{a}: {v}" for a, v in attrs.items())
                         for entity, attrs in fact_table(facts).items())

    def get_changelog(self, as_of: int | None = None) -> list[dict]:
        """Every change of value up to turn ``as_of``, oldest first: ``{turn, entity, attribute, old, new}``."""
        log, previous = [], {}
        for f in self.history:
            key = (f.entity, f.attribute)
            if key in previous and (as_of is None or f.valid_from <= as_of):
                log.append({"turn": f.valid_from, "entity": f.entity, "attribute": f.attribute,
                            "old": previous[key], "new": f.value})
            previous[key] = f.value
        return log

    def context(self, query: str | None = None) -> list[dict]:
        """One system message of known facts, or nothing when nothing is known."""
        facts = self.get_relevant(query or "")
        return [{"role": "system", "content": f"Known facts:\n{facts}"}] if facts else []

    def to_state(self) -> dict:
        return entity_state(self, SETTINGS)

    @classmethod
    def from_state(cls, state: dict, *, llm: LLM | None = None, clock: Clock | None = None) -> "EntityMemory":
        """Rebuild from ``to_state()``; the model and the clock are not state, so pass them again."""
        return entity_from_state(cls, state, SETTINGS, FactValue, llm=llm, clock=clock)
