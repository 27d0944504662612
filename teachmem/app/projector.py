"""The 30-turn comparison made for a screen a class watches, and the extraction visualiser in HTML.

``ComparisonChart`` draws a replay at any turn on one figure and redraws it
by moving its artists: the tokens each strategy sends, turn by turn, with the
turn marked; which facts each strategy still holds; how many facts it recalls
and leaks; given ``costs``, what it has spent with and without prompt caching.
``turn_caption``, ``comparison_html`` and ``extraction_html`` (all three from
``teachmem.app.highlights``) are the text parts, as HTML that wraps
at words. ``ComparisonWidget`` and ``ExtractionWidget`` put a slider above
them; their callbacks only call these views. Chart and text are sized to be
read on a projected 1280×720 screen: 12 pt and more. ``make app`` serves them on notebooks/app/compare_live.ipynb, a page
made for projecting.

Taught in notebooks/07_compare_strategies.ipynb.
"""
from __future__ import annotations

import io
import threading
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import parse_qs

import ipywidgets
import numpy as np
import PIL.Image
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text

from teachmem.app.comparison import checked_turn as checked_turn, extraction_row, fact_name
from teachmem.app.highlights import comparison_html as comparison_html, extraction_html
from teachmem.app.highlights import turn_caption as turn_caption
from teachmem.app.highlights import id_words as id_words, marked_html as marked_html
from teachmem.app.highlights import unmarked_words as unmarked_words
from teachmem.core.change import Change
from teachmem.lab.replay import Replay
from teachmem.lab.scenarios import Fact, Scenario
from teachmem.lessons.common import OKABE_ITO

# What a strategy's context does with a fact after a turn, and how the chart draws it.
FACT_STATES: dict[str, dict[str, Any]] = {
    "held": {"marker": "o", "s": 70, "color": "#0072B2"},
    "missing": {"marker": "o", "s": 70, "facecolors": "none", "edgecolors": "0.45"},
    "leaked": {"marker": "X", "s": 90, "color": "#D55E00"},
    "no longer true": {"marker": "_", "s": 70, "color": "0.6"},
    "not said yet": {"marker": ".", "s": 12, "color": "0.8"},
}
NO_POINTS = np.empty((0, 2))
# Matplotlib is not thread-safe: every chart draws under this one lock (figures share font objects and caches),
# so ``prerender``'s thread and a widget's callback never draw at the same time, on one chart or on two.
DRAWING = threading.Lock()
# Chart text sizes, in points: at the chart's 100 dpi, shown at its own width, 12 pt is 16.7 CSS pixels,
# what a projected screen needs to be read from the back of a room; the numbers and names on the axes,
# read most, are larger still.
TEXT_PT, TICK_PT, TITLE_PT = 12, 14, 13
LATER = ":"        # the line style of the turns still to come: dotted
# Each strategy's colour and marker on the tokens panel: Okabe–Ito colours (safe with every common colour
# blindness) chosen so that lines running close never share a hue (amber and vermilion, blue and sky blue
# look alike on a projector). Six need one such pair: the buffer and entity memory, the top and bottom
# lines. Every line also has its own marker, so a colour is never the only difference.
STRATEGY_STYLES: dict[str, tuple[str, str]] = {
    "buffer": ("#0072B2", "o"), "window": ("#000000", "s"), "summary": ("#009E73", "^"),
    "entity": ("#56B4E9", "D"), "semantic": ("#CC79A7", "v"), "hybrid": ("#D55E00", "P"),
}
OTHER_MARKERS = ("X", "*", "h", "<", ">")
# Per strategy, the US cents spent after each turn: (without prompt caching, with it), as
# ``teachmem.app.comparison.cache_costs`` gives them.
Costs = Mapping[str, tuple[Sequence[float], Sequence[float]]]


def strategy_style(names: Sequence[str]) -> dict[str, tuple[str, str]]:
    """(colour, marker) for each of ``names``: ``STRATEGY_STYLES`` for the six the series compares, and for
    any other name a colour and a marker none of them uses."""
    spare = [c for c in OKABE_ITO if c not in {colour for colour, _ in STRATEGY_STYLES.values()}]
    others = [name for name in names if name not in STRATEGY_STYLES]
    extra = {name: (spare[i % len(spare)], OTHER_MARKERS[i % len(OTHER_MARKERS)]) for i, name in enumerate(others)}
    return {name: STRATEGY_STYLES.get(name) or extra[name] for name in names}


