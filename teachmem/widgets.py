"""Interactive views for the notebooks.

Each widget is a thin shell: a slider calls a plain *view function* that
returns text, and the text is printed. The view functions are what the tests
call, for every slider position, and what the notebooks call once more
without a widget so the page reads on GitHub and nbval checks it.
"""
from __future__ import annotations

from typing import Callable

import ipywidgets

from teachmem.memory.buffer import ConversationBuffer
from teachmem.memory.window import SlidingWindowMemory
from teachmem.replay import feed
from teachmem.scenarios import Scenario, fact_in_text


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
