"""Argument checks shared by every strategy: a ``TypeError`` or ``ValueError`` naming the argument,
raised before anything is stored. Each returns the value to use (``require_datetime`` converts).

Taught in notebooks/01_conversation_buffer.ipynb.
"""
from __future__ import annotations

import math
from datetime import datetime, timezone

ROLES = ("system", "user", "assistant", "tool")


def require_text(name: str, value, allow_empty: bool = False) -> str:
    """A str that can be stored: non-empty (unless allowed) and encodable as UTF-8 (no lone
    surrogate).

    >>> require_text("content", "hello")
    'hello'
    """
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__}")
    if not allow_empty and not value.strip():
        raise ValueError(f"{name} must be a non-empty string, got {value!r}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as err:
        raise ValueError(f"{name} must be valid Unicode text; it has a lone surrogate "
                         f"{value[err.start]!r} at position {err.start}") from None
    return value


def require_role(name: str, value) -> str:
    """One of the chat roles in ``ROLES``.

    >>> require_role("role", "user")
    'user'
    """
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, one of {ROLES}, got {type(value).__name__}")
    return require_choice(name, value, ROLES)


def require_choice(name: str, value, choices) -> str:
    """One of ``choices`` (a setting that names a way of working).

    >>> require_choice("layout", "stable", ("ranked", "stable"))
    'stable'
    """
    if value not in choices:
        raise ValueError(f"{name} must be one of {tuple(choices)}, got {value!r}")
    return value


def require_bool(name: str, value) -> bool:
    """``value`` if it is True or False (not 1, not "yes": a switch says which it is).

    >>> require_bool("neighbour_words", False)
    False
    """
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return value


def require_int_at_least(name: str, value, minimum: int) -> int:
    """An int (not a bool, not a float) no smaller than ``minimum``.

    >>> require_int_at_least("as_of", 3, 0)
    3
    """
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{name} must be an int >= {minimum}, got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}, got {value}")
    return value


def require_positive_int(name: str, value) -> int:
    """An int >= 1.

    >>> require_positive_int("max_turns", 5)
    5
    """
    return require_int_at_least(name, value, 1)


def require_fraction(name: str, value) -> float:
    """A finite number from 0 to 1, as a float.

    >>> require_fraction("importance", 1)
    1.0
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number between 0 and 1, got {type(value).__name__}")
    if not math.isfinite(value) or not 0 <= value <= 1:
        raise ValueError(f"{name} must be a number between 0 and 1, got {value!r}")
    return float(value)


def require_decay_rate(name: str, value) -> float:
    """A decay per day in (0, 1], as a float: 0 would erase every memory after one day.

    >>> require_decay_rate("decay_rate", 0.95)
    0.95
    """
    if require_fraction(name, value) == 0:
        raise ValueError(f"{name} must be in (0, 1]: 0 would erase every memory after one day")
    return float(value)


def require_datetime(name: str, value, allow_none: bool = True):
    """A datetime as naive UTC: a timezone-aware one (what a PostgreSQL driver returns) is
    converted.

    >>> require_datetime("timestamp", datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc))
    datetime.datetime(2026, 3, 1, 12, 0)
    """
    if value is None and allow_none:
        return None
    if not isinstance(value, datetime):
        raise TypeError(f"{name} must be a datetime{' or None' if allow_none else ''}, "
                        f"got {type(value).__name__}")
    if value.utcoffset() is None:
        return value
    try:
        return value.astimezone(timezone.utc).replace(tzinfo=None)
    except OverflowError:
        raise ValueError(f"{name} is out of range once converted to UTC, got {value!r}") from None


def require_turn(name: str, value, previous: int | None) -> int:
    """A turn is an int that moves forward: None means "the next one".

    >>> require_turn("turn", None, previous=4)
    5
    """
    if value is None:
        return 1 if previous is None else previous + 1
    require_int_at_least(name, value, 0)
    if previous is not None and value <= previous:
        raise ValueError(f"{name} must be greater than the previous turn ({previous}), "
                         f"got {value}")
    return value


def require_message(role, content, turn: int | None, timestamp,
                    last_turn: int | None) -> int:
    """The checks ``add(role, content, *, turn, timestamp)`` opens with; returns the turn.

    >>> require_message("user", "", None, None, last_turn=2)       # empty content is allowed
    3
    """
    require_role("role", role)
    require_text("content", content, allow_empty=True)
    turn = require_turn("turn", turn, last_turn)
    require_datetime("timestamp", timestamp)
    return turn


def require_callable(name: str, value, method: str | None = None):
    """``value`` (or its ``method``) is callable, or is None.

    >>> require_callable("scorer", len) is len
    True
    """
    if value is not None and not callable(getattr(value, method, None) if method else value):
        what = f"an object with {method}()" if method else "callable"
        raise TypeError(f"{name} must be {what}, got {type(value).__name__}")
    return value
