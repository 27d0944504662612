"""The house tools: doctests of teachmem/core, the time estimate, the reading-load script."""
from __future__ import annotations

import ast
import doctest
import importlib
import json
import math
import subprocess
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
def _notebook(tmp_path: Path, cells: list[tuple[str, str]], outputs: dict[int, list] | None = None) -> Path:
    path = tmp_path / "03_x.ipynb"
    path.write_text(json.dumps({"cells": [{"cell_type": kind, "source": [text], "metadata": {},
                                           **({"outputs": (outputs or {}).get(i, [])} if kind == "code" else {})}
                                          for i, (kind, text) in enumerate(cells)]}))
    return path


def test_the_estimate_counts_what_a_learner_does(tmp_path):
    prose = " ".join(["word"] * 250)
    image = {"output_type": "display_data", "data": {"image/png": "iVBOR", "text/plain": "<Figure>"}}
    widget = {"output_type": "execute_result",
              "data": {"application/vnd.jupyter.widget-view+json": {}, "text/plain": "interactive(...)"}}
    path = _notebook(tmp_path, [
        ("markdown", "# Title\n\nAbout 20 minutes.\n\n" + prose),                       # 4 + 250 words
        ("code", "x = 1\n\nprint(x)"),                                                 # 2 lines, 2 printed
        ("code", "plot(x)\nexplore(x)"),                                                # a figure, a widget
        ("markdown", "## Try it\n\n- Slide to 17.\n- Why?"),                            # 2 + 4 words, 2 asks
        ("markdown", "## Exercises\n\n**3.1 · Predict, then run.** Which?"),             # 1 + 5 words
        ("code", "check(x)"),
        ("markdown", "**3.2** Write it.\n```python\nnot prose at all\n```"),            # 3 words
        ("markdown", "## Think!\n\n1. Why?\n2. How?\n\n<details>\n\n1. Because.\n</details>"),  # 7 words (list numbers count)
        ("markdown", "## Summary\n\n**Quick check.** (a) What? (b) Why?\n\n**Predict, then run.** When?"),  # 11
        ("raw", "ignored words here"),
    ], outputs={1: [{"output_type": "stream", "name": "stdout", "text": ["1\n", "\n", "2\n"]}],
                2: [image, widget]})
    e = estimate_time.estimate(path)
    assert (e.words, e.code_lines, e.output_lines, e.figures, e.widgets) == (287, 5, 2, 1, 1)
    assert (e.try_it, e.think, e.quick_check) == (2, 2, 2)
    assert (e.exercises, e.predictions, e.numbered_predictions, e.stated) == (("3.1", "3.2"), 2, 1, 20)
    expected = (287 / estimate_time.WORDS_PER_MINUTE + 5 * estimate_time.SECONDS_PER_CODE_LINE / 60
                + 2 * estimate_time.SECONDS_PER_OUTPUT_LINE / 60 + estimate_time.MINUTES_PER_FIGURE
                + estimate_time.MINUTES_PER_WIDGET + 2 * estimate_time.MINUTES_PER_TRY_IT
                + 2 * estimate_time.MINUTES_PER_THINK + 2 * estimate_time.MINUTES_PER_QUICK_CHECK
                + 2 * estimate_time.MINUTES_PER_PREDICTION + estimate_time.MINUTES_PER_EXERCISE)
    assert e.exact == pytest.approx(expected)
    assert e.minutes == math.ceil(expected)
    table = estimate_time.table([e, e])
    assert table.splitlines()[-1].split() == ["total", "574", "10", "4", "4", "12", "4", str(2 * e.minutes), "40"]


def test_an_exercise_counts_once_and_a_bold_number_mid_line_is_none(tmp_path):
    path = _notebook(tmp_path, [("markdown", "## Exercise 0.1: which facts?"),
                                ("markdown", "**0.1** again, the same exercise; a score of **0.88** mid-line")])
    assert estimate_time.estimate(path).exercises == ("0.1",)


def test_a_heading_inside_a_fenced_block_starts_no_part():
    cells = [{"cell_type": "markdown", "source": "## 1. Go\n```python\n# a comment\n```\n**1.1** Do it."}]
    assert [p.title for p in estimate_time.parts(cells)] == ["1. Go", "Exercise 1.1"]


# The learners' times (issue 25) on the notebooks as they were timed, at commit 4a7613d. The copies in
# tests/data/timed_4a7613d/ are those notebooks with the image data left out (a figure counts, not its pixels).
TIMED = {"04_entity_memory": 65, "05_semantic_memory": 85, "08_evaluate_memory": 80}
TIMED_COPIES = ROOT / "tests" / "data" / "timed_4a7613d"


@pytest.mark.parametrize(("name", "learner"), TIMED.items())
def test_the_estimate_is_within_ten_percent_of_the_timed_learners(name, learner):
    estimate = estimate_time.estimate(TIMED_COPIES / f"{name}.json").minutes
    assert abs(estimate - learner) <= 0.10 * learner, f"{name}: {estimate} minutes, the learner took {learner}"


