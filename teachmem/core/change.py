"""What a write did: every write to a memory returns a list of ``Change`` records.

``event`` is ADD (new, under a new ``id``), UPDATE (``id`` now holds something
else; ``previous`` says what), DELETE (``id`` is gone: evicted, retired,
pruned or forgotten) or NOOP (seen, deliberately unchanged), as Mem0's
events are. ``reason`` says why; ``span`` is where in the message the stored
text came from (``(start, end)``), when known.

>>> print(Change("ADD", "m1", "user: we use PostgreSQL", reason="new message"))
ADD m1: user: we use PostgreSQL (new message)
>>> Change("MOVE", "m1", "x")
Traceback (most recent call last):
ValueError: event must be one of ('ADD', 'UPDATE', 'DELETE', 'NOOP'), got 'MOVE'

Taught in notebooks/01_conversation_buffer.ipynb.
"""
from __future__ import annotations

from dataclasses import dataclass

EVENTS = ("ADD", "UPDATE", "DELETE", "NOOP")


@dataclass(frozen=True)
class Change:
    """One thing a write did to a memory. Taught in notebooks/01_conversation_buffer.ipynb."""

    event: str
    id: str
    text: str
    previous: str | None = None
    reason: str = ""
    span: tuple[int, int] | None = None

    def __post_init__(self):
        if self.event not in EVENTS:
            raise ValueError(f"event must be one of {EVENTS}, got {self.event!r}")
        if not isinstance(self.id, str):
            raise TypeError(f"id must be a str, got {type(self.id).__name__}")

    def __str__(self) -> str:
        was = f" (was: {self.previous})" if self.previous is not None else ""
        why = f" ({self.reason})" if self.reason else ""
        return f"{self.event} {self.id}: {self.text}{was}{why}"
