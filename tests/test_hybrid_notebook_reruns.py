"""Notebook 06 survives an instructor going back: re-running an earlier cell after later ones leaves every
later cell's answer as it was (no cell's names overwrite what another cell reads)."""
import contextlib
import io
import json

import matplotlib
import pytest

from conftest import ROOT, load_solutions

matplotlib.use("Agg")
NOTEBOOK = ROOT / "notebooks" / "06_hybrid_manager.ipynb"


@pytest.fixture(scope="module")
def cells():
    nb = json.loads(NOTEBOOK.read_text())
    return {c["id"]: "".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"}


def run(source, namespace):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, "<cell>", "exec"), namespace)
    return out.getvalue()


def test_re_running_earlier_cells_changes_no_later_answer(cells, monkeypatch):
    monkeypatch.chdir(ROOT)
    namespace: dict = {}
    first = {cid: run(src, namespace) for cid, src in cells.items()}
    # go back: the agreement check, the naive demo, the budget loop, the packing's helpers, the small example
    for cid in ("fe526b97", "39641ca3", "67e485a2", "f27ef025"):
        run(cells[cid], namespace)
    run(cells["acdad3c9"], namespace)                                   # section 4 once more
    assert callable(namespace["block"])                                 # section 4's counter has its own name
    assert run(cells["fe526b97"], namespace) == first["fe526b97"]      # block() still packs
    for cid in ("fe526b97", "67e485a2"):                               # ... then re-run a loop that reassigns
        run(cells[cid], namespace)
    assert run(cells["4305bef2"], namespace) == first["4305bef2"]
    assert run(cells["406ff8f2"], namespace) == first["406ff8f2"]      # the poisoned prompt, not the naive one
    namespace["predicted_turns"] = load_solutions("06_hybrid_manager").predicted_turns
    revealed = run(cells["587397cb"], namespace)
    assert "the manager keeps turns  [25, 26, 27, 28]" in revealed
    assert "the skip rule keeps turns [23, 25, 26, 27, 28] and leaves 2 tokens unused" in revealed
    assert "✓ predicted_turns: passed" in revealed
