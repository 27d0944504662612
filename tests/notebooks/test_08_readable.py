"""Notebook 08 as a learner reads it (issue 25's findings): the prose counts what the outputs show, the
tables fit the page and say where each metric applies, every figure the prose quotes is printed, and ✓ and
✗ mean one thing."""
import re
from pathlib import Path

import nbformat
import pytest

from teachmem import list_scenarios

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "08_evaluate_memory.ipynb"
NUMBER_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}


@pytest.fixture(scope="module")
def cells():
    return nbformat.read(NOTEBOOK, as_version=4).cells


def printed(cell) -> str:
    return "".join(out.get("text", "") for out in cell.get("outputs", []))


def code_cell(cells, text: str):
    found = [c for c in cells if c.cell_type == "code" and text in c.source]
    assert len(found) == 1, text
    return found[0]


def test_the_prose_counts_as_many_scenarios_as_the_bank_holds(cells):
    """The introduction said "five conversations"; the bank holds six."""
    prose = " ".join(c.source for c in cells if c.cell_type == "markdown")
    counted = re.findall(rf"\b({'|'.join(NUMBER_WORDS)}|\d+) (?:conversations|scenarios)\b", prose, re.IGNORECASE)
    assert counted, "the prose never says how many scenarios there are"
    assert {NUMBER_WORDS.get(n.lower(), n) for n in counted} == {len(list_scenarios())}, counted


def tables(text: str) -> list[list[str]]:
    """Each plain-text table in ``text``: its header, then its rows (the lines under the dashed rule)."""
    lines, found = text.splitlines(), []
    for at, line in enumerate(lines):
        if re.fullmatch(r"-{10,}", line) and at > 0:
            rows = []
            for row in lines[at + 1:]:
                if not row.strip():
                    break
                rows.append(row)
            found.append([lines[at - 1], *rows])
    return found


def test_every_stored_table_has_at_most_seven_columns_and_fits_the_page(cells):
    """The scoreboard was one table of eleven columns, 104 characters wide."""
    shown = [t for c in cells if c.cell_type == "code" for t in tables(printed(c))]
    assert len(shown) >= 2
    for table in shown:
        assert len(table[0].split()) <= 7, table[0]
        assert all(len(line) <= 100 for line in table), table


def test_scores_show_two_or_three_significant_digits_and_no_text_is_cut(cells):
    for cell in (c for c in cells if c.cell_type == "code"):
        text = printed(cell)
        assert "…" not in text, text
        for figure in re.findall(r"(?<![\w.])\d+\.\d+", text):
            digits = figure.replace(".", "").lstrip("0")
            assert len(digits) <= 3, f"{figure} in {text[:80]!r}"


def test_the_mean_table_says_where_deletion_and_staleness_are_measured(cells):
    """It said "mean over 6 scenarios" above a deletion column measured on one scenario."""
    text = printed(code_cell(cells, "mine.tables()"))
    assert text.startswith("mean over the 6 scenarios") and "deleted↓" in text
    assert "deleted↓ is measured where the user asks to forget: on forget_address alone." in text
    intro = next(c.source for c in cells if c.cell_type == "markdown" and c.source.startswith("## 3. The scoreboard"))
    assert "where its metric applies" in intro and "mean over the six scenarios;" not in intro


def test_the_prose_says_what_user_notes_teaches_with_figures_the_notebook_prints(cells):
    """UserNotes tied the buffer and the hybrid on probes with less than half the buffer's tokens; nothing said why
    that matters."""
    at = next(i for i, c in enumerate(cells) if c.cell_type == "code" and "class UserNotes" in c.source)
    text, prose = printed(cells[at]), cells[at + 1].source
    assert cells[at + 1].cell_type == "markdown" and prose.startswith("**What fifteen lines teach.**")
    remembers = tables(text)[0]
    assert remembers[0].split()[1] == "probes↑"
    probes = dict(re.match(r"(.+?)\s+([\d.]+)\s", row).groups() for row in remembers[1:])
    assert probes["buffer"] == probes["hybrid"] == probes["user notes"] == "0.75"       # tied
    share = re.search(r"user notes sends (\d\.\d\d) of the buffer's tokens", text)
    assert share and float(share[1]) < 0.5
    for figure in re.findall(r"\d+\.\d+", prose.split("The batched variant")[0]):
        assert figure in text, f"the prose quotes {figure}, which the cell above does not print"
    assert "0.75" in prose and share[1] in prose and "simplest rule" in prose and "assistant" in prose


def test_in_try_it_a_mark_means_one_thing(cells):
    """✗ meant "missing" on the needs line and "present" on the avoid line."""
    view = printed(code_cell(cells, 'probe_view(board, "traveller_sessions"'))
    avoid = [line for line in view.splitlines() if line.lstrip().startswith("avoid")]
    assert not any("✓" in line or "✗" in line for line in avoid)
    turns = [line for line in view.splitlines() if line.startswith("turn ")]
    assert turns and all(", answered:" in line or ", not answered:" in line for line in turns)
    assert not any("✓" in line or "✗" in line for line in turns)
    guide = next(c.source for c in cells if c.cell_type == "markdown" and c.source.startswith("## Try it"))
    assert "✓ marks a\nfact the context mentions, ✗ one it does not" in guide and "(sent) or (left out)" in guide
