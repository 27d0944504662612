"""Interactive views for the notebooks.

Each widget is a thin shell: a slider calls a plain *view function* that
returns text, and the text is printed. The view functions are what the tests
call, for every slider position, and what the notebooks call once more
without a widget so the page reads on GitHub and nbval checks it.
"""
from __future__ import annotations

import textwrap
from typing import Callable

import ipywidgets

from teachmem.memory.buffer import ConversationBuffer
from teachmem.memory.window import SlidingWindowMemory
from teachmem.lab.replay import feed, replacements
from teachmem.lab.scenarios import Scenario, fact_in_text


def explore(view: Callable[..., str], **controls) -> ipywidgets.VBox:
    """Controls above, ``view(**values)`` printed below, re-rendered on every change.

    ``controls`` maps each argument of ``view`` to a widget (a slider, a text
    box) or to a fixed value (plain, or wrapped in ``ipywidgets.fixed``).
    The text goes straight into the Output widget's state rather than through
    ``print``, so the notebook's stored output is the same whether it was run
    in JupyterLab, by nbclient or under nbval.
    """
    live = {name: c for name, c in controls.items() if isinstance(c, ipywidgets.ValueWidget)}
    out = ipywidgets.Output()

    def render(_change=None) -> None:
        values = {name: getattr(c, "value", c) for name, c in controls.items()}
        out.outputs = ({"output_type": "stream", "name": "stdout", "text": view(**values) + "\n"},)

    for control in live.values():
        control.observe(render, names="value")
    render()
    return ipywidgets.VBox([*live.values(), out])


def shown_text(box: ipywidgets.VBox) -> str:
    """The text an ``explore`` box currently shows (for tests)."""
    return "".join(o["text"] for o in box.children[-1].outputs)


def _mark(flag: bool) -> str:
    return "✓" if flag else "✗"


def _short(text: str, width: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 1] + "…"


# ---------------------------------------------------------------- notebook 01
def buffer_cost_view(turn: int, request_tokens: list[int], price_per_million: float = 3.0) -> str:
    """What request number ``turn`` costs when the buffer resends everything.

    Taught in notebooks/01_conversation_buffer.ipynb.
    """
    if not 1 <= turn <= len(request_tokens):
        raise ValueError(f"turn must be between 1 and {len(request_tokens)}, got {turn}")
    sent = request_tokens[turn - 1]
    so_far = sum(request_tokens[:turn])
    first = request_tokens[0]
    return (f"request {turn:>3}: sends {sent:>6,} tokens (${sent * price_per_million / 1e6:.4f}), "
            f"{sent / first:5.1f}× the first request\n"
            f"requests 1–{turn}: {so_far:>8,} tokens in all (${so_far * price_per_million / 1e6:.4f})")


# ---------------------------------------------------------------- notebook 02
def window_view(scenario: Scenario, recent_k: int, important_k: int, turn: int | None = None) -> str:
    """The scenario after ``turn`` messages, marking which turns a window keeps.

    Taught in notebooks/02_sliding_window.ipynb.
    """
    turn = len(scenario) if turn is None else turn
    memory = feed(SlidingWindowMemory(recent_k, important_k), scenario, turn)
    kept = set(memory.window_turns())
    lines = [f"after turn {turn}: recent_k={recent_k}, important_k={important_k} "
             f"keeps {len(kept)} of {turn} messages"]
    for t, score in zip(scenario.turns[:turn], memory.importance):
        lines.append(f"{'■' if t.turn in kept else '·'} {t.turn:>2} {t.role:<9} {score:.2f}  {_short(t.content)}")
    window_text = " ".join(m["content"] for m in memory.context())
    for fact in scenario.facts:
        if fact.stated_turn <= turn:
            replaced = f", replaced on turn {fact.superseded_turn}" if not fact.is_current(turn) else ""
            lines.append(f"{_mark(fact_in_text(fact, window_text))} window mentions {fact.value} "
                         f"(stated on turn {fact.stated_turn}{replaced})")
    return "\n".join(lines)


