"""Notebook 09's checkers, retention view and plot: keeping, expiring and forgetting.

Taught in notebooks/09_persistence_and_governance.ipynb.
"""
from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from types import SimpleNamespace

from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from teachmem.core.clock import EPOCH
from teachmem.lab.governance import Provenance, RetentionPolicy, apply_retention, provenance
from teachmem.lab.replay import add_turn
from teachmem.lab.scenarios import Scenario, load_scenario
from teachmem.memory.buffer import ConversationBuffer
from teachmem.memory.hybrid import HybridMemoryManager
from teachmem.memory.summary import SummaryMemory
from teachmem.lessons.common import (OKABE_ITO, after_prediction as after_prediction, answer_checker, checker,
                                     differs, explore as explore, figure, first_problem, mark, prediction_problem,
                                     short)

# ---------------------------------------------------------------- exercise 9.1: a prediction
def assistant_until(scenario: Scenario, turn: int) -> SimpleNamespace:
    """Noor's assistant of notebook 09 after ``turn`` turns: a hybrid manager, a transcript and a summary."""
    app = SimpleNamespace(hybrid=HybridMemoryManager(), transcript=ConversationBuffer(),
                          summary=SummaryMemory(summarize_every=6, keep_recent=2))
    for t in scenario.turns[:turn]:
        for memory in vars(app).values():
            add_turn(memory, scenario, t.turn)
    return app


@answer_checker("still_holding")
def check_still_holding(still_holding: object) -> str | None:
    """Exercise 9.1: which tiers still hold Noor's phone number after retention ran, eight days after the order?

    ``still_holding`` is a set of tier names written before retention ran. The
    answer is measured on the notebook's setting: the assistant after turn 14,
    messages kept 30 days, facts forever, personal data at most 7 days.
    """
    noor = load_scenario("forget_address")
    app = assistant_until(noor, 14)
    apply_retention(app, RetentionPolicy({"message": 30, "fact": None}, pii=timedelta(days=7)),
                    noor.timestamp(14) + timedelta(days=8))
    actual = {r.tier for r in provenance(app) if "phone" in r.pii}
    return prediction_problem(still_holding, actual,
                              "Retention ages an item from the time it was observed. The summary folded the "
                              "number into a text that records no time of its own, so no time to live reaches it.")


# ---------------------------------------------------------------- exercise 9.2: expiry with last use
def _memory(id: str, kind: str, observed_day: float, used_day: float | None = None, pii: bool = False) -> dict:
    return {"id": id, "type": kind, "observed_at": EPOCH + timedelta(days=observed_day),
            "last_used": None if used_day is None else EPOCH + timedelta(days=used_day), "pii": pii}


_TTL_DAYS = {"message": 30, "fact": None}
_PII_DAYS = 7
_EDGE = [_memory("exactly 30 days", "message", 0), _memory("used on day 10", "message", 0, 10),
         _memory("old fact", "fact", -900), _memory("no rule", "summary", -900),
         _memory("phone, used daily", "message", 20, 29, pii=True), _memory("name fact", "fact", 25, pii=True)]
# (memories, now in days) -> the expired ids, worked out by hand: a message lives 30 days from the later of
# when it was observed and when it was last used; a fact and a type without a rule live forever; anything
# with personal data lives at most 7 days from when it was observed, used or not; expiring exactly at now counts.
EXPIRED = [((_EDGE, 30), ["exactly 30 days", "phone, used daily"]),
           ((_EDGE, 27), ["phone, used daily"]),
           ((_EDGE, 32), ["exactly 30 days", "phone, used daily", "name fact"]),
           ((_EDGE, 40), ["exactly 30 days", "used on day 10", "phone, used daily", "name fact"]),
           ((_EDGE, 31.9), ["exactly 30 days", "phone, used daily"]),
           (([], 0), [])]


def _as_record(m: dict, start: datetime) -> Provenance:
    return Provenance(tier="exercise", where=str(m["id"]), memory_type=m["type"], text="", source_turn=None,
                      observed_at=start, confidence=None, pii=("phone",) if m["pii"] else ())


def _library_expired(memories: list[dict], now: datetime) -> list:
    """The reference: the library's ``RetentionPolicy``, asked twice (time to live from the last use, and the
    personal-data cap from the observation)."""
    by_type = RetentionPolicy(dict(_TTL_DAYS)).expired(
        [_as_record(m, max(m["observed_at"], m["last_used"] or m["observed_at"])) for m in memories], now)
    by_pii = RetentionPolicy({}, pii=_PII_DAYS).expired([_as_record(m, m["observed_at"]) for m in memories], now)
    gone = {r.where for r in by_type} | {r.where for r in by_pii}
    return [m["id"] for m in memories if str(m["id"]) in gone]


