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

import re
from dataclasses import asdict, dataclass, replace
from datetime import datetime

from teachmem.clock import Clock, ManualClock
from teachmem.extract import Triple, rule_triples
from teachmem.llm import LLM, extract_triples
from teachmem.memory.message import next_message
from teachmem.validate import (require_datetime, require_fraction, require_int_at_least,
                               require_positive_int, require_text)

# Words too common to show that a fact is relevant to a query.
_STOPWORDS = frozenset("a an the and or of to in on at for is are was were do does did we i you it "
                       "my our your what which who how why when where should would could can with".split())


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


def _words(text: str) -> set[str]:
    """Content words, lower case, a plural "s" dropped, so "tests" meets "test_framework".
    Single letters go too: the "s" of "what's" would match the "s" of "sister's"."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    return {w[:-1] if len(w) > 3 and w.endswith("s") else w for w in words if len(w) > 1 and w not in _STOPWORDS}


def _table(facts: list[FactValue]) -> dict[str, dict[str, str]]:
    """``{entity: {attribute: value}}``: entities in order of appearance, attributes
    sorted, so the same facts print the same way whatever order they were said in."""
    table: dict[str, dict[str, str]] = {}
    for f in facts:
        table.setdefault(f.entity, {})[f.attribute] = f.value
    return {entity: dict(sorted(attrs.items())) for entity, attrs in table.items()}


class EntityMemory:
    """Facts about entities: the newest value wins, every change is kept.

    Facts are extracted by rules (``teachmem.extract.rule_triples``), or by a
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
        return _table(self.facts(as_of=turn))

    @property
    def entities(self) -> dict[str, dict[str, str]]:
        """What is true now: ``{entity: {attribute: value}}``."""
        return _table(self.facts())

    def get_relevant(self, query: str = "", *, as_of: int | None = None) -> str:
        """Facts for the prompt, one ``[Entity] attribute: value, ...`` line per entity:
        all of them for a small store, else those sharing words with ``query``."""
        require_text("query", query, allow_empty=True)
        facts = self.facts(as_of)
        if query.strip() and len(facts) > self.small_store:
            wanted = _words(query)
            facts = [f for f in facts
                     if len(wanted & _words(f"{f.entity} {f.attribute} {f.value}")) >= self.min_overlap]
        return "\n".join(f"[{entity}] " + ", ".join(f"{a}: {v}" for a, v in attrs.items())
                         for entity, attrs in _table(facts).items())

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
        def iso(t: datetime | None) -> str | None:
            return t.isoformat() if t else None
        return {"min_confidence": self.min_confidence, "on_error": self.on_error, "small_store": self.small_store,
                "min_overlap": self.min_overlap, "last_turn": self.last_turn,
                "history": [{**asdict(f), "since": iso(f.since), "until": iso(f.until)} for f in self.history]}

    @classmethod
    def from_state(cls, state: dict, *, llm: LLM | None = None, clock: Clock | None = None) -> "EntityMemory":
        """Rebuild from ``to_state()``; the model and the clock are not state, so pass them again."""
        memory = cls(llm=llm, min_confidence=state["min_confidence"], on_error=state["on_error"],
                     small_store=state["small_store"], min_overlap=state["min_overlap"], clock=clock)
        for record in state["history"]:
            since, until = (datetime.fromisoformat(t) if t else None for t in (record["since"], record["until"]))
            memory.history.append(FactValue(**{**record, "since": since, "until": until}))
        memory.last_turn = state["last_turn"]
        return memory
