"""A clock you can set by hand.

Memory that decays or expires depends on time. If the library read the wall
clock, a notebook would print different numbers tomorrow and a test could not
replay "30 days later". So time is always passed in; when it is not, a
strategy asks its clock, and the default clock only moves when told to.
Any zero-argument callable returning a ``datetime`` is a clock, so
``clock=datetime.now`` gives real time to whoever wants it.

Taught in notebooks/05_semantic_memory.ipynb.
"""
from __future__ import annotations

from datetime import datetime, timedelta
from typing import Callable

Clock = Callable[[], datetime]

#: Where every simulated clock starts unless told otherwise.
EPOCH = datetime(2026, 1, 1, 9, 0)


class ManualClock:
    """A simulated clock: ``clock()`` reads it, ``advance`` and ``set`` move it."""

    def __init__(self, start: datetime = EPOCH):
        if not isinstance(start, datetime):
            raise TypeError(f"start must be a datetime, got {type(start).__name__}")
        self._now = start

    def __call__(self) -> datetime:
        return self._now

    def now(self) -> datetime:
        return self._now

    def advance(self, days: float = 0, hours: float = 0, minutes: float = 0) -> datetime:
        step = timedelta(days=days, hours=hours, minutes=minutes)
        if step < timedelta(0):
            raise ValueError(f"a clock only moves forward; got a step of {step}")
        self._now += step
        return self._now

    def set(self, when: datetime) -> datetime:
        if not isinstance(when, datetime):
            raise TypeError(f"when must be a datetime, got {type(when).__name__}")
        self._now = when
        return self._now

    def __repr__(self) -> str:
        return f"ManualClock({self._now.isoformat()})"
