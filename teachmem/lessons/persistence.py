"""Notebook 09's checkers, retention view and plot: keeping, expiring and forgetting.

Taught in notebooks/09_persistence_and_governance.ipynb.
"""
from __future__ import annotations

import inspect
import linecache
import random
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta

import ipywidgets
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from teachmem.core.clock import EPOCH
from teachmem.lab.governance import Provenance, RetentionPolicy, apply_retention, provenance
from teachmem.lab.replay import assistant_until as assistant_until
from teachmem.lab.scenarios import load_scenario
from teachmem.lessons.common import (OKABE_ITO, after_prediction as after_prediction, answer_checker, checker,
                                     differs, explore as explore, figure, first_problem, hanging, mark, prediction_problem,
                                     wrapped as wrapped)

# ---------------------------------------------------------------- section 2: the store in a second process
def cell_source(cls: type) -> str:
    """The text of the notebook cell that defined ``cls`` (a class with at least one method).

    ``inspect.getsource`` cannot find a class defined in a notebook (a notebook is no file), but IPython keeps
    every cell's text, under the file name its functions carry. Notebook 09 writes the cell that builds
    ``TinyStore`` to a module, so the server it starts in a second process runs that very class.
    """
    if not isinstance(cls, type):
        raise TypeError(f"cls must be a class, got {type(cls).__name__}")
    methods = [f for f in vars(cls).values() if inspect.isfunction(f)]
    lines = linecache.getlines(methods[0].__code__.co_filename) if methods else []
    if not lines:
        raise ValueError(f"the source of {cls.__name__} is not available: define it, with its methods, in a cell")
    return "".join(lines)


# ---------------------------------------------------------------- exercise 9.1: a prediction
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


def _day(when: datetime) -> str:
    return f"day {(when - EPOCH) / timedelta(days=1):g}"


