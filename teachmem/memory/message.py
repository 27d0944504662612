"""The message a strategy stores, and the helpers every message-keeping strategy shares.

A strategy answers ``add(role, content, *, turn=None, timestamp=None) -> list[Change]`` and
``context(query=None)``: the whole contract, with its optional parts, is stated in
``teachmem.memory.protocol``. Messages get ids by arrival ("m1", "m2", …) so a Change can
name them.

Taught in notebooks/01_conversation_buffer.ipynb.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime

from teachmem.core.change import Change
from teachmem.core.text import redact
from teachmem.core.validate import (ROLES, require_datetime, require_int_at_least, require_role,
                                    require_text, require_turn)

__all__ = ["ROLES", "Message", "next_message", "redact", "erase_messages",
           "message_records", "position", "restore_messages"]


@dataclass(frozen=True)
class Message:
    """One chat message, frozen: what was said does not change.

    ``id`` is given on arrival ("m1", …).
    """

    role: str
    content: str
    turn: int
    timestamp: datetime | None = None
    id: str | None = None

    def __post_init__(self):
        require_role("role", self.role)
        # Empty content is allowed: an assistant may reply with nothing.
        require_text("content", self.content, allow_empty=True)
        require_int_at_least("turn", self.turn, 0)
        object.__setattr__(self, "timestamp", require_datetime("timestamp", self.timestamp))
        if self.id is not None:
            require_text("id", self.id)

    def as_dict(self) -> dict:
        """The shape chat APIs expect: ``{"role": ..., "content": ...}``."""
        return {"role": self.role, "content": self.content}

    @property
    def text(self) -> str:
        """How a Change shows the message: ``"user: we use PostgreSQL"``."""
        return f"{self.role}: {self.content}"

    def to_state(self) -> dict:
        """Everything about the message as JSON-ready data (for save/load)."""
        return {"role": self.role, "content": self.content, "turn": self.turn,
                "timestamp": self.timestamp.isoformat() if self.timestamp else None, "id": self.id}

    @classmethod
    def from_state(cls, state: dict) -> "Message":
        stamp = state.get("timestamp")
        return cls(state["role"], state["content"], state["turn"],
                   datetime.fromisoformat(stamp) if stamp else None, state.get("id"))


def next_message(role: str, content: str, turn: int | None = None,
                 timestamp: datetime | None = None, *, after: int | None = None,
                 number: int = 1) -> Message:
    """The checked message that follows turn ``after`` (a missing ``turn`` is ``after + 1``, or 1),
    with id ``f"m{number}"``."""
    return Message(role, content, require_turn("turn", turn, after), timestamp, f"m{number}")


def erase_messages(messages: list[Message],
                   pattern: re.Pattern) -> tuple[list[Message], list[Change]]:
    """``messages`` with ``pattern`` redacted (each keeps its place and id), and an UPDATE per
    message changed."""
    if not isinstance(pattern, re.Pattern):
        raise TypeError("pattern must be a compiled re.Pattern (teachmem.core.text.forget_pattern "
                        f"builds one), got {type(pattern).__name__}")
    kept = []
    changes = []
    for message in messages:
        if pattern.search(message.content):
            redacted = replace(message, content=redact(pattern, message.content))
            changes.append(Change("UPDATE", str(message.id), redacted.text, previous=message.text,
                                  reason="forgotten: the match is redacted, the message stays"))
            message = redacted
        kept.append(message)
    return kept, changes


def message_records(messages: list[Message], memory_type: str = "message") -> list[dict]:
    """What governance's ``provenance`` reads from a list of messages: one dict each."""
    return [{"id": m.id, "memory_type": memory_type, "text": m.content, "turn": m.turn,
             "timestamp": m.timestamp, "confidence": 1.0} for m in messages]


def position(messages: list[Message], id: str) -> int:
    """Where the message ``id`` is in ``messages``; an unknown id is a clear KeyError."""
    require_text("id", id)
    for i, m in enumerate(messages):
        if m.id == id:
            return i
    raise KeyError(f"id {id!r} names no stored message")


def restore_messages(states: list[dict]) -> list[Message]:
    """Messages from ``to_state`` data; one saved before messages had ids gets ``m1``, ``m2``, …
    by place."""
    messages = [Message.from_state(s) for s in states]
    return [m if m.id else replace(m, id=f"m{i}") for i, m in enumerate(messages, 1)]
