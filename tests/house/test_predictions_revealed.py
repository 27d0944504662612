"""The predict-then-run exercises of notebooks 00, 01, 04, 07, 08, 08b and 09b keep their answers until
the learner has predicted: read on the stored notebooks, as a learner opening them sees them.

- The cell that reveals the answer runs it inside ``lesson.after_prediction(<the prediction>)`` and
  checks the prediction after it; stored with the placeholder, it shows only the "hidden" line and ○.
- Nothing from the question to the reveal (stored outputs, code, prose) shows the answer, and no prose
  before the reveal states it; the explanation follows the reveal, folded in a "Why?" ``<details>``.
- Code lines fit a projector (at most 100 characters), and the prose names no test file.
"""
from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import pytest

from teachmem.lessons import common

ROOT = Path(__file__).resolve().parents[2]
HIDDEN = "The output is hidden until you write your prediction above"
WHY = "<details><summary>Why? (open after you have run the cell)</summary>\n\n"

# notebook -> (lesson module, prediction variable,
#              what the answer looks like in an output, what states it in prose or a code comment)
REVEALS = {
    "00_start_here": ("start_here", "name_prediction", ["Your name is"], ["old name"]),
    "01_conversation_buffer": ("buffer", "doubling_prediction", ["3,990,000", "4.01×"],
                               ["square", "quadratic", "2 × 2"]),
    "04_entity_memory": ("entity", "yields_a_fact", ["confidence", "filtered out"], ["Bootstrap's"]),
    "07_compare_strategies": ("compare", "predicted_ratio", ["times as many", "57,476"],
                              ["square", "four times"]),
    "08_evaluate_memory": ("evaluate_memory", "still_sends", ["deleted↓", "hybrid "],
                           ["still holds the address", "keeps sending the address", "Four strategies"]),
    "08b_evaluate_on_locomo": ("locomo", "prediction", ["word overlap 0."], ["Lower, at every"]),
    "09b_sqlite_internals_and_audits": ("internals", "prediction", ["load, then save"],
                                        ["lost update", "overwrite"]),
}


def cells(stem: str) -> list[dict]:
    return json.loads((ROOT / "notebooks" / f"{stem}.ipynb").read_text())["cells"]


def source(cell: dict) -> str:
    return "".join(cell["source"])


def shown(cell: dict) -> str:
    """What a cell's stored outputs show, as text."""
    parts = []
    for out in cell.get("outputs", []):
        parts.append("".join(out.get("text", "")))
        parts.extend("".join(v) for k, v in out.get("data", {}).items() if k.startswith("text/"))
    return "\n".join(parts)


def reveal_index(stem: str) -> int:
    _, variable, _, _ = REVEALS[stem]
    found = [i for i, c in enumerate(cells(stem))
             if c["cell_type"] == "code" and f"after_prediction({variable})" in source(c)]
    assert len(found) == 1, f"{stem}: expected one cell with `with lesson.after_prediction({variable}):`"
    return found[0]


def question_index(stem: str) -> int:
    before = cells(stem)[:reveal_index(stem)]
    asks = [i for i, c in enumerate(before) if c["cell_type"] == "markdown" and re.search(r"predict, then run",
                                                                                         source(c), re.I)]
    assert asks, f"{stem}: no 'Predict, then run' question before the reveal"
    return asks[-1]


@pytest.mark.parametrize("stem", REVEALS)
def test_the_reveal_runs_inside_after_prediction_and_checks_after_it(stem):
    module, variable, _, _ = REVEALS[stem]
    lesson = importlib.import_module(f"teachmem.lessons.{module}")
    assert lesson.after_prediction is common.after_prediction
    cell = cells(stem)[reveal_index(stem)]
    text = source(cell)
    assert f"with lesson.after_prediction({variable}):" in text
    check = re.search(rf"^lesson\.check_\w+\({variable}\)$", text, re.MULTILINE)
    assert check and check.start() > text.index("after_prediction"), f"{stem}: the check comes after the reveal"
    placeholder = [c for c in cells(stem)[question_index(stem):reveal_index(stem)]
                   if re.search(rf"^{variable} = (\.\.\.|None)(?=\s|$)", source(c), re.MULTILINE)]
    assert placeholder, f"{stem}: {variable} starts as a placeholder between the question and the reveal"


@pytest.mark.parametrize("stem", REVEALS)
def test_the_stored_reveal_shows_only_that_it_waits_for_a_prediction(stem):
    out = shown(cells(stem)[reveal_index(stem)])
    assert HIDDEN in out and "not answered yet" in out, out
    lines = out.strip().splitlines()       # the hidden line, then the checker's: "not answered yet" and its advice
    assert len(lines) == 3 and lines[2].strip().startswith("Write your answer in place of the placeholder"), out


@pytest.mark.parametrize("stem", REVEALS)
def test_nothing_between_the_question_and_the_reveal_gives_the_answer_away(stem):
    """00 printed "Your name is Maya." under the placeholder; 08 printed the scoreboard, 09b said "lost update"."""
    _, _, answers, statements = REVEALS[stem]
    everything = cells(stem)
    for i, cell in enumerate(everything[question_index(stem):reveal_index(stem) + 1], question_index(stem)):
        for answer in answers:
            assert answer not in shown(cell), f"{stem} cell {i} shows {answer!r} before the prediction"
    for i, cell in enumerate(everything[:reveal_index(stem) + 1]):
        for statement in statements:
            assert statement.lower() not in source(cell).lower(), f"{stem} cell {i} says {statement!r} too early"


@pytest.mark.parametrize("stem", REVEALS)
def test_the_explanation_follows_the_reveal_folded(stem):
    _, _, _, statements = REVEALS[stem]
    after = cells(stem)[reveal_index(stem) + 1]
    text = source(after)
    assert after["cell_type"] == "markdown" and text.startswith(WHY) and "</details>" in text, text[:120]
    why = text[:text.index("</details>")].lower()
    assert any(s.lower() in why for s in statements), f"{stem}: the Why? does not explain the answer"


@pytest.mark.parametrize("stem", REVEALS)
def test_code_fits_a_projector_and_the_prose_names_no_test_file(stem):
    for i, cell in enumerate(cells(stem)):
        if cell["cell_type"] == "code":
            long = [line for line in source(cell).splitlines() if len(line) > 100]
            assert not long, f"{stem} cell {i} has a line of {len(long[0])} characters"
        else:
            found = re.search(r"tests/[\w/]+\.py", source(cell))
            assert not found, f"{stem} cell {i} names {found.group()}: say what is checked instead"
