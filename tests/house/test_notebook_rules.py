"""What every lesson notebook owes its learner, checked on the stored notebooks.

- Its stated time is what ``tools/estimate_time.py`` computes, and no notebook needs more than an hour.
- At least two checked exercises, a question that asks for a prediction before the answer is shown,
  and a "Further reading" section that names the published work the lesson stands on.
- Plain words: no shorthand a learner cannot look up, no test marker in the code, no machine path in a
  stored output.
- Plots a projector can show: no stored image wider than 1,100 pixels; code and text output lines that
  fit the page.
"""
from __future__ import annotations

import base64
import re
import struct
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import estimate_time  # noqa: E402

LESSONS = sorted((ROOT / "notebooks").glob("[0-9][0-9]*.ipynb"))
MAX_MINUTES = 60
MAX_PLOT_PX = 1100
INSIDER = re.compile(r"\bseed\s*\d{3}\b|\bthe article\b|like_the_article|\bseeds?/", re.IGNORECASE)
MACHINE_PATH = re.compile(r"(/work/|/root/|/home/\w+/|/tmp/|site-packages|\.venv/)")
PREDICT = re.compile(r"\bpredict", re.IGNORECASE)
EMOJI = "⏱⏳✅❌"   # drawn as empty boxes where no emoji font is installed (Debian's chromium)


def _cells(path: Path):
    return nbformat.read(path, as_version=4).cells


def _outputs_text(cell) -> str:
    parts = []
    for out in cell.get("outputs", []):
        parts.append(out.get("text", ""))
        parts.extend(out.get("data", {}).get(kind, "") for kind in ("text/plain", "text/html", "text/markdown"))
        parts.extend(out.get("traceback", []))
    return "\n".join(p if isinstance(p, str) else "".join(p) for p in parts)


