"""Notebooks 05 and 05b: the semantic view at every slider position, the decay demo, the plots."""
import io
import math
import struct
from datetime import datetime, timedelta

import ipywidgets
import matplotlib
import numpy as np
import pytest

from teachmem import ManualClock, SemanticMemoryStore, load_scenario
from teachmem.core.embed import BagOfWordsEmbedder, RandomEmbedder, SubwordEmbedder, cosine_matrix
from teachmem.lessons import semantic
from teachmem.lessons.common import explore, shown_text
from teachmem.lessons.semantic import (answer_rank, plot_decay_curves, plot_similarity_heatmaps, score_table,
                                       semantic_demo_store, semantic_view)
from teachmem.lessons.semantic_upkeep import plot_forgetting_curves

QUERIES = ["Which database should the CI job start?", "When do we launch?", "which test framework did we pick?"]


@pytest.fixture(scope="module")
def demo_store():
    return semantic_demo_store(load_scenario("project_30"))


def test_semantic_view_every_slider_position(demo_store):
    before = demo_store.to_state()
    for query in QUERIES:
        previous = None
        for days in range(0, 181):
            text = semantic_view(demo_store, query, days)
            lines = text.splitlines()
            assert lines[0].startswith(f"{query!r} asked {days} days after the newest memory")
            scores = [float(line.split()[1]) for line in lines[2:]]
            assert len(scores) == 5 and scores == sorted(scores, reverse=True)
            sent = int(lines[0].split(": ")[-1].split()[0])
            assert sent == sum(s >= 0.02 for s in scores)
            assert sum("(not sent)" in line for line in lines[2:]) == 5 - sent
            if previous is not None:      # the same memories, each score shrunk by the same factor
                assert [l.split(None, 2)[2] for l in lines[2:]][-1].endswith(previous[-1][-20:])
            previous = lines[2:]
    assert demo_store.to_state() == before          # the view records no recall


def test_semantic_view_ranking_is_fixed_under_the_product_score(demo_store):
    """Exponential decay is memoryless: adding d days to every age scales every score by 0.95**d."""
    rows = {d: [h["row"] for h in demo_store.explain(QUERIES[0], 5, _now(demo_store, d))] for d in (0, 45, 180)}
    assert rows[0] == rows[45] == rows[180]


def _now(store, days):
    return max(datetime.fromisoformat(m["timestamp"]) for m in store.metadata) + timedelta(days=days)


def test_semantic_view_bad_input(demo_store):
    assert semantic_view(demo_store, "   ", 3) == "(type a question)"
    with pytest.raises(ValueError, match="days_later must be an int >= 0"):
        semantic_view(demo_store, "launch", -1)
    assert score_table([]) == "(no memories)"


def test_semantic_view_through_the_widget(demo_store):
    box = explore(semantic_view, store=ipywidgets.fixed(demo_store),
                  query=ipywidgets.Text(value=QUERIES[1]), days_later=ipywidgets.IntSlider(value=0, min=0, max=180))
    assert shown_text(box).strip() == semantic_view(demo_store, QUERIES[1], 0)
    box.children[1].value = 60
    assert shown_text(box).strip() == semantic_view(demo_store, QUERIES[1], 60)
    box.children[0].value = QUERIES[2]
    assert shown_text(box).strip() == semantic_view(demo_store, QUERIES[2], 60)


def test_plots_return_closed_figures():
    texts = ["seat", "seats", "pytest", "tests"]
    figures = [plot_decay_curves(), plot_forgetting_curves(),
               plot_similarity_heatmaps({e.name: cosine_matrix(e, texts) for e in
                                         (RandomEmbedder(64), BagOfWordsEmbedder(), SubwordEmbedder())}, texts)]
    for fig in figures:
        assert isinstance(fig, matplotlib.figure.Figure) and fig.axes
    assert len(figures[2].axes) == 4                 # three heatmaps and a colour bar
    assert np.allclose(figures[0].axes[0].lines[1].get_ydata()[[10, 20]], [0.95 ** 10, 0.95 ** 20])


