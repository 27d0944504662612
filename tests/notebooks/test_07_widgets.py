"""Notebook 07's extraction view on hand-built Change records: the events and the words their spans point at."""
import json
from pathlib import Path

import ipywidgets
import pytest

from teachmem.core.change import Change
from teachmem.lab.scenarios import load_scenario
from teachmem.lessons.common import explore, shown_text
from teachmem.app.comparison import EXTRACTORS, cache_costs, change_line, extraction_view, highlight
from teachmem.app.highlights import BOX

PROJECT = load_scenario("project_30")
SAID = PROJECT.turns[16].content          # turn 17: the switch to MySQL


def _span(word: str) -> tuple[int, int]:
    start = SAID.index(word)
    return start, start + len(word)


EXTRACTED = {
    17: {
        "buffer": [Change("ADD", "m17", f"user: {SAID}", reason="new message")],
        "summary": [Change("NOOP", "m17", f"user: {SAID}", reason="waiting for the next fold")],
        "entity": [Change("UPDATE", "f2", "Project.database: MySQL", previous="Project.database: PostgreSQL",
                          reason="a newer value", span=_span("MySQL")),
                   Change("DELETE", "f3", "Project.database_reason: JSONB support", reason="its reason went with it")],
        "semantic": [Change("ADD", "s17", f"user: {SAID}", reason="importance 0.50", span=(0, len(SAID)))],
    },
    18: {"buffer": [Change("ADD", "m18", "assistant: fine")], "summary": [], "entity": [], "semantic": []},
}


def test_every_event_is_listed_with_its_id_text_and_previous():
    text = extraction_view(EXTRACTED, 17, PROJECT)
    assert text.startswith("the message of turn 17:")
    assert [line for line in text.splitlines() if line.startswith("── ")] == [f"── {s}" for s in EXTRACTORS]
    entity = text.split("── entity")[1].split("── semantic")[0]
    assert "UPDATE f2: Project.database: MySQL  (was: Project.database: PostgreSQL)  · a newer value" in entity
    assert "DELETE f3: Project.database_reason: JSONB support" in entity
    assert "NOOP   m17:" in text.split("── summary")[1]
    assert "ADD    m17: user:" in text.split("── buffer")[1]


def test_the_words_a_span_points_at_are_marked_in_the_message():
    text = extraction_view(EXTRACTED, 17, PROJECT, width=400)
    entity = text.split("── entity")[1].split("── semantic")[0]
    marked = [line for line in entity.splitlines() if "in the message:" in line]
    assert marked == ["   in the message: " + highlight(" ".join(SAID.split()), [_span("MySQL")])]
    assert "«MySQL»" in marked[0] and marked[0].count("«") == 1
    semantic = text.split("── semantic")[1]
    assert f"in the message: «{' '.join(SAID.split())}»" in semantic
    assert "in the message" not in text.split("── buffer")[1].split("── summary")[0]   # no span, no highlight


def test_without_the_scenario_the_events_still_show():
    text = extraction_view(EXTRACTED, 17)
    assert "UPDATE f2" in text and "in the message" not in text


def test_a_write_that_changed_nothing_says_so():
    text = extraction_view(EXTRACTED, 18, PROJECT)
    assert text.count("(nothing: this write changed nothing)") == 3


def test_plain_lines_still_show_as_they_are():
    text = extraction_view({3: {"buffer": ["user: hello"], "entity": ["no new facts"]}}, 3)
    assert text == "the message of turn 3:\n\n── buffer\n   user: hello\n\n── entity\n   no new facts"


def test_a_bad_turn_or_span_is_refused_clearly():
    with pytest.raises(ValueError, match="turn must be between 1 and 2, got 19"):
        extraction_view(EXTRACTED, 19)
    bad = {17: {"entity": [Change("ADD", "f9", "x", span=(5, 10_000))]}}
    with pytest.raises(ValueError, match="span must lie within the message's"):
        extraction_view(bad, 17, PROJECT)