def png_width(data: str) -> int:
    """The width in pixels of a base64 PNG (from its IHDR chunk)."""
    raw = base64.b64decode(data)
    if raw[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    return struct.unpack(">I", raw[16:20])[0]


def test_there_are_lessons():
    assert len(LESSONS) >= 10


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_the_stated_time_is_the_estimate_and_at_most_an_hour(path):
    estimate = estimate_time.estimate(path)
    assert estimate.stated == estimate.minutes, (
        f"{path.name} states {estimate.stated} minutes; tools/estimate_time.py estimates {estimate.minutes}")
    assert estimate.minutes <= MAX_MINUTES, (
        f"{path.name} needs {estimate.minutes} minutes by the calibrated yardstick: more than "
        f"{MAX_MINUTES}; trim or split it")


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_two_exercises_a_prediction_and_further_reading(path):
    cells = _cells(path)
    markdown = "\n".join(c.source for c in cells if c.cell_type == "markdown")
    assert len(estimate_time.estimate(path).exercises) >= 2, f"{path.name} has fewer than two exercises"
    assert PREDICT.search(markdown), f"{path.name} never asks the learner to predict before running"
    headings = [line for line in markdown.splitlines() if line.startswith("#")]
    assert any("further reading" in h.lower() for h in headings), f"{path.name} has no Further reading"


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_plain_words_and_no_machine_paths(path):
    for i, cell in enumerate(_cells(path)):
        shown = cell.source + "\n" + _outputs_text(cell)
        found = INSIDER.search(shown)
        assert not found, f"{path.name} cell {i} says {found.group()!r}"
        assert "NBVAL" not in cell.source, f"{path.name} cell {i}: a test marker belongs in the cell's tags"
        emoji = set(shown) & set(EMOJI)
        assert not emoji, f"{path.name} cell {i} shows {''.join(emoji)}: a browser without an emoji font draws a box"
        found = MACHINE_PATH.search(_outputs_text(cell))
        assert not found, f"{path.name} cell {i} shows a machine path ({found.group()!r}) in its output"


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_plots_fit_a_projector(path):
    for i, cell in enumerate(_cells(path)):
        for out in cell.get("outputs", []):
            data = out.get("data", {}).get("image/png")
            if data:
                width = png_width(data if isinstance(data, str) else "".join(data))
                assert width <= MAX_PLOT_PX, f"{path.name} cell {i} stores a plot {width} px wide"


def test_png_width_reads_a_real_png_and_refuses_other_data():
    # a 3 x 1 PNG header: signature, IHDR length and type, width 3, height 1
    header = b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + struct.pack(">II", 3, 1)
    assert png_width(base64.b64encode(header).decode()) == 3
    with pytest.raises(ValueError):
        png_width(base64.b64encode(b"GIF89a" + bytes(20)).decode())


def test_the_rules_catch_what_they_name():
    assert INSIDER.search("as seed 004 shows") and INSIDER.search("packed_like_the_article")
    assert not INSIDER.search("a seeded generator: np.random.default_rng(seed=7)")
    assert MACHINE_PATH.search('File "/work/main/teachmem/x.py", line 3')
    assert not MACHINE_PATH.search("teachmem/memory/window.py")


MAX_CODE_LINE = 100
PLACEHOLDER = re.compile(r"^(\w+)\s*=\s*(?:\.\.\.|None)[ \t]*(#.*)?$", re.MULTILINE)


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_code_lines_fit_a_projected_notebook(path):
    for i, cell in enumerate(_cells(path)):
        if cell.cell_type == "code":
            long = [line for line in cell.source.splitlines() if len(line) > MAX_CODE_LINE]
            assert not long, f"{path.name} cell {i} has a code line of {len(long[0])} characters: {long[0][:60]}…"


# A learner at 1280×720 with JupyterLab's file browser open sees about 105 characters of monospace output
# a line; JupyterLab breaks a longer line anywhere, mid-word.
MAX_OUTPUT_LINE = 105


def _long_output_lines(cell) -> list[str]:
    """The stored text lines (stream text and text/plain) of ``cell`` longer than ``MAX_OUTPUT_LINE``."""
    texts = [out.get("text", "") for out in cell.get("outputs", [])]
    texts += [out.get("data", {}).get("text/plain", "") for out in cell.get("outputs", [])]
    lines = "\n".join(t if isinstance(t, str) else "".join(t) for t in texts).split("\n")
    return [line for line in lines if len(line) > MAX_OUTPUT_LINE]


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_outputs_fit_a_projected_notebook(path):
    """Every stored text output line fits the output area of a projected notebook: no word broken in two."""
    for i, cell in enumerate(_cells(path)):
        long = _long_output_lines(cell)
        assert not long, f"{path.name} cell {i} prints a line of {len(long[0])} characters: {long[0][:60]}…"


def test_the_output_width_rule_catches_a_long_line():
    cell = {"outputs": [{"output_type": "stream", "name": "stdout", "text": ["short\n", "x" * 106 + "\n"]},
                        {"output_type": "execute_result", "data": {"text/plain": "y" * 105}}]}
    assert _long_output_lines(cell) == ["x" * 106]


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_a_prediction_is_not_answered_by_a_stored_output(path):
    """The cell that runs a prediction's reveal shows nothing until the prediction is written."""
    cells = _cells(path)
    for i, cell in enumerate(cells):
        found = PLACEHOLDER.findall(cell.source) if cell.cell_type == "code" else []
        for name in [n for n, comment in found if "predict" in (n + comment).lower()]:
            uses = [j for j in range(i + 1, len(cells)) if cells[j].cell_type == "code"
                    and re.search(rf"\b{name}\b", cells[j].source)]
            assert uses, f"{path.name} cell {i}: nothing checks {name}"
            reveal = cells[uses[0]]
            runs = [line for line in reveal.source.splitlines() if line.strip()
                    and not re.match(r"\s*(#|from |import |lesson\.check_)", line)]
            assert not runs or "after_prediction(" in reveal.source, (
                f"{path.name} cell {uses[0]} reveals the answer to {name} without lesson.after_prediction({name})")


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_the_prose_teaches_rather_than_pointing_at_the_tests(path):
    for i, cell in enumerate(_cells(path)):
        if cell.cell_type == "markdown":
            assert not re.search(r"tests/[\w/]+\.py|test_\w+\.py", cell.source), (
                f"{path.name} cell {i} sends the learner to the test suite: say what is checked instead")


def test_the_readme_and_the_instructors_guide_give_the_scripts_figures():
    """Every time in README.md and INSTRUCTOR.md is the script's (python tools/estimate_time.py --readme --write)."""
    plan = estimate_time.plan()
    assert plan.slack >= estimate_time.MIN_SLACK, f"the three-hour plan leaves {plan.slack} minutes of slack"
    stale = estimate_time.check_documents(write=False)
    assert not stale, f"{', '.join(stale)}: run python tools/estimate_time.py --readme --write"
    readme = (ROOT / "README.md").read_text()
    assert f"{plan.total} minutes**, which leaves **{plan.slack} minutes**" in " ".join(readme.split())
    assert " ".join(estimate_time.homework_sentence(plan).split()) in " ".join(readme.split())


def test_the_readme_check_catches_a_stale_figure(tmp_path):
    (tmp_path / "notebooks").mkdir()
    for path in [*LESSONS, ROOT / "notebooks" / "INSTRUCTOR.md"]:
        (tmp_path / "notebooks" / path.name).write_bytes(path.read_bytes())
    readme = (ROOT / "README.md").read_text()
    minutes = estimate_time.estimate(LESSONS[0]).minutes
    row = re.search(rf"^\| 00 \| .* \| {minutes} min \|$", readme, re.MULTILINE)
    assert row, "the README's table has no row for 00 with its time"
    (tmp_path / "README.md").write_text(readme.replace(row.group(), row.group().replace(f"{minutes} min", "1 min")))
    assert estimate_time.check_documents(write=False, root=tmp_path) == ["README.md"]
    assert estimate_time.check_documents(write=True, root=tmp_path) == ["README.md"]
    assert (tmp_path / "README.md").read_text() == readme
