"""Notebook 05: the semantic view at every slider position, the plots, the checkers and their solutions."""
import math
from datetime import datetime, timedelta

import ipywidgets
import matplotlib
import numpy as np
import pytest

from conftest import load_solutions, proves_checker
from teachmem import load_scenario
from teachmem.lessons import semantic
from teachmem.core.embed import BagOfWordsEmbedder, RandomEmbedder, SubwordEmbedder, cosine_matrix
from teachmem.lessons.common import explore, shown_text
from teachmem.lessons.semantic import (plot_decay_curves, plot_forgetting_curves, plot_similarity_heatmaps,
                                       score_table, semantic_demo_store, semantic_view)

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


S05 = load_solutions("05_semantic_memory")


def _memorybank_as_written(t, S):
    return math.exp(-t / 5*S)          # MemoryBank's public code: the precedence bug, kept on purpose


def _recency_by_rank(last_accessed, now, decay=0.995):
    """The Generative Agents public code: oldest first, decay ** rank."""
    order = sorted(range(len(last_accessed)), key=lambda i: last_accessed[i])
    out = [0.0] * len(last_accessed)
    for rank, i in enumerate(order, start=1):
        out[i] = decay ** rank
    return out


def _recency_by_rank_newest_first(last_accessed, now, decay=0.995):
    """Order fixed, but still by rank instead of hours: also wrong."""
    order = sorted(range(len(last_accessed)), key=lambda i: -last_accessed[i])
    out = [0.0] * len(last_accessed)
    for rank, i in enumerate(order):
        out[i] = decay ** rank
    return out



@pytest.mark.parametrize("checker, solution, wrong_answers", [
    (semantic.check_forgetting_curve, S05.forgetting_curve, [_memorybank_as_written, lambda t, S: math.exp(-t / S)]),
    (semantic.check_recency_scores, S05.recency_scores, [_recency_by_rank, _recency_by_rank_newest_first]),
    (semantic.check_fold_plural, S05.fold_plural,
     [lambda w: w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w, lambda w: w]),
])
def test_checkers_pass_the_solution_and_fail_wrong_answers(checker, solution, wrong_answers, capsys):
    proves_checker(checker, solution, wrong_answers, capsys)


def test_forgetting_checker_names_the_precedence_bug(capsys):
    semantic.check_forgetting_curve(_memorybank_as_written)
    assert "operator precedence" in capsys.readouterr().out


def test_recency_checker_names_the_reversed_order(capsys):
    semantic.check_recency_scores(_recency_by_rank)
    assert "ordering is reversed" in capsys.readouterr().out
