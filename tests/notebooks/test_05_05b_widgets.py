"""Notebooks 05 and 05b: the score tables, the decay demo, the plots."""
import io
import math
import struct
from datetime import datetime

import matplotlib
import numpy as np

from teachmem.core.embed import BagOfWordsEmbedder, RandomEmbedder, SubwordEmbedder, cosine_matrix
from teachmem.lab.lesson_examples import store_with_ages
from teachmem.lessons import semantic
from teachmem.lessons.semantic import plot_similarity_heatmaps, score_table
from teachmem.lessons.semantic_upkeep import plot_forgetting_curves


def test_score_table_of_nothing():
    assert score_table([]) == "(no memories)"

def test_plots_return_closed_figures():
    texts = ["seat", "seats", "pytest", "tests"]
    figures = [plot_forgetting_curves(),
               plot_similarity_heatmaps({e.name: cosine_matrix(e, texts) for e in
                                         (RandomEmbedder(64), BagOfWordsEmbedder(), SubwordEmbedder())}, texts)]
    for fig in figures:
        assert isinstance(fig, matplotlib.figure.Figure) and fig.axes
    assert len(figures[1].axes) == 4                 # three heatmaps and a colour bar


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
    store = store_with_ages(MEMORIES, NOW)
    backwards = store_with_ages(MEMORIES[::-1], NOW)
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
        store = store_with_ages([(MEMORIES[0][0], 0.9, age), *MEMORIES[1:]], NOW)
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




def test_the_baseline_ranks_by_the_words_of_each_turn_as_said():
    baseline = semantic.BM25Baseline()
    for role, said in [("user", "The wifi password is harbour-lights."), ("assistant", "Lunch was ramen."),
                       ("user", "Wifi in the meeting room drops.")]:
        baseline.add(role, said, turn=1, timestamp=datetime(2026, 1, 5))
    assert [hit["text"] for hit in baseline.explain("What is the wifi password?", 2)] == [
        "user: The wifi password is harbour-lights.", "user: Wifi in the meeting room drops."]
    assert baseline.explain("nothing matches", 3)[0]["text"] == "user: The wifi password is harbour-lights."
