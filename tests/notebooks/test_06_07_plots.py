"""Notebooks 06 and 07's static plots read on a projected 1280×720 screen: every text at 9 pt or more,
no label cut mid-word, at most 11 inches wide, and lines that colour alone does not tell apart."""
import pytest
from matplotlib.text import Text

from teachmem import HybridMemoryManager, load_scenario
from teachmem.lab.replay import feed, lesson_strategies, replay
from teachmem.lessons import compare, hybrid


@pytest.fixture(scope="module")
def results():
    return replay(load_scenario("project_30"), lesson_strategies())


def texts(fig):
    fig.draw_without_rendering()                 # lays the figure out as the notebook shows it
    return [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]


def plots(results):
    project = load_scenario("project_30")
    traces = [feed(HybridMemoryManager(b), project, 28).explain_prompt(project.turns[28].content) for b in (700, 3500)]
    return {"budget split": hybrid.plot_budget_split(traces, ["700", "3,500"]),
            "tokens per turn": compare.plot_tokens_per_turn(results, mark_turn=17),
            "recall heatmap": compare.plot_recall_heatmap(results),
            "model calls": compare.plot_model_calls(results)}


def test_every_text_is_9_pt_or_more_and_every_figure_at_most_11_inches_wide(results):
    for name, fig in plots(results).items():
        small = sorted({(t.get_text(), t.get_fontsize()) for t in texts(fig) if t.get_fontsize() < 9})
        assert not small, f"{name}: {small}"
        assert fig.get_figwidth() <= 11, name


def test_the_heatmap_names_facts_as_the_comparison_widget_does(results):
    fig = compare.plot_recall_heatmap(results)
    labels = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert labels == [compare.fact_name(f) for f in results.scenario.facts]
    assert "payments" in labels and "hosting budget" in labels and not any(label.endswith("…") for label in labels)
    texts(fig)
    box = fig.bbox
    for label in fig.axes[0].get_xticklabels():                  # none cut at the figure's edge
        extent = label.get_window_extent()
        assert extent.x0 >= box.x0 and extent.y0 >= box.y0, label.get_text()


def test_each_strategys_line_has_its_own_marker_and_dash(results):
    lines = [line for line in compare.plot_tokens_per_turn(results).axes[0].get_lines() if line.get_label() in
             results.strategies]
    assert len({line.get_marker() for line in lines}) == len(results.strategies)
    window, hybrid_line = (next(line for line in lines if line.get_label() == n) for n in ("window", "hybrid"))
    assert window.get_marker() != hybrid_line.get_marker() and window.get_linestyle() != hybrid_line.get_linestyle()