def test_highlight_merges_overlapping_spans():
    assert highlight("we use MySQL 8 now", [(7, 12), (10, 14)]) == "we use «MySQL 8» now"
    assert highlight("abc", []) == "abc"
    assert highlight("abc", [(0, 1), (2, 3)]) == "«a»b«c»"


def test_change_line_reads_like_the_event():
    assert change_line(Change("ADD", "m1", "user: hi")) == "ADD    m1: user: hi"
    assert change_line(Change("UPDATE", "f1", "b", previous="a", reason="newer")) == "UPDATE f1: b  (was: a)  · newer"


def test_the_extraction_slider_only_looks_up():
    slider = ipywidgets.IntSlider(value=17, min=17, max=18)
    box = explore(extraction_view, extracted=ipywidgets.fixed(EXTRACTED), scenario=ipywidgets.fixed(PROJECT),
                  turn=slider)
    assert shown_text(box) == extraction_view(EXTRACTED, 17, PROJECT) + "\n"
    slider.value = 18
    assert shown_text(box) == extraction_view(EXTRACTED, 18, PROJECT) + "\n"


# ---------------------------------------------------------------- the projector: chart, HTML views, widgets
import html as html_lib  # noqa: E402
import io  # noqa: E402
import re  # noqa: E402

import numpy as np  # noqa: E402
import PIL.Image  # noqa: E402

from teachmem.lab.replay import comparison_strategies, extractions, replay  # noqa: E402
from teachmem.app.projector import (  # noqa: E402
    DRAWING, FACT_STATES, ComparisonChart, ComparisonWidget, ExtractionWidget, checked_turn, comparison_html,
    extraction_html, fact_state, id_words, marked_html, recalled_and_leaked, turn_caption, turn_from_query,
    unmarked_words, whole_pixels)

RESULTS = replay(PROJECT, comparison_strategies())
CHART = ComparisonChart(RESULTS)
BAD_TURNS = [0, 31, -1, "3", 2.0, True, None]


def _marked(page: str) -> list[str]:
    """The text inside each <mark>, numbers left out, unescaped."""
    return [html_lib.unescape(re.sub(r"<sup[^>]*>\d+</sup>", "", m)) for m in re.findall(r"<mark[^>]*>(.*?)</mark>", page)]


def _text(page: str) -> str:
    return html_lib.unescape(re.sub(r"<[^>]+>", "", page))


def test_every_turn_renders_a_chart_of_its_own_at_most_1100_px_wide():
    pngs = [CHART.png(turn) for turn in range(1, len(PROJECT) + 1)]
    assert len(set(pngs)) == len(PROJECT)           # each turn draws something else: the lines grow
    for png in pngs[::7]:
        image = PIL.Image.open(io.BytesIO(png))
        assert image.format == "PNG" and image.size == (1100, 430)


def test_a_turn_draws_the_same_picture_whatever_was_drawn_before():
    one, other = ComparisonChart(RESULTS), ComparisonChart(RESULTS)
    turns = [29, 3, 17, 1]
    assert [one.png(t) for t in turns] == [other.png(t) for t in reversed(turns)][::-1]
    assert one.png(17) == CHART.png(17)


def test_the_chart_marks_the_turn_and_shows_what_the_replay_holds_and_leaks():
    CHART.draw(17)
    assert list(CHART.marker.get_xdata()) == [17, 17]
    for name, dot, line in zip(RESULTS.strategies, CHART.dots, CHART.lines, strict=True):
        assert list(dot.get_xdata()) == [17] and list(dot.get_ydata()) == [RESULTS.at(name, 17).tokens]
        assert list(line.get_ydata()) == RESULTS.tokens(name)[:17]
    states = {s: sorted(map(tuple, a.get_offsets().tolist())) for s, a in CHART.states.items()}
    want = {s: sorted((float(x), float(y)) for x, name in enumerate(RESULTS.strategies)
                      for y, f in enumerate(PROJECT.facts)
                      if fact_state(f, 17, RESULTS.at(name, 17).holds, RESULTS.at(name, 17).leaks) == s)
            for s in FACT_STATES}
    assert states == want and sum(map(len, states.values())) == len(RESULTS.strategies) * len(PROJECT.facts)
    recalled = [bar.get_width() for bar in CHART.recalled]
    assert recalled == [recalled_and_leaked(RESULTS, n, 17)[0] for n in RESULTS.strategies]