def whole_pixels(bounds: tuple[float, float, float, float], width: float, height: float) -> tuple[float, float, float, float]:
    """Figure-fraction ``(left, bottom, width, height)`` moved to the nearest whole pixels of a ``width``×``height`` figure."""
    left, bottom, w, h = bounds
    x0, y0, x1, y1 = round(left * width), round(bottom * height), round((left + w) * width), round((bottom + h) * height)
    return x0 / width, y0 / height, (x1 - x0) / width, (y1 - y0) / height


def fact_state(fact: Fact, turn: int, holds: frozenset[str], leaks: frozenset[str]) -> str:
    """One of ``FACT_STATES`` for ``fact`` in a context that holds ``holds`` and leaks ``leaks`` after ``turn``."""
    if fact.stated_turn > turn:
        return "not said yet"
    if fact.is_current(turn):
        return "held" if fact.id in holds else "missing"
    return "leaked" if fact.id in leaks else "no longer true"


def recalled_and_leaked(replay: Replay, strategy: str, turn: int) -> tuple[int, int, int]:
    """(facts true after ``turn`` that the context holds, facts true then, superseded facts it leaks)."""
    step = replay.at(strategy, turn)
    current = [f for f in replay.scenario.facts if f.is_current(turn)]
    return sum(f.id in step.holds for f in current), len(current), len(step.leaks)