# ---------------------------------------------------------------- notebooks 06 and 07
def budget_view(scenario: Scenario, token_budget: int, turn: int | None = None, reserve_tokens: int = 500) -> str:
    """The hybrid manager's prompt for the user's message on ``turn`` (the scenario's question by
    default) under ``token_budget``: where the tokens go, and what was kept or dropped, and why.

    Taught in notebooks/06_hybrid_manager.ipynb.
    """
    from teachmem.memory.hybrid import HybridMemoryManager
    turn = scenario.questions[0].turn if turn is None else turn
    if isinstance(turn, bool) or not isinstance(turn, int) or not 1 <= turn <= len(scenario):
        raise ValueError(f"turn must be an int between 1 and {len(scenario)}, got {turn!r}")
    said = scenario.turns[turn - 1]
    if said.role != "user":
        raise ValueError(f"turn must be a turn where the user speaks, got turn {turn} ({said.role})")
    manager = feed(HybridMemoryManager(token_budget, reserve_tokens=reserve_tokens), scenario, turn - 1)
    trace = manager.explain_prompt(said.content)
    split = trace.split()
    lines = [f"budget {token_budget:,}: prompt {trace.prompt_tokens:,} tokens = fixed {split['fixed']} + facts "
             f"{split['fact']} (cap {trace.caps['fact']}) + memories {split['memory']} (cap {trace.caps['memory']})"
             f" + window {split['message']};  unused {split['unused']:,}, reply {split['reply']}"]
    outside = 0
    for c in trace.candidates:
        if c.source == "message" and c.reason.startswith("outside"):
            outside += 1
            continue
        lines.append(f"{_mark(c.kept)} {c.source:<7} turn {c.turn:>2} {c.tokens:>3} tok  {_short(c.text, 52):<52}  "
                     f"{c.reason}")
    lines.append(f"  ({outside} older messages are outside the sliding window and never candidates for the budget)")
    return "\n".join(lines)


def _context_lines(context, width: int = 72, head: int = 2, tail: int = 2) -> list[str]:
    """A context, shortened: each memory block on up to three lines, then the first and last messages."""
    lines = []
    for m in context:
        if m["role"] == "system":
            wrapped = textwrap.wrap(" ".join(m["content"].split()), width - 13) or [""]
            lines += [f"   {'system' if i == 0 else '':<10} {w}" for i, w in enumerate(wrapped[:3])]
            lines[-1] += " …" if len(wrapped) > 3 else ""
    talk = [m for m in context if m["role"] != "system"]
    shown = talk if len(talk) <= head + tail + 1 else talk[:head] + [None] + talk[-tail:]
    for m in shown:
        lines.append(f"   … {len(talk) - head - tail} more messages …" if m is None
                     else f"   {m['role']:<10} {_short(m['content'], width - 13)}")
    return lines or ["   (nothing yet)"]


def _maybe(flag) -> str:
    return "–" if flag is None else _mark(flag)


def comparison_view(replay, turn: int) -> str:
    """Every strategy of ``replay`` after ``turn``: its cost, whether it knows of the change and can
    answer the scenario's question, and the context it would send, shortened.

    The change is the scenario's first superseded fact (PostgreSQL → MySQL on
    turn 17), the question its first question (turn 29). "–" means it cannot
    be judged yet. Only looks the replay up: nothing is recomputed.

    Taught in notebooks/07_compare_strategies.ipynb.
    """
    scenario = replay.scenario
    replay.at(replay.strategies[0], turn)   # a bad turn fails here, with a clear message
    question = scenario.questions[0]
    change = next(f for f in scenario.facts if f.superseded_turn is not None)
    new = ", ".join(f.value for f in replacements(scenario, change))
    said = scenario.turns[turn - 1]
    needs = " and ".join(f"{scenario.fact(i).value} (turn {scenario.fact(i).stated_turn})" for i in question.needs)
    change_head = f"knows {change.value}→{new}"
    lines = [f"after turn {turn} of {len(scenario)} · {said.role}: {_short(said.content, 76)}",
             f"the turn-{question.turn} question needs {needs}", "",
             f"{'strategy':<10}{'tokens':>7}{'calls':>7}  {change_head:<24}{'answers turn ' + str(question.turn):<18}"
             "stale facts sent"]
    for name in replay.strategies:
        step = replay.at(name, turn)
        stale = ", ".join(scenario.fact(i).value for i in sorted(step.leaks)) or "–"
        knows, answers = _maybe(replay.reflects(name, turn, change)), _maybe(replay.answers(name, turn, question))
        lines.append(f"{name:<10}{step.tokens:>7,}{step.model_calls:>7}  {knows:<24}{answers:<18}{stale}")
    for name in replay.strategies:
        step = replay.at(name, turn)
        lines += ["", f"── {name} would send {step.tokens:,} tokens:", *_context_lines(step.context)]
    return "\n".join(lines)


EXTRACTORS = ("buffer", "summary", "entity", "semantic")


def extraction_view(extracted: dict, turn: int, width: int = 96) -> str:
    """What each system takes from the message of ``turn``, from ``teachmem.lab.replay.extractions``.

    Taught in notebooks/07_compare_strategies.ipynb.
    """
    if turn not in extracted:
        raise ValueError(f"turn must be between 1 and {len(extracted)}, got {turn!r}")
    lines = [f"the message of turn {turn}:"]
    for system in EXTRACTORS:
        lines += ["", f"── {system}"]
        for item in extracted[turn][system]:
            lines += textwrap.wrap(item, width, initial_indent="   ", subsequent_indent="     ")
    return "\n".join(lines)