def test_fact_states_and_counts_follow_the_replay():
    postgres, mysql = PROJECT.fact("db_postgresql"), PROJECT.fact("db_mysql")
    window = RESULTS.at("window", 29)
    assert fact_state(postgres, 29, window.holds, window.leaks) == "no longer true"   # pinned with turn 17
    assert fact_state(mysql, 29, window.holds, window.leaks) == "held"
    assert fact_state(PROJECT.fact("tests_pytest"), 29, window.holds, window.leaks) == "missing"
    assert fact_state(mysql, 16, window.holds, window.leaks) == "not said yet"
    semantic = RESULTS.at("semantic", 17)                                      # the switch is the query
    assert fact_state(postgres, 17, semantic.holds, semantic.leaks) == "leaked"
    buffer = RESULTS.at("buffer", 29)
    assert fact_state(postgres, 29, buffer.holds, buffer.leaks) == "no longer true"
    assert recalled_and_leaked(RESULTS, "buffer", 29) == (10, 10, 0)
    assert recalled_and_leaked(RESULTS, "window", 29)[2] == 0
    assert recalled_and_leaked(RESULTS, "semantic", 17)[2] == 2
    assert recalled_and_leaked(RESULTS, "entity", 1) == (1, 1, 0)


def test_every_turn_has_a_caption_and_a_table_in_html_that_wraps_at_words():
    for turn in range(1, len(PROJECT) + 1):
        caption, table = turn_caption(RESULTS, turn), comparison_html(RESULTS, turn)
        assert _text(caption).startswith(f"Turn {turn} of 30 · {PROJECT.turns[turn - 1].role}: ")
        assert " ".join(PROJECT.turns[turn - 1].content.split()) in _text(caption)
        assert all(f"<b>{name}</b>" in table for name in RESULTS.strategies)
        for page in (caption, table):
            assert "white-space:normal" in page and "monospace" not in page and "<pre" not in page
    assert "✓ yes" not in comparison_html(RESULTS, 16) and "✓ yes" in comparison_html(RESULTS, 29)
    assert "PostgreSQL, JSONB support" in _text(comparison_html(RESULTS, 17))     # the semantic store's stale facts
    assert "PostgreSQL, JSONB support" not in _text(comparison_html(RESULTS, 29))  # no one sends them alone
    stale_column = [re.findall(r"<td[^>]*>(.*?)</td>", row)[5]
                    for row in comparison_html(RESULTS, 29).split("<tr>")[2:]]
    assert stale_column == ["none"] * len(RESULTS.strategies)     # judged, and clean: not "cannot be judged"


def test_the_fact_labels_are_whole_words():
    chart = ComparisonChart(RESULTS)      # its own: CHART keeps the turns other tests drew
    labels = [t.get_text() for t in chart.ax_facts.get_yticklabels()]
    assert "payments" in labels and "Maya" in labels and not any("…" in label for label in labels)
    assert "<script" not in turn_caption(RESULTS, 1).lower()


def test_a_bad_turn_is_refused_clearly():
    for bad in BAD_TURNS:
        for view in (CHART.png, CHART.draw, lambda t: turn_caption(RESULTS, t), lambda t: comparison_html(RESULTS, t),
                     lambda t: checked_turn(RESULTS, t), lambda t: ComparisonWidget(RESULTS, turn=t)):
            with pytest.raises(ValueError, match=r"turn must be an int between 1 and 30, got "):
                view(bad)
    with pytest.raises(ValueError, match="turn must be between 1 and 2, got 19"):
        extraction_html(EXTRACTED, 19, PROJECT)
    with pytest.raises(ValueError, match="turn must be between 1 and 2, got 19"):
        ExtractionWidget(EXTRACTED, PROJECT, turn=19)


