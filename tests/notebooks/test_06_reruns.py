"""Notebook 06 survives an instructor going back: re-running an earlier cell after later ones leaves every
later cell's answer as it was (no cell's names overwrite what another cell reads)."""
import json

import matplotlib
import pytest

from conftest import ROOT, load_solutions, run_cell

matplotlib.use("Agg")
NOTEBOOK = ROOT / "notebooks" / "06_hybrid_manager.ipynb"


@pytest.fixture(scope="module")
def cells():
    nb = json.loads(NOTEBOOK.read_text())
    return {c["id"]: "".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"}


def test_re_running_earlier_cells_changes_no_later_answer(cells, monkeypatch):
    monkeypatch.chdir(ROOT)
    namespace: dict = {}
    first = {cid: run_cell(src, namespace) for cid, src in cells.items()}
    # go back: the checker of your class, the budget loop, the library's source, section 4 once more
    for cid in ("fe526b97", "67e485a2", "f27ef025", "acdad3c9"):
        run_cell(cells[cid], namespace)
    assert run_cell(cells["fe526b97"], namespace) == first["fe526b97"]      # the check says the same
    for cid in ("fe526b97", "67e485a2"):                               # ... then re-run a loop that reassigns
        run_cell(cells[cid], namespace)
    assert run_cell(cells["4305bef2"], namespace) == first["4305bef2"]      # the dropped copies of MySQL
    assert run_cell(cells["5bda5f9c"], namespace) == first["5bda5f9c"]      # the poisoned prompt
    namespace["predicted_turns"] = load_solutions("06_hybrid_manager").predicted_turns
    revealed = run_cell(cells["587397cb"], namespace)
    assert "the manager keeps turns  [25, 26, 27, 28]" in revealed
    assert "the skip rule keeps turns [23, 25, 26, 27, 28] and leaves 2 tokens unused" in revealed
    assert "✓ predicted_turns: passed" in revealed
