"""Notebook 10 survives a class: a replica started twice leaves no server behind, the cells a learner runs again
print the same, and the exercises still work after Run All."""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import psycopg
import pytest

from conftest import run_cell

from teachmem.lab.storage.postgres import ENV_DSN, read_replica

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "10_from_laptop_to_production.ipynb"


def postgres_processes(folder: str | Path) -> list[int]:
    """The ids of live PostgreSQL processes whose command line names ``folder`` (a ``-D`` or socket folder)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = next(line for line in (entry / "status").read_text().splitlines() if line.startswith("State:"))
        except (OSError, StopIteration):
            continue
        if "bin/postgres" in command and str(folder) in command and "Z" not in state.split()[1]:
            found.append(int(entry.name))
    return found


@pytest.mark.skipif(bool(os.environ.get(ENV_DSN)), reason="a server given by its DSN is not ours to copy")
def test_a_replica_started_twice_in_one_folder_leaves_no_server_running(pg_server):
    """read_replica used to delete the running replica's folder and start a second one there: stop() then
    reached only the second, and the first ran on from a deleted folder."""
    with tempfile.TemporaryDirectory(prefix="teachmem-replica-") as folder:
        first = read_replica(pg_server, folder)
        assert postgres_processes(Path(folder) / "replica")
        second = read_replica(pg_server, folder)
        with psycopg.connect(second.dsn) as conn:
            assert conn.execute("SELECT pg_is_in_recovery()").fetchone()[0]
        second.stop()
        first.stop()                     # the first one's handle: nothing left to stop, and no error
        assert postgres_processes(Path(folder) / "replica") == []


# --- the notebook's own cells, run as a kernel runs them -----------------------------------------------------

def code_cells() -> list[tuple[str, str]]:
    cells = json.loads(NOTEBOOK.read_text())["cells"]
    return [(c["id"], "".join(c["source"])) for c in cells if c["cell_type"] == "code"]


CLEANUP = "finished = True"       # the learner's own switch in the last cell


@pytest.fixture
def notebook_run(monkeypatch):
    """Every code cell once, in order (the prediction 10.1 answered), in one namespace; the servers the notebook
    started are stopped and its scratch folder deleted afterwards, whatever the test did."""
    monkeypatch.delenv(ENV_DSN, raising=False)
    monkeypatch.chdir(ROOT / "notebooks")
    cells = code_cells()
    scope: dict = {"__name__": "__main__"}
    first = {}
    for cell_id, source in cells:
        source = source.replace("rls_prediction = ...", "rls_prediction = 0")
        first[cell_id] = run_cell(source, scope)
    yield cells, scope, first
    last_id, last = cells[-1]
    run_cell(last.replace("finished = False", CLEANUP), scope)


def cell_with(cells, text: str) -> tuple[str, str]:
    return next((cid, source) for cid, source in cells if text in source)


def test_10_after_run_all_the_exercises_still_work_and_cells_run_again(notebook_run, capsys):
    cells, scope, first = notebook_run
    # Run All leaves the servers running: the last cell stops them only when the learner says so
    assert scope["server"].running and scope["replica"].running
    # "✓ no copy remains" was printed while PgMemoryStore's table on the same server still held 3 rows saying it
    forget_id, _ = cell_with(cells, "print(forget(")
    assert "✓ no copy remains\nchecked: MemoryDB's own tables (schema memorydb)" in first[forget_id]
    with psycopg.connect(scope["server"].dsn) as owner:
        assert owner.execute("SELECT count(*) FROM memories WHERE text ILIKE '%postgresql%'").fetchone()[0] == 0
    dead_id, _ = cell_with(cells, "VACUUM FULL memories")
    assert first[dead_id].splitlines()[-1].endswith("rows that say it 0 | dead row versions 0 | in the page bytes 0")
    # 10.1, answered after Run All: the right prediction is right, the reveal prints 0
    _, reveal = cell_with(cells, "check_rls_prediction(")
    scope["rls_prediction"] = 0
    said = run_cell(reveal, scope)
    assert said.splitlines()[0] == "0" and "✓ prediction: passed" in said, said
    # 10.2, answered after Run All
    _, index = cell_with(cells, "check_index_query(")
    said = run_cell(index.replace("ORDER BY 1 - (embedding <=> %(query)s) DESC LIMIT 5",
                                  "ORDER BY embedding <=> %(query)s LIMIT 5"), scope)
    assert "✓ nearest five through the index: passed" in said, said
    # the cells a class runs again print what they printed the first time
    for marker in ("feed(PgMemoryStore(", "read_replica(server", "noor.store("):
        cell_id, source = cell_with(cells, marker)
        assert run_cell(source, scope) == first[cell_id], marker


def test_10_the_cleanup_runs_twice_and_leaves_nothing_running(notebook_run):
    cells, scope, _ = notebook_run
    workdir = scope["workdir"]
    _, replica_cell = cell_with(cells, "read_replica(server")
    run_cell(replica_cell, scope)                        # the replica cell run twice
    _, last = cells[-1]
    for _ in range(2):                                    # the cleanup run twice
        said = run_cell(last.replace("finished = False", CLEANUP), scope)
        assert "replica running: False | primary running: False" in said
    assert postgres_processes(workdir) == [] and not workdir.exists()



KILLED = """
import sys
from teachmem import local_postgres
from teachmem.lab.storage.postgres import read_replica
server = local_postgres()
replica = read_replica(server, server.folder)       # as notebook 10 does
print(server.folder, flush=True)
sys.stdin.read()                      # until killed
"""


@pytest.mark.skipif(bool(os.environ.get(ENV_DSN)), reason="a server given by its DSN is not started here")
def test_a_killed_kernel_leaves_no_server_and_no_scratch_folder():
    """nbval ends a notebook's kernel with a kill: atexit never ran, and notebook 10's servers ran on, their
    scratch folder left in /tmp."""
    import signal
    import subprocess
    import sys
    import time
    child = subprocess.Popen([sys.executable, "-c", KILLED], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    folder = Path(child.stdout.readline().strip())
    try:
        assert folder.is_dir() and len(postgres_processes(folder)) >= 2      # the primary and the replica
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    for _ in range(300):
        if not postgres_processes(folder) and not folder.exists():
            break
        time.sleep(0.1)
    assert postgres_processes(folder) == [] and not folder.exists()