def _expired_problem(fn: Callable, memories: list[dict], now: datetime, want: list) -> str | None:
    shown = [(m["id"], m["type"], f"observed {_day(m['observed_at'])}",
              f"used {_day(m['last_used'])}" if m["last_used"] else "never used", "pii" if m["pii"] else "")
             for m in memories]
    return differs(f"ttl_days={_TTL_DAYS}, pii_days={_PII_DAYS}, now={_day(now)} and memories={shown} "
                   f"(day 0 is {EPOCH:%Y-%m-%d %H:%M})",
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
    """Which stored items a retention policy would remove ``days_later`` days after ``start``: removed first.

    Messages live ``message_days``, anything with personal data at most
    ``pii_days``, facts forever. Nothing is removed: the view only asks the
    policy (``teachmem.lab.governance.RetentionPolicy``), so every slider position
    shows the same memory. ``RetentionWidget`` draws it under its sliders.
    """
    now = start + timedelta(days=days_later)
    policy = RetentionPolicy({"message": message_days, "fact": None}, pii=pii_days)
    records = provenance(memory)
    gone = {(r.tier, r.where) for r in policy.expired(records, now)}
    lines = [f"day {days_later}: messages live {message_days} days, facts forever, "
             f"anything with personal data at most {pii_days} days",
             f"{len(records) - len(gone)} of {len(records)} items kept, {len(gone)} removed"]
    tiers, types = max([len(r.tier) for r in records], default=0), max([len(r.memory_type) for r in records], default=0)
    for r in sorted(records, key=lambda r: (r.tier, r.where) not in gone):      # removed first, else in order
        end = policy.expires_at(r)
        until = "forever" if end is None else f"until day {(end - start) / timedelta(days=1):.0f}"
        prefix = (f"{mark((r.tier, r.where) not in gone)} {r.tier:<{tiers}} {r.memory_type:<{types}} {until:<12} "
                  f"{','.join(r.pii) or '-':<5} ")
        lines += hanging(prefix, r.text, len(prefix) + width)      # wrapped under its column, never cut
    return "\n".join(lines)


class RetentionWidget(ipywidgets.VBox):
    """Notebook 09's *Try it*: three sliders above ``retention_view``, redrawn on every move.

    Before the cell runs, a notebook shows the widget's plain text, which says what it is.

    Taught in notebooks/09_persistence_and_governance.ipynb.
    """

    def __init__(self, memory, start: datetime, days_later: int = 8, message_days: int = 30, pii_days: int = 7):
        def slider(value: int, low: int, high: int, label: str) -> ipywidgets.IntSlider:
            return ipywidgets.IntSlider(value=value, min=low, max=high, description=label,
                                        style={"description_width": "initial"},
                                        layout=ipywidgets.Layout(width="min(520px, 100%)"))
        self.sliders = {"days_later": slider(days_later, 0, 60, "days later"),
                        "message_days": slider(message_days, 1, 60, "messages live (days)"),
                        "pii_days": slider(pii_days, 1, 30, "personal data at most (days)")}
        box = explore(retention_view, memory=ipywidgets.fixed(memory), start=ipywidgets.fixed(start), **self.sliders)
        super().__init__(box.children)

    def __repr__(self) -> str:
        days, message, pii = (s.value for s in self.sliders.values())
        return (f"RetentionWidget(day {days}: messages live {message} days, personal data at most {pii}; "
                "run the cell to move the sliders)")


def _same_bar(records: list[Provenance], policy: RetentionPolicy, start: datetime) -> list[list[Provenance]]:
    """``records`` grouped where they draw the same bar: same tier, type and personal data, observed and
    expiring on the same day (to a tenth)."""
    day = timedelta(days=1)
    groups: dict[tuple, list[Provenance]] = {}
    for r in records:
        end = policy.expires_at(r)
        key = (r.tier, r.memory_type, r.has_pii, None if r.observed_at is None else round((r.observed_at - start) / day, 1),
               None if end is None else round((end - start) / day, 1))
        groups.setdefault(key, []).append(r)
    return list(groups.values())


def _bar_label(group: list[Provenance]) -> str:
    r = group[0]
    if len(group) > 1:
        return f"{r.tier}: {len(group)} {r.memory_type}s"
    pii = f" ({', '.join(r.pii)})" if r.pii else ""
    return (f"{r.tier}: turn {r.source_turn}" if r.source_turn is not None else f"{r.tier}: the {r.memory_type}") + pii


def plot_retention(records: list[Provenance], policy: RetentionPolicy, start: datetime, now: datetime) -> Figure:
    """Each stored item as a bar from when it was observed to when it expires; items that would draw the same
    bar share one, labelled with how many they are.

    Colours (in the legend): personal data, which the policy caps; other items
    with a time to live; items kept forever, whose bars run off the right edge.
    A hatched bar is an item that recorded no time: no time to live can age it.
    The dashed line is ``now``: bars ending left of it are gone.

    Taught in notebooks/09_persistence_and_governance.ipynb.
    """
    day = timedelta(days=1)
    ends = [(end - start) / day for r in records if (end := policy.expires_at(r)) is not None]
    horizon = max([(now - start) / day, *ends, 1]) * 1.15      # every expiry in sight; "forever" runs off the edge
    colours = {"personal": OKABE_ITO[5], "timed": OKABE_ITO[4], "forever": "#BBBBBB"}   # vermillion, sky blue, grey
    groups = _same_bar(records, policy, start)
    fig, ax = figure(9.5, max(2.6, 0.3 * len(groups) + 1.5))
    for i, group in enumerate(groups):
        r = group[0]
        begin = 0.0 if r.observed_at is None else (r.observed_at - start) / day
        end = policy.expires_at(r)      # None when kept forever, or when no time was recorded
        length = horizon - begin if end is None else (end - start) / day - begin
        kind = "personal" if r.pii else ("forever" if end is None else "timed")
        ax.barh(i, length, left=begin, height=0.7, color=colours[kind], edgecolor="white",
                hatch="//" if r.observed_at is None else None)
    ax.axvline((now - start) / day, color="black", ls="--", lw=1.5)
    ax.set_yticks(range(len(groups)), [_bar_label(g) for g in groups], fontsize=9)
    ax.set_xlim(0, horizon)
    ax.invert_yaxis()
    ax.set_xlabel("days since the conversation started", fontsize=10)
    ax.set_title(f"Retention: each item from when it was observed to when it expires (now: day {(now - start) / day:.0f})",
                 fontsize=11)
    handles = [Patch(color=colours["personal"], label="personal data (capped)"),
               Patch(color=colours["timed"], label="expires (its type's time to live)"),
               Patch(color=colours["forever"], label="kept forever"),
               Patch(facecolor="white", edgecolor="black", hatch="//", label="no time recorded"),
               Line2D([], [], color="black", ls="--", label="now")]
    fig.legend(handles=handles, loc="outside lower center", ncols=5, fontsize=9, frameon=False)
    return fig
