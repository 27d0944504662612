"""Notebook 07's extraction view on hand-built Change records: the events and the words their spans point at."""
import ipywidgets
import pytest

from teachmem.core.change import Change
from teachmem.lab.scenarios import load_scenario
from teachmem.lessons.common import explore, shown_text
from teachmem.lessons.compare import EXTRACTORS, change_line, extraction_view, highlight

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
