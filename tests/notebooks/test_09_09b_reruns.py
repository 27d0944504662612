"""Notebooks 09 and 09b survive an instructor: the cells a class re-runs (a demo shown again, a prediction
answered, a scratch file made again) print the same the second time, after everything else has run.

Each notebook's code cells run here in one namespace, in order, as a kernel runs them; IPython's way of
keeping a cell's text (for ``lesson.cell_source``) is imitated with ``linecache``.
"""
from __future__ import annotations

import contextlib
import io
import json
import linecache
import os
from pathlib import Path

import matplotlib
import pytest

ROOT = Path(__file__).resolve().parents[2]


def _code_cells(stem: str) -> list[tuple[str, str]]:
    nb = json.loads((ROOT / "notebooks" / f"{stem}.ipynb").read_text())
    return [(c["id"], "".join(c["source"])) for c in nb["cells"] if c["cell_type"] == "code"]


def _run(cell_id: str, source: str, scope: dict, run: int) -> str:
    name = f"<cell {cell_id} run {run}>"
    linecache.cache[name] = (len(source), None, source.splitlines(True), name)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, name, "exec"), scope)
    return out.getvalue()


@pytest.fixture
def notebook_folder(monkeypatch):
    matplotlib.use("Agg")
    monkeypatch.chdir(ROOT / "notebooks")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))


def _rerun(stem: str, answers: dict[str, str], again: list[str]) -> dict[str, tuple[str, str]]:
    """Run every code cell (with ``answers`` replacing the cells they name), then the cells ``again`` once more:
    each re-run cell's output, first time and second."""
    cells = [(cid, answers.get(cid, source)) for cid, source in _code_cells(stem)]
    scope: dict = {"__name__": "__main__"}
    first = {cid: _run(cid, source, scope, 1) for cid, source in cells}
    sources = dict(cells)
    return {cid: (first[cid], _run(cid, sources[cid], scope, 2)) for cid in again}


def test_09_cells_an_instructor_runs_again_print_the_same(notebook_folder):
    shown = _rerun("09_persistence_and_governance", {"563ad3be": 'still_holding = {"summary"}'},
                   ["68d3f23d", "34df3081", "c1cb56b9", "f92a6687", "e8cb6c44"])
    for cell_id, (first, second) in shown.items():
        assert first == second, (cell_id, first, second)
    server = shown["68d3f23d"][0]          # the restart demo: two messages, then three, on every run
    assert "remembers 2 messages" in server and "remembers 3 messages" in server and "5 messages" not in server
    assert "still holding personal data: [('summary'" in shown["c1cb56b9"][0]


def test_09_the_restarted_server_runs_the_notebooks_own_tiny_store():
    """Section 2 is "Build it": the server that survives the restart must be the TinyStore just built."""
    server = dict(_code_cells("09_persistence_and_governance"))["68d3f23d"]
    assert "from tinystore import TinyStore" in server and "cell_source(TinyStore)" in server
    assert "MemoryDB" not in server


def test_09b_cells_that_make_files_run_twice(notebook_folder):
    shown = _rerun("09b_sqlite_internals_and_audits", {"2e9c5ff4": "prediction = 1"},
                   ["41b9c62a", "6a1364f7", "5f01cf94", "50b1aaf6", "7ab8a0b3", "c8fa49bd"])
    for cell_id, (first, second) in shown.items():
        assert first == second, (cell_id, first, second)
    assert "refused: path 'future.db'" in shown["41b9c62a"][1]
    assert "1 copy in the file bytes" in shown["5f01cf94"][1]
    # the lock demo shows B waiting for A's lock, not two updates one after the other
    assert shown["7ab8a0b3"][0].splitlines() == [
        "A holds the write lock (its transaction is open)",
        "B calls update(), which asks for the write lock",
        "A saves and commits",
        "B gets the lock and loads ['message handled by server A']",
        "update: ['message handled by server A', 'message handled by server B']"]

