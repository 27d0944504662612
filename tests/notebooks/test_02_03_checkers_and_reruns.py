"""Notebooks 02 and 03 as a learner and an instructor meet them: checkers that cannot be fooled by an
answer in the wrong order or about this chat's words, cells that run again, figures and lines that fit
a projected 1280-pixel screen, and prose whose figures the notebook prints."""
import json
import re

import matplotlib
import pytest

from conftest import ROOT, load_solutions, run_cell, unwrapped
from teachmem.lab.replay import window_membership
from teachmem.lessons import window
from teachmem.lessons.window import window_view
from teachmem.llm import importance_rules
from teachmem.memory.window import SlidingWindowMemory

matplotlib.use("Agg")
NB02, NB03 = (ROOT / "notebooks" / f"{stem}.ipynb" for stem in ("02_sliding_window", "03_summary_memory"))
s02 = load_solutions("02_sliding_window")
WIDEST_LINE = 104      # monospace characters an output line shows at 1280x720 with the file browser open


def code_cells(path):
    return {c["id"]: "".join(c["source"]) for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"}


@pytest.mark.parametrize("about_this_chat", [
    lambda text: 1.0 if "pytest" in text else importance_rules(text),
    lambda text: min(importance_rules(text) + (0.3 if "tests" in text.lower() else 0.0), 1.0),
    lambda text: 1.0 if "coverage" in text else importance_rules(text),
])
def test_2_4_a_rule_about_this_chats_words_fails(about_this_chat, capsys):
    """It saved pytest by naming it; the exercise asks for a rule about how people talk."""
    assert not window.check_my_importance(about_this_chat)
    out = unwrapped(capsys.readouterr().out)
    assert "names its tools otherwise" in out and "how people talk" in out
    assert window.check_my_importance(s02.my_importance)


def test_2_4_renaming_changes_names_and_topics_only():
    assert window.renamed("For tests let's use pytest; the Database fixture.") == \
        "For checks let's use unittest; the datastore helper."
    assert window.renamed("pytester and MySQLdb stay") == "pytester and MySQLdb stay"      # whole words only


@pytest.mark.parametrize("path", [NB02, NB03], ids=["02", "03"])
def test_every_code_cell_runs_twice_in_a_row(path, monkeypatch):
    """02's pasted log used to add turn 30 to the window of the cell before: run again, it raised ValueError."""
    monkeypatch.chdir(ROOT / "notebooks")
    namespace: dict = {}
    for cid, source in code_cells(path).items():
        first = run_cell(source, namespace)
        assert run_cell(source, namespace) == first, cid


def test_the_pasted_log_cell_runs_again_after_the_rest():
    cells, namespace = code_cells(NB02), {}
    for source in cells.values():
        run_cell(source, namespace)
    assert "kept turns: [0, 30] | tokens used: 300" in run_cell(cells["1861f3c6"], namespace)


def test_the_window_figure_text_is_at_least_9_points(scenario):
    fig = window.plot_window_membership(window_membership(scenario, lambda: SlidingWindowMemory(6, 5)), "t",
                                        {3: "PostgreSQL (turn 3)"})
    texts = [t for t in fig.findobj(matplotlib.text.Text) if t.get_text().strip()]
    assert texts and min(t.get_fontsize() for t in texts) >= 9


@pytest.mark.parametrize("path", [NB02, NB03], ids=["02", "03"])
def test_stored_output_lines_fit_a_projected_screen(path):
    """03 printed summaries 170 characters wide, and 02 the pasted log's 115: both wrapped at 1280x720."""
    for cell in json.loads(path.read_text())["cells"]:
        for output in cell.get("outputs", []):
            text = "".join(output.get("text", ""))
            for line in text.splitlines():
                assert len(line) <= WIDEST_LINE, (cell["id"], line)


def test_03_the_turns_10x_needs_are_printed_where_the_prose_states_them():
    cells = json.loads(NB03.read_text())["cells"]
    prose = next("".join(c["source"]) for c in cells if c["id"] == "c8ef7ad8")
    stated = re.search(r"10× only at about (\d+) turns", prose).group(1)
    printed = "".join(next(c for c in cells if c["id"] == "9ca8116b")["outputs"][0]["text"])
    assert f"about {stated} turns" in printed
    bill = "".join(next(c for c in cells if c["id"] == "73a3f6c8")["outputs"][0]["text"])
    assert re.search(r"\((5\d)% of the buffer's\)", bill)       # "a little over half the buffer's bill"


def test_03_points_at_the_real_model_cell_where_it_is():
    """Section 4 said "the last cell of this section" of a cell that sits in section 5, after Save and load."""
    sources = ["".join(c["source"]) for c in json.loads(NB03.read_text())["cells"]]
    pointer = next(s for s in sources if "runs one if you have it" in s)
    assert "the cell after *Save and load*" in pointer
    save = next(i for i, s in enumerate(sources) if "## 5. Save and load" in s)
    real = next(i for i, s in enumerate(sources) if "OpenAICompatibleLLM.from_env" in s)
    assert [i for i, s in enumerate(sources) if "SummaryMemory.load(" in s] == [real - 2] and save < real


def test_the_sliders_answer_sits_under_them(scenario):
    """The widget's fact lines came after thirty message rows, off a 720-pixel screen below the sliders."""
    for recent_k, important_k, turn in [(6, 0, 29), (6, 5, 29), (1, 0, 1), (10, 3, 20)]:
        plain = window_view(scenario, recent_k, important_k, turn).splitlines()
        first = window_view(scenario, recent_k, important_k, turn, facts_first=True).splitlines()
        facts = [line for line in plain if "window mentions" in line]
        assert first[0] == plain[0] and first[1:len(facts) + 1] == facts and len(facts) <= 12
        assert sorted(line for line in first if line) == sorted(plain)
    slider_cell = code_cells(NB02)["618564b1"]
    assert "facts_first=w.fixed(True)" in slider_cell