def test_marked_html_highlights_exactly_the_words_each_span_points_at():
    text = "we use MySQL 8 now & then"
    assert _marked(marked_html(text, [(7, 12)])) == ["MySQL"]
    assert _text(marked_html(text, [(7, 12)])) == "we use MySQL1 8 now & then"
    overlapping = marked_html(text, [(7, 12), (10, 14)])
    assert "".join(_marked(overlapping)) == "MySQL 8" and _text(overlapping) == "we use MySQL1 82 now & then"
    assert _marked(marked_html(text, [(0, 2), (19, 25)])) == ["we", "& then"]
    assert "&amp;" in marked_html(text, [(19, 25)])          # the message is escaped, not read as HTML
    assert marked_html(text, []) == html_lib.escape(text)
    with pytest.raises(ValueError, match="span must lie within the message's 25 characters, got \\(5, 99\\)"):
        marked_html(text, [(5, 99)])


def test_extraction_html_marks_each_span_in_the_message_with_its_event_beside_it():
    page = extraction_html(EXTRACTED, 17, PROJECT)
    blocks = dict(zip(EXTRACTORS, re.split(r'<div style="grid-column:1/-1[^"]*"><b>\w+</b>.*?</div>', page)[1:],
                      strict=True))
    assert _marked(blocks["entity"]) == ["MySQL"] and SAID[slice(*_span("MySQL"))] == "MySQL"
    assert "UPDATE</b> <sup style=\"font-size:0.95em\">1</sup> f2: Project.database: MySQL <i>(was: Project.database: PostgreSQL)</i>" in \
        blocks["entity"]
    assert "DELETE</b> f3:" in blocks["entity"]                # no span, no number
    assert _marked(blocks["semantic"]) == [html_lib.unescape(html_lib.escape(SAID))]
    assert _marked(blocks["buffer"]) == [] and "so no single words are highlighted" in blocks["buffer"]
    assert "NOOP</b> m17:" in blocks["summary"]
    assert extraction_html(EXTRACTED, 18, PROJECT).count("nothing: this write changed nothing") == 3
    assert "<mark" not in extraction_html(EXTRACTED, 17)      # without the scenario: the events only
    with pytest.raises(ValueError, match="span must lie within the message's"):
        extraction_html({17: {"entity": [Change("ADD", "f9", "x", span=(5, 10_000))]}}, 17, PROJECT)


def test_the_real_extractor_marks_mysql_on_turn_17():
    page = extraction_html(extractions(PROJECT), 17, PROJECT)
    assert "MySQL" in _marked(page) and "<b>entity</b>" in page


def test_the_widgets_only_look_up_the_views_for_every_turn():
    widget = ComparisonWidget(RESULTS)
    assert widget.slider.value == 1 and repr(widget) == "ComparisonWidget(turn 1 of 30)"
    for turn in range(1, len(PROJECT) + 1):
        widget.slider.value = turn
        assert widget.image.value == CHART.png(turn)
        assert widget.caption.value == turn_caption(RESULTS, turn)
        assert widget.details.value == comparison_html(RESULTS, turn)
    assert ComparisonWidget(RESULTS, turn=17).play.value == 17
    box = ExtractionWidget(EXTRACTED, PROJECT, turn=17)
    assert box.view.value == extraction_html(EXTRACTED, 17, PROJECT) and repr(box) == "ExtractionWidget(message 17 of 2)"
    box.slider.value = 18
    assert box.view.value == extraction_html(EXTRACTED, 18, PROJECT)


