"""Token-budget window: keep as many recent messages as fit in a token budget.

One pasted stack trace can weigh more than twenty short replies, so this window counts tokens.
It keeps room for the reply, keeps system messages always, drops the oldest others until the
rest fit, and cuts a message too large on its own, with a visible marker, rather than dropping it.

Taught in notebooks/02_sliding_window.ipynb.
"""
from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime

from teachmem.core.change import Change
from teachmem.core.tokens import TokenCounter, cut_points, estimate_tokens
from teachmem.core.validate import require_callable, require_int_at_least, require_positive_int
from teachmem.memory.message import (Message, erase_messages, message_records, next_message,
                                     position, restore_messages)

# A truncated message keeps at least a few words and its marker.
MIN_ROOM = 16


def truncate_to_tokens(text: str, max_tokens: int, counter: TokenCounter = estimate_tokens) -> str:
    """``text`` cut to fit ``max_tokens`` with a visible marker: the head is kept (it says what the
    message is about) and ``[… truncated N tokens]`` tells the model something is missing.

    ``TokenBudgetWindow.add`` calls this for a message too large to fit on its own.

    >>> truncate_to_tokens("one two three four five six seven eight nine ten", 8)
    'one two [… truncated 11 tokens]'
    """
    require_positive_int("max_tokens", max_tokens)
    total = counter(text)
    if total <= max_tokens:
        return text
    pieces = cut_points(text)

    def candidate(n_pieces: int) -> str:
        head = "".join(pieces[:n_pieces]).lstrip()
        marker = f"[… truncated {total - counter(head)} tokens]"
        return f"{head} {marker}" if head else marker

    if counter(candidate(0)) > max_tokens:
        raise ValueError(f"max_tokens must leave room for the truncation marker "
                         f"({counter(candidate(0))} tokens), got {max_tokens}")
    # Binary search for the longest head that still fits with its marker.
    lo, hi = 0, len(pieces)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if counter(candidate(mid)) <= max_tokens:
            lo = mid
        else:
            hi = mid - 1
    return candidate(lo)


class TokenBudgetWindow:
    """Recent messages within ``max_tokens - reserve_tokens`` tokens.

    Taught in notebooks/02_sliding_window.ipynb.
    """

    kind = "token_window"

    def __init__(self, max_tokens: int = 4096, reserve_tokens: int = 512,
                 *, token_counter: TokenCounter = estimate_tokens):
        require_positive_int("max_tokens", max_tokens)
        require_callable("token_counter", token_counter)
        require_int_at_least("reserve_tokens", reserve_tokens, 0)
        if max_tokens - reserve_tokens < MIN_ROOM:
            raise ValueError(f"max_tokens - reserve_tokens must leave at least {MIN_ROOM} tokens "
                             f"for messages, got {max_tokens} - {reserve_tokens}")
        self.max_tokens = max_tokens
        self.reserve_tokens = reserve_tokens
        self.count_tokens = token_counter
        self.messages: list[Message] = []   # what is in the window now
        self.tokens: list[int] = []
        self.last_turn: int | None = None   # turns keep counting after messages drop out
        self.dropped_turns: list[int] = []  # oldest first: what fell out, for teaching
        self.arrived = 0                    # messages ever added: the next id is m{arrived + 1}

    @property
    def capacity(self) -> int:
        """Tokens available for messages: the budget minus the reply's reserve."""
        return self.max_tokens - self.reserve_tokens

    def add(self, role: str, content: str, *, turn: int | None = None,
            timestamp: datetime | None = None) -> list[Change]:
        """Add a message; returns its ADD, an UPDATE if it had to be cut to fit,
        and a DELETE for each older message pushed over the token budget."""
        number = self.arrived + 1
        message = next_message(role, content, turn, timestamp, after=self.last_turn, number=number)
        sizes = zip(self.messages, self.tokens, strict=True)
        pinned = sum(tokens for kept, tokens in sizes if kept.role == "system")
        room = self.capacity - pinned   # the most any one new message may use
        needed = self.count_tokens(content)
        if role == "system" and needed > room:
            raise ValueError(f"system messages would need {pinned + needed} tokens "
                             f"but the window holds {self.capacity}")
        if role != "system" and room < MIN_ROOM:
            raise ValueError(f"system messages leave only {room} tokens for the conversation")
        changes = [Change("ADD", str(message.id), message.text, reason="new message")]
        if needed > room:
            whole = message
            message = replace(message, content=truncate_to_tokens(content, room, self.count_tokens))
            changes.append(Change("UPDATE", str(message.id), message.text, previous=whole.text,
                                  reason=f"cut to fit the token budget ({room} tokens)"))
        self.messages.append(message)
        self.tokens.append(self.count_tokens(message.content))
        self.last_turn = message.turn
        self.arrived += 1
        return changes + self._trim()

    def _trim(self) -> list[Change]:
        """Drop the oldest non-system messages until the window fits."""
        changes = []
        while self.estimated_tokens() > self.capacity:
            oldest = next(i for i, m in enumerate(self.messages) if m.role != "system")
            gone = self.messages.pop(oldest)
            self.dropped_turns.append(gone.turn)
            self.tokens.pop(oldest)
            dropped = Change("DELETE", str(gone.id), gone.text, reason="over the token budget")
            changes.append(dropped)
        return changes

    def context(self, query: str | None = None) -> list[dict]:
        """The messages in the window, oldest first: the query is ignored."""
        return [m.as_dict() for m in self.messages]

    def window_turns(self) -> list[int]:
        """The turn numbers still in the window, for timelines and tests."""
        return [m.turn for m in self.messages]

    def estimated_tokens(self) -> int:
        """Tokens the messages in the window weigh now."""
        return sum(self.tokens)

    def remaining_capacity(self) -> int:
        """Tokens still free before the oldest message has to go."""
        return self.capacity - self.estimated_tokens()

    # ---- Going further (09: forgetting, retention, provenance and saving) ----
    def erase(self, pattern: re.Pattern) -> list[Change]:
        """Redact what ``pattern`` matches in every message (``teachmem.forget`` calls this)."""
        self.messages, changes = erase_messages(self.messages, pattern)
        self.tokens = [self.count_tokens(m.content) for m in self.messages]
        return changes

    def delete(self, id: str) -> list[Change]:
        """Remove the message ``id`` (retention calls this)."""
        i = position(self.messages, id)
        gone = self.messages.pop(i)
        self.tokens.pop(i)
        return [Change("DELETE", id, gone.text, reason="deleted")]

    def provenance(self) -> list[dict]:
        """Every stored item with where it came from (read by ``teachmem.lab.governance``)."""
        return message_records(self.messages)

    def to_state(self) -> dict:
        """Settings, messages and what fell out, as JSON-ready data (not the token counter)."""
        return {"max_tokens": self.max_tokens, "reserve_tokens": self.reserve_tokens,
                "messages": [m.to_state() for m in self.messages], "tokens": list(self.tokens),
                "last_turn": self.last_turn, "dropped_turns": list(self.dropped_turns),
                "arrived": self.arrived}

    @classmethod
    def from_state(cls, state: dict, *,
                   token_counter: TokenCounter = estimate_tokens) -> "TokenBudgetWindow":
        """A window as ``to_state`` saved it."""
        window = cls(state["max_tokens"], state["reserve_tokens"], token_counter=token_counter)
        window.messages = restore_messages(state["messages"])
        window.tokens = list(state["tokens"])
        window.last_turn = state["last_turn"]
        window.dropped_turns = list(state["dropped_turns"])
        window.arrived = state.get("arrived", len(window.messages))
        return window

