"""Argument checks shared by every strategy.

Each check raises a ``TypeError`` or ``ValueError`` that names the argument
and what was expected, and is called *before* anything is stored, so a bad
call never leaves a memory half-changed. Each returns the value to use:
always keep what it returns (``require_datetime`` converts).
"""
from __future__ import annotations

import math
from datetime import datetime, timezone

ROLES = ("system", "user", "assistant", "tool")


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def require_text(name: str, value, allow_empty: bool = False) -> str:
    """A str that can be stored: non-empty (unless allowed) and encodable as UTF-8.

    A lone surrogate (what a bad byte decoded with ``errors="surrogateescape"``
    turns into) is a str Python accepts but no file or database can hold, so
    it is refused here, at the door.

    >>> require_text("content", "hello")
    'hello'
    >>> require_text("content", "caf\\udce9")
    Traceback (most recent call last):
    ValueError: content must be valid Unicode text; it has a lone surrogate '\\udce9' at position 3
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


def require_user_id(name: str, value) -> str:
    """A user id is a non-empty ``str``: ``1``, ``True`` and ``1.0`` are refused, not coerced.

    Python treats ``1 == True == 1.0`` as one dictionary key, so numeric ids
    would let one user's facts retire another's. Where ``None`` means "any
    user", check ``value is not None`` before calling this.

    >>> require_user_id("user_id", "maya")
    'maya'
    >>> require_user_id("user_id", 1)
    Traceback (most recent call last):
    TypeError: user_id must be a str, got int 1
    """
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__} {value!r}")
    return require_text(name, value)


def require_role(name: str, value) -> str:
    """One of the chat roles in ``ROLES``.

    >>> require_role("role", "user")
    'user'
    >>> require_role("role", "robot")
    Traceback (most recent call last):
    ValueError: role must be one of ('system', 'user', 'assistant', 'tool'), got 'robot'
    """
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, one of {ROLES}, got {type(value).__name__}")
    if value not in ROLES:
        raise ValueError(f"{name} must be one of {ROLES}, got {value!r}")
    return value


def require_int_at_least(name: str, value, minimum: int) -> int:
    """An int (not a bool, not a float) no smaller than ``minimum``.

    >>> require_int_at_least("as_of", 3, 0)
    3
    >>> require_int_at_least("as_of", 1.5, 0)
    Traceback (most recent call last):
    TypeError: as_of must be an int >= 0, got float
    """
    if not _is_int(value):
        raise TypeError(f"{name} must be an int >= {minimum}, got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}, got {value}")
    return value


def require_positive_int(name: str, value) -> int:
    """An int >= 1.

    >>> require_positive_int("max_turns", 0)
    Traceback (most recent call last):
    ValueError: max_turns must be an int >= 1, got 0
    """
    return require_int_at_least(name, value, 1)


def require_fraction(name: str, value) -> float:
    """A finite number from 0 to 1, as a float.

    >>> require_fraction("importance", 1)
    1.0
    >>> require_fraction("importance", float("nan"))
    Traceback (most recent call last):
    ValueError: importance must be a number between 0 and 1, got nan
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number between 0 and 1, got {type(value).__name__}")
    if not math.isfinite(value) or not 0 <= value <= 1:
        raise ValueError(f"{name} must be a number between 0 and 1, got {value!r}")
    return float(value)


def require_datetime(name: str, value, allow_none: bool = True):
    """A datetime, returned as naive UTC: use the value this returns, not the argument.

    Naive datetimes are taken as they are; a timezone-aware one (what a
    PostgreSQL driver hands back) is converted to UTC and its ``tzinfo``
    dropped, so every time a memory compares is of one kind.

    >>> from datetime import timedelta
    >>> require_datetime("timestamp", datetime(2026, 3, 1, 12, 0, tzinfo=timezone(timedelta(hours=2))))
    datetime.datetime(2026, 3, 1, 10, 0)
    >>> require_datetime("timestamp", "2026-03-01")
    Traceback (most recent call last):
    TypeError: timestamp must be a datetime or None, got str
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
    >>> require_turn("turn", 4, previous=4)
    Traceback (most recent call last):
    ValueError: turn must be greater than the previous turn (4), got 4
    """
    if value is None:
        return 1 if previous is None else previous + 1
    require_int_at_least(name, value, 0)
    if previous is not None and value <= previous:
        raise ValueError(f"{name} must be greater than the previous turn ({previous}), got {value}")
    return value