def test_the_page_address_chooses_the_first_turn():
    assert turn_from_query(None, 30) == turn_from_query("", 30) == turn_from_query("theme=dark", 30) == 1
    assert turn_from_query("turn=17", 30) == 17 and turn_from_query("theme=dark&turn=5", 30) == 5
    assert turn_from_query(None, 30, default=16) == 16
    for bad in ("turn=0", "turn=31", "turn=abc", "turn=", "turn=-2", "turn=1.5"):
        with pytest.raises(ValueError, match="turn in the page's address must be a whole number from 1 to 30"):
            turn_from_query(bad, 30)


def test_prerender_draws_every_turn_in_the_background_as_png_would():
    chart = ComparisonChart(RESULTS)
    assert chart.turns_drawn == []
    chart.prerender().join(timeout=300)
    assert chart.turns_drawn == list(range(1, len(PROJECT) + 1))
    assert all(chart.png(t) == CHART.png(t) for t in (1, 17, 30))


def test_every_chart_lays_its_panels_out_on_the_same_whole_pixels():
    # The first chart of a process could be laid out a fraction of a pixel off the next ones (its text measured
    # first), which shifted every moving line's antialiasing: the same turn, another picture.
    charts = [CHART, ComparisonChart(RESULTS)]
    for chart in charts:
        for ax in chart.fig.axes:
            pixels = ax.get_position().bounds * np.array([1100, 430, 1100, 430])
            assert np.allclose(pixels, np.round(pixels), atol=1e-6), pixels
    assert [ax.get_position().bounds for ax in charts[0].fig.axes] == \
        [ax.get_position().bounds for ax in charts[1].fig.axes]
    assert whole_pixels((0.1234, 0.2, 0.3, 0.4), 1100, 430) == (136 / 1100, 86 / 430, 330 / 1100, 172 / 430)


def test_prerender_waits_for_a_drawing_elsewhere_to_finish():
    chart = ComparisonChart(RESULTS)
    with DRAWING:                          # another chart drawing: the thread must not draw meanwhile
        thread = chart.prerender()
        thread.join(timeout=0.5)
        assert thread.is_alive() and chart.turns_drawn == []
    thread.join(timeout=300)
    assert chart.turns_drawn == list(range(1, len(PROJECT) + 1)) and chart.png(17) == CHART.png(17)