# ---------------------------------------------------------------- notebook 09
def retention_view(memory, start, days_later: int, message_days: int, pii_days: int, width: int = 52) -> str:
    """Which stored items a retention policy would remove ``days_later`` days after ``start``.

    Messages live ``message_days``, anything with personal data at most
    ``pii_days``, facts forever. Nothing is removed: the view only asks the
    policy (``teachmem.lab.governance.RetentionPolicy``), so every slider position
    shows the same memory.

    Taught in notebooks/09_persistence_and_governance.ipynb.
    """
    from datetime import timedelta

    from teachmem.lab.governance import RetentionPolicy, provenance
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
        lines.append(f"{_mark((r.tier, r.where) not in gone)} {r.tier:<16} {r.memory_type:<14} {until:<13} "
                     f"{pii:<6} {_short(r.text, width)}")
    return "\n".join(lines)


# ---------------------------------------------------------------- notebook 08
def probe_view(board, scenario: str, strategy: str) -> str:
    """How ``strategy`` did on each probe of ``scenario``, and on every fact asked at the end.

    ``board`` is a ``teachmem.evaluate.Scoreboard``. ✓/✗ after "needs" say
    whether the context on the question's turn mentioned each needed fact;
    after "avoid", whether it kept clear of a fact it must not use.

    Taught in notebooks/08_evaluate_memory.ipynb.
    """
    result, facts = board.get(strategy, scenario), board.bank[scenario]
    value = {f.id: f.value for f in facts.facts}
    answered = sum(p.answered for p in result.probes)
    lines = [f"{strategy} on {scenario}: {answered} of {len(result.probes)} probes answered, "
             f"{result.tokens_per_turn:.0f} tokens a turn, {result.model_calls} model calls"]
    for p in result.probes:
        lines.append(f"turn {p.turn:>2} {_mark(p.answered)} {_short(p.question, 66)}")
        lines.append("   needs  " + "   ".join(f"{_mark(i in p.mentioned)} {value[i]}" for i in p.needs))
        if p.avoid:
            lines.append("   avoid  " + "   ".join(f"{_mark(i not in p.mentioned)} {value[i]}" for i in p.avoid))
        others = len(p.mentioned - set(p.needs))
        lines.append(f"   the context mentions {len(p.mentioned)} fact{'' if len(p.mentioned) == 1 else 's'}, "
                     f"{others} not needed: "
                     f"coverage {p.coverage:.2f}, precision {p.precision:.2f}")
    lines.append(f"after the last turn, asked each current fact's own question: "
                 f"{sum(result.end.values())} of {len(result.end)} brought up")
    row = ""
    for item in (f"{_mark(ok)} {value[i]}" for i, ok in result.end.items()):
        if row and len(row) + len(item) > 90:       # wrap between facts, never inside one
            lines.append(row.rstrip())
            row = ""
        row += ("   " if not row else "") + item + "   "
    return "\n".join(lines + ([row.rstrip()] if row else []))


# ---------------------------------------------------------------- notebook 03
def _fact_label(fact) -> str:
    return f"{fact.entity}.{fact.attribute}: {fact.value}"


def drift_view(rounds: list[str], facts: list, round: int, pinned: list[str] = (), width: int = 88) -> str:
    """Re-summary number ``round`` of a telephone game: which ``facts`` the summary still
    mentions on its own, and with the ``pinned`` lines kept beside it.

    Taught in notebooks/03_summary_memory.ipynb.
    """
    if not 0 <= round < len(rounds):
        raise ValueError(f"round must be between 0 and {len(rounds) - 1}, got {round}")
    summary = rounds[round]
    with_pins = "\n".join([*pinned, summary])
    alone = [fact_in_text(f, summary) for f in facts]
    kept = [fact_in_text(f, with_pins) for f in facts]
    lines = [f"round {round} of {len(rounds) - 1}: the summary has {len(summary.split())} words; facts kept: "
             f"{sum(alone)}/{len(facts)} alone, {sum(kept)}/{len(facts)} with {len(pinned)} pinned",
             "", " alone  pinned  fact"]
    lines += [f"   {_mark(a)}      {_mark(k)}    {_fact_label(f)}" for f, a, k in zip(facts, alone, kept)]
    return "\n".join([*lines, "", "summary:", *textwrap.wrap(summary, width)])