@pytest.mark.parametrize("name", TIMED)
def test_the_timed_copies_count_as_the_notebooks_at_4a7613d(name, tmp_path):
    try:
        shown = subprocess.run(["git", "show", f"4a7613d:notebooks/{name}.ipynb"], cwd=ROOT,
                               capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("no git history here to compare the copies with")
    (tmp_path / f"{name}.json").write_text(shown)
    assert estimate_time.estimate(tmp_path / f"{name}.json") == estimate_time.estimate(TIMED_COPIES / f"{name}.json")


def test_the_yardstick_is_plausible_per_activity():
    """No activity absorbs the calibration: each figure stays in a range a reader would believe."""
    assert 80 <= estimate_time.WORDS_PER_MINUTE <= 250
    assert 2 <= estimate_time.SECONDS_PER_CODE_LINE <= 15 and 1 <= estimate_time.SECONDS_PER_OUTPUT_LINE <= 10
    assert 0.5 <= estimate_time.MINUTES_PER_FIGURE <= 4 and 0.5 <= estimate_time.MINUTES_PER_WIDGET <= 3
    assert all(0.25 <= m <= 4 for m in (estimate_time.MINUTES_PER_TRY_IT, estimate_time.MINUTES_PER_THINK,
                                        estimate_time.MINUTES_PER_QUICK_CHECK))
    assert 2 <= estimate_time.MINUTES_PER_PREDICTION < estimate_time.MINUTES_PER_EXERCISE <= 20


def test_restate_rewrites_the_stated_time_and_nothing_else(tmp_path):
    source = ROOT / "notebooks" / "00_start_here.ipynb"
    path = tmp_path / source.name
    path.write_bytes(source.read_bytes())
    before = json.loads(path.read_text())
    old, new = estimate_time.restate(path)
    assert (old, new) == (estimate_time.estimate(source).stated, estimate_time.estimate(source).minutes)
    after = json.loads(path.read_text())
    assert estimate_time.estimate(path).stated == new
    changed = [(i, j) for i, (a, b) in enumerate(zip(before["cells"], after["cells"], strict=True))
               for j, (x, y) in enumerate(zip(a["source"], b["source"], strict=True)) if x != y]
    assert len(changed) <= 1 and (not changed or changed[0][0] < 2)
    for a, b in zip(before["cells"], after["cells"], strict=True):
        assert {k: v for k, v in a.items() if k != "source"} == {k: v for k, v in b.items() if k != "source"}
    assert before["metadata"] == after["metadata"]
    lines_before, lines_after = source.read_text().splitlines(), path.read_text().splitlines()
    assert len(lines_before) == len(lines_after)
    assert sum(x != y for x, y in zip(lines_before, lines_after, strict=True)) == (0 if old == new else 1)


def test_a_workshop_block_and_its_homework_make_the_whole_notebook():
    for block in estimate_time.WORKSHOP:
        if block.notebook:
            whole, skipped = estimate_time.split(block)
            path = estimate_time.notebook_path(block.notebook)
            cut = estimate_time.parts(estimate_time._cells(path))
            titles = {title for title, _ in skipped}
            kept = [p for p in cut if p.title not in titles]
            assert whole.exact >= sum(m for _, m in skipped) > 0
            assert estimate_time.count(path.name, cut).exact == pytest.approx(whole.exact)
            assert len(kept) < len(cut)


def test_the_plan_refuses_a_part_the_notebook_does_not_have_or_skips_twice():
    with pytest.raises(ValueError, match="no part titled 'No such section'"):
        estimate_time.split(estimate_time.Block("00", notebook="00", skips=("No such section",)))
    with pytest.raises(ValueError, match="twice"):
        estimate_time.split(estimate_time.Block("00", notebook="00", skips=("Exercises", "Exercise 0.2")))


def test_the_readme_mode_answers_with_the_plan(capsys):
    assert estimate_time.main(["--readme"]) == 0
    out = capsys.readouterr().out
    plan = estimate_time.plan()
    assert f"takes {plan.total} minutes and leaves {plan.slack} of slack" in out


def test_the_script_prints_every_notebook_and_a_total(capsys):
    assert estimate_time.main([]) == 0
    out = capsys.readouterr().out
    notebooks = sorted((ROOT / "notebooks").glob("*.ipynb"))
    assert notebooks and all(nb.name in out for nb in notebooks)
    total = out.splitlines()[-1].split()
    assert total[0] == "total"
    assert int(total[7]) == sum(estimate_time.estimate(nb).minutes for nb in notebooks)


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
    assert done.value.code == 0 and "100 words of prose a minute" in capsys.readouterr().out
    with pytest.raises(SystemExit) as done:
        estimate_time.main(["no/such.ipynb"])
    assert done.value.code == 2 and "no notebook at no/such.ipynb" in capsys.readouterr().err
