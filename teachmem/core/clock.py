"""A clock you can set by hand, so that "30 days later" replays the same on every machine.

Memory that decays or expires depends on time; a strategy asks its clock, and the default one only
moves when told. Any zero-argument callable returning a ``datetime`` is a clock (``datetime.now``).

Taught in notebooks/05_semantic_memory.ipynb.
"""
from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Callable

from teachmem.core.validate import require_datetime

Clock = Callable[[], datetime]

#: Where every simulated clock starts unless told otherwise.
EPOCH = datetime(2026, 1, 1, 9, 0)


class ManualClock:
    """A simulated clock: ``clock()`` reads it, ``advance`` and ``set`` move it (naive UTC).

    Taught in notebooks/05_semantic_memory.ipynb.
    """

    def __init__(self, start: datetime = EPOCH):
        self._now: datetime = require_datetime("start", start, allow_none=False)

    def __call__(self) -> datetime:
        return self._now

    def advance(self, days: float = 0, hours: float = 0, minutes: float = 0) -> datetime:
        """Move the clock forward by ``days + hours + minutes``; returns the new time."""
        step = timedelta(0)
        amounts = [("days", days, timedelta(days=1)), ("hours", hours, timedelta(hours=1)),
                   ("minutes", minutes, timedelta(minutes=1))]
        try:
            for name, value, unit in amounts:
                if isinstance(value, bool) or not isinstance(value, (int, float)):
                    raise TypeError(f"{name} must be a number, got {type(value).__name__}")
                if not math.isfinite(value):
                    raise ValueError(f"{name} must be a finite number, got {value!r}")
                step += unit * value
            if step < timedelta(0):
                raise ValueError("a clock only moves forward; days, hours and minutes add up to a "
                                 f"step of {step}")
            self._now += step
        except OverflowError:
            latest = f"the latest time a datetime can hold ({datetime.max})"
            raise ValueError(f"days={days!r}, hours={hours!r}, minutes={minutes!r} would move the "
                             f"clock past {latest}") from None
        return self._now

    def set(self, when: datetime) -> datetime:
        """Put the clock at ``when`` (any time, even an earlier one)."""
        self._now = require_datetime("when", when, allow_none=False)
        return self._now

    def __repr__(self) -> str:
        return f"ManualClock({self._now.isoformat()})"
