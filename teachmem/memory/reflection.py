"""Reflection: a memory that now and then stops to think about what it has stored.

Every message is stored with the importance the model gives it (Generative Agents, Park et al.
2023, asks the model the same question). The importances are summed; once the sum since the last
reflection reaches ``threshold``, the model reads the memories stored since then and writes at most
``max_insights`` insights, each citing the ids of the memories it rests on. An insight is stored
like any memory, with a higher importance (``insight_importance``), so a question that needs
several memories at once ("what is the project's stack?") finds them joined in one place.

Reflecting costs model calls: one to score each message, one each time it reflects.
``reflections`` records what each reflection wrote and what it cost. Forgetting a memory also
deletes the insights that cite it: an insight is made of its memories.

Taught in notebooks/12_reflection_and_experience.ipynb.
"""
from __future__ import annotations

import math
import re
from dataclasses import replace
from datetime import datetime, timedelta

from teachmem.core.change import Change
from teachmem.core.validate import (require_callable, require_datetime, require_fraction,
                                    require_message, require_positive_int)
from teachmem.llm import LLM, OfflineLLM, score_importance, write_insights
from teachmem.memory.semantic import SemanticMemoryStore

REFLECTION_SETTINGS = ("threshold", "max_insights", "insight_importance")


class ReflectiveMemory(SemanticMemoryStore):
    """A ``SemanticMemoryStore`` whose model writes insights when enough has happened.

    ``threshold``: the summed importance (each message's in [0, 1]) that triggers a reflection.
    ``llm`` scores and reflects (the offline stand-in by default); its ``usage`` counts the cost.
    Everything else (``context_top_k``, ``clock``, ``embedder`` …) is the store's; ``scoring`` is
    Generative Agents' own unless chosen: recency, importance and relevance added, so the
    importance given to insights lifts them.

    Taught in notebooks/12_reflection_and_experience.ipynb.
    """

    kind = "reflective"

    def __init__(self, threshold: float = 2.5, *, max_insights: int = 3,
                 insight_importance: float = 0.9, llm: LLM | None = None, **store_options):
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
            raise TypeError(f"threshold must be a positive number, got {type(threshold).__name__}")
        if not (math.isfinite(threshold) and threshold > 0):
            raise ValueError(f"threshold must be a positive finite number, got {threshold!r}")
        self.threshold = float(threshold)
        self.max_insights = require_positive_int("max_insights", max_insights)
        self.insight_importance = require_fraction("insight_importance", insight_importance)
        self.llm = require_callable("llm", llm, "complete") or OfflineLLM()
        super().__init__(**{"scoring": "generative_agents", **store_options})
        self.pending = 0.0                  # importance summed since the last reflection
        self.since: list[str] = []          # ids of the memories stored since then
        self.reflections: list[dict] = []   # each: turn, insight ids, model calls and tokens

    def add(self, role: str, content: str, *, turn: int | None = None,
            timestamp: datetime | None = None) -> list[Change]:
        """Score and store a message; reflect once the summed importance reaches ``threshold``.

        Returns the message's ADD, then the ADD of each insight a reflection wrote. If the model
        fails while scoring, nothing is stored; if it fails while reflecting, the message stays
        stored, the error is raised and the next message tries the reflection again.
        """
        turn = require_message(role, content, turn, timestamp, self.last_turn)
        when = require_datetime("timestamp", timestamp)        # naive UTC
        if not content.strip():
            self.last_turn = turn
            return []
        importance = score_importance(self.llm, content)     # one model call
        changes = self.store(f"{role}: {content}", "message", importance, when, role=role,
                             turn=turn)
        self.last_turn = turn
        self.pending = round(self.pending + importance, 6)
        self.since.append(changes[0].id)
        if self.pending >= self.threshold:
            changes += self.reflect(timestamp=when)
        return changes

    def reflect(self, *, timestamp: datetime | None = None) -> list[Change]:
        """Ask the model for insights about the memories stored since the last reflection; store
        them.

        An insight already held word for word is a NOOP. The sum starts again from zero.
        """
        when = require_datetime("timestamp", timestamp) or self.now()
        live = [id for id in self.since if self.row(id) not in self.retired]
        recent = [(id, self.texts[self.row(id)]) for id in live]
        calls = self.llm.usage.calls
        tokens = self.llm.usage.total_tokens
        insights = write_insights(self.llm, recent, max_insights=self.max_insights)
        changes = []
        for insight in insights:
            changes.append(self._store_insight(insight["text"], insight["cites"], when))
        self.reflections.append({"turn": self.last_turn,
                                 "insights": [c.id for c in changes if c.event == "ADD"],
                                 "calls": self.llm.usage.calls - calls,
                                 "tokens": self.llm.usage.total_tokens - tokens})
        self.pending = 0.0
        self.since = []
        return changes

    def _store_insight(self, text: str, cites: list[str], when: datetime) -> Change:
        held = [i for i in self.insights() if i["text"] == text]
        if held:
            return Change("NOOP", held[0]["id"], text, reason="insight already held")
        # a second later than its memories, so an insight is never older than what it rests on
        later = when + timedelta(seconds=1)
        added = self.store(text, "insight", self.insight_importance, later, cites=cites)
        return replace(added[0], reason=f"insight citing {', '.join(cites)}")

    def insights(self) -> list[dict]:
        """Every live insight: its id, text and the ids it cites, oldest first."""
        return [{"id": f"s{r}", "text": text, "cites": list(self.metadata[r]["cites"])}
                for r, (text, kind) in enumerate(zip(self.texts, self.types, strict=True))
                if kind == "insight" and text and r not in self.retired]

    @property
    def reflection_calls(self) -> int:
        """Model calls spent writing insights (scoring each message costs one call more)."""
        return sum(r["calls"] for r in self.reflections)

    def erase(self, pattern: re.Pattern) -> list[Change]:
        """Remove every memory ``pattern`` matches, then every insight citing a forgotten memory."""
        changes = super().erase(pattern)
        forgotten = {f"s{r}" for r, why in self.retired.items() if why == "forgotten"}
        for insight in self.insights():
            if forgotten & set(insight["cites"]):
                deleted = self.delete(insight["id"])
                changes += [replace(c, reason="cited a forgotten memory") for c in deleted]
        self.since = [id for id in self.since if id not in forgotten]
        return changes

    def to_state(self) -> dict:
        """The store's state, the settings, the running sum and the record of reflections, as
        JSON-ready data."""
        settings = {name: getattr(self, name) for name in REFLECTION_SETTINGS}
        return {**super().to_state(), **settings, "pending": self.pending,
                "since": list(self.since), "reflections": [dict(r) for r in self.reflections]}

    @classmethod
    def from_state(cls, state: dict, *, embedder=None, clock=None,
                   llm: LLM | None = None) -> "ReflectiveMemory":
        """Rebuild from ``to_state()``; the model is not state, so pass it again."""
        # super().from_state builds a cls: a ReflectiveMemory
        memory = super().from_state(state, embedder=embedder, clock=clock)
        assert isinstance(memory, ReflectiveMemory)
        memory.threshold = state["threshold"]
        memory.max_insights = state["max_insights"]
        memory.insight_importance = state["insight_importance"]
        memory.llm = require_callable("llm", llm, "complete") or OfflineLLM()
        memory.pending = state["pending"]
        memory.since = list(state["since"])
        memory.reflections = [dict(r) for r in state["reflections"]]
        return memory
