"""The house tools: doctests of teachmem/core, the time estimate, the reading-load script."""
from __future__ import annotations

import ast
import doctest
import importlib
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import estimate_time  # noqa: E402
import reading_load  # noqa: E402

CORE = sorted(p for p in (ROOT / "teachmem" / "core").glob("*.py") if p.name != "__init__.py")


def _run_doctests(module) -> doctest.TestResults:
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in doctest.DocTestFinder().find(module):
        runner.run(test)
    return runner.summarize(verbose=False)


@pytest.mark.parametrize("path", CORE, ids=lambda p: p.name)
def test_the_examples_in_core_run(path):
    results = _run_doctests(importlib.import_module(f"teachmem.core.{path.stem}"))
    assert results.failed == 0, f"{results.failed} of {results.attempted} examples in {path.name} fail (see above)"


@pytest.mark.parametrize("path", CORE, ids=lambda p: p.name)
def test_every_public_helper_of_core_carries_an_example(path):
    tree = ast.parse(path.read_text())
    without = [node.name for node in tree.body
               if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("_")
               and ">>> " not in (ast.get_docstring(node) or "")]
    assert not without, f"{path.name}: no example (>>>) in the docstring of {', '.join(without)}"


def test_the_tools_examples_run():
    assert _run_doctests(estimate_time).failed == 0


# ------------------------------------------------------------------ the time estimate
def _notebook(tmp_path: Path, cells: list[tuple[str, str]]) -> Path:
    path = tmp_path / "03_x.ipynb"
    path.write_text(json.dumps({"cells": [{"cell_type": kind, "source": [text], "metadata": {}}
                                          for kind, text in cells]}))
    return path


def test_the_estimate_follows_the_yardstick(tmp_path):
    prose = " ".join(["word"] * 250)
    path = _notebook(tmp_path, [
        ("markdown", "# Title\n\nAbout 20 minutes.\n\n" + prose),       # 4 + 250 words
        ("code", "x = 1"),
        ("markdown", "## Exercises\n\n**3.1** Write it.\n```python\nnot prose at all\n```"),   # 4 words
        ("code", "check(x)"),
        ("markdown", "**3.2 · Predict.** What <b>happens</b>? [See](https://example.org/a/b)"),  # 5 words
        ("code", "check(y)"),
        ("raw", "ignored words here"),
    ])
    e = estimate_time.estimate(path)
    assert (e.words, e.code_cells, e.exercises, e.stated) == (263, 3, ("3.1", "3.2"), 20)
    # 263 / 130 + 3 + 2 × 8 = 21.02 minutes, rounded up
    assert e.minutes == 22
    table = estimate_time.table([e, e])
    assert table.splitlines()[-1].split() == ["total", "526", "6", "4", "44", "40"]


def test_an_exercise_counts_once_and_a_bold_number_mid_line_is_none(tmp_path):
    path = _notebook(tmp_path, [("markdown", "## Exercise 0.1: which facts?"),
                                ("markdown", "**0.1** again, the same exercise; a score of **0.88** mid-line")])
    assert estimate_time.estimate(path).exercises == ("0.1",)


def test_the_script_prints_every_notebook_and_a_total(capsys):
    assert estimate_time.main([]) == 0
    out = capsys.readouterr().out
    notebooks = sorted((ROOT / "notebooks").glob("*.ipynb"))
    assert notebooks and all(nb.name in out for nb in notebooks)
    total = out.splitlines()[-1].split()
    assert total[0] == "total"
    assert int(total[4]) == sum(estimate_time.estimate(nb).minutes for nb in notebooks)


def test_the_reading_load_script_prints_every_strategy(capsys):
    assert reading_load.main([]) == 0
    out = capsys.readouterr().out
    known = reading_load.modules()
    for strategy, load in reading_load.reading_loads().items():
        assert (f"{strategy.removeprefix('teachmem.'):40} {load.total:5d} lines = own {load.own_lines}"
                f" + imports {load.imported_lines} + methods {load.methods_lines}") in out
        assert load.own_lines == sum(reading_load.lines(known[m]) for m in load.own)
        assert load.imported_lines == sum(reading_load.lines(known[m]) for m in load.imported)
        assert load.total == load.own_lines + load.imported_lines + sum(n for _, n in load.methods)
    assert reading_load.main(["--limit", "1"]) == 1


def test_the_time_script_answers_help_and_names_a_missing_notebook(capsys):
    with pytest.raises(SystemExit) as done:
        estimate_time.main(["--help"])
    assert done.value.code == 0 and "130 words of prose a minute" in capsys.readouterr().out
    with pytest.raises(SystemExit) as done:
        estimate_time.main(["no/such.ipynb"])
    assert done.value.code == 2 and "no notebook at no/such.ipynb" in capsys.readouterr().err