# ---------------------------------------------------------------- read from the back of a room
def test_every_text_of_the_chart_reads_at_12_pt_or_more():
    from matplotlib.text import Text
    CHART.png(17)
    texts = [t for t in CHART.fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    assert {"Tokens sent after each turn", "turn", "buffer", "held", "MySQL", "facts", "1/7, 2 leaked",
            "recalled (true now)", "turns to come"} <= {t.get_text() for t in texts}
    too_small = sorted({(t.get_text(), t.get_fontsize()) for t in texts if t.get_fontsize() < 12})
    assert too_small == []
    assert CHART.smallest_text_px() == 12 * 100 / 72 > 16      # 16.7 pixels of a PNG shown at its own width
    assert min(ax.title.get_fontsize() for ax in CHART.fig.axes) == 13


def test_the_turns_to_come_keep_their_strategys_colour_dotted_and_the_legend_says_so():
    legend = CHART.ax_tokens.get_legend()
    assert [t.get_text() for t in legend.get_texts()] == [*RESULTS.strategies, "this turn", "turns to come"]
    for name, past, later in zip(RESULTS.strategies, CHART.lines, CHART.later, strict=True):
        assert past.get_label() == name and later.get_color() == past.get_color()
        assert past.get_linestyle() == "-" and later.get_linestyle() == ":"   
        assert later.get_alpha() is None and later.get_linewidth() < past.get_linewidth()
        assert list(later.get_ydata()) == RESULTS.tokens(name)       # the whole replay, behind the turns so far
    assert len({line.get_color() for line in CHART.lines}) == len(RESULTS.strategies)


def test_the_tables_text_is_at_least_16_css_pixels():
    size = float(re.search(r"font-size:(\d+)px", BOX)[1])
    assert size >= 16
    for page in (turn_caption(RESULTS, 17), comparison_html(RESULTS, 17), extraction_html(EXTRACTED, 17, PROJECT)):
        assert page.startswith(f'<div style="{BOX}')
        inside = re.findall(r"font-size:([\d.]+)(px|em)", page[len(BOX):])        # nothing smaller inside
        assert all((float(n) if unit == "px" else float(n) * size) >= 16 for n, unit in inside), inside
    assert "<sup style" in extraction_html(EXTRACTED, 17, PROJECT)


def test_ids_are_explained_in_plain_words():
    assert id_words(["m29"]) == "m29 is message 29 of the conversation (messages count from m1)"
    assert id_words(["s28"]).startswith("s28 is the semantic store's memory number 28: it counts from s0")
    assert "not by turn" in id_words(["s28"]) and "not by turn" in id_words(["e3"])
    both = id_words(["summary", "m26", "m25", "m9", "m26"])
    assert both == "m9, m25, m26 are messages 9, 25, 26 of the conversation (messages count from m1); " \
                   "summary is the running summary"
    assert id_words(["e2", "e1"]).startswith("e1, e2 are the entity memory's fact numbers 1, 2: it counts from e1")
    assert id_words(["f2", "x"]) == "" and id_words([]) == ""


def test_the_message_and_its_ids_are_explained_where_turn_29_is_shown():
    page = extraction_html(extractions(PROJECT), 29, PROJECT)
    text = _text(page)
    said = " ".join(PROJECT.turns[28].content.split())
    assert said in text.split("buffer")[0]            # the message itself, once, above what each system did
    assert "m29 is message 29 of the conversation" in text
    assert "s28 is the semantic store's memory number 28: it counts from s0 as it stores, not by turn" in text
    assert "no words singled out" not in text
    entity = text.split("entity")[1].split("semantic")[0]
    assert "This write kept nothing new from this message, so no words are highlighted." in entity
    assert 'background:#e8f1f8' in page and "color:#6b6b6b\">no words" not in page     # information, not a failure


def test_why_no_words_are_highlighted_says_what_the_write_did():
    said = PROJECT.turns[16].content
    whole = [Change("ADD", "m17", f"user: {' '.join(said.split())}")]
    assert unmarked_words(whole, said) == "This write keeps the whole message as it is, so no single words are highlighted."
    assert unmarked_words([], said) == unmarked_words([Change("NOOP", "m17", "x")], said) == \
        "This write kept nothing new from this message, so no words are highlighted."
    assert unmarked_words([Change("UPDATE", "summary", "a new summary")], said) == \
        "This write does not say which words its changes came from, so none are highlighted."
    assert "no scenario" in _text(extraction_html(EXTRACTED, 17))


def test_compact_widgets_put_the_table_and_each_system_right_under_the_slider():
    """Notebook 07 at 1280×720: chart and table share one place under the slider, a tab each; the extraction
    visualiser shows one system a tab. Both still only look the views up."""
    widget = ComparisonWidget(RESULTS, turn=16, compact=True)
    controls, caption, tabs = widget.children
    assert isinstance(tabs, ipywidgets.Tab) and tabs.children == (widget.image, widget.details)
    assert tabs.titles == ("chart", "table") and caption is widget.caption and widget.slider in controls.children
    widget.slider.value = 29
    assert widget.image.value == CHART.png(29) and widget.details.value == comparison_html(RESULTS, 29)
    box = ExtractionWidget(EXTRACTED, PROJECT, turn=17, compact=True)
    slider, systems = box.children
    assert isinstance(systems, ipywidgets.Tab) and systems.titles == tuple(EXTRACTORS)
    for turn in (17, 18):
        slider.value = turn
        for name, view in zip(EXTRACTORS, systems.children, strict=True):
            assert view.value == extraction_html(EXTRACTED, turn, PROJECT, (name,))
            assert f"<b>{name}</b>" in view.value and all(f"<b>{n}</b>" not in view.value for n in EXTRACTORS if n != name)
    slider.value = 17
    assert "<b>entity</b>" in extraction_html(EXTRACTED, 17, PROJECT) and "MySQL" in _marked(systems.children[2].value)
    with pytest.raises(ValueError, match=r"systems must name systems of the extraction .*got \['hybrid'\]"):
        extraction_html(EXTRACTED, 17, PROJECT, ("hybrid",))


# ---------------------------------------------------------------- make app, as issue 25's learner projected it
def test_moving_the_turn_moves_the_message_below_and_back():
    """The lower "message" slider stayed where it was when the turn moved."""
    from teachmem.app.projector import link_turns
    comparison, extraction = ComparisonWidget(RESULTS, turn=3), ExtractionWidget(extractions(PROJECT), PROJECT, turn=3)
    link_turns(comparison, extraction)
    comparison.slider.value = 17
    assert extraction.slider.value == 17 and extraction.view.value == extraction_html(extractions(PROJECT), 17, PROJECT)
    extraction.slider.value = 29
    assert comparison.slider.value == 29 and comparison.image.value == CHART.png(29)
    comparison.play.value = 5                                   # ▶ moves the turn (jslinked in the browser)
    comparison.slider.value = comparison.play.value
    assert extraction.slider.value == 5
    with pytest.raises(ValueError, match="the extraction must cover the comparison's turns 1 to 30, got 17 to 18"):
        link_turns(comparison, ExtractionWidget(EXTRACTED, PROJECT, turn=17))


def test_the_app_page_links_its_two_sliders():
    import nbformat
    from conftest import ROOT
    page = nbformat.read(ROOT / "notebooks" / "app" / "compare_live.ipynb", as_version=4)
    code = "\n".join(c.source for c in page.cells if c.cell_type == "code")
    assert "comparison = projector.ComparisonWidget(" in code and "projector.link_turns(comparison, extraction)" in code


# Okabe–Ito pairs a projector washes into one: amber and vermilion, blue and sky blue, amber and yellow.
NEAR_HUES = [{"#E69F00", "#D55E00"}, {"#0072B2", "#56B4E9"}, {"#E69F00", "#F0E442"}]


def test_lines_that_run_close_differ_in_hue_and_every_line_in_marker():
    """Window (amber) and hybrid (orange), buffer and semantic (two blues) were told apart by nobody at the back."""
    from matplotlib.colors import to_hex
    from teachmem.lessons.common import OKABE_ITO
    colour = {line.get_label(): to_hex(line.get_color()).upper() for line in CHART.lines}
    assert set(colour.values()) <= {c.upper() for c in OKABE_ITO} and len(set(colour.values())) == len(colour)
    markers = [line.get_marker() for line in CHART.lines]
    assert len(set(markers)) == len(markers) and all(m not in (None, "None", "") for m in markers)
    assert [dot.get_marker() for dot in CHART.dots] == markers
    for a, b in [("window", "hybrid"), ("buffer", "semantic")]:
        assert {colour[a], colour[b]} not in NEAR_HUES, (a, b)
    tokens = {name: np.array(RESULTS.tokens(name)) for name in RESULTS.strategies}
    near = [(a, b) for a in colour for b in colour if a < b and {colour[a], colour[b]} in NEAR_HUES]
    gap = {(a, b): np.median(abs(tokens[a] - tokens[b])) for a in tokens for b in tokens if a < b}
    assert len(near) <= 1 and all(gap[pair] == max(gap.values()) for pair in near), near   # top line and bottom


def test_tick_labels_are_projector_size():
    """The tick labels were 12 pt, small from the back of a room: the numbers and names on the axes are read most."""
    for ax in CHART.fig.axes:
        for label in [*ax.get_xticklabels(), *ax.get_yticklabels()]:
            if label.get_text():
                assert label.get_fontsize() >= 14, (label.get_text(), label.get_fontsize())


# ---------------------------------------------------------------- the cost panel (notebook 13, make app)
COSTS = cache_costs(PROJECT, comparison_strategies())
COST_CHART = ComparisonChart(RESULTS, costs=COSTS)


def test_the_cost_panel_draws_what_each_strategy_has_spent_at_every_turn():
    assert len(COST_CHART.fig.axes) == 4 and len(CHART.fig.axes) == 3
    pngs = set()
    for turn in range(1, len(PROJECT) + 1):
        pngs.add(COST_CHART.png(turn))
        for name, without, cached, text in zip(COST_CHART.names, COST_CHART.without, COST_CHART.cached,
                                               COST_CHART.cents, strict=True):
            off, on = COSTS[name][0][turn - 1], COSTS[name][1][turn - 1]
            assert (without.get_width(), cached.get_width()) == (off, on)     # turn 1: writing costs more
            assert text.get_text() == f"{on:.1f}¢"
    assert len(pngs) == len(PROJECT)
    image = PIL.Image.open(io.BytesIO(COST_CHART.png(17)))
    assert image.size == (1100, 430)                     # the page's first screen keeps its chart size
    assert COST_CHART.smallest_text_px() >= 16


def test_the_cost_panel_follows_the_slider_and_refuses_costs_of_other_strategies():
    widget = ComparisonWidget(RESULTS, turn=3, costs=COSTS)
    for turn in (1, 17, 30):
        widget.slider.value = turn
        assert widget.image.value == COST_CHART.png(turn)
    with pytest.raises(ValueError, match="costs must name the replay's strategies"):
        ComparisonChart(RESULTS, costs={"buffer": COSTS["buffer"]})


def test_caching_costs_less_and_the_buffer_least_of_the_three_at_the_end():
    for off, on in COSTS.values():
        assert len(off) == len(on) == len(PROJECT) and list(off) == sorted(off) and on[-1] < off[-1]
    assert COSTS["buffer"][1][-1] < COSTS["window"][1][-1] < COSTS["summary"][1][-1]
    assert COSTS["window"][0][-1] < COSTS["buffer"][0][-1]      # without caching, the other way round


def test_the_app_page_draws_the_cost_panel():
    page = json.loads((Path(__file__).resolve().parents[2] / "notebooks" / "app" / "compare_live.ipynb")
                      .read_text(encoding="utf-8"))
    code = "\n".join("".join(c["source"]) for c in page["cells"] if c["cell_type"] == "code")
    assert "costs = cache_costs(scenario, lesson_strategies())" in code and "costs=costs" in code


def test_every_text_of_the_cost_chart_lies_inside_it_and_the_titles_do_not_meet():
    """A fourth panel squeezed the others: titles ran into each other and a label left the picture."""
    COST_CHART.png(30)
    renderer = COST_CHART.canvas.get_renderer()
    width, height = COST_CHART.fig.bbox.width, COST_CHART.fig.bbox.height
    legends = [ax.get_legend() for ax in COST_CHART.fig.axes if ax.get_legend()]
    texts = [t for ax in COST_CHART.fig.axes for t in (ax.title, ax.xaxis.label, ax.yaxis.label)]
    texts += [t for legend in legends for t in legend.get_texts()] + COST_CHART.cents + COST_CHART.counts
    texts = [t for t in texts if t.get_text().strip()]
    assert len(legends) == 3 and "spent, with caching" in {t.get_text() for t in texts}
    for text in texts:
        box = text.get_window_extent(renderer)
        assert box.x0 >= 0 and box.x1 <= width and box.y0 >= 0 and box.y1 <= height, text.get_text()
    titles = [ax.title.get_window_extent(renderer) for ax in COST_CHART.fig.axes if ax.get_title()]
    assert len(titles) == 3 and all(a.x1 < b.x0 for a, b in zip(titles, titles[1:], strict=False))
