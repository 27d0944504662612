"""Shared test helpers."""
import importlib.util
from pathlib import Path

import pytest

from teachmem import load_scenario

ROOT = Path(__file__).resolve().parent.parent


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