def _random_memories() -> Iterator[tuple[list[dict], datetime]]:
    rng = random.Random(92)
    for _ in range(10):
        memories = [_memory(f"m{i}", rng.choice(["message", "fact", "summary"]), rng.randint(0, 60),
                            rng.choice([None, rng.randint(0, 80)]), rng.random() < 0.3)
                    for i in range(rng.randint(1, 10))]
        yield memories, EPOCH + timedelta(days=rng.randint(0, 100))


def _expired_problem(fn: Callable, memories: list[dict], now: datetime, want: list) -> str | None:
    shown = [(m["id"], m["type"], f"observed {m['observed_at']:%m-%d}",
              f"used {m['last_used']:%m-%d}" if m["last_used"] else "never used", "pii" if m["pii"] else "")
             for m in memories]
    return differs(f"memories={shown}, now={now:%m-%d %H:%M}",
                   list(fn([dict(m) for m in memories], dict(_TTL_DAYS), _PII_DAYS, now)), want)


@checker("expired_ids")
def check_expired_ids(fn: Callable) -> str | None:
    """Exercise 9.2: ids of memories expired at ``now``, the clock restarting on use but not for personal data.

    Known answers in ``EXPIRED``; then random cases against the library's ``RetentionPolicy``.
    """
    return (first_problem(_expired_problem(fn, ms, EPOCH + timedelta(days=d), want) for (ms, d), want in EXPIRED)
            or first_problem(_expired_problem(fn, ms, now, _library_expired(ms, now)) for ms, now in _random_memories()))


# ---------------------------------------------------------------- exercise 9.3: detector rules
# text -> does it hold personal data? Decided by hand.
PERSONAL = [("Deliver it to 27 Elm Grove, Leeds LS6 2AB.", True), ("Send it to 8 Mill Lane, York YO1 7HU.", True),
            ("The driver can reach me on 07700 900123.", True), ("Call me on +44 7911 123456 after six.", True),
            ("Mail maya.lee@example.com the invoice.", True), ("Our landline is 0113 496 0000.", True),
            ("Reference 1234-5678 is on the receipt.", False), ("Order 4111 1111 1111 1112 shipped.", False),
            ("On 2026-03-02 at 10:30 we moved 1,200 users to Python 3.11.", False),
            ("The Alba costs 1,249 pounds and weighs 78 kg.", False), ("Tuesday morning, between 8 and 12.", False),
            ("Room B12 on floor 3, desk 4A.", False)]


@checker("detect")
def check_detect(fn: Callable) -> str | None:
    """Exercise 9.3: ``fn(text)`` returns the kinds of personal data found (empty when none).

    Passes when it finds some in every text of ``PERSONAL`` marked True, and none in the others.
    """
    for text, personal in PERSONAL:
        found = list(fn(text))
        if personal and not found:
            return f"it finds nothing in {text!r}, which holds personal data: which rule should match it?"
        if found and not personal:
            return f"it flags {found} in {text!r}, which holds none: a false alarm; make that rule stricter"
    return None


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

    Colours (in the legend): personal data, which the policy caps; other items
    with a time to live; items kept forever, whose bars run off the right edge.
    The dashed line is ``now``: bars ending left of it are gone.

    Taught in notebooks/09_persistence_and_governance.ipynb.
    """
    day = timedelta(days=1)
    timed = [r for r in records if r.observed_at is not None]
    ends = [(end - start) / day for r in timed if (end := policy.expires_at(r)) is not None]
    horizon = max([(now - start) / day, *ends, 1]) * 1.15      # every expiry in sight; "forever" runs off the edge
    colours = {"personal": OKABE_ITO[5], "timed": OKABE_ITO[4], "forever": "#BBBBBB"}   # vermillion, sky blue, grey
    fig, ax = figure(9.5, max(3, 0.27 * len(timed) + 1.8))
    for i, r in enumerate(timed):
        observed = r.observed_at or start
        begin = (observed - start) / day
        end = policy.expires_at(r)
        length = (horizon - begin) if end is None else (end - observed) / day
        kind = "personal" if r.pii else ("forever" if end is None else "timed")
        ax.barh(i, length, left=begin, height=0.7, color=colours[kind])
    ax.axvline((now - start) / day, color="black", ls="--", lw=1.5)
    ax.set_yticks(range(len(timed)), [f"{r.tier}, turn {r.source_turn}" if r.source_turn else r.tier for r in timed],
                  fontsize=9)
    ax.set_xlim(0, horizon)
    ax.invert_yaxis()
    ax.set_xlabel("days since the conversation started", fontsize=11)
    ax.set_title(f"Retention: each item from when it was observed to when it expires (now: day {(now - start) / day:.0f})",
                 fontsize=11)
    handles = [Patch(color=colours["personal"], label="personal data (capped)"),
               Patch(color=colours["timed"], label="expires (its type's time to live)"),
               Patch(color=colours["forever"], label="kept forever"),
               Line2D([], [], color="black", ls="--", label="now")]
    fig.legend(handles=handles, loc="outside lower center", ncols=4, fontsize=10, frameon=False)
    return fig
