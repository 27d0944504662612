"""The comparison's table and the extraction visualiser's HTML: a message with the words each Change came from highlighted.

``extraction_html`` shows what each system's write of one message changed:
the message, then for each system its events (ADD, UPDATE, DELETE, NOOP)
beside the message with the words each event's ``span`` points at marked and
numbered alike. It says in plain words what the ids count (``id_words``) and
why no words are marked when none are (``unmarked_words``). HTML that wraps at
words, at a size a projected screen can show; ``teachmem.app.projector``
puts a slider above it (``ExtractionWidget``). ``turn_caption`` and ``comparison_html`` are the
comparison's text under its chart (``ComparisonWidget``).
"""
from __future__ import annotations

import html
import itertools
import re
from collections.abc import Mapping, Sequence

from teachmem.app.comparison import change_words, checked_turn, comparison_rows, extraction_row, question_needs
from teachmem.core.change import Change
from teachmem.lab.replay import Replay
from teachmem.lab.scenarios import Scenario
from teachmem.lessons.common import short

# Text that wraps at words, at 17 CSS pixels (about 13 pt): what a projected screen needs.
BOX = "font-size:17px;line-height:1.45;max-width:1100px;overflow-wrap:break-word;white-space:normal"
NUMBER = '<sup style="font-size:0.95em">{}</sup>'     # a mark's number, as large as the text it is read with
EVENT_COLOURS = {"ADD": "#009E73", "UPDATE": "#0072B2", "DELETE": "#D55E00", "NOOP": "#6b6b6b"}


def escaped(text: object) -> str:
    """``text`` as HTML text: ``<``, ``&`` and quotes escaped."""
    return html.escape(str(text))