def _png_width(fig) -> int:
    """The width of ``fig`` saved as the notebook's inline backend saves it (bbox_inches="tight")."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", bbox_inches="tight")
    return struct.unpack(">I", buffer.getvalue()[16:20])[0]


def test_heatmaps_can_be_read_on_a_projector():
    texts = ["prefers window seats", "Which seat do I prefer?", "uses PostgreSQL 16", "Which database do we use?"]
    fig = plot_similarity_heatmaps({e.name: cosine_matrix(e, texts) for e in
                                    (RandomEmbedder(64), BagOfWordsEmbedder(), SubwordEmbedder())}, texts)
    assert _png_width(fig) <= 1100
    *panels, bar = fig.axes
    assert "cosine similarity" in bar.get_ylabel() and "1 = alike" in bar.get_ylabel()
    assert all(ax.images[0].get_cmap().name == "cividis" for ax in panels)
    assert panels[0].get_ylabel() and all(ax.get_xlabel() for ax in panels) and all(ax.get_title() for ax in panels)
    values = [t.get_text() for ax in panels for t in ax.texts]
    assert len(values) == 3 * 16 and "-0.0" not in values     # every cell written, no negative zero


# ---------------------------------------------------------------- decay on its own (notebook 05, section 4)
NOW = datetime(2026, 3, 1)
QUESTION = "What is the wifi password?"
MEMORIES = [("The wifi password is taped to the fridge door", 0.9, 60),
            ("The wifi in the meeting room keeps dropping", 0.4, 3),
            ("The router was moved to the hallway", 0.5, 20),
            ("Booked the flights to Porto", 0.5, 1)]


def test_decay_demo_memories_stand_alone():
    """No reply threading: the relevance of each memory is the same whatever order they are stored in."""
    store = semantic.store_with_ages(MEMORIES, NOW)
    backwards = semantic.store_with_ages(MEMORIES[::-1], NOW)
    assert store.reply_weight == 0
    relevance = store.scores(QUESTION, NOW)[0]["relevance"]
    assert np.allclose(relevance, backwards.scores(QUESTION, NOW)[0]["relevance"][::-1])
    assert np.allclose(relevance, store.scores(QUESTION, NOW)[0]["match"])
    ages = [(NOW - datetime.fromisoformat(m["timestamp"])).days for m in store.metadata]
    assert ages == [60, 3, 20, 1]


def test_decay_alone_buries_the_answer_on_the_day_the_logarithm_says():
    ages, scores, rival = semantic.answer_by_age(MEMORIES, QUESTION, NOW, days=90)
    assert np.allclose(scores, scores[0] * 0.95 ** ages)           # only decay changes with age
    assert np.all(np.diff(scores) < 0)
    day = semantic.burial_day(MEMORIES, QUESTION, NOW)
    assert day == math.ceil(math.log(rival / scores[0]) / math.log(0.95)) == 37
    assert semantic.burial_day(MEMORIES, QUESTION, NOW, decay_rate=1.0) is None
    # the store's own ranking agrees: first at day - 1, second at day
    for age, first in ((day - 1, MEMORIES[0][0]), (day, MEMORIES[1][0])):
        store = semantic.store_with_ages([(MEMORIES[0][0], 0.9, age), *MEMORIES[1:]], NOW)
        assert store.explain(QUESTION, 1, NOW)[0]["text"] == first


def test_burial_plot_marks_the_day():
    fig = semantic.plot_burial(MEMORIES, QUESTION, NOW)
    ax = fig.axes[0]
    assert _png_width(fig) <= 1100 and ax.get_legend() is not None
    assert any("buried from day 37" in t.get_text() for t in ax.texts)
    assert ax.get_xlabel() and ax.get_ylabel()


def test_forgetting_plot_draws_a_learners_curve_beside_the_code_as_written():
    assert len(plot_forgetting_curves().axes[0].lines) == 3
    fig = plot_forgetting_curves(lambda t, S: math.exp(-t / (5 * S)))
    lines = fig.axes[0].lines
    assert len(lines) == 6 and np.isclose(lines[1].get_ydata()[-1], math.exp(-14 / 5))


def test_demo_store_replies_inherit_only_when_asked():
    scenario = load_scenario("project_30")
    assert semantic_demo_store(scenario).reply_weight == 0
    assert semantic_demo_store(scenario, reply_weight=0.5).reply_weight == 0.5
    assert semantic_demo_store(scenario).neighbour_words is False
    assert semantic_demo_store(scenario, neighbour_words=True).neighbour_words is True


def test_semantic_view_names_each_turn_and_fits_the_page(demo_store):
    """The Try it asks about turn 7: the table must say which row is which turn, within 105 characters."""
    text = semantic_view(demo_store, QUERIES[2], 30)
    header, *rows = text.splitlines()[1:]
    assert header.split()[:3] == ["#", "score", "turn"]
    turns = [int(line.split()[2]) for line in rows]
    assert 7 in turns and all(demo_store.metadata[h["row"]]["turn"] == t
                              for h, t in zip(demo_store.explain(QUERIES[2], 5, _now(demo_store, 30)), turns, strict=True))
    assert max(len(line) for line in text.splitlines()[1:]) <= 105


def _renovation(scoring):
    year = load_scenario("renovation_year")
    ask, clock = year.questions[0], ManualClock(year.start)
    store = SemanticMemoryStore(scoring=scoring, clock=clock)
    for t in year.turns[:ask.turn - 1]:
        clock.set(year.timestamp(t.turn))
        store.add(t.role, t.content, turn=t.turn, timestamp=year.timestamp(t.turn))
    return store, ask.text, year.fact(ask.needs[0]).stated_turn


def test_answer_rank_shows_the_buried_answer_with_its_true_rank():
    store, question, said = _renovation("product")
    text = answer_rank(store, question, said)
    rank = 1 + [store.metadata[h["row"]]["turn"] for h in store.explain(question, len(store))].index(said)
    assert rank > 3 and text.splitlines()[0] == f"turn {said} ranks {rank} of {len(store)}"
    last = text.splitlines()[-1].split()
    assert (int(last[0]), int(last[2])) == (rank, said) and len(text.splitlines()) == 2 + 4
    with pytest.raises(ValueError, match="turn must be the turn of a live memory"):
        answer_rank(store, question, 999)
    found = answer_rank(*_renovation("half_life"))        # the default finds it first: no extra row
    assert found.splitlines()[0] == f"turn {said} ranks 1 of {len(store)}" and len(found.splitlines()) == 2 + 3


def test_the_scoring_menu_switches_the_store_and_the_default_lets_a_stale_date_back(demo_store):
    """05's Try it: under the default, "When do we launch?" puts mid-April (turn 36) first at 0 days and the
    stale end of March (turn 27) first at 180, as the floor of ½ stops recency from telling them apart."""
    default = semantic_demo_store(load_scenario("project_30"), scoring="half_life")
    box = explore(semantic_view, store=ipywidgets.Dropdown(options=[("product", demo_store), ("default", default)]),
                  query=ipywidgets.Text(value=QUERIES[1]), days_later=ipywidgets.IntSlider(value=0, min=0, max=180))
    assert shown_text(box).strip() == semantic_view(demo_store, QUERIES[1], 0)
    box.children[0].value = default
    assert shown_text(box).strip() == semantic_view(default, QUERIES[1], 0)
    first = {days: int(semantic_view(default, QUERIES[1], days).splitlines()[2].split()[2]) for days in (0, 180)}
    assert first == {0: 36, 180: 27}
    assert [h["row"] for h in demo_store.explain(QUERIES[1], 5, _now(demo_store, 180))] == [
        h["row"] for h in demo_store.explain(QUERIES[1], 5, _now(demo_store, 0))]
