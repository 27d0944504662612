"""What a write did: every write to a memory returns a list of ``Change`` records.

A memory that only says "done" leaves the caller guessing what happened: was
the fact new, did it replace an older one, was it a duplicate? Production
memory libraries answer with events, and so does every strategy here:

* ``ADD``: something new is stored, under a new ``id``;
* ``UPDATE``: what ``id`` held was replaced (``previous`` says what it was);
* ``DELETE``: ``id`` is gone (evicted, retired, pruned or forgotten);
* ``NOOP``: the write was seen and deliberately changed nothing.

``reason`` says why, in words. ``span`` is where in the message the stored
text came from (``(start, end)`` character offsets), when that is known, so a
visualiser can highlight it.

>>> change = Change("ADD", "m1", "user: we use PostgreSQL", reason="new message")
>>> change.event, change.id
('ADD', 'm1')
>>> print(change)
ADD m1: user: we use PostgreSQL (new message)
>>> Change("MOVE", "m1", "x")
Traceback (most recent call last):
    ...
ValueError: event must be one of ('ADD', 'UPDATE', 'DELETE', 'NOOP'), got 'MOVE'

Taught in notebooks/01_conversation_buffer.ipynb.
"""
from __future__ import annotations

from dataclasses import dataclass

EVENTS = ("ADD", "UPDATE", "DELETE", "NOOP")


@dataclass(frozen=True)
class Change:
    """One thing a write did to a memory."""

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