def marked_html(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """``text`` as HTML with the characters of each ``(start, end)`` span in a ``<mark>``, numbered 1, 2, …
    after its last character (overlapping spans share their common part). A span outside the text is a ValueError.

    >>> marked_html("use MySQL 8", [(4, 9)])
    'use <mark style="background:#F0E442;padding:0 2px">MySQL<sup style="font-size:0.95em">1</sup></mark> 8'
    """
    for start, end in spans:
        if not 0 <= start <= end <= len(text):
            raise ValueError(f"span must lie within the message's {len(text)} characters, got {(start, end)}")
    cuts = sorted({0, len(text), *(p for span in spans for p in span)})
    out = [_numbers(spans, 0)]
    for a, b in itertools.pairwise(cuts):
        piece = escaped(text[a:b]) + _numbers(spans, b)
        inside = any(start <= a and b <= end for start, end in spans)
        out.append(f'<mark style="background:#F0E442;padding:0 2px">{piece}</mark>' if inside else piece)
    return "".join(out)


def _numbers(spans: Sequence[tuple[int, int]], at: int) -> str:
    return "".join(NUMBER.format(i) for i, (start, end) in enumerate(spans, 1) if end == at)


def _event_html(item: Change | str, number: int | None) -> str:
    if not isinstance(item, Change):
        return f"<li>{escaped(item)}</li>"
    badge = (f'<b style="color:#fff;background:{EVENT_COLOURS.get(item.event, "#6b6b6b")};padding:0 4px;'
             f'border-radius:3px">{escaped(item.event)}</b>')
    was = f" <i>(was: {escaped(item.previous)})</i>" if item.previous is not None else ""
    why = f" · {escaped(item.reason)}" if item.reason else ""
    words = " " + NUMBER.format(number) if number is not None else ""
    return f"<li>{badge}{words} {escaped(item.id)}: {escaped(item.text)}{was}{why}</li>"


# What each kind of id names, in plain words: (its pattern, the words for one such id, for several).
ID_WORDS = (
    (r"m(\d+)", "{ids} is message {numbers} of the conversation (messages count from m1)",
     "{ids} are messages {numbers} of the conversation (messages count from m1)"),
    (r"s(\d+)", "{ids} is the semantic store's memory number {numbers}: it counts from s0 as it stores, not by turn",
     "{ids} are the semantic store's memory numbers {numbers}: it counts from s0 as it stores, not by turn"),
    (r"e(\d+)", "{ids} is the entity memory's fact number {numbers}: it counts from e1 as facts are first written, "
     "not by turn", "{ids} are the entity memory's fact numbers {numbers}: it counts from e1 as facts are first "
     "written, not by turn"),
    (r"p(\d+)", "{ids} is pinned fact number {numbers}", "{ids} are pinned fact numbers {numbers}"),
    (r"summary()", "{ids} is the running summary", "{ids} is the running summary"),
)
QUOTE = "border-left:4px solid #999;padding:2px 10px;margin:0 0 8px"
INFO = "color:#1f3a5a;background:#e8f1f8;border-left:4px solid #56B4E9;padding:2px 8px"


def id_words(ids: Sequence[str]) -> str:
    """What the ``ids`` of one write's Changes name, in plain words: one phrase per kind of id.

    >>> id_words(["s28", "m30", "m29", "m30"])
    "m29, m30 are messages 29, 30 of the conversation (messages count from m1); s28 is the semantic store's memory \
number 28: it counts from s0 as it stores, not by turn"
    """
    phrases, ids = [], sorted(set(ids), key=lambda i: (len(i), i))
    for pattern, one, several in ID_WORDS:
        named = [m for m in (re.fullmatch(pattern, i) for i in ids) if m]
        if named:
            words = one if len(named) == 1 else several
            phrases.append(words.format(ids=", ".join(m[0] for m in named), numbers=", ".join(m[1] for m in named)))
    return "; ".join(phrases)


def unmarked_words(changes: Sequence[Change], message: str) -> str:
    """Why no words of ``message`` are highlighted for a write that reported ``changes`` (none with a span)."""
    if all(c.event == "NOOP" for c in changes):
        return "This write kept nothing new from this message, so no words are highlighted."
    if any(" ".join(message.split()) in " ".join(c.text.split()) for c in changes):
        return "This write keeps the whole message as it is, so no single words are highlighted."
    return "This write does not say which words its changes came from, so none are highlighted."


def _extractor_html(name: str, items: Sequence[Change | str], message: str | None) -> str:
    changes = [c for c in items if isinstance(c, Change)]
    spans = [c.span for c in changes if c.span is not None]
    numbers = {id(c): i for i, c in enumerate((c for c in changes if c.span is not None), 1)}
    if message is None:
        marked = f'<div style="{INFO}">The message is not shown: the view was given no scenario.</div>'
    else:
        marked = marked_html(message, spans) if spans else f'<div style="{INFO}">{unmarked_words(changes, message)}</div>'
    events = "".join(_event_html(item, numbers.get(id(item))) for item in items) or \
        "<li>nothing: this write changed nothing</li>"
    ids = id_words([c.id for c in changes])
    note = f' <span style="color:#4d4d4d">· {escaped(ids)}</span>' if ids else ""
    return (f'<div style="grid-column:1/-1;border-top:1px solid #ccc;padding-top:4px"><b>{escaped(name)}</b>{note}</div>'
            f'<div>{marked}</div><ul style="margin:0;padding-left:1.2em">{events}</ul>')


def extraction_html(extracted: Mapping[int, Mapping[str, Sequence[Change | str]]], turn: int,
                    scenario: Scenario | None = None, systems: Sequence[str] | None = None) -> str:
    """What each system did with the message of ``turn``, as HTML: the message with the words each Change's
    ``span`` points at highlighted (numbered), and the write's events beside it, numbered alike.
    ``systems`` keeps only the systems it names (all by default); a name ``extracted`` lacks is a ValueError.

    The same records as ``teachmem.app.comparison.extraction_view``; ``ExtractionWidget`` shows it.
    """
    rows = extraction_row(extracted, turn)
    if systems is not None:
        unknown = sorted(set(systems) - {name for name, _ in rows})
        if unknown:
            raise ValueError(f"systems must name systems of the extraction ({', '.join(n for n, _ in rows)}), "
                             f"got {unknown}")
        rows = [(name, items) for name, items in rows if name in systems]
    message = scenario.turns[turn - 1].content if scenario is not None else None
    said = f" ({escaped(scenario.turns[turn - 1].role)})" if scenario is not None else ""
    cells = "".join(_extractor_html(name, items, message) for name, items in rows)
    quoted = f'<div style="{QUOTE}">{escaped(message)}</div>' if message is not None else ""
    return (f'<div style="{BOX}"><p><b>The message of turn {turn}</b>{said}, and what each system\'s write of it '
            f"changed</p>{quoted}"
            "<div style=\"display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:4px 20px\">"
            f"{cells}</div></div>")


# ---------------------------------------------------------------- text as HTML, wrapping at words
CELL = "padding:4px 8px;border-bottom:1px solid #ddd;text-align:left;vertical-align:top"


def turn_caption(replay: Replay, turn: int) -> str:
    """What was said on ``turn``, as a line or two of HTML above the chart."""
    said = replay.scenario.turns[checked_turn(replay, turn) - 1]
    return (f'<div style="{BOX};min-height:2.9em"><b>Turn {turn} of {len(replay.scenario)}</b> · '
            f"<i>{escaped(said.role)}</i>: {escaped(' '.join(said.content.split()))}</div>")


def _sent(context: Sequence[dict]) -> str:
    """What a context would send, shortened: each memory block, then how many messages and the last one."""
    parts = [f"<div><i>{escaped(m['role'])}</i>: {escaped(short(m['content'], 220))}</div>"
             for m in context if m["role"] == "system"]
    talk = [m for m in context if m["role"] != "system"]
    if talk:
        parts.append(f"<div>{len(talk)} message{'' if len(talk) == 1 else 's'}, the last: "
                     f"<i>{escaped(talk[-1]['role'])}</i>: {escaped(short(talk[-1]['content'], 90))}</div>")
    return "".join(parts) or "nothing yet"


def _flag(flag: bool | None) -> str:
    return "–" if flag is None else ("✓ yes" if flag else "✗ no")


def comparison_html(replay: Replay, turn: int) -> str:
    """Every strategy after ``turn`` as an HTML table that wraps at words: tokens, model calls, whether it
    knows of the change and answers the question, the stale facts it sends and what it would send.

    The same rows as ``teachmem.app.comparison.comparison_view``; ``ComparisonWidget`` shows it.
    """
    rows, scenario = comparison_rows(replay, checked_turn(replay, turn)), replay.scenario
    question = scenario.questions[0]
    heads = ["strategy", "tokens", "model calls", f"knows {change_words(scenario)}", f"answers turn {question.turn}",
             "stale facts sent", "what it would send"]
    body = "".join(
        "<tr>" + "".join(f'<td style="{CELL}">{cell}</td>' for cell in (
            f"<b>{escaped(r.strategy)}</b>", f"{r.tokens:,}", r.calls, _flag(r.knows), _flag(r.answers),
            escaped(", ".join(r.stale) or "none"), _sent(r.context))) + "</tr>" for r in rows)
    return (f'<div style="{BOX}"><p>The turn-{question.turn} question needs {escaped(question_needs(scenario))}. '
            "– means it cannot be judged yet.</p>"
            '<table style="border-collapse:collapse;width:100%;table-layout:auto">'
            "<tr>" + "".join(f'<th style="{CELL}">{escaped(h)}</th>' for h in heads) + f"</tr>{body}</table></div>")
