"""The one protocol every memory strategy follows.

A memory strategy answers two questions:

* ``add(role, content, *, turn=None, timestamp=None)`` — something was said;
* ``context(query=None)`` — what would be sent to the model now?

Because every strategy answers the same two questions, one replay loop, one
widget and one scoreboard can compare them all.

Taught in notebooks/01_conversation_buffer.ipynb.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol, runtime_checkable

from teachmem.core.validate import ROLES, require_datetime, require_int_at_least, require_role, require_text, require_turn

__all__ = ["ROLES", "Message", "Memory", "next_message"]


@dataclass(frozen=True)
class Message:
    """One chat message. Frozen: what was said does not change afterwards."""

    role: str
    content: str
    turn: int | None = None
    timestamp: datetime | None = None

    def __post_init__(self):
        require_role("role", self.role)
        # Empty content is allowed: an assistant may reply with nothing.
        require_text("content", self.content, allow_empty=True)
        if self.turn is not None:
            require_int_at_least("turn", self.turn, 0)
        require_datetime("timestamp", self.timestamp)

    def as_dict(self) -> dict:
        """The shape chat APIs expect: ``{"role": ..., "content": ...}``."""
        return {"role": self.role, "content": self.content}

    def to_state(self) -> dict:
        """Everything about the message as JSON-ready data (for save/load)."""
        return {"role": self.role, "content": self.content, "turn": self.turn,
                "timestamp": self.timestamp.isoformat() if self.timestamp else None}

    @classmethod
    def from_state(cls, state: dict) -> "Message":
        stamp = state.get("timestamp")
        return cls(state["role"], state["content"], state.get("turn"),
                   datetime.fromisoformat(stamp) if stamp else None)


@runtime_checkable
class Memory(Protocol):
    """What the replay, the widgets and the evaluation need from a strategy."""

    def add(self, role: str, content: str, *, turn: int | None = None,
            timestamp: datetime | None = None) -> None: ...

    def context(self, query: str | None = None) -> list[dict]: ...


def next_message(role: str, content: str, turn: int | None = None,
                 timestamp: datetime | None = None, *, after: int | None = None) -> Message:
    """Build the message that follows turn ``after``, checking every argument.

    A missing ``turn`` becomes ``after + 1`` (or 1 for the first message), so
    turns count 1, 2, 3, … unless the caller numbers them itself.
    """
    return Message(role, content, require_turn("turn", turn, after), timestamp)
