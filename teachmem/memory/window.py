"""Sliding window: keep the recent messages, plus the important old ones.

A window bounds the cost: only the last ``recent_k`` messages are sent, however
long the conversation. The price is the *context cliff*: a decision made early
falls out of the window and the model no longer knows it. Pinning the
``important_k`` most important older messages keeps such decisions in view;
importance is scored once, when a message arrives, by ``scorer`` (by default
:func:`teachmem.llm.importance_rules`: decisions, preferences and stated facts
high, small talk low). An assistant's reply counts ``ASSISTANT_WEIGHT`` of its
score: it mostly restates what the user decided, and should not take the
user's pin.

Going further (13): :class:`ChunkedWindowMemory` drops its oldest messages a chunk at a time, so
the prompt keeps its opening for several turns and a provider's prompt cache can serve it.

Taught in notebooks/02_sliding_window.ipynb.
"""
from __future__ import annotations

import copy
import re
from datetime import datetime
from typing import Callable, cast

from teachmem.core.change import Change
from teachmem.core.validate import require_callable, require_int_at_least, require_positive_int
from teachmem.llm import importance_rules
from teachmem.memory.message import (Message, erase_messages, message_records, next_message,
                                     position, restore_messages)

ASSISTANT_WEIGHT = 0.5


class SlidingWindowMemory:
    """The last ``recent_k`` messages plus the ``important_k`` most important older ones.

    Taught in notebooks/02_sliding_window.ipynb.
    """

    kind = "window"

    def __init__(self, recent_k: int = 10, important_k: int = 5,
                 *, scorer: Callable[[str], float] = importance_rules):
        self.recent_k = require_positive_int("recent_k", recent_k)
        self.important_k = require_int_at_least("important_k", important_k, 0)
        require_callable("scorer", scorer)
        self.scorer = scorer
        self.all_messages: list[Message] = []
        self.importance: list[float] = []   # scored once, when the message arrives
        self.arrived = 0                    # messages ever added: the next id is m{arrived + 1}

    def add(self, role: str, content: str, *, turn: int | None = None,
            timestamp: datetime | None = None) -> list[Change]:
        """Add a message; returns its ADD and a DELETE for any message that fell out of the window.

        A message that leaves the window stays in ``all_messages`` (for the
        timeline), but it is no longer sent: for the model it is gone.
        """
        after = self.all_messages[-1].turn if self.all_messages else None
        number = self.arrived + 1
        message = next_message(role, content, turn, timestamp, after=after, number=number)
        weight = ASSISTANT_WEIGHT if role == "assistant" else 1.0
        score = self.scorer(content) * weight
        before = self.window_indices()
        self.importance.append(score)
        self.all_messages.append(message)
        self.arrived += 1
        changes = [Change("ADD", str(message.id), message.text, reason="new message")]
        for i in sorted(set(before) - set(self.window_indices())):
            gone = self.all_messages[i]
            dropped = Change("DELETE", str(gone.id), gone.text, reason="fell out of the window")
            changes.append(dropped)
        return changes

    def window_indices(self) -> list[int]:
        """Positions (in ``all_messages``) of the messages in the window, oldest first."""
        n = len(self.all_messages)
        if n <= self.recent_k + self.important_k:
            return list(range(n))
        older = range(n - self.recent_k)
        # Highest importance first; among equals the older message wins,
        # because early decisions are what a window loses first.
        pinned = sorted(older, key=lambda i: -self.importance[i])[:self.important_k]
        return sorted(pinned) + list(range(n - self.recent_k, n))

    def context(self, query: str | None = None) -> list[dict]:
        """The pinned messages, then the recent ones: the query is ignored."""
        return [self.all_messages[i].as_dict() for i in self.window_indices()]

    def get_window(self) -> list[dict]:
        """The same as ``context()``: what the window sends."""
        return self.context()

    def window_turns(self) -> list[int]:
        """The turn numbers that survive, for timelines and tests."""
        return [self.all_messages[i].turn for i in self.window_indices()]

    # ---- Going further (09: forgetting, retention, provenance and saving) ----
    def erase(self, pattern: re.Pattern) -> list[Change]:
        """Redact what ``pattern`` matches in every message (``teachmem.forget`` calls this)."""
        self.all_messages, changes = erase_messages(self.all_messages, pattern)
        return changes

    def delete(self, id: str) -> list[Change]:
        """Remove the message ``id`` (retention calls this)."""
        i = position(self.all_messages, id)
        gone = self.all_messages.pop(i)
        self.importance.pop(i)
        return [Change("DELETE", id, gone.text, reason="deleted")]

    def provenance(self) -> list[dict]:
        """Every stored item with where it came from (read by ``teachmem.lab.governance``)."""
        return message_records(self.all_messages)

    def to_state(self) -> dict:
        """Settings, messages and their scores, as JSON-ready data (not the scorer)."""
        # Scores are stored, not recomputed: a custom scorer may not be at hand on load.
        return {"recent_k": self.recent_k, "important_k": self.important_k,
                "messages": [m.to_state() for m in self.all_messages],
                "importance": list(self.importance), "arrived": self.arrived}

    @classmethod
    def from_state(cls, state: dict, *,
                   scorer: Callable[[str], float] = importance_rules) -> "SlidingWindowMemory":
        """A window as ``to_state`` saved it, with its stored scores."""
        window = cls(state["recent_k"], state["important_k"], scorer=scorer)
        window.all_messages = restore_messages(state["messages"])
        window.importance = list(state["importance"])
        window.arrived = state.get("arrived", len(window.all_messages))
        return window


# ---- Going further (13: a window a prompt cache can keep) ----
class ChunkedWindowMemory(SlidingWindowMemory):
    """A sliding window that drops its oldest messages ``evict_chunk`` at a time.

    Dropping one message a turn changes the prompt's opening on every request, so a provider's
    prompt cache never serves it. This window keeps what it held at its last drop and only appends
    for ``evict_chunk - 1`` messages; the next one drops a chunk at once. Right after a drop it
    holds what the plain window holds; in between, up to ``evict_chunk - 1`` messages more.
    ``evict_chunk=1`` is the plain window.
    """

    kind = "chunked_window"

    def __init__(self, recent_k: int = 10, important_k: int = 5, *, evict_chunk: int = 4,
                 scorer: Callable[[str], float] = importance_rules):
        super().__init__(recent_k, important_k, scorer=scorer)
        self.evict_chunk = require_positive_int("evict_chunk", evict_chunk)

    def window_indices(self) -> list[int]:
        """The plain window as it stood at the last drop, then every message since."""
        n = len(self.all_messages)
        full = self.recent_k + self.important_k
        since = (n - full) % self.evict_chunk if n > full else 0
        at_drop = copy.copy(self)
        at_drop.all_messages = self.all_messages[:n - since]
        return SlidingWindowMemory.window_indices(at_drop) + list(range(n - since, n))

    def to_state(self) -> dict:
        """The plain window's state and ``evict_chunk``."""
        return {**super().to_state(), "evict_chunk": self.evict_chunk}

    @classmethod
    def from_state(cls, state: dict, *,
                   scorer: Callable[[str], float] = importance_rules) -> "ChunkedWindowMemory":
        """A chunked window as ``to_state`` saved it."""
        window = cast(ChunkedWindowMemory, super().from_state(state, scorer=scorer))   # cls(...)
        window.evict_chunk = require_positive_int("evict_chunk", state["evict_chunk"])
        return window
