"""Notebook 11's view, for every position of its sliders, and its plot."""
import ipywidgets as w
import pytest

from teachmem.lessons import agent as lesson
from teachmem.lessons.common import shown_text

BUDGETS = range(800, 1601, 100)     # the notebook's budget slider


@pytest.mark.parametrize("budget", BUDGETS)
def test_the_turn_view_for_every_turn_and_budget(budget):
    turns = lesson.run(context_tokens=budget)
    for turn in range(1, 31):
        text = lesson.turn_view(turn, budget)
        t = turns[turn - 1]
        assert text.startswith(f"turn {turn} · {t.role}: ")
        assert f"context {t.tokens:>4}/{budget} tokens" in text and t.tokens <= budget
        assert ("⚠ memory pressure" in text) == t.warned
        assert all(c["name"] in text for c in t.tool_calls)


def test_the_widget_shows_the_view():
    box = lesson.explore(lesson.turn_view, turn=w.IntSlider(value=17, min=1, max=30),
                         context_tokens=w.IntSlider(value=1000, min=800, max=1600, step=100))
    assert shown_text(box) == lesson.turn_view(17, 1000) + "\n"
    box.children[0].value = 29
    assert shown_text(box) == lesson.turn_view(29, 1000) + "\n"


def test_the_plot_has_a_legend_and_fits_a_projector():
    fig = lesson.plot_context_fill(lesson.run(), 1000, "title")
    ax = fig.axes[0]
    assert fig.get_size_inches()[0] * fig.dpi <= 1100
    assert {t.get_text() for t in ax.get_legend().get_texts()} == {
        "tokens in context", "budget (1000)", "warning (70%)", "eviction"}
