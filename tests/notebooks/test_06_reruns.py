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
    # go back: the agreement check, the naive demo, the budget loop, the packing's helpers, the small example
    for cid in ("fe526b97", "39641ca3", "67e485a2", "f27ef025"):
        run_cell(cells[cid], namespace)
    run_cell(cells["acdad3c9"], namespace)                                   # section 4 once more
    assert callable(namespace["block"])                                 # section 4's counter has its own name
    assert run_cell(cells["fe526b97"], namespace) == first["fe526b97"]      # block() still packs
    for cid in ("fe526b97", "67e485a2"):                               # ... then re-run a loop that reassigns
        run_cell(cells[cid], namespace)
    assert run_cell(cells["4305bef2"], namespace) == first["4305bef2"]
    assert run_cell(cells["406ff8f2"], namespace) == first["406ff8f2"]      # the poisoned prompt, not the naive one
    namespace["predicted_turns"] = load_solutions("06_hybrid_manager").predicted_turns
    revealed = run_cell(cells["587397cb"], namespace)
    assert "the manager keeps turns  [25, 26, 27, 28]" in revealed
    assert "the skip rule keeps turns [23, 25, 26, 27, 28] and leaves 2 tokens unused" in revealed
    assert "✓ predicted_turns: passed" in revealed
