"""A predict-then-run cell never shows its answer before the learner has predicted.

In the stored notebooks (as a learner first opens them) each prediction is still its placeholder,
``...``. Every cell that uses a prediction must then hold back what it prints and draws
(``lesson.after_prediction``), and the prose that explains the answer must wait, folded, in a
``<details>`` block right after it.
"""
from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ["02_sliding_window", "03_summary_memory", "06_hybrid_manager", "09_persistence_and_governance"]
PLACEHOLDER = re.compile(r"^(\w+) = \.\.\.", re.MULTILINE)
NONE_PLACEHOLDER = re.compile(r"^\w+ = None\b.*#.*\b(?:predict|your)", re.MULTILINE | re.IGNORECASE)
HIDDEN = "The output is hidden until you write your prediction above"


def _outputs(cell) -> str:
    return "".join(out.get("text", "") for out in cell.get("outputs", []))


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_a_prediction_reveals_nothing_until_written(name):
    cells = nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", as_version=4).cells
    found = 0
    for i, cell in enumerate(cells):
        if cell.cell_type != "code" or not PLACEHOLDER.search(cell.source):
            continue
        names = PLACEHOLDER.findall(cell.source)
        users = [j for j in range(i + 1, len(cells)) if cells[j].cell_type == "code"
                 and any(re.search(rf"\b{n}\b", cells[j].source) for n in names)]
        assert users, f"{name} cell {i}: no cell uses the prediction {names}"
        for j in users:
            assert "after_prediction(" in cells[j].source, f"{name} cell {j} shows its answer unconditionally"
            assert HIDDEN in _outputs(cells[j]), f"{name} cell {j} is stored with its answer showing"
            assert not any(out.get("data", {}).get("image/png") for out in cells[j].get("outputs", [])), \
                f"{name} cell {j} stores a plot that gives the answer away"
        after = next(c for c in cells[users[-1] + 1:] if c.cell_type == "markdown")
        assert after.source.startswith("<details><summary>"), f"{name}: the explanation after cell {users[-1]} is open"
        found += 1
    assert found >= 1, f"{name} has no predict-then-run question"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_every_placeholder_is_an_ellipsis(name):
    for i, cell in enumerate(nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", as_version=4).cells):
        if cell.cell_type == "code":
            assert not NONE_PLACEHOLDER.search(cell.source), f"{name} cell {i}: write the placeholder as ..."