# ---------------------------------------------------------------- the chart
class ComparisonChart:
    """One figure for a replay, redrawn for any turn; ``png(turn)`` is what the widget shows.

    Only the artists that depend on the turn move, and the layout is worked out
    once, so a redraw costs one render. The picture of a turn does not depend on
    the turns drawn before it. ``ComparisonWidget`` shows it in notebook 07 and on the `make app` page.
    Made to be projected: every text is at least ``TEXT_PT`` points, and each strategy's turns still to come
    are dotted in its own colour, so its legend entry names both.
    """

    def __init__(self, replay: Replay, width: float = 11, height: float = 4.3, costs: Costs | None = None):
        self.replay, self.names, self.costs = replay, replay.strategies, costs
        self.fig = Figure(figsize=(width, height), dpi=100, layout="constrained")
        self.canvas = FigureCanvasAgg(self.fig)
        ratios = [1.7, 1.0, 0.75] if costs is None else [1.45, 1.0, 0.6, 0.55]
        axes = self.fig.subplots(1, len(ratios), width_ratios=ratios)
        self._tokens_panel(axes[0])
        self._facts_panel(axes[1])
        self._recall_panel(axes[2])
        self.spent: list[Any] = []           # the cost panel's bars and numbers, when there are costs
        if costs is not None:
            self._cost_panel(axes[3], costs)
        for ax in self.fig.axes:
            ax.tick_params(labelsize=TICK_PT)
        self._pngs: dict[int, bytes] = {}
        self.moving = sorted([*self.lines, *self.dots, self.marker, *self.states.values(), *self.recalled,
                              *self.leaked, *self.counts, *self.spent], key=lambda artist: artist.get_zorder())
        with DRAWING:
            self.draw(len(replay.scenario))
            self.canvas.draw()
            self.fig.set_layout_engine("none")     # every turn keeps the same layout ...
            for ax in self.fig.axes:               # ... on whole pixels, whatever a first text measurement gave
                ax.set_position(whole_pixels(ax.get_position().bounds, self.fig.bbox.width, self.fig.bbox.height))
            for artist in self.moving:             # ... and the same background: only what moves is drawn again
                artist.set_animated(True)
            self.canvas.draw()
            self._background = self.canvas.copy_from_bbox(self.fig.bbox)

    def _tokens_panel(self, ax: Axes) -> None:
        turns = np.arange(1, len(self.replay.scenario) + 1)
        self.ax_tokens, self.lines, self.dots, self.later = ax, [], [], []
        styles = strategy_style(self.names)
        for i, name in enumerate(self.names):
            colour, marker = styles[name]      # the turns still to come: the same colour, dotted and thin
            self.later.append(ax.plot(turns, self.replay.tokens(name), color=colour, lw=1.6, ls=LATER)[0])
            # a marker every third turn, each line on other turns, so lines that coincide still show each one
            self.lines.append(ax.plot([], [], color=colour, lw=2.6, marker=marker, ms=7, markevery=(i % 3, 3),
                                      label=name)[0])
            self.dots.append(ax.plot([], [], marker=marker, color=colour, ms=10, ls="")[0])
        self.marker = ax.axvline(1, color="0.55", lw=1.6, label="this turn")
        ax.plot([], [], color="0.3", lw=1.6, ls=LATER, label="turns to come")     # a key for the dotted lines
        top = max(max(self.replay.tokens(n)) for n in self.names)
        ax.set(xlim=(0.5, len(turns) + 0.5), ylim=(0, top * 1.12))
        ax.set_xlabel("turn", fontsize=TEXT_PT)
        ax.set_ylabel("tokens in the context", fontsize=TEXT_PT)
        ax.set_title("Tokens sent after each turn", fontsize=TITLE_PT)
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncols=2 if self.costs else 3, fontsize=TEXT_PT,
                  frameon=False,
                  handlelength=1.6, handletextpad=0.4, columnspacing=0.9, labelspacing=0.2)

    def _facts_panel(self, ax: Axes) -> None:
        facts = self.replay.scenario.facts
        self.ax_facts = ax
        self.states = {state: ax.scatter([], [], label=state, **style) for state, style in FACT_STATES.items()}
        ax.set_xticks(range(len(self.names)), self.names, rotation=50, ha="right", rotation_mode="anchor")
        # a long value is named by what it is ("payments"): a label cut mid-word reads as a glitch
        ax.set_yticks(range(len(facts)), [fact_name(f) for f in facts])
        ax.set(xlim=(-0.6, len(self.names) - 0.4), ylim=(len(facts) - 0.5, -0.5))
        ax.set_title("What each strategy holds now", fontsize=TITLE_PT)
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.3), ncols=2, fontsize=TEXT_PT, frameon=False,
                  handletextpad=0.1, columnspacing=0.8, labelspacing=0.2)

    def _recall_panel(self, ax: Axes) -> None:
        rows = np.arange(len(self.names))
        self.ax_recall = ax
        self.recalled = ax.barh(rows - 0.19, np.zeros(len(rows)), 0.36, color="#0072B2", label="recalled (true now)")
        self.leaked = ax.barh(rows + 0.19, np.zeros(len(rows)), 0.36, color="#D55E00",
                              label="leaked (replaced, sent as true)")
        self.counts = [ax.text(0, float(y), "", va="center", fontsize=TEXT_PT) for y in rows]
        ax.set_yticks(rows, self.names)
        ax.set(xlim=(0, len(self.replay.scenario.facts) + 3.5), ylim=(len(rows) - 0.5, -0.5))
        ax.set_xlabel("facts", fontsize=TEXT_PT)
        ax.set_title("Facts recalled and leaked now", fontsize=TITLE_PT)
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncols=1, fontsize=TEXT_PT, frameon=False,
                  labelspacing=0.2)

    def draw(self, turn: int) -> None:
        """Move every artist to ``turn``."""
        turn = checked_turn(self.replay, turn)
        for name, line, dot in zip(self.names, self.lines, self.dots, strict=True):
            tokens = self.replay.tokens(name)[:turn]
            line.set_data(range(1, turn + 1), tokens)
            dot.set_data([turn], [tokens[-1]])
        self.marker.set_xdata([turn, turn])
        self._draw_facts(turn)
        self._draw_recall(turn)
        if self.costs is not None:
            self._draw_costs(turn, self.costs)

    def _draw_facts(self, turn: int) -> None:
        points: dict[str, list[tuple[int, int]]] = {state: [] for state in FACT_STATES}
        for x, name in enumerate(self.names):
            step = self.replay.at(name, turn)
            for y, fact in enumerate(self.replay.scenario.facts):
                points[fact_state(fact, turn, step.holds, step.leaks)].append((x, y))
        for state, artist in self.states.items():
            artist.set_offsets(np.array(points[state], dtype=float).reshape(-1, 2) if points[state] else NO_POINTS)

    def _draw_recall(self, turn: int) -> None:
        for name, recalled, leaked, text in zip(self.names, self.recalled, self.leaked, self.counts, strict=True):
            held, true, leaks = recalled_and_leaked(self.replay, name, turn)
            recalled.set_width(held)
            leaked.set_width(leaks)
            text.set_x(max(held, leaks) + 0.2)
            text.set_text(f"{held}/{true}" + (f", {leaks} leaked" if leaks else ""))

    def _cost_panel(self, ax: Axes, costs: Costs) -> None:
        """Per strategy, the cents spent so far: an outline without caching, a filled bar with it."""
        if set(costs) != set(self.names):
            raise ValueError(f"costs must name the replay's strategies {self.names}, got {sorted(costs)}")
        rows = np.arange(len(self.names))
        self.without = ax.barh(rows - 0.19, np.zeros(len(rows)), 0.36, fill=False, edgecolor="0.3",
                               label="spent, no caching")
        self.cached = ax.barh(rows + 0.19, np.zeros(len(rows)), 0.36, color="#009E73",
                              label="spent, with caching")
        self.cents = [ax.text(0, float(y), "", va="center", fontsize=TEXT_PT) for y in rows]
        self.spent = [*self.without, *self.cached, *self.cents]
        ax.set_yticks(rows, [])              # the rows of the panel beside it, in the same order
        top = max(max(off[-1], on[-1]) for off, on in costs.values())
        ax.set(xlim=(0, top * 1.6), ylim=(len(rows) - 0.5, -0.5))
        ax.set_xlabel("US cents", fontsize=TEXT_PT)     # no title: the one beside it runs over it
        # One legend for this panel and the one beside it, in the figure's corner and out of the layout:
        # a legend wider than its narrow panel would push the panels apart.
        (recall, named), (spent, said) = self.ax_recall.get_legend_handles_labels(), ax.get_legend_handles_labels()
        self.ax_recall.legend(recall + spent, named + said, loc="lower right", bbox_to_anchor=(1, 0),
                              bbox_transform=self.fig.transFigure, fontsize=TEXT_PT, frameon=False,
                              labelspacing=0.2).set_in_layout(False)

    def _draw_costs(self, turn: int, costs: Costs) -> None:
        for name, without, cached, text in zip(self.names, self.without, self.cached, self.cents, strict=True):
            off, on = costs[name][0][turn - 1], costs[name][1][turn - 1]
            without.set_width(off)
            cached.set_width(on)
            text.set_x(max(off, on) * 1.03)
            text.set_text(f"{on:.1f}¢")

    def png(self, turn: int) -> bytes:
        """The chart at ``turn`` as PNG bytes (drawn once per turn, then kept)."""
        turn = checked_turn(self.replay, turn)
        with DRAWING:
            if turn not in self._pngs:
                canvas = self.canvas
                canvas.restore_region(self._background)
                self.draw(turn)
                for artist in self.moving:
                    self.fig.draw_artist(artist)
                buffer = io.BytesIO()
                PIL.Image.fromarray(np.asarray(canvas.buffer_rgba())[..., :3]).save(buffer, format="png",
                                                                                    compress_level=1)
                self._pngs[turn] = buffer.getvalue()
            return self._pngs[turn]

    def smallest_text_px(self) -> float:
        """The height, in pixels of the PNG, of the smallest text the chart shows (its font size at its dpi)."""
        texts = [t for t in self.fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
        return min(float(t.get_fontsize()) for t in texts) * self.fig.dpi / 72

    @property
    def turns_drawn(self) -> list[int]:
        """The turns whose picture is kept, in order."""
        return sorted(self._pngs)

    def prerender(self) -> threading.Thread:
        """Draw every turn in a background thread, so that later steps of a slider only look the picture up."""
        thread = threading.Thread(target=lambda: [self.png(t) for t in range(1, len(self.replay.scenario) + 1)],
                                  name="prerender", daemon=True)
        thread.start()
        return thread


# ---------------------------------------------------------------- widgets
def turn_from_query(query: str | None, last: int, default: int = 1) -> int:
    """The turn a page's address asks for (``?turn=17``), or ``default`` without one.

    Voilà hands a page's query string to its kernel as ``os.getenv("QUERY_STRING")``.
    A turn that is not a whole number from 1 to ``last`` is a ValueError.
    """
    values = parse_qs(query or "", keep_blank_values=True).get("turn")
    if not values:
        return default
    if not values[-1].strip().isdigit() or not 1 <= int(values[-1]) <= last:
        raise ValueError(f"turn in the page's address must be a whole number from 1 to {last}, got {values[-1]!r}")
    return int(values[-1])


class ComparisonWidget(ipywidgets.VBox):
    """The 30-turn comparison as a class watches it: a turn slider (and a play button) above what was said,
    the chart, and the table; moving the turn redraws the chart. The callback only calls the views.
    With ``prerender`` the chart of every turn is drawn in the background as soon as the widget shows.
    ``compact`` puts the chart and the table in two tabs, so that either sits right under the slider on a
    1280×720 screen with JupyterLab around it. Given ``costs`` (``teachmem.app.comparison.cache_costs``),
    the chart has a fourth panel: what each strategy has spent, with and without prompt caching.

    Taught in notebooks/07_compare_strategies.ipynb.
    """

    def __init__(self, replay: Replay, turn: int = 1, *, interval: int = 1500, prerender: bool = False,
                 compact: bool = False, costs: Costs | None = None):
        last, turn = len(replay.scenario), checked_turn(replay, turn)     # a bad turn fails before any drawing
        self.replay, self.chart = replay, ComparisonChart(replay, costs=costs)
        self.slider = ipywidgets.IntSlider(value=turn, min=1, max=last, description="turn",
                                           layout=ipywidgets.Layout(width="min(720px, 100%)"))
        self.play = ipywidgets.Play(value=turn, min=1, max=last, interval=interval)
        ipywidgets.jslink((self.play, "value"), (self.slider, "value"))
        self.caption, self.details = ipywidgets.HTML(), ipywidgets.HTML()
        width = int(self.chart.fig.get_figwidth() * 100)
        self.image = ipywidgets.Image(format="png", layout=ipywidgets.Layout(width=f"min({width}px, 100%)"))
        # compact (notebook 07 at 1280×720): chart and table in two tabs, each right under the slider
        shown = [ipywidgets.Tab([self.image, self.details], titles=("chart", "table"))] if compact \
            else [self.image, self.details]
        super().__init__([ipywidgets.HBox([self.play, self.slider]), self.caption, *shown])
        self.slider.observe(self.show, names="value")
        self.show()
        if prerender:      # the other turns, drawn while the class looks at this one
            self.chart.prerender()

    def show(self, _change: object = None) -> None:
        """Redraw for the slider's turn."""
        turn = self.slider.value
        self.image.value = self.chart.png(turn)
        self.caption.value = turn_caption(self.replay, turn)
        self.details.value = comparison_html(self.replay, turn)

    def __repr__(self) -> str:
        return f"ComparisonWidget(turn {self.slider.value} of {len(self.replay.scenario)})"


class ExtractionWidget(ipywidgets.VBox):
    """The extraction visualiser: a message slider above ``extraction_html`` for that message. ``compact``
    shows one system at a time, a tab each, so the slider and a whole system fit a 1280×720 screen.

    Taught in notebooks/07_compare_strategies.ipynb.
    """

    def __init__(self, extracted: Mapping[int, Mapping[str, Sequence[Change | str]]], scenario: Scenario,
                 turn: int = 1, *, compact: bool = False):
        self.extracted, self.scenario = extracted, scenario
        names = [name for name, _ in extraction_row(extracted, turn)]   # a bad turn fails here, before any widget
        self.slider = ipywidgets.IntSlider(value=turn, min=min(extracted), max=max(extracted), description="message",
                                           layout=ipywidgets.Layout(width="min(720px, 100%)"))
        # each view shows the systems it names: all of them, or one a tab
        self.views: dict[str | None, ipywidgets.HTML] = (
            {name: ipywidgets.HTML() for name in names} if compact else {None: ipywidgets.HTML()})
        body = ipywidgets.Tab(list(self.views.values()), titles=names) if compact else self.view
        super().__init__([self.slider, body])
        self.slider.observe(self.show, names="value")
        self.show()

    @property
    def view(self) -> ipywidgets.HTML:
        """The view of every system at once (not compact), or the first system's tab (compact)."""
        return next(iter(self.views.values()))

    def show(self, _change: object = None) -> None:
        """Show the slider's message."""
        for name, view in self.views.items():
            view.value = extraction_html(self.extracted, self.slider.value, self.scenario,
                                         None if name is None else (name,))

    def __repr__(self) -> str:
        return f"ExtractionWidget(message {self.slider.value} of {len(self.extracted)})"


def link_turns(comparison: ComparisonWidget, extraction: ExtractionWidget) -> ipywidgets.link:
    """Keep ``extraction``'s message on ``comparison``'s turn, both ways: moving either slider (or pressing ▶)
    moves the other. The link runs in the kernel, so JupyterLab and Voilà behave alike; both must cover the
    same turns, else a ValueError.
    """
    turns, messages = comparison.slider, extraction.slider
    if (turns.min, turns.max) != (messages.min, messages.max):
        raise ValueError(f"the extraction must cover the comparison's turns {turns.min} to {turns.max}, "
                         f"got {messages.min} to {messages.max}")
    return ipywidgets.link((turns, "value"), (messages, "value"))
