"""Notebook 09's checkers, retention view and plot: keeping, expiring and forgetting.

Taught in notebooks/09_persistence_and_governance.ipynb.
"""
from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta

from matplotlib.figure import Figure

from teachmem.core.clock import EPOCH
from teachmem.lab.governance import Provenance, RetentionPolicy, luhn_valid, provenance
from teachmem.lessons.common import checker, differs, explore as explore, figure, first_problem, mark, short

_TTL_DAYS = {"message": 30, "fact": None, "pii": 7}
_EDGE = [{"id": "exactly 30 days", "type": "message", "observed_at": EPOCH},
         {"id": "a minute short", "type": "message", "observed_at": EPOCH + timedelta(minutes=1)},
         {"id": "old fact", "type": "fact", "observed_at": EPOCH - timedelta(days=900)},
         {"id": "no rule", "type": "summary", "observed_at": EPOCH - timedelta(days=900)},
         {"id": "phone", "type": "pii", "observed_at": EPOCH + timedelta(days=20)}]
# (memories, now) -> the expired ids, worked out by hand: a message lives 30 days, "pii" 7, a fact and
# a type without a rule forever; a memory whose time runs out exactly at ``now`` is expired.
EXPIRED = [((_EDGE, EPOCH + timedelta(days=30)), ["exactly 30 days", "phone"]),
           ((_EDGE, EPOCH + timedelta(days=27)), ["phone"]),
           ((_EDGE, EPOCH + timedelta(days=30, minutes=1)), ["exactly 30 days", "a minute short", "phone"]),
           (([], EPOCH), [])]


def _luhn_cases() -> list[str]:
    rng = random.Random(91)
    cases = ["4111 1111 1111 1111", "4111-1111-1111-1111", "4111111111111112", "79927398713", "79927398710",
             "0", "18", "59", "3782 822463 10005", "6011 0009 9013 9424", "5555 5555 5555 4444", "1234 5678 9012 3456"]
    for _ in range(40):
        digits = [rng.randint(0, 9) for _ in range(rng.randint(2, 19))]
        cases.append("".join(map(str, digits)))
    return cases


@checker("luhn_valid")
def check_luhn_valid(fn: Callable) -> str | None:
    """Exercise 9.1: the Luhn checksum, ignoring spaces and dashes (known answer: the library's ``luhn_valid``)."""
    return first_problem(differs(f"number={n!r}", bool(fn(n)), luhn_valid(n)) for n in _luhn_cases())


def _policy_expired(memories: list[dict], now: datetime) -> list:
    """What the library's ``RetentionPolicy`` removes of ``memories`` under ``_TTL_DAYS`` at ``now``."""
    policy = RetentionPolicy(dict(_TTL_DAYS))
    by_where = {str(m["id"]): m["id"] for m in memories}
    records = [Provenance(tier="exercise", where=str(m["id"]), memory_type=m["type"], text="", source_turn=None,
                          observed_at=m["observed_at"], confidence=None, pii=()) for m in memories]
    return [by_where[r.where] for r in policy.expired(records, now)]


def _random_memories() -> Iterator[tuple[list[dict], datetime]]:
    rng = random.Random(92)
    for _ in range(8):
        memories = [{"id": i, "type": rng.choice(["message", "fact", "pii", "summary"]),
                     "observed_at": EPOCH + timedelta(hours=rng.randint(0, 24 * 60))}
                    for i in range(rng.randint(1, 12))]
        yield memories, EPOCH + timedelta(days=rng.randint(0, 90))


def _expired_problem(fn: Callable, memories: list[dict], now: datetime, want: list) -> str | None:
    return differs(f"memories={[(m['id'], m['type'], str(m['observed_at'])) for m in memories]}, now={now}",
                   list(fn([dict(m) for m in memories], dict(_TTL_DAYS), now)), want)


@checker("expired_ids")
def check_expired_ids(fn: Callable) -> str | None:
    """Exercise 9.2: the ids of memories whose time to live has run out at ``now``."""
    return (first_problem(_expired_problem(fn, ms, now, want) for (ms, now), want in EXPIRED)
            or first_problem(_expired_problem(fn, ms, now, _policy_expired(ms, now)) for ms, now in _random_memories()))


def retention_view(memory, start: datetime, days_later: int, message_days: int, pii_days: int,
                   width: int = 52) -> str:
    """Which stored items a retention policy would remove ``days_later`` days after ``start``.

    Messages live ``message_days``, anything with personal data at most
    ``pii_days``, facts forever. Nothing is removed: the view only asks the
    policy (``teachmem.lab.governance.RetentionPolicy``), so every slider position
    shows the same memory.

    Taught in notebooks/09_persistence_and_governance.ipynb.
    """
    now = start + timedelta(days=days_later)
    policy = RetentionPolicy({"message": message_days, "fact": None}, pii=pii_days)
    records = provenance(memory)
    gone = {(r.tier, r.where) for r in policy.expired(records, now)}
    lines = [f"day {days_later}: messages live {message_days} days, facts forever, "
             f"anything with personal data at most {pii_days} days",
             f"{len(records) - len(gone)} of {len(records)} items kept, {len(gone)} removed"]
    for r in records:
        end = policy.expires_at(r)
        until = "forever" if end is None else f"until day {(end - start) / timedelta(days=1):.0f}"
        pii = ",".join(r.pii) or "-"
        lines.append(f"{mark((r.tier, r.where) not in gone)} {r.tier:<16} {r.memory_type:<14} {until:<13} "
                     f"{pii:<6} {short(r.text, width)}")
    return "\n".join(lines)


def plot_retention(records: list[Provenance], policy: RetentionPolicy, start: datetime, now: datetime) -> Figure:
    """Each stored item as a bar from when it was observed to when it expires.

    Red bars carry personal data, grey bars never expire (they run off the
    right edge); the dashed line is ``now``: bars ending left of it are gone.

    Taught in notebooks/09_persistence_and_governance.ipynb.
    """
    day = timedelta(days=1)
    timed = [r for r in records if r.observed_at is not None]
    horizon = max(((now - start) / day) * 1.25, 1)
    fig, ax = figure(8, max(2.5, 0.18 * len(timed) + 1))
    for i, r in enumerate(timed):
        observed = r.observed_at or start
        begin = (observed - start) / day
        end = policy.expires_at(r)
        length = (horizon - begin) if end is None else (end - observed) / day
        colour = "tab:red" if r.pii else ("0.75" if end is None else "tab:blue")
        ax.barh(i, length, left=begin, height=0.7, color=colour)
    ax.axvline((now - start) / day, color="black", ls="--", lw=1)
    ax.set_yticks(range(len(timed)), [f"{r.tier} {r.source_turn or ''}" for r in timed], fontsize=6)
    ax.set_xlim(0, horizon)
    ax.invert_yaxis()
    ax.set(xlabel="days since the conversation started", title="Retention: observed → expires (red: personal data)")
    return fig