# ---------------------------------------------------------------- notebook 04
def entity_view(memory, turn: int, scenario: Scenario | None = None) -> str:
    """What an ``EntityMemory`` fed the whole conversation held true after ``turn``, the changes
    logged so far and, given the ``scenario``, which of its true facts the memory knows.

    Taught in notebooks/04_entity_memory.ipynb.
    """
    from teachmem.core.validate import require_positive_int
    require_positive_int("turn", turn)
    lines = []
    if scenario is not None:
        if turn > len(scenario):
            raise ValueError(f"turn must be between 1 and {len(scenario)}, got {turn}")
        said = scenario.turns[turn - 1]
        lines += [f"turn {turn} · {said.role}: {_short(said.content, 90)}", ""]
    known = memory.get_relevant(as_of=turn)
    changes = [f"  turn {c['turn']}: {c['entity']}.{c['attribute']} {c['old']} → {c['new']}"
               for c in memory.get_changelog(as_of=turn)]
    lines += [f"facts true after turn {turn}:", known or "(none yet)", "",
              "changelog:", *(changes or ["  (no changes yet)"])]
    if scenario is not None:
        truth = [f for f in scenario.facts if f.is_current(turn)]
        found = [fact_in_text(f, known) for f in truth]
        lines += ["", f"the scenario's facts true at turn {turn}: {sum(found)} of {len(truth)} known"]
        lines += [f"  {_mark(k)} {_fact_label(f)}" for f, k in zip(truth, found)]
    return "\n".join(lines)


# ---------------------------------------------------------------- notebook 05
_NOT_COLUMNS = ("row", "text", "memory_type", "match", "score")


def score_table(hits: list[dict], send_from: float | None = None, width: int = 62) -> str:
    """``SemanticMemoryStore.explain`` hits as a table, one column per part of the score; with
    ``send_from``, memories scoring below it are marked "(not sent)".

    Taught in notebooks/05_semantic_memory.ipynb.
    """
    if not hits:
        return "(no memories)"
    columns = [k for k in hits[0] if k not in _NOT_COLUMNS]
    lines = [f" #{'score':>8}" + "".join(f"{c:>11}" for c in columns) + "  memory"]
    for i, h in enumerate(hits, start=1):
        note = "(not sent) " if send_from is not None and h["score"] < send_from else ""
        lines.append(f"{i:>2}{h['score']:>8.4f}" + "".join(f"{h[c]:>11.3f}" for c in columns)
                     + f"  {note}{_short(h['text'], width)}")
    return "\n".join(lines)


# The demo's second session, three weeks after the scenario: the CI job works, the launch moves.
SECOND_SESSION = (
    ("user", "Back again. The CI job is green now: GitHub Actions starts a MySQL 8 instance on every commit."),
    ("assistant", "Great, well done! A green build on every commit will save you a lot of trouble later."),
    ("user", "My sister tried the booking page on her phone this week, and she loves it."),
    ("assistant", "Lovely. Ask her to book a class and cancel it again; that is the tricky path."),
    ("user", "Also, the studio moved the launch to mid-April."),
    ("assistant", "Noted: the first version launches in mid-April instead of the end of March."),
)


def semantic_demo_store(scenario: Scenario, days_between: int = 21):
    """Every turn of ``scenario`` and, ``days_between`` days after its last turn, ``SECOND_SESSION``:
    each stored as "role: content" with the offline importance heuristic.

    Taught in notebooks/05_semantic_memory.ipynb.
    """
    from datetime import timedelta

    from teachmem.llm.extract import importance_rules
    from teachmem.memory.semantic import SemanticMemoryStore
    store, last = SemanticMemoryStore(), scenario.timestamp(len(scenario))
    sessions = [[(t.role, t.content, scenario.timestamp(t.turn)) for t in scenario.turns],
                [(role, content, last + timedelta(days=days_between, minutes=i + 1))
                 for i, (role, content) in enumerate(SECOND_SESSION)]]
    turn = 0
    for session, said in enumerate(sessions, start=1):
        for role, content, when in said:    # the session label starts a new thread: no reply across sessions
            turn += 1
            store.store(f"{role}: {content}", "message", importance_rules(content), when,
                        role=role, turn=turn, session_id=session)
    return store


def semantic_view(store, query: str, days_later: int, top_k: int = 5, send_from: float = 0.02) -> str:
    """The ``top_k`` memories of ``store`` for ``query`` asked ``days_later`` days after its newest
    memory, with every part of their scores; those under ``send_from`` would not be sent. Records no recall.

    Taught in notebooks/05_semantic_memory.ipynb.
    """
    from datetime import datetime, timedelta

    from teachmem.core.validate import require_int_at_least, require_text
    require_text("query", query, allow_empty=True)
    require_int_at_least("days_later", days_later, 0)
    if not query.strip():
        return "(type a question)"
    now = max(datetime.fromisoformat(m["timestamp"]) for m in store.metadata) + timedelta(days=days_later)
    hits = store.explain(query, top_k, now)
    sent = sum(h["score"] >= send_from for h in hits)
    return (f"{query!r} asked {days_later} days after the newest memory ({now:%Y-%m-%d}): "
            f"{sent} of {len(hits)} above {send_from} would be sent\n" + score_table(hits, send_from))
