"""CONTRIBUTING.md's two checklists, "Add a strategy" and "Add a notebook", held where a test can hold them.

A strategy is a class of ``teachmem/memory/`` with ``add`` and ``context`` (the series' protocol):
it declares a ``kind`` of its own, links the notebook that teaches it, and a library test names it.
A numbered notebook has a solutions file, a lesson module it imports as ``lesson`` (whose docstring
links back to it), a test file in ``tests/notebooks/`` named with its number, a row in the README
and an entry in ``notebooks/INSTRUCTOR.md``. Every path CONTRIBUTING.md names exists (a folder of the
package may be named without ``teachmem/``).
"""
from __future__ import annotations

import importlib
import json
import pkgutil
import re
from pathlib import Path

import pytest

import teachmem.memory
import teachmem.memory.buffer

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
NUMBERED = sorted(p for p in NOTEBOOKS.glob("[0-9][0-9]*_*.ipynb"))
TAUGHT_IN = re.compile(r"Taught in notebooks/(\w+)\.ipynb")
LESSON_IMPORT = re.compile(r"from teachmem\.lessons import (\w+) as lesson\b")


def strategies() -> list[type]:
    """Every class defined in ``teachmem/memory/`` that has ``add`` and ``context``, protocols aside."""
    found = []
    for info in pkgutil.iter_modules(teachmem.memory.__path__):
        module = importlib.import_module(f"teachmem.memory.{info.name}")
        for value in vars(module).values():
            if (isinstance(value, type) and value.__module__ == module.__name__
                    and not getattr(value, "_is_protocol", False)
                    and callable(getattr(value, "add", None)) and callable(getattr(value, "context", None))):
                found.append(value)
    return sorted(found, key=lambda cls: cls.__name__)


def number(notebook: Path) -> str:
    return notebook.stem.split("_")[0]


def test_there_are_strategies_and_notebooks_to_check():
    names = {cls.__name__ for cls in strategies()}
    assert {"ConversationBuffer", "SemanticMemoryStore", "JudgedSemanticStore", "HybridMemoryManager"} <= names
    assert [number(p) for p in NUMBERED][:3] == ["00", "01", "02"]


# ---------------------------------------------------------------- add a strategy
def strategy_problems(cls: type, library_tests: str) -> list[str]:
    """What the "Add a strategy" checklist finds missing in ``cls``; ``library_tests``: tests/library's text."""
    problems = []
    if not (isinstance(cls.__dict__.get("kind"), str) and cls.__dict__["kind"]):
        problems.append(f"{cls.__name__} declares no kind of its own")
    module = importlib.import_module(cls.__module__)
    links = TAUGHT_IN.findall((cls.__doc__ or "") + (module.__doc__ or ""))
    if not links or not all((NOTEBOOKS / f"{stem}.ipynb").exists() for stem in links):
        problems.append(f"{cls.__name__}: no 'Taught in notebooks/NN_x.ipynb' naming a notebook that exists")
    if not re.search(rf"\b{cls.__name__}\b", library_tests):
        problems.append(f"no test in tests/library/ names {cls.__name__}")
    return problems


LIBRARY_TESTS = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests" / "library").glob("test_*.py"))


@pytest.mark.parametrize("cls", strategies(), ids=lambda cls: cls.__name__)
def test_a_strategy_declares_a_kind_links_its_notebook_and_has_a_library_test(cls):
    assert not strategy_problems(cls, LIBRARY_TESTS)


def test_the_strategy_checklist_finds_what_a_new_class_lacks():
    class Untaught(teachmem.memory.buffer.ConversationBuffer):
        """A strategy with none of the three."""

    Untaught.__module__ = "teachmem.memory.judged_semantic"    # a module whose docstring has a link
    assert strategy_problems(Untaught, LIBRARY_TESTS) == ["Untaught declares no kind of its own",
                                                           "no test in tests/library/ names Untaught"]


def test_strategy_kinds_are_unique():
    kinds = [cls.kind for cls in strategies()]
    assert len(kinds) == len(set(kinds)), sorted(k for k in kinds if kinds.count(k) > 1)


# ---------------------------------------------------------------- add a notebook
def code(notebook: Path) -> str:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")


@pytest.mark.parametrize("notebook", NUMBERED, ids=lambda p: p.stem)
def test_a_notebook_has_solutions_a_lesson_module_tests_and_instructor_notes(notebook):
    stem, nn = notebook.stem, number(notebook)
    assert (NOTEBOOKS / "solutions" / f"{stem}_solutions.py").exists(), f"{stem}: no solutions file"
    lessons = set(LESSON_IMPORT.findall(code(notebook)))
    assert len(lessons) == 1, f"{stem} imports {sorted(lessons)} as lesson: one lesson module a notebook"
    lesson = importlib.import_module(f"teachmem.lessons.{lessons.pop()}")
    assert f"notebooks/{stem}.ipynb" in (lesson.__doc__ or ""), f"{lesson.__name__}'s docstring names no {stem}"
    tests = [p.name for p in (ROOT / "tests" / "notebooks").glob("test_*.py") if nn in p.stem.split("_")]
    assert tests, f"no tests/notebooks/test_{nn}_….py"
    instructor = (NOTEBOOKS / "INSTRUCTOR.md").read_text(encoding="utf-8")
    assert re.search(rf"^(## |\*\*){nn}\b", instructor, re.MULTILINE), f"INSTRUCTOR.md has no entry for {nn}"
    assert f"(notebooks/{stem}.ipynb)" in (ROOT / "README.md").read_text(encoding="utf-8"), f"README: no {stem}"


# ---------------------------------------------------------------- the guide's paths
def test_every_path_contributing_names_exists():
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    named = {m for m in re.findall(r"`([\w./*-]+/[\w./*-]*)`", text)
             if not m.startswith(("http", ".venv", "../")) and "NN" not in m}
    # a path is the repository's, or the package's when the guide speaks of its folders ("memory/message.py")
    missing = sorted(p for p in named
                     if not any(ROOT.glob(p.rstrip("/"))) and not any((ROOT / "teachmem").glob(p.rstrip("/"))))
    assert not missing, f"CONTRIBUTING.md names paths that do not exist: {missing}"
    for heading in ("## Add a strategy", "## Add a notebook"):
        assert heading in text


def test_the_guide_s_tree_names_folders_that_exist_and_every_subpackage_of_lab():
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    tree = text.split("## Where things are", 1)[1].split("```")[1]
    parent, named = ROOT, []
    for line in tree.strip().splitlines():
        entry = line.split()[0]
        path = (parent if line.startswith(" ") else ROOT) / entry
        if not line.startswith(" "):
            parent = path
        named.append(path)
    assert [p for p in named if not p.exists()] == []
    subpackages = {p for p in (ROOT / "teachmem" / "lab").iterdir() if (p / "__init__.py").exists()}
    assert subpackages <= set(named), sorted(p.name for p in subpackages - set(named))
