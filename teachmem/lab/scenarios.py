"""Conversations to replay, with the facts a good memory should keep.

A scenario is data, not code: the turns of a conversation plus ground-truth
*facts* (what was stated, on which turn, and on which turn it stopped being
true) and *questions* (which facts answering them needs). Every notebook
replays the same conversations, so strategies can be compared fairly.

Optional fields, all backward compatible: a turn's ``day`` (sessions days
apart), a fact's ``deleted`` (the user asked to forget it on its
``superseded_turn``) and a question's ``avoid`` (facts a good answer must not
draw on, such as a forgotten address).

Taught in notebooks/00_start_here.ipynb.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from teachmem.core.validate import ROLES

DATA = Path(__file__).parent / "data" / "scenarios"


class ScenarioError(ValueError):
    """A scenario file is malformed; the message names the file and the field."""


@dataclass(frozen=True)
class Turn:
    turn: int
    role: str
    content: str
    day: int = 0


@dataclass(frozen=True)
class Fact:
    """One thing worth remembering, and when it was true.

    ``deleted`` marks a fact the user asked to be forgotten: ``superseded_turn``
    is then the turn of that request, and nothing replaces the fact.
    """

    id: str
    entity: str
    attribute: str
    value: str
    stated_turn: int
    superseded_turn: int | None
    keywords: tuple[str, ...]
    question: str
    deleted: bool = False

    def is_current(self, turn: int) -> bool:
        """Stated by ``turn`` and not yet replaced."""
        return self.stated_turn <= turn and (self.superseded_turn is None or turn < self.superseded_turn)

    @property
    def label(self) -> str:
        """The fact as ``entity.attribute: value``."""
        return f"{self.entity}.{self.attribute}: {self.value}"


@dataclass(frozen=True)
class Question:
    """A question asked on ``turn``: answering it needs the facts ``needs`` and must not use ``avoid``."""

    turn: int
    text: str
    needs: tuple[str, ...]
    avoid: tuple[str, ...] = ()


@dataclass(frozen=True)
class Scenario:
    name: str
    title: str
    description: str
    turns: tuple[Turn, ...]
    facts: tuple[Fact, ...]
    questions: tuple[Question, ...]
    start: datetime
    minutes_per_turn: int = 1

    def fact(self, fact_id: str) -> Fact:
        for f in self.facts:
            if f.id == fact_id:
                return f
        raise KeyError(f"scenario {self.name!r} has no fact {fact_id!r}")

    def timestamp(self, turn: int) -> datetime:
        """When ``turn`` was said: the start, plus its day, plus a minute or so a turn."""
        t = self.turns[turn - 1]
        return self.start + timedelta(days=t.day, minutes=self.minutes_per_turn * (turn - 1))

    def __len__(self) -> int:
        return len(self.turns)


def fact_in_text(fact: Fact, text: str) -> bool:
    """Does ``text`` mention the fact? Any keyword, whole words, any case."""
    return any(re.search(rf"(?<!\w){re.escape(k)}(?!\w)", text, re.IGNORECASE) for k in fact.keywords)


def list_scenarios() -> list[str]:
    """Names of the built-in scenarios, sorted."""
    return sorted(p.stem for p in DATA.glob("*.json"))


def read_json(path: Path, error: type[ValueError], missing: str):
    """The JSON document in ``path``: ``FileNotFoundError(missing)`` if there is no such file, ``error`` naming
    the file if it is not JSON. (Scenario and benchmark files are read alike.)"""
    if not path.is_file():
        raise FileNotFoundError(missing)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise error(f"{path}: not valid JSON ({err})") from None


def _field(record: dict, field: str, kind, where: str, path: Path):
    if not isinstance(record, dict) or field not in record:
        raise ScenarioError(f"{path}: {where} is missing the field {field!r}")
    value = record[field]
    if kind is not None and not isinstance(value, kind):
        raise ScenarioError(f"{path}: {where}.{field} must be {kind.__name__ if isinstance(kind, type) else kind}, "
                            f"got {type(value).__name__}")
    return value


def load_scenario(name_or_path: str | Path) -> Scenario:
    """Load a built-in scenario by name, or any scenario JSON file by path.

    Taught in notebooks/00_start_here.ipynb.
    """
    path = Path(name_or_path)
    if not path.suffix:
        path = DATA / f"{name_or_path}.json"
    doc = read_json(path, ScenarioError, f"no scenario file {path}; built-in scenarios: {list_scenarios()}")
    if not isinstance(doc, dict):
        raise ScenarioError(f"{path}: the top level must be an object")
    turns = []
    for i, t in enumerate(_field(doc, "turns", list, "scenario", path)):
        where = f"turns[{i}]"
        turn = Turn(_field(t, "turn", int, where, path), _field(t, "role", str, where, path),
                    _field(t, "content", str, where, path), t.get("day", 0) if isinstance(t, dict) else 0)
        if turn.turn != i + 1:
            raise ScenarioError(f"{path}: {where}.turn must be {i + 1} (turns count from 1), got {turn.turn}")
        if turn.role not in ROLES:
            raise ScenarioError(f"{path}: {where}.role must be one of {ROLES}, got {turn.role!r}")
        turns.append(turn)
    facts = []
    for i, f in enumerate(_field(doc, "facts", list, "scenario", path)):
        where = f"facts[{i}]"
        superseded = _field(f, "superseded_turn", (int, type(None)), where, path)
        deleted = _field(f, "deleted", bool, where, path) if "deleted" in f else False
        if deleted and superseded is None:
            raise ScenarioError(f"{path}: {where}.deleted needs superseded_turn: the turn the user asked to forget it")
        facts.append(Fact(_field(f, "id", str, where, path), _field(f, "entity", str, where, path),
                          _field(f, "attribute", str, where, path), _field(f, "value", str, where, path),
                          _field(f, "stated_turn", int, where, path), superseded,
                          tuple(_field(f, "keywords", list, where, path)), _field(f, "question", str, where, path),
                          deleted))
    ids = {f.id for f in facts}
    questions = []
    for i, q in enumerate(doc.get("questions", [])):
        where = f"questions[{i}]"
        needs = tuple(_field(q, "needs", list, where, path))
        avoid = tuple(_field(q, "avoid", list, where, path)) if "avoid" in q else ()
        for key, named in (("needs", needs), ("avoid", avoid)):
            unknown = sorted(set(named) - ids)
            if unknown:
                raise ScenarioError(f"{path}: {where}.{key} names unknown facts {unknown}")
        questions.append(Question(_field(q, "turn", int, where, path), _field(q, "text", str, where, path),
                                  needs, avoid))
    try:
        start = datetime.fromisoformat(_field(doc, "start", str, "scenario", path))
    except ValueError:
        raise ScenarioError(f"{path}: scenario.start must be an ISO date-time, got {doc['start']!r}") from None
    return Scenario(_field(doc, "name", str, "scenario", path), _field(doc, "title", str, "scenario", path),
                    _field(doc, "description", str, "scenario", path), tuple(turns), tuple(facts),
                    tuple(questions), start, doc.get("minutes_per_turn", 1))
