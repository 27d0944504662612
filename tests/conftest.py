"""Shared test helpers."""
import importlib.util
import tempfile
import uuid
from pathlib import Path

import pytest
from hypothesis import settings

from teachmem import load_scenario, local_postgres

# Property tests explore the same examples on every run (seeded, no example
# database), so a test run is as repeatable as the notebooks.
settings.register_profile("teachmem", derandomize=True, database=None)
settings.load_profile("teachmem")

ROOT = Path(__file__).resolve().parent.parent
RUN = uuid.uuid4().hex[:8]          # PostgreSQL tests: this run's users, apart from any earlier run's


def load_solutions(stem: str):
    """Import notebooks/solutions/<stem>_solutions.py as a module."""
    path = ROOT / "notebooks" / "solutions" / f"{stem}_solutions.py"
    spec = importlib.util.spec_from_file_location(f"solutions_{stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def scenario():
    return load_scenario("project_30")


def _stub(*args):
    raise NotImplementedError


def proves_checker(checker, solution, wrongs, capsys):
    """A checker is honest: it passes the worked solution, fails every wrong
    answer with a ❌ line, and reports an untouched stub as not implemented."""
    assert checker(solution), f"{checker.__name__} rejects the worked solution"
    assert "✅" in capsys.readouterr().out
    for wrong in wrongs:
        assert not checker(wrong), f"{checker.__name__} accepts a wrong answer"
        assert "❌" in capsys.readouterr().out
    assert not checker(_stub)
    assert "not implemented yet" in capsys.readouterr().out


@pytest.fixture(scope="session")
def pg_dsn():
    """One PostgreSQL server for the whole run: started from the wheel in a temporary folder (or the server
    TEACHMEM_PG_DSN names), stopped at the end. Not under pytest's own temporary root: every pytest run on the
    machine resets that to owner-only, and the server runs as another system user when tests run as root."""
    with tempfile.TemporaryDirectory(prefix="teachmem-pg-") as folder, local_postgres(folder) as server:
        yield server.dsn


@pytest.fixture
def user(request):
    """A user id of this test's own: tests share one table, row-level security keeps them apart (the run's own
    prefix keeps a server named by TEACHMEM_PG_DSN usable run after run)."""
    return f"{RUN}-{request.node.nodeid.rsplit('::', 1)[-1]}"
