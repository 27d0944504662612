"""The view functions behind the notebook 01 and 02 sliders, at every position."""
import ipywidgets
import pytest

from teachmem import SlidingWindowMemory, fact_in_text
from teachmem.lab.replay import feed
from teachmem.lessons.buffer import buffer_cost_view, plot_buffer_cost
from teachmem.lessons.common import explore, shown_text
from teachmem.lessons.window import window_view

REQUESTS = [200 * (n - 1) + 50 for n in range(1, 101)]


@pytest.mark.parametrize("turn", range(1, 101))
def test_buffer_cost_view_every_turn(turn):
    text = buffer_cost_view(turn, REQUESTS, 3.0)
    assert f"request {turn:>3}: sends {REQUESTS[turn - 1]:>6,} tokens" in text
    assert f"{sum(REQUESTS[:turn]):>8,} tokens in all" in text


def test_buffer_cost_view_out_of_range():
    with pytest.raises(ValueError, match="turn must be between 1 and 100"):
        buffer_cost_view(0, REQUESTS)


def test_window_view_every_slider_position(scenario):
    for recent_k in range(1, 31):
        for important_k in range(0, 11):
            for turn in (1, 7, 17, 29, 30):
                text = window_view(scenario, recent_k, important_k, turn)
                memory = feed(SlidingWindowMemory(recent_k, important_k), scenario, turn)
                kept = memory.window_turns()
                assert text.splitlines()[0].endswith(f"keeps {len(kept)} of {turn} messages")
                marks = [line[0] for line in text.splitlines()[1:turn + 1]]
                assert marks == ["■" if t in kept else "·" for t in range(1, turn + 1)]
                window_text = " ".join(m["content"] for m in memory.context())
                pytest_line = [l for l in text.splitlines() if "mentions pytest" in l]
                if turn >= 7:
                    assert pytest_line[0][0] == ("✓" if fact_in_text(scenario.fact("tests_pytest"), window_text) else "✗")


def test_a_saved_explore_box_tells_a_reader_to_run_the_cell():
    """A stored notebook has no live widgets: the text it shows in their place is the box's plain text."""
    box = explore(lambda n: f"n is {n}", n=ipywidgets.IntSlider(value=2))
    plain = box._repr_mimebundle_()["text/plain"]
    assert plain == "Run this cell to get the controls; what they change is shown below them."
    assert "children=" not in plain and isinstance(box, ipywidgets.VBox)


def test_explore_renders_the_view_on_every_change():
    slider = ipywidgets.IntSlider(value=3, min=0, max=5)
    box = explore(lambda n, unit: f"n is {n} {unit}", n=slider, unit=ipywidgets.fixed("cm"))
    assert isinstance(box, ipywidgets.VBox) and box.children[0] is slider
    assert shown_text(box) == "n is 3 cm\n"
    slider.value = 5
    assert shown_text(box) == "n is 5 cm\n"


def test_notebook_01s_plots_are_shown_at_their_own_size_at_1280_px():
    """The cost plot was 1,000 px wide: JupyterLab shrank it to its 840-px output and its labels to 8 points."""
    fig = plot_buffer_cost(REQUESTS)
    assert fig.get_size_inches()[0] * fig.dpi <= 840
